import NetworkReachabilityLinux
import Synchronization
import Testing

@testable import NetworkReachabilityRadio

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A bus that is not there costs a socket or an inotify descriptor that is closed once: a second close of the same
/// number would close whatever another thread (an HTTP server's accept, a validator's connect) opened in between.
struct FailedConnectionTests {
    @Test func aBusThatIsNotThereClosesItsSocketOnce() throws {
        // Given no bus at the address (a file that does not exist, then one that is not a socket)
        let closesBefore = SystemCall.closesOfUnopenedDescriptors.load(ordering: .relaxed)
        let notASocket = "/tmp/reach-not-a-bus-\(getpid())"
        let file = open(notASocket, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        try #require(file >= 0)
        SystemCall.close(file)
        defer { unlink(notASocket) }

        // When the reader tries to connect to each, and to watch a directory that does not exist
        for address in ["unix:path=/nonexistent/bus_socket", "unix:path=\(notASocket)"] {
            #expect(throws: DBusError.self) { _ = try DBusConnection(address: address, timeoutMilliseconds: 100) }
        }
        #expect(BusSocketWatch(address: "unix:path=/nonexistent/bus_socket") == nil)

        // Then no close named a descriptor that was already closed
        #expect(SystemCall.closesOfUnopenedDescriptors.load(ordering: .relaxed) == closesBefore)
    }
}
