import NetworkReachabilityCore
@testable import NetworkReachabilitySettings
import Testing
import TestSupport

/// The settings file's format: what it takes, the line each mistake is named on, and an edit that keeps the rest.
struct NetworkSettingsFileTests {
    private let path = "/etc/reach/networks"

    private func parse(_ text: String) throws(NetworkSettingsError) -> [String: NetworkSettings] {
        Dictionary(uniqueKeysWithValues: try NetworkSettingsFile.parse(text, path: path).map { ($0.id, $0.settings) })
    }

    /// The line a malformed `text` is refused on, and the reason.
    private func refusal(_ text: String) -> (line: Int, reason: String)? {
        do {
            _ = try NetworkSettingsFile.parse(text, path: path)
            return nil
        } catch {
            guard case .malformed(let file, let line, let reason) = error, file == path else { return nil }
            return (line, reason)
        }
    }

    @Test func aFileGivesLabelsMeteredOverridesAndProbeURLsByNetwork() throws {
        let parsed = try parse(
            """
            # home and the phone
            A3F9C0D1E2B3A4F5:
              label: home
              metered: no
            "7c21d0e9f8a7b6c5":
              label: "phone"
            0000000000000001:
              metered: on
              validate: https://probe.example.net/generate_204
            0000000000000002:
            """)
        #expect(parsed["a3f9c0d1e2b3a4f5"] == NetworkSettings(label: "home", isMetered: false))
        #expect(parsed["7c21d0e9f8a7b6c5"] == NetworkSettings(label: "phone"))
        #expect(parsed["0000000000000001"] == NetworkSettings(isMetered: true, validationURL: "https://probe.example.net/generate_204"))
        #expect(parsed["0000000000000002"] == NetworkSettings())
        #expect(try parse("") == [:] && parse("# nothing yet\n") == [:])
    }

    @Test func eachMistakeIsNamedOnItsLine() {
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  label: home\n  meterd: no\n")?.line == 3)
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  label: home\n  meterd: no\n")?.reason.contains("'meterd' is no setting") == true)
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  metered: perhaps\n")?.line == 2)
        #expect(refusal("a3f9:\n  label: x\n")?.line == 1)
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  label: a\nA3F9C0D1E2B3A4F5:\n  label: b\n")?.reason.contains("first on line 1") == true)
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  label: [home\n")?.line == 3)
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  label:\n")?.reason.contains("no value") == true)
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  label: [a, b]\n")?.line == 2)
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  validate: ftp://x/\n")?.line == 2)
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  label: 0123456789abcdef\n") != nil)
        #expect(refusal("- a3f9c0d1e2b3a4f5\n")?.reason.contains("mapping of network ids") == true)
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  label: x\n  label: y\n") != nil)
        #expect(refusal("a3f9c0d1e2b3a4f5: home\n") != nil)
    }

    @Test func labelsAreShortPrintableAndNeverReadAsAnIDOrAList() {
        #expect(NetworkSettingsFile.labelProblem("home") == nil)
        #expect(NetworkSettingsFile.labelProblem("Café Wi-Fi (2nd floor)") == nil)
        for bad in ["", String(repeating: "x", count: 65), "a,b", " home", "home ", "a\u{7}b", "a\nb", "a\u{200B}b", "DEADBEEFDEADBEEF"] {
            #expect(NetworkSettingsFile.labelProblem(bad) != nil, "\(bad.debugDescription)")
        }
        #expect(NetworkSettingsFile.urlProblem("http://probe.example/generate_204") == nil)
        for bad in ["probe.example", "http://", "http:///x", "https://a b/", "file:///etc/passwd"] {
            #expect(NetworkSettingsFile.urlProblem(bad) != nil, "\(bad)")
        }
    }

    @Test func recordingReplacesOneEntryAndKeepsEveryOtherLine() throws {
        let text = """
            # my networks
            a3f9c0d1e2b3a4f5:   # home
              label: home
              metered: no

            # the office
            0000000000000001:
              label: office

            """
        let edited = try NetworkSettingsFile.recording(
            NetworkSettings(label: "home2", isMetered: true), for: "a3f9c0d1e2b3a4f5", in: text, path: path)
        #expect(edited == """
            # my networks
            a3f9c0d1e2b3a4f5:
              label: "home2"
              metered: yes

            # the office
            0000000000000001:
              label: office

            """)
        let added = try NetworkSettingsFile.recording(NetworkSettings(label: "say \"hi\" \\ o/"), for: "00000000000000ff", in: edited, path: path)
        #expect(added.hasPrefix(edited))
        #expect(try parse(added)["00000000000000ff"]?.label == "say \"hi\" \\ o/")
        #expect(try parse(added).count == 3)

        // A flow-style file cannot be edited line by line: it is written anew from what it says
        let flow = try NetworkSettingsFile.recording(
            NetworkSettings(label: "b"), for: "0000000000000002", in: "{0000000000000001: {label: a}}\n", path: path)
        #expect(try parse(flow) == ["0000000000000001": NetworkSettings(label: "a"), "0000000000000002": NetworkSettings(label: "b")])
        // A malformed file is not touched
        #expect(throws: NetworkSettingsError.self) {
            try NetworkSettingsFile.recording(NetworkSettings(label: "b"), for: "0000000000000002", in: "x: [\n", path: path)
        }
    }

    @Test func networkSettingsOverrideFieldByFieldAndAnIdentityTakesThemWhole() {
        let host = NetworkSettings(label: "home", isMetered: false, validationURL: "http://a/")
        let user = NetworkSettings(isMetered: true)
        #expect(host.overridden(by: user) == NetworkSettings(label: "home", isMetered: true, validationURL: "http://a/"))
        let identity = NetworkIdentity(id: "a3f9c0d1e2b3a4f5", label: "stated", ingredients: [.gatewayMAC])
        #expect(identity.applying(host).label == "home" && identity.applying(host).isMetered == false)
        #expect(identity.applying(nil) == NetworkIdentity(id: "a3f9c0d1e2b3a4f5", ingredients: [.gatewayMAC]))
        #expect(identity.isNamed("stated") && identity.isNamed("A3F9C0D1E2B3A4F5") && !identity.isNamed("a3f"))
    }

    @Test func aliasesDeepNestingAndBytesThatAreNotUTF8AreRefusedBeforeTheYAMLIsComposed() throws {
        // 440 bytes of aliases used as a key: refused on the line of the first anchor, before the composer
        // hashes 10^9 nodes
        var bomb = "a0: &a0 [x,x,x,x,x,x,x,x,x,x]\n"
        for level in 1...8 { bomb += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ",") + "]\n" }
        bomb += "? *a8\n: 1\n"
        #expect(refusal(bomb)?.line == 1 && refusal(bomb)?.reason.contains("anchors and aliases") == true)
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  label: home\n  metered: *m\n")?.line == 3)
        #expect(refusal("- !!str &a x\n") != nil)
        // Nesting that would take the composer's stack
        #expect(refusal(String(repeating: "[", count: 100_000))?.reason.contains("nesting deeper than 16") == true)
        // & and * inside a value, quoted or in a plain word, are text
        #expect(try parse("a3f9c0d1e2b3a4f5:\n  label: AT&T *home*\n  validate: http://p.example/?a=1&b=*\n")["a3f9c0d1e2b3a4f5"]
            == NetworkSettings(label: "AT&T *home*", validationURL: "http://p.example/?a=1&b=*"))
        let flow = try parse("a3f9c0d1e2b3a4f5: {label: \"*x\", metered: no}\n")
        #expect(flow["a3f9c0d1e2b3a4f5"] == NetworkSettings(label: "*x", isMetered: false))
        // Bytes that are not UTF-8 are named by their line
        let bytes = Array("a3f9c0d1e2b3a4f5:\n  label: ".utf8) + [0xFF, 0xFE, 0x0A]
        #expect(throws: NetworkSettingsError.malformed(path: path, line: 2, reason: "not UTF-8 text")) {
            try NetworkSettingsFile.parse(bytes, path: path)
        }
    }

    @Test func quotedBooleansCountAndALabelIsShortInCodePoints() throws {
        #expect(try parse("a3f9c0d1e2b3a4f5:\n  metered: \"Yes\"\n")["a3f9c0d1e2b3a4f5"]?.isMetered == true)
        #expect(refusal("a3f9c0d1e2b3a4f5:\n  metered: \"maybe\"\n")?.reason == "metered is yes or no, not 'maybe'")
        // 64 graphemes of 901 code points each would be 115 KB in every metric line
        let heavy = String(repeating: "e" + String(repeating: "\u{301}", count: 900), count: 64)
        #expect(NetworkSettingsFile.labelProblem(heavy) == "a label has 1 to 64 characters, not 57664")
        #expect(NetworkSettingsFile.labelProblem(String(repeating: "é", count: 64)) == nil)
        // An id's first digits, as reach watch prints them, name the network too
        let identity = NetworkIdentity(id: "a3f9c0d1e2b3a4f5", ingredients: [.gatewayMAC])
        #expect(identity.isNamed("a3f9") && identity.isNamed("A3F9C0…") && !identity.isNamed("a3f") && !identity.isNamed("a3f8"))
    }

    @Test func aFileWithCRLFEndsKeepsThemAndItsComments() throws {
        let text = "# office notes\r\n0000000000000010:\r\n  label: a # keep me\r\n\r\n# phone below\r\n0000000000000011:\r\n  label: b\r\n"
        let edited = try NetworkSettingsFile.recording(NetworkSettings(label: "c"), for: "0000000000000011", in: text, path: path)
        #expect(edited == "# office notes\r\n0000000000000010:\r\n  label: a # keep me\r\n\r\n# phone below\r\n0000000000000011:\r\n  label: \"c\"\r\n")
    }

    @Test func textMadeOfTheFormatsOwnPiecesIsTakenOrRefusedWithALineNeverACrash() {
        // Pieces of YAML and of this format, in random order: every outcome is a result or a malformed line in range
        let pieces = [
            "a3f9c0d1e2b3a4f5", ":", " ", "  ", "\n", "\r\n", "label", "metered", "validate", "yes", "no", "\"", "'", "\\",
            "#", "&a", "*a", "[", "]", "{", "}", ",", "-", "?", "!!str", "|", ">", "http://p.example/", "\u{301}", "\t",
            "---", "...", "%YAML 1.1", "<<", "~", "null", "é", "\u{0}",
        ]
        var generator = SplitMix64(seed: 54)
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 1...40, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            do {
                _ = try NetworkSettingsFile.parse(Array(text.utf8), path: path)
            } catch {
                guard case .malformed(_, let line, _) = error else {
                    Issue.record("\(text.debugDescription): \(error)")
                    continue
                }
                let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.count
                #expect((1...max(1, lines + 1)).contains(line), "\(text.debugDescription): line \(line)")
            }
        }
    }
}
