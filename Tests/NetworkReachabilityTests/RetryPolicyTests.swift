import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// The backoff arithmetic of ``RetryPolicy`` and the numbers it refuses.
struct RetryPolicyTests {
    @Test func delaysGrowByTheMultiplierFromTheInitialDelay() throws {
        let policy = try RetryPolicy(
            maximumAttempts: 6, initialDelay: .milliseconds(100), multiplier: 3, maximumDelay: .seconds(60))
        #expect(
            (1...4).map(policy.delay(afterFailures:)) == [
                .milliseconds(100), .milliseconds(300), .milliseconds(900), .milliseconds(2700),
            ])
    }

    @Test func delaysStopAtTheMaximum() throws {
        let policy = try RetryPolicy(maximumAttempts: 100, initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(5))
        #expect((1...5).map(policy.delay(afterFailures:)) == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
        #expect(policy.delay(afterFailures: 10_000) == .seconds(5))
    }

    @Test func aMultiplierOfOneKeepsTheDelayConstant() throws {
        let policy = try RetryPolicy(
            maximumAttempts: 3, initialDelay: .milliseconds(250), multiplier: 1, maximumDelay: .seconds(1))
        #expect(policy.delay(afterFailures: 1) == .milliseconds(250))
        #expect(policy.delay(afterFailures: 50) == .milliseconds(250))
    }

    @Test func theStandardPolicyWaitsOneTwoFourAndEightSeconds() {
        let policy = RetryPolicy.standard
        #expect(policy.maximumAttempts == 5)
        #expect((1...4).map(policy.delay(afterFailures:)) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8)])
    }

    @Test(arguments: [
        (0, Duration.seconds(1), 2.0, Duration.seconds(2), "maximumAttempts 0 is below 1"),
        (1, .seconds(-1), 2.0, .seconds(2), "initialDelay -1.0 seconds is negative"),
        (1, .seconds(1), 0.5, .seconds(2), "multiplier 0.5 is not a finite number of at least 1"),
        (1, .seconds(1), .infinity, .seconds(2), "multiplier inf is not a finite number of at least 1"),
        (1, .seconds(1), .nan, .seconds(2), "multiplier nan is not a finite number of at least 1"),
        (1, .seconds(3), 2.0, .seconds(2), "maximumDelay 2.0 seconds is below initialDelay 3.0 seconds"),
    ])
    func numbersThatCannotWorkAreRefusedWithTheReason(
        attempts: Int, initial: Duration, multiplier: Double, maximum: Duration, reason: String
    ) {
        #expect(throws: ReachabilityError.invalidRetryPolicy(reason: reason)) {
            try RetryPolicy(maximumAttempts: attempts, initialDelay: initial, multiplier: multiplier, maximumDelay: maximum)
        }
    }

    @Test func outcomesSayHowManyAttemptsTheyTook() {
        #expect(WorkOutcome.succeeded(attempts: 1).description == "succeeded after 1 attempt")
        #expect(WorkOutcome.cancelled(attempts: 0).description == "cancelled after 0 attempts")
        #expect(
            WorkOutcome.failed(ReachabilityError.timedOut(.seconds(1)), attempts: 3).description
                == "failed after 3 attempts: timed out after 1.0 seconds")
        #expect(WorkOutcome.failed(CancellationError(), attempts: 2).attempts == 2)
        #expect(WorkOutcome.succeeded(attempts: 2).isSuccess && !WorkOutcome.cancelled(attempts: 2).isSuccess)
    }
}
