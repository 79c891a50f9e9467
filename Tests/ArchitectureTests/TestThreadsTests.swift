import Testing
import TestSupport

/// Where tests that block run: a suite marked `.ownThread` runs each test on a thread of its own, and a helper that
/// blocks records a failure when it runs on Swift Testing's cooperative pool, whose two threads every other suite needs.
struct TestThreadsTests {
    @Test(.ownThread) func aTestMarkedOwnThreadRunsOffThePoolAcrossAwaits() async {
        #expect(!OwnThreadTrait.isOnThePool)
        await Task.yield()
        #expect(!OwnThreadTrait.isOnThePool)
    }

    @Test func aBlockingHelperOnThePoolFailsTheTestNamingTheFix() async {
        #expect(OwnThreadTrait.isOnThePool)
        withKnownIssue {
            OwnThreadTrait.requireOffThePool("a blocking helper")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("mark the suite .ownThread") }
                || "\(issue)".contains("mark the suite .ownThread")
        }
    }
}
