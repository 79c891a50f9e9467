package import ArgumentParser

/// A first argument one typing mistake from a subcommand's name: `reach wach` is a mistyped command, not a host
/// lookup, and `reach queue ad` one, not three unexpected arguments. Every program says so the same way.
package enum MistypedCommand {
    /// Throws `unknown command 'WORD'; did you mean 'NAME'?` (bad input, exit 64) when the first of `arguments` is
    /// one typing mistake from a subcommand of `root`.
    package static func check(
        _ root: any ParsableCommand.Type, arguments: ArraySlice<String> = CommandLine.arguments.dropFirst()
    ) throws {
        if let word = arguments.first, let meant = subcommand(oneEditFrom: word, of: root) {
            throw ValidationError("unknown command '\(word)'; did you mean '\(meant)'?")
        }
    }

    /// The subcommand of `root` that `word` is one typing mistake away from (one letter added, dropped or changed,
    /// or two neighbours swapped), when `word` is none itself.
    package static func subcommand(oneEditFrom word: String, of root: any ParsableCommand.Type) -> String? {
        let names = root.configuration.subcommands.compactMap { $0.configuration.commandName }
        guard !names.contains(word) else { return nil }
        return names.first { isOneEdit(Array(word), Array($0)) || isOneSwap(Array(word), Array($0)) }
    }

    private static func isOneSwap(_ typed: [Character], _ name: [Character]) -> Bool {
        guard typed.count == name.count else { return false }
        let differing = typed.indices.filter { typed[$0] != name[$0] }
        guard differing.count == 2, differing[1] == differing[0] + 1 else { return false }
        return typed[differing[0]] == name[differing[1]] && typed[differing[1]] == name[differing[0]]
    }

    private static func isOneEdit(_ typed: [Character], _ name: [Character]) -> Bool {
        guard abs(typed.count - name.count) <= 1 else { return false }
        var (i, j, edits) = (0, 0, 0)
        while i < typed.count && j < name.count {
            if typed[i] == name[j] {
                (i, j) = (i + 1, j + 1)
                continue
            }
            edits += 1
            if edits > 1 { return false }
            if typed.count > name.count {
                i += 1
            } else if typed.count < name.count {
                j += 1
            } else {
                (i, j) = (i + 1, j + 1)
            }
        }
        return edits + (typed.count - i) + (name.count - j) == 1
    }
}
