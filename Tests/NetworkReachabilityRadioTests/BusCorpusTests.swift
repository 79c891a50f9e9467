import Foundation
import Testing

@testable import NetworkReachabilityRadio

/// The D-Bus fuzz corpus (real traffic of dbusmock's ModemManager and NetworkManager, `Fuzz/capture-dbus-corpus`)
/// and every input the fuzzer ever crashed on, replayed through the same path.
struct BusCorpusTests {
    private static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    private static func inputs(_ folder: String) -> [(name: String, bytes: [UInt8])] {
        let directory = fuzzDirectory.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().compactMap { name in
            (try? Data(contentsOf: directory.appendingPathComponent(name))).map { (name, Array($0)) }
        }
    }

    @Test func everyCapturedMessageDecodesAndTheServicesObjectsAreRead() throws {
        let corpus = Self.inputs("corpus/dbus")
        try #require(corpus.count >= 50, "the committed corpus is missing")
        for (name, bytes) in corpus {
            #expect(throws: Never.self, "\(name)") { try DBusMessage(decoding: bytes) }
        }
        // As one stream, as the socket delivers them: every message is applied where it belongs
        let tally = BusBytes.exercise(corpus.flatMap(\.bytes))
        #expect(tally.decoded == corpus.count && tally.malformed == 0)
        #expect(tally.applied > 10)
    }

    @Test func everyInputTheFuzzerCrashedOnIsNowHandled() {
        for (_, bytes) in Self.inputs("regressions/dbus") { _ = BusBytes.exercise(bytes) }
    }
}
