/// The Prometheus text of a registry with its families in name order, so two hosts' `/metrics` (or two scrapes')
/// list the same families in the same order; the registry keeps them in a dictionary, whose order changes with
/// every process. A family's lines stay as the registry wrote them (a histogram's must). One pass over the bytes and a
/// sort of the few dozen families: with 1,000 targets, a sort of every line took a debug build 0.1 s a scrape.
enum ExpositionOrder {
    /// `exposition` with its families in name order.
    static func sorted(_ exposition: [UInt8]) -> [UInt8] {
        exposition.withUnsafeBufferPointer { bytes in
            // Each family: the range of its name and of its lines, from its first `# HELP` or `# TYPE` line.
            var families: [(name: Range<Int>, lines: Range<Int>)] = []
            let hash = UInt8(ascii: "#"), newline = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count && bytes[lineEnd] != newline { lineEnd += 1 }
                lineEnd = min(lineEnd + 1, bytes.count)
                if bytes[lineStart] == hash, lineEnd - lineStart > 7 {
                    // `# HELP name …` or `# TYPE name …`: the name starts at the 8th byte
                    var nameEnd = lineStart + 7
                    while nameEnd < lineEnd && bytes[nameEnd] != space && bytes[nameEnd] != newline { nameEnd += 1 }
                    let name = (lineStart + 7)..<nameEnd
                    if families.last.map({ !bytes[$0.name].elementsEqual(bytes[name]) }) ?? true {
                        families.append((name, lineStart..<lineEnd))
                    }
                }
                if families.isEmpty { families.append((0..<0, lineStart..<lineEnd)) }  // lines before any header: first
                families[families.count - 1].lines = families[families.count - 1].lines.lowerBound..<lineEnd
                lineStart = lineEnd
            }
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count)
            for family in families.sorted(by: { bytes[$0.name].lexicographicallyPrecedes(bytes[$1.name]) }) {
                result.append(contentsOf: bytes[family.lines])
            }
            return result
        }
    }
}
