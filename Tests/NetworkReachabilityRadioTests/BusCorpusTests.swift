import Foundation
import Testing
import TestSupport

@testable import NetworkReachabilityRadio

/// The D-Bus fuzz corpus (real traffic of dbusmock's ModemManager and NetworkManager, `Fuzz/capture-dbus-corpus`)
/// and every input the fuzzer ever crashed on, replayed through the same path.
struct BusCorpusTests {
    @Test func everyCapturedMessageDecodesAndTheServicesObjectsAreRead() throws {
        let corpus = FuzzInputs.read("corpus/dbus")
        try #require(corpus.count >= 50, "the committed corpus is missing")
        for (name, bytes) in corpus {
            #expect(throws: Never.self, "\(name)") { try DBusMessage(decoding: bytes) }
        }
        // As one stream, as the socket delivers them: every message is applied where it belongs, but those longer
        // than the harness's reader takes, which are discarded as they arrive, never held whole
        let longer = corpus.filter { $0.bytes.count > BusBytes.allowance }.count
        try #require(longer >= 1, "the corpus has no message longer than the reader takes")
        for chunk in [65536, 4096, 7] {
            let tally = BusBytes.exercise(corpus.flatMap(\.bytes), chunkLength: chunk)
            #expect(tally.decoded == corpus.count - longer && tally.skipped == longer && tally.malformed == 0)
            #expect(tally.applied > 10)
            #expect(tally.largestBuffer <= BusBytes.allowance + chunk)
        }
    }

    @Test func everyInputTheFuzzerCrashedOnIsNowHandled() {
        for (_, bytes) in FuzzInputs.read("regressions/dbus") { _ = BusBytes.exercise(bytes) }
    }
}
