#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityPOSIX
import Prometheus

/// The `process_*` series Prometheus' own client libraries export (swift-prometheus has none), read from `/proc` at
/// each scrape: CPU time, memory, descriptors and the start time, so a fleet's dashboards treat `reach serve` like
/// any other exporter.
final class ProcessGauges {
    private let cpuSeconds: Counter
    private let residentBytes: Gauge
    private let virtualBytes: Gauge
    private let openDescriptors: Gauge
    private let maxDescriptors: Gauge
    private var countedCPUSeconds = 0.0

    init(registry: PrometheusCollectorRegistry) {
        cpuSeconds = registry.counter("process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.")
        residentBytes = registry.gauge("process_resident_memory_bytes", help: "Resident memory size in bytes.")
        virtualBytes = registry.gauge("process_virtual_memory_bytes", help: "Virtual memory size in bytes.")
        openDescriptors = registry.gauge("process_open_fds", help: "Number of open file descriptors.")
        maxDescriptors = registry.gauge("process_max_fds", help: "Maximum number of open file descriptors.")
        // The start time never changes: read once, from the boot time and the ticks after it the process started.
        let startTime = registry.gauge(
            "process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.")
        if let started = Self.statField(22), Self.ticks > 0, let boot = Self.bootTime() {
            startTime.set(to: boot + started / Self.ticks)
        }
        update()
    }

    /// Reads `/proc/self/stat` and `/proc/self/fd` again; a file that cannot be read leaves its series as they were.
    func update() {
        let ticks = Self.ticks
        if let fields = Self.statFields() {
            func field(_ number: Int) -> Double? { Self.field(number, of: fields) }
            if let user = field(14), let system = field(15), ticks > 0 {
                let total = (user + system) / ticks
                if total > countedCPUSeconds {
                    cpuSeconds.increment(by: total - countedCPUSeconds)
                    countedCPUSeconds = total
                }
            }
            if let virtual = field(23) { virtualBytes.set(to: virtual) }
            if let pages = field(24) { residentBytes.set(to: pages * Double(sysconf(Int32(_SC_PAGESIZE)))) }
        }
        // Less the descriptor that reads the directory
        if let names = Directory.names("/proc/self/fd") { openDescriptors.set(to: Double(names.count - 1)) }
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 { maxDescriptors.set(to: Double(limit.rlim_cur)) }
    }

    /// Clock ticks per second, the unit of `/proc/self/stat`'s times.
    private static var ticks: Double { Double(sysconf(Int32(_SC_CLK_TCK))) }

    /// The fields of `/proc/self/stat` after the command's closing parenthesis: field 3 (state) on.
    private static func statFields() -> [Substring]? {
        guard let stat = SmallFile.text("/proc/self/stat", limit: 64 << 10), let end = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: end)...].split(separator: " ")
    }

    /// Field `number` (as `proc(5)` counts them) of `fields`.
    private static func field(_ number: Int, of fields: [Substring]) -> Double? {
        fields.count > number - 3 ? Double(fields[number - 3]) : nil
    }

    /// Field `number` of `/proc/self/stat`.
    private static func statField(_ number: Int) -> Double? { statFields().flatMap { field(number, of: $0) } }

    /// The boot time, `btime` in `/proc/stat`, in Unix seconds. It follows a line per CPU: 1 MiB holds thousands.
    private static func bootTime() -> Double? {
        guard let stat = SmallFile.text("/proc/stat", limit: 1 << 20) else { return nil }
        let line = stat.split(separator: "\n").first { $0.hasPrefix("btime ") }
        return line.flatMap { Double($0.dropFirst("btime ".count)) }
    }
}
