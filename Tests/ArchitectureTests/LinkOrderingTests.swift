import Foundation
import Testing
import TestSupport

/// `Linking/hot-functions.txt`, the order in which `scripts/build-reach` lays out the functions a change runs, still
/// names this package's functions: lld skips a name that no longer exists without a word, so a renamed pass would
/// silently lose the layout (and its 10 %) while every build went on succeeding.
@Suite(.ownThread)
struct LinkOrderingTests {
    private static let root = LayerRulesTests.root

    /// The list's names of this package's own functions, but those only an optimized build makes: specializations
    /// (`Tg5`, `Tf…`), outlined copies and value operations (`WO…`), lazy witness table accessors (`Wl`) and partial
    /// applications, whose names carry a number the optimizer gives.
    private static func listedFunctions() throws -> [String] {
        let lines = try TestFile.text(root.appending(path: "Linking/hot-functions.txt").path).split(separator: "\n")
        let optimizerOnly = ["Tg5", "Tf", "WO", "Wl", "TA", "TR", "Tm"]
        return lines.map(String.init).filter { name in
            name.range(of: #"^\$s[0-9]+(NetworkReachability|reach)"#, options: .regularExpression) != nil
                && !optimizerOnly.contains { name.contains($0) }
        }
    }

    /// The functions this build defines in the modules a change runs through, from their object files (the test
    /// bundle's build: mangled names are the same at every optimization level).
    private static func definedFunctions() throws -> Set<String> {
        let build = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        let modules = ["NetworkReachabilityCore", "NetworkReachabilityLinux", "NetworkReachabilityPOSIX", "NetworkReachabilityRadio"]
        var defined: Set<String> = []
        for module in modules {
            let directory = build.appending(path: "\(module).build")
            let objects = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".o") }
            try #require(!objects.isEmpty, "no objects in \(directory.path)")
            let symbols = try Command.run(["nm", "--defined-only"] + objects.map { directory.appending(path: $0).path }, check: true)
            for line in symbols.lines {
                let fields = line.split(separator: " ")
                if fields.count == 3 { defined.insert(String(fields[2])) }
            }
        }
        return defined
    }

    @Test func theOrderingListNamesThePassAndTheFunctionsOfThisBuild() throws {
        let text = try TestFile.text(Self.root.appending(path: "Linking/hot-functions.txt").path)
        // The change path's steps, from the socket to the printed line
        let steps = [
            "NetlinkSubscriptionC5drain", "0B7MonitorC4pass", "15TargetEvaluatorC8snapshot", "13KernelQueriesC",
            "15SnapshotPrinterV9humanLine", "swift_retain",
        ]
        for step in steps { #expect(text.contains(step), "Linking/hot-functions.txt lacks \(step)") }
        let build = try TestFile.text(Self.root.appending(path: "scripts/build-reach").path)
        #expect(build.contains("--symbol-ordering-file=$PWD/Linking/hot-functions.txt"))

        let listed = try Self.listedFunctions()
        let defined = try Self.definedFunctions()
        // The monitor's pass, which every change runs
        let pass = listed.filter { $0.hasPrefix("$s23NetworkReachabilityCore0B7MonitorC4pass") && $0.contains("5after7through") }
        #expect(!pass.isEmpty, "the list does not name ReachabilityMonitor.pass(after:through:)")
        #expect(pass.allSatisfy(defined.contains), "the list's pass is not this build's: run scripts/hot-functions")
        // And most of the rest: a list whose names drift away from the code lays out less and less
        let stale = listed.filter { !defined.contains($0) }
        print("hot-functions.txt: \(listed.count - stale.count) of \(listed.count) of the package's functions are this build's")
        #expect(listed.count >= 100)
        #expect(stale.count * 10 <= listed.count, "\(stale.count) of \(listed.count) stale, e.g. \(stale.prefix(3)): run scripts/hot-functions")
    }
}
