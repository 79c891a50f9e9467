import Testing

@testable import TestSupport

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

    @Test func lanesAreTakenInOrderAndOneWhoTakesThemAllIsNotPassedByLaterOnes() async {
        // Given two lanes, one of them taken
        let lanes = Lanes(width: 2)
        await lanes.enter(taking: 1)
        let order = Recorder<String>()
        // When a test that takes both comes, then one that takes one
        let alone = Task {
            await lanes.enter(taking: 2)
            order.append("alone")
            lanes.leave(giving: 2)
        }
        while lanes.queued < 1 { await Task.yield() }
        let single = Task {
            await lanes.enter(taking: 1)
            order.append("single")
            lanes.leave(giving: 1)
        }
        while lanes.queued < 2 { await Task.yield() }
        // Then the later one waits too, though a lane is free, and both go in order once the first lane is back
        #expect(order.values.isEmpty)
        lanes.leave(giving: 1)
        await alone.value
        await single.value
        #expect(order.values == ["alone", "single"])
    }
}
