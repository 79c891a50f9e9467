import Foundation

/// The committed fuzz inputs under `Fuzz/`: each corpus and each folder of inputs a fuzzer once crashed on.
public enum FuzzInputs {
    private static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The files of `Fuzz/<folder>` (such as `corpus/netlink`), by name, sorted.
    public static func read(_ folder: String) -> [(name: String, bytes: [UInt8])] {
        let folder = directory.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        // Hidden files (.keep) are not inputs; skipping them also avoids FoundationEssentials leaking 4 KiB per
        // empty file read, which AddressSanitizer reports.
        return names.filter { !$0.hasPrefix(".") }.sorted().compactMap { name in
            (try? TestFile.bytes(folder.appendingPathComponent(name).path)).map { (name, Array($0)) }
        }
    }
}
