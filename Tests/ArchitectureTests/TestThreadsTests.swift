import Testing
import TestSupport

/// Where tests that block run: a suite marked `.ownThread` runs each test on a thread of its own, and a set-up that
/// blocks refuses to run on Swift Testing's cooperative pool, whose two threads every other suite needs.
struct TestThreadsTests {
    @Test(.ownThread) func aTestMarkedOwnThreadMayBlockAndKeepsItsThreadAcrossAwaits() async throws {
        try OwnThreadTrait.requireOffThePool("a blocking set-up")
        await Task.yield()
        try OwnThreadTrait.requireOffThePool("a blocking set-up after an await")
    }

    @Test func aBlockingSetUpOnThePoolFailsAtOnceNamingTheFix() async {
        let error = #expect(throws: CommandError.self) { try OwnThreadTrait.requireOffThePool("PrivateBus") }
        #expect(error?.description.contains("mark the suite .ownThread") == true)
    }

}
