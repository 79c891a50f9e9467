#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import CProcess
import NetworkReachabilityPOSIX

/// What a command leaves running when it ends, ended with it: every process a command started ends when the
/// command does, so none keeps the worker's lock or works on while its job runs again.
///
/// The worker is a child subreaper (``becomeSubreaper()``): a process whose parent ends becomes the worker's child,
/// whatever session or group it moved to, so it stays known, and its pid stays its own until the worker reaps it.
/// Each command is the leader of a session of its own. When it ends, before it is reaped (its pid, group and
/// session stay reserved), its group is sent SIGKILL, and so is each child the worker inherited whose session is
/// not a running command's (its parent ended; `setsid` moved it out of the command's session, or it never left),
/// with that child's group where it leads one; they are reaped, and the sweep repeats until none is left. With
/// `--concurrency` above 1, a process that left a command's session and lost its parent while that command runs is
/// ended when any command ends.
enum LeftoverProcesses {
    /// The sessions of the commands running now, by their leaders' pids.
    private static let running = Locked<Set<pid_t>>([])
    /// The commands' leaders not reaped yet: each is reaped by its own command's thread, never by a sweep.
    private static let unreaped = Locked<Set<pid_t>>([])
    /// One sweep at a time: two would reap one child twice.
    private static let sweeping = Locked(())

    /// Makes the process the reaper of its descendants' orphans; whether the kernel agreed.
    @discardableResult
    static func becomeSubreaper() -> Bool { cprocess_become_subreaper() == 0 }

    /// A command's session began, led by `leader`.
    static func began(_ leader: pid_t) {
        unreaped.withLock { _ = $0.insert(leader) }
        running.withLock { _ = $0.insert(leader) }
    }

    /// The command's leader was reaped.
    static func reaped(_ leader: pid_t) { unreaped.withLock { _ = $0.remove(leader) } }

    /// The command led by `leader` ended and is not reaped yet: ends what it left.
    static func ended(_ leader: pid_t) {
        _ = kill(-leader, SIGKILL)
        running.withLock { _ = $0.remove(leader) }
        sweeping.withLock { _ in
            let ownSession = getsid(0)
            for _ in 0..<1000 {
                let sessions = running.withLock { $0 }
                let leaders = unreaped.withLock { $0 }
                let leftovers = children().filter { child in
                    let session = getsid(child)
                    return session != ownSession && !sessions.contains(session) && !leaders.contains(child)
                }
                if leftovers.isEmpty { return }
                for child in leftovers {
                    if getpgid(child) == child { _ = kill(-child, SIGKILL) }
                    _ = kill(child, SIGKILL)
                }
                for child in leftovers {
                    var status: Int32 = 0
                    while waitpid(child, &status, 0) < 0 && errno == EINTR {}
                }
            }
        }
    }

    /// The process's children, from every thread's `children` list in `/proc`.
    private static func children() -> [pid_t] {
        guard let tasks = opendir("/proc/self/task") else { return [] }
        defer { closedir(tasks) }
        var children: [pid_t] = []
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let thread = Int32(name),
                let text = SmallFile.text("/proc/self/task/\(thread)/children", limit: 1 << 20)
            else { continue }
            children += text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t($0) }
        }
        return children
    }
}
