import Foundation
import Testing
import TestSupport

/// ARCHITECTURE.md's rules, each checked here where the compiler does not check it by itself: the imports each layer
/// may have, the module graph, the threads and locks the library may use, and the files the path of a change names.
struct LayerRulesTests {
    /// The package's folder.
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every Swift file under `Sources/module`, with its text.
    private static func sources(of module: String) throws -> [(path: String, text: String)] {
        let directory = root.appending(path: "Sources/\(module)")
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        return try walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { file in
            ("\(module)/\(file)", try TestFile.text(directory.appending(path: file).path))
        }
    }

    /// The modules `text` imports, however it imports them (`@testable`, `@_exported`, `internal`, `package`,
    /// `public`, indented under `#if`).
    static func imports(_ text: String) -> Set<String> {
        let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
        return Set(
            text.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") && !modifiers.contains($0) }
                guard words.count >= 2, words[0] == "import" else { return nil }
                return String(words[1])
            })
    }

    private static let libraryModules = [
        "NetworkReachabilityCore", "NetworkReachabilityLinux", "NetworkReachabilityPOSIX", "NetworkReachabilityKit",
        "NetworkReachabilityRadio", "NetworkReachabilityTesting", "NetworkReachabilityValidationCore",
        "NetworkReachabilityValidation", "NetworkReachabilityNotifications", "NetworkReachabilityExporter",
        "NetworkReachabilityQueue",
    ]
    /// The programs, and what they share.
    private static let commandModules = ["reach", "reach-queue", "ReachCommandLine"]

    @Test func theCoreImportsNoCLibraryAndNoPlatformModule() throws {
        let allowed: Set = ["CoreMetrics", "Dispatch", "Logging", "NetworkReachabilityPOSIX", "Synchronization"]
        let files = try Self.sources(of: "NetworkReachabilityCore")
        #expect(files.count > 40)
        for file in files {
            let beyond = Self.imports(file.text).subtracting(allowed)
            #expect(beyond.isEmpty, "\(file.path) imports \(beyond.sorted())")
        }
    }

    @Test func importsAreReadWhateverTheirAccessOrAttribute() {
        let text = "internal import A\npackage import B\n@_exported public import C\n    import D\n// import E\nimportant F"
        #expect(Self.imports(text) == ["A", "B", "C", "D"])
    }

    @Test func onlyTheLinuxBackendUsesTheCShimsOfTheKernel() throws {
        for module in Self.libraryModules + Self.commandModules {
            for file in try Self.sources(of: module) {
                let shims = Self.imports(file.text).intersection(["CNetlink"])
                #expect(module == "NetworkReachabilityLinux" || shims.isEmpty, "\(file.path) imports CNetlink")
                let crypt = Self.imports(file.text).contains("CCrypt")
                #expect(module == "NetworkReachabilityExporter" || !crypt, "\(file.path) imports CCrypt")
                let process = Self.imports(file.text).contains("CProcess")
                #expect(module == "reach-queue" || !process, "\(file.path) imports CProcess")
                let fileSystem = Self.imports(file.text).contains("CFileSystem")
                #expect(module == "NetworkReachabilityQueue" || !fileSystem, "\(file.path) imports CFileSystem")
                let arguments = Self.imports(file.text).contains("ArgumentParser")
                #expect(Self.commandModules.contains(module) || !arguments, "\(file.path) imports ArgumentParser")
            }
        }
    }

    @Test func theSimulatedNetworkKnowsNothingOfLinux() throws {
        let files = try Self.sources(of: "NetworkReachabilityTesting").filter { $0.path.contains("/Simulation/") }
        #expect(files.count >= 5)
        for file in files {
            let linux = Self.imports(file.text).intersection([
                "NetworkReachabilityLinux", "NetworkReachabilityKit", "CNetlink", "Glibc",
            ])
            #expect(linux.isEmpty, "\(file.path) imports \(linux.sorted())")
        }
    }

    /// The package's targets as `swift package dump-package` describes them.
    private static func packageTargets() throws -> [[String: Any]] {
        let dump = Process()
        dump.executableURL = URL(filePath: "/usr/bin/env")
        dump.arguments = ["swift", "package", "--ignore-lock", "--package-path", Self.root.path, "dump-package"]  // `swift test` holds the lock
        let output = Pipe()
        dump.standardOutput = output
        dump.standardError = FileHandle.nullDevice
        try dump.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        dump.waitUntilExit()
        let package = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(package["targets"] as? [[String: Any]])
    }

    /// What target `name` of `targets` declares it depends on: targets and products by name.
    private static func dependencies(_ name: String, in targets: [[String: Any]]) -> Set<String> {
        let target = targets.first { $0["name"] as? String == name }
        let listed = target?["dependencies"] as? [[String: Any]] ?? []
        return Set(
            listed.compactMap { entry in
                if let byName = entry["byName"] as? [Any] { return byName.first as? String }
                if let target = entry["target"] as? [Any] { return target.first as? String }
                if let product = entry["product"] as? [Any] { return product.first as? String }
                return nil
            })
    }

    /// Everything target `name` depends on, however deep, through the package's own targets (another package's
    /// product ends a path).
    private static func closure(_ name: String, in targets: [[String: Any]]) -> Set<String> {
        let names = Set(targets.compactMap { $0["name"] as? String })
        var seen: Set<String> = []
        var next = [name]
        while let current = next.popLast() {
            for dependency in dependencies(current, in: targets) where seen.insert(dependency).inserted {
                if names.contains(dependency) { next.append(dependency) }
            }
        }
        return seen
    }

    @Test func theModuleGraphIsTheLayers() throws {
        let targets = try Self.packageTargets()
        func dependencies(_ name: String) -> Set<String> { Self.dependencies(name, in: targets) }
        #expect(dependencies("NetworkReachabilityPOSIX").isEmpty)
        #expect(dependencies("NetworkReachabilityCore") == ["NetworkReachabilityPOSIX", "Logging", "CoreMetrics"])
        #expect(dependencies("NetworkReachabilityLinux").isSuperset(of: ["NetworkReachabilityCore", "CNetlink"]))
        #expect(dependencies("NetworkReachabilityKit") == ["NetworkReachabilityCore", "NetworkReachabilityLinux", "Logging"])
        // What a server embeds, what a test simulates and the validator's core pull in no platform backend, however
        // deep: one default argument of the validator's core once linked the Linux module into all three.
        let backend: Set = ["NetworkReachabilityLinux", "NetworkReachabilityKit", "CNetlink"]
        for name in ["NetworkReachabilityExporter", "NetworkReachabilityTesting", "NetworkReachabilityValidationCore"] {
            let reached = Self.closure(name, in: targets).intersection(backend)
            #expect(reached.isEmpty, "\(name) reaches \(reached.sorted())")
        }
        #expect(Self.closure("NetworkReachabilityCore", in: targets) == ["NetworkReachabilityPOSIX", "Logging", "CoreMetrics"])
        for name in Self.libraryModules {
            #expect(!Self.closure(name, in: targets).contains("ArgumentParser"), "\(name) reaches ArgumentParser")
        }
        // A package that depends on this one by version cannot use a product with a target that has unsafe flags,
        // and every adopter's resolve reads the manifest: the deployed build's link flags are scripts/build-reach's
        let unsafe = targets.filter { target in
            (target["settings"] as? [Any]).map { "\($0)".contains("unsafeFlags") } ?? false
        }
        #expect(unsafe.isEmpty, "\(unsafe.compactMap { $0["name"] as? String })")
    }

    /// Every module imports only what it declares (or the system's modules): a module seen only through another's
    /// dependency builds here and breaks when that one changes.
    @Test func everyImportIsADeclaredDependency() throws {
        let targets = try Self.packageTargets()
        let system: Set = [
            "Foundation", "FoundationEssentials", "Dispatch", "Glibc", "Musl", "Darwin", "Synchronization", "_Concurrency",
        ]
        for module in Self.libraryModules + Self.commandModules {
            let declared = Self.dependencies(module, in: targets).union(system)
            for file in try Self.sources(of: module) {
                let undeclared = Self.imports(file.text).subtracting(declared)
                #expect(undeclared.isEmpty, "\(file.path) imports \(undeclared.sorted()), which \(module) does not declare")
            }
        }
    }

    /// The compiler holds every file to the imports it writes: a member of a module the file does not import, or a
    /// module its public interface needs without `public import`, fails the build; the README's examples too, as in an
    /// adopter's target that turns the features on.
    @Test func theCompilerHoldsEveryModuleToItsOwnImports() throws {
        let features = ["MemberImportVisibility", "InternalImportsByDefault"]
        let loose = try Self.packageTargets().compactMap { target -> String? in
            guard target["type"] as? String != "plugin" else { return nil }
            let settings = "\(target["settings"] ?? [])"
            return features.allSatisfy(settings.contains) ? nil : target["name"] as? String
        }
        let cTargets = ["CNetlink", "CCrypt", "CProcess", "CFileSystem", "CFuzzDriver"]
        #expect(Set(loose) == Set(cTargets))
    }

    /// The backend hands answers to the monitor and never sees who listens.
    @Test func theBackendKnowsNothingOfListeners() throws {
        for file in try Self.sources(of: "NetworkReachabilityLinux") {
            #expect(!file.text.contains("Consumer"), "\(file.path) names a Consumer")
        }
    }

    @Test func theLibraryNeverStartsDispatchsPoolButWhenTheSystemRefusesAThread() throws {
        // The exporter's one queue takes the validator's outcomes, when validation is on, in a server that runs
        // SwiftNIO's threads anyway.
        for module in Self.libraryModules {
            for file in try Self.sources(of: module) {
                let uses = file.text.split(separator: "\n").filter {
                    !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//")
                        && ($0.contains("DispatchQueue(label") || $0.contains("DispatchQueue.global")
                            || $0.contains("DispatchSource"))
                }
                let allowed = ["/SerialLane.swift", "/DeadlineTimer.swift", "/ReachabilityExporter.swift"]
                #expect(uses.isEmpty || (allowed.contains { file.path.hasSuffix($0) } && uses.count == 1), "\(file.path): \(uses)")
            }
        }
    }

    @Test func sharedStateIsBehindLocksThreadSanitizerSees() throws {
        for module in Self.libraryModules + Self.commandModules {
            for file in try Self.sources(of: module) {
                #expect(!file.text.contains("Mutex<"), "\(file.path) uses Synchronization.Mutex")
                #expect(!file.text.contains("NSLock"), "\(file.path) uses NSLock")
            }
        }
    }

    @Test func noLockHoldsAFunctionAsItsValue() throws {
        // Each unspecialized withLock reabstracts its body's inout parameter and writes it back, wrapping a stored
        // function in two more thunks: a handler read once per change grew without bound (ChangeHandlerTests)
        let functionValue = /(Locked|ConditionLock)<[^>]*->/
        for module in Self.libraryModules + Self.commandModules {
            for file in try Self.sources(of: module) {
                let keepsAFunction = file.text.contains(functionValue)
                #expect(!keepsAFunction, "\(file.path) keeps a function as a lock's value")
            }
        }
    }

    @Test func reachLoadsNeitherTheQueueNorAllOfFoundation() throws {
        // `reach queue` is reach-queue: SQLite, GRDB and the Foundation they bring cost every `reach watch` about
        // 6 MiB resident (Benchmarks/results/2026-11-27-durable-queue.md)
        for module in ["reach", "ReachCommandLine"] {
            for file in try Self.sources(of: module) {
                for forbidden in ["import NetworkReachabilityQueue", "import GRDB", "import Foundation\n"] {
                    #expect(!file.text.contains(forbidden), "\(file.path): \(forbidden)")
                }
            }
        }
    }

    @Test func filesAreReadWholeOnlyBySmallFile() throws {
        // Foundation's whole-file readers leak 4 KiB for every empty file under Swift 6.3.1 on Linux (a log read
        // before its first line failed the ASan run) and read a file of any size before it can be refused.
        let readers = ["String(contentsOfFile:", "String(contentsOf:", "Data(contentsOf:", ".contents(atPath:"]
        var files = try (Self.libraryModules + Self.commandModules).flatMap { try Self.sources(of: $0) }
        let tests = Self.root.appending(path: "Tests")
        for case let file as String in FileManager.default.enumerator(atPath: tests.path) ?? .init()
        where file.hasSuffix(".swift") && !file.hasSuffix("/LayerRulesTests.swift") {
            files.append(("Tests/\(file)", try TestFile.text(tests.appending(path: file).path)))
        }
        #expect(files.count > 100)
        for file in files {
            let uses = file.text.split(separator: "\n").filter { line in
                !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && readers.contains { line.contains($0) }
            }
            #expect(uses.isEmpty, "\(file.path): \(uses)")
        }
    }

    @Test func everyFileThePathsOfAChangeNameExists() throws {
        let architecture = try TestFile.text(Self.root.appending(path: "ARCHITECTURE.md").path)
        // Backticked paths with a folder and a Swift file name: `Kernel/NetlinkSubscription.swift`
        let named = architecture.split(separator: "`").map(String.init).filter {
            $0.hasSuffix(".swift") && $0.contains("/") && !$0.contains(" ")
        }
        #expect(named.count > 20)
        let all = try (Self.libraryModules + Self.commandModules).flatMap { try Self.sources(of: $0) }.map(\.path)
        for path in Set(named) {
            let exists =
                all.contains { $0.hasSuffix("/" + path) || $0 == path }
                || FileManager.default.fileExists(atPath: Self.root.appending(path: path).path)  // `Tests/…`
            #expect(exists, "ARCHITECTURE.md names \(path), which does not exist")
        }
    }
}
