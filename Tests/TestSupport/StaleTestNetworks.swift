public import Foundation

/// What test processes that died before their cleanup ran (killed, or crashed) left behind: namespaces named
/// `nrt-<pid>-…` for a process that no longer exists, the processes still inside them, and their files; and their
/// folders under `/tmp` (``TestFolder``).
///
/// A test removes its network in `defer`, which a `SIGKILL` skips. ``TestNetwork`` sweeps once per test process,
/// before its first network, so the next run starts clean.
public enum StaleTestNetworks {
    /// Kills the processes in each stale namespace, deletes it, and removes its `/etc/netns` and DNS-record
    /// directories. Namespaces of living processes, this one's included, are left alone.
    public static func sweep() {
        guard let listing = try? Command.run(["ip", "netns", "list"], check: true) else { return }
        for name in listing.lines.compactMap({ $0.split(separator: " ").first.map(String.init) }) {
            guard let owner = owner(of: name), owner != getpid(), !isAlive(owner) else { continue }
            let inside = (try? Command.run(["ip", "netns", "pids", name]))?.lines.compactMap { pid_t($0) } ?? []
            for process in inside { kill(process, SIGKILL) }
            _ = try? Command.run(["ip", "netns", "del", name])
            try? FileManager.default.removeItem(atPath: TestNetwork.etcDirectory(of: name))
            try? FileManager.default.removeItem(atPath: TestNetwork.dnsRecordsDirectory(of: name))
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? [] {
            guard let owner = TestFolder.owner(of: name), owner != getpid(), !isAlive(owner) else { continue }
            try? FileManager.default.removeItem(atPath: "/tmp/\(name)")
        }
    }

    /// The process a test namespace's name names: `nrt-<pid>-<number>`, or its gateways `nrt-<pid>-<number>-gw`
    /// (`-gwa`, `-gwb`: ``TestNetwork/splitGateway()``).
    public static func owner(of name: String) -> pid_t? {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3 || (parts.count == 4 && ["gw", "gwa", "gwb"].contains(parts[3])), parts[0] == "nrt", Int(parts[2]) != nil
        else { return nil }
        return pid_t(parts[1])
    }

    private static func isAlive(_ process: pid_t) -> Bool { kill(process, 0) == 0 || errno != ESRCH }
}
