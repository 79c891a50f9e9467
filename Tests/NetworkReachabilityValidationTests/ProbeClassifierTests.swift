import Testing

@testable import NetworkReachabilityValidationCore

/// How a probe's response reads, as Android's and NetworkManager's connectivity checks read it.
struct ProbeClassifierTests {
    private let probe = "http://probe.example/generate_204"

    private func classify(_ response: ProbeResponse) -> ProbeClassifier.Verdict {
        ProbeClassifier.classify(response, probeURL: probe)
    }

    @Test func noContentValidates() {
        #expect(classify(.http(status: 204, location: nil, body: [])) == .validated)
    }

    @Test func anEmptyOKValidatesButAPageIsAPortal() {
        #expect(classify(.http(status: 200, location: nil, body: [])) == .validated)
        #expect(classify(.http(status: 200, location: nil, body: Array("<html>log in</html>".utf8))) == .portal(redirect: nil))
        #expect(classify(.http(status: 206, location: nil, body: [1])) == .portal(redirect: nil))
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func aRedirectIsAPortalWhoseLoginIsItsAbsoluteTarget(status: Int) {
        #expect(
            classify(.http(status: status, location: "https://portal.example/login?x=1", body: []))
                == .portal(redirect: "https://portal.example/login?x=1"))
        #expect(classify(.http(status: status, location: "/login", body: [])) == .portal(redirect: "http://probe.example/login"))
        #expect(classify(.http(status: status, location: nil, body: [])) == .portal(redirect: nil))
    }

    @Test(arguments: [400, 403, 404, 500, 502, 503])
    func anErrorStatusIsLimited(status: Int) {
        #expect(classify(.http(status: status, location: nil, body: [])) == .limited("HTTP status \(status)"))
    }

    @Test func noResponseIsLimitedWithItsReason() {
        #expect(classify(.failed("timed out")) == .limited("timed out"))
        #expect(classify(.failed("connection refused")) == .limited("connection refused"))
    }

    @Test func theCaptivePortalAPIGivesItsUserPortalURL() {
        let captive = #"{"captive": true, "user-portal-url": "https://portal.example/login", "seconds-remaining": 0}"#
        #expect(ProbeClassifier.userPortalURL(fromAPIAnswer: Array(captive.utf8)) == "https://portal.example/login")
        let silent = #"{"user-portal-url": "https://portal.example/login"}"#
        #expect(ProbeClassifier.userPortalURL(fromAPIAnswer: Array(silent.utf8)) == "https://portal.example/login")
        let released = #"{"captive": false, "user-portal-url": "https://portal.example/login"}"#
        #expect(ProbeClassifier.userPortalURL(fromAPIAnswer: Array(released.utf8)) == nil)
        #expect(ProbeClassifier.userPortalURL(fromAPIAnswer: Array("<html>not json</html>".utf8)) == nil)
        #expect(ProbeClassifier.userPortalURL(fromAPIAnswer: Array(#"{"captive": "yes"}"#.utf8)) == nil)
        #expect(ProbeClassifier.userPortalURL(fromAPIAnswer: []) == nil)
    }

    @Test func outcomesHaveTheirJSONNames() {
        #expect(ValidationOutcome.validated.name == "validated")
        #expect(ValidationOutcome.captivePortal(loginURL: nil).name == "captivePortal")
        #expect(ValidationOutcome.limited(reason: "timed out").name == "limited")
        #expect(ValidationOutcome.notChecked.name == "notChecked")
        #expect(ValidationOutcome.captivePortal(loginURL: "http://l/").description == "captivePortal(http://l/)")
    }
}

/// What a validation configuration accepts, and the delays it gives.
struct ValidationConfigurationTests {
    @Test(arguments: [
        ("", "not a URL"), ("ftp://probe.example/", "the scheme must be http or https"),
        ("probe.example/generate_204", "the scheme must be http or https"), ("http://", "it has no host"),
        ("http:///generate_204", "it has no host"),
    ])
    func probeURLsThatCannotWorkAreRefused(url: String, reason: String) {
        #expect(throws: ValidationConfigurationError.invalidProbeURL(url, reason: reason)) {
            try ValidationConfiguration(probeURL: url)
        }
    }

    @Test func numbersThatCannotWorkAreRefused() {
        let url = "http://probe.example/generate_204"
        #expect(throws: ValidationConfigurationError.self) { try ValidationConfiguration(probeURL: url, timeout: .zero) }
        #expect(throws: ValidationConfigurationError.self) { try ValidationConfiguration(probeURL: url, bodyLimit: -1) }
        #expect(throws: ValidationConfigurationError.self) { try ValidationConfiguration(probeURL: url, bodyLimit: 2_000_000) }
        #expect(throws: ValidationConfigurationError.self) {
            try ValidationConfiguration(probeURL: url, initialRetryDelay: .seconds(10), maximumRetryDelay: .seconds(1))
        }
    }

    @Test func retryDelaysDoubleUpToTheMaximum() throws {
        let configuration = try ValidationConfiguration(
            probeURL: "https://probe.example/generate_204", initialRetryDelay: .seconds(2), maximumRetryDelay: .seconds(10))
        #expect(
            (1...5).map(configuration.retryDelay(afterFailures:)) == [
                .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10),
            ])
        #expect(configuration.retryDelay(afterFailures: 1_000_000) == .seconds(10))
    }
}
