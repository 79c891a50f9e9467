import ArgumentParser
import CoreMetrics
import Dispatch
import Logging
import NIOCore
import NIOPosix
import NetworkReachabilityExporter
import NetworkReachabilityKit
import NetworkReachabilityValidation
import Prometheus
import ServiceLifecycle
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityPOSIX
import ReachCommandLine
import UnixSignals

/// `reach serve`: a Prometheus exporter and an event stream of the targets, until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the targets' state over HTTP: /metrics for Prometheus, /status as JSON, /events as a stream.",
        discussion: """
            GET /metrics is the Prometheus text format (reach_target_reachable and the rest, the library's counters, \
            process_*); GET /status is a JSON array of what `reach status --json` prints for each target; GET /events \
            is server-sent events, each target's current state first, then one per change; / links them. Nothing \
            changes anything. --web-config adds TLS and basic authentication (Prometheus' exporter-toolkit format). \
            SIGTERM or SIGINT stops accepting, ends the streams and exits 0; SIGHUP reads the web configuration again.
            """
    )

    @Argument(help: TargetOptions.targetsHelp)
    var targets: [String] = []

    @OptionGroup var targetOptions: TargetOptions

    @Option(
        help: ArgumentHelp(
            "Address and port to listen on: 127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464 or :9464 (both families) for every interface; repeat it to listen on several.",
            valueName: "addr:port"), transform: ListenAddress.parser)
    var listen: [ListenAddress] = [.standard]

    @Option(help: "The path of the Prometheus exposition, as node_exporter's --web.telemetry-path.")
    var metricsPath = "/metrics"

    @Option(
        parsing: .unconditional,
        help: "Scrapes of the metrics path answered at once; one more is answered 503 (0: no bound), as node_exporter's --web.max-requests.",
        transform: Count.parser(in: ServeLimits.requestRange))
    var maxRequests = Count(ServeLimits().maxRequests)

    @Option(
        parsing: .unconditional,
        help: "Seconds a client has to send a whole request (and take its answer) before it is closed.",
        transform: Seconds.parser(in: Seconds.exchange))
    var requestTimeout = Seconds(duration: .seconds(10))

    @Option(
        parsing: .unconditional,
        help: "Connections open at once; at the bound, the oldest one not yet answered makes room.",
        transform: Count.parser(in: ServeLimits.connectionRange))
    var maxConnections = Count(ServeLimits().maxConnections)

    @Option(
        parsing: .unconditional,
        help: "/events streams open at once, fewer than --max-connections; one more is answered 503. (default: 16, or one fewer than --max-connections)",
        transform: Count.parser(in: ServeLimits.streamRange))
    var maxStreams: Count?

    /// `--max-streams`, or 16 and always fewer than the connections, so a scrape has a connection streams cannot take.
    private var streams: Int { maxStreams?.value ?? min(ServeLimits().maxStreams, maxConnections.value - 1) }

    @Option(
        name: .customLong("web-config"),
        help:
            "A file of TLS and basic authentication settings, as Prometheus' exporters take (tls_server_config, basic_auth_users)."
    )
    var webConfig: String?

    @Flag(help: TargetOptions.qualityHelp)
    var quality = false

    @Flag(
        help: "Also serve reach_target_flags for connectionOnTraffic and connectionOnDemand, which only Apple's on-demand connections set (always 0 here).")
    var allFlags = false

    @Option(help: "The least level of the server's log lines on stderr: debug, info, warn or error (--verbose: debug).")
    var logLevel: LogLevel = .info

    @Option(help: "How log lines are written: text (reach: …), logfmt or json, as node_exporter writes its own.")
    var logFormat: LineLogHandler.Format = .text

    @OptionGroup var logging: VerboseOption

    func validate() throws {
        CommandFailure.lineFormat = logFormat  // a failure from here on is a log line of its own format
        _ = try targetOptions.parse(targets)
        guard metricsPath.hasPrefix("/"), !["/", "/status", "/events"].contains(metricsPath), metricsPath.count <= 256,
            metricsPath.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/-_.~".contains($0)) })
        else {
            throw ValidationError(
                "--metrics-path must be a path of its own of letters, digits and /-_.~ starting with /, such as /metrics")
        }
        guard Set(listen.map(\.description)).count == listen.count else {
            throw ValidationError("--listen names the same address twice")
        }
        // Streams never make room for a new connection: as many as the connections would leave none for a scrape.
        guard streams < maxConnections.value else {
            throw ValidationError("--max-streams (\(streams)) must be fewer than --max-connections (\(maxConnections))")
        }
    }

    func run() async throws {
        let parsed = try targetOptions.parsed(targets)
        let arguments = parsed.arguments
        var limits = ServeLimits(targets: arguments.count)
        limits.maxConnections = maxConnections.value
        limits.maxStreams = streams
        limits.maxRequests = maxRequests.value
        limits.metricsPath = metricsPath
        limits.requestTimeout = .nanoseconds(requestTimeout.duration.saturatingNanoseconds)
        let log = serverLog
        let registry = PrometheusCollectorRegistry()
        let access = try WebAccess(path: webConfig, whenRead: Self.reloadReport(webConfig, series: registry, log: log))
        access.now.notes.forEach { log.notice("\($0)") }
        Self.allowDescriptors(for: limits)

        // The library's own counters go to the same registry: bootstrapped before the first monitor exists.
        MetricsSystem.bootstrap(DescribedMetricsFactory(registry: registry))
        let logger = libraryLog
        let watched = try targetOptions.reachabilities(of: parsed, logger: logger, measuringQuality: quality)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var validator: ConnectivityValidator?
        if let configuration = parsed.validation, let validated = parsed.validated {
            validator = try ConnectivityValidator(reachability: watched[validated], configuration: configuration)
        }
        let exporter = try ReachabilityExporter(
            targets: Array(zip(arguments.map(\.text), watched)), validator: validator, registry: registry,
            eventLoop: group.next(), listeningEnded: Self.endIfListeningFailed,
            flagSeries: allFlags ? ReachabilityExporter.defaultFlagSeries.union(.appleOnly) : ReachabilityExporter.defaultFlagSeries)
        let served = exporter.served
        NetworkSettingsStart.start(logger: logger)
        RadioDetailsStart.start(verbose: logging.verbose, logger: logger)
        try await served.allShown.get()

        // SIGHUP is taken before the socket exists, and the "serving" line is said only once the group has trapped
        // SIGTERM and SIGINT: whoever waits for that line may send any of the three at once.
        Self.reloadOnHangUp(access)
        let scheme = access.now.tls == nil ? "http" : "https"
        let server = ExporterServer(
            served: served, limits: limits, registry: registry, access: access, logger: log
        ) { [metricsPath] addresses in
            ProcessSignals.unblock([SIGINT, SIGTERM])  // swift-service-lifecycle takes them
            for bound in addresses {
                log.info("serving \(scheme)://\(bound)\(metricsPath), /status and /events")
                Self.warnIfOpen(bound, access.now, log: log)
            }
        }
        for address in listen {
            do {
                try await server.bind(address)
            } catch {
                throw ServeError.cannotListen(address, error)
            }
        }
        let services = ServiceGroup(
            services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: NetworkReachability.silentLogger)
        try await services.run()
        // The event loop is not shut down: the process ends here, and a delivery still on its way to the loop would
        // find it gone.
        exporter.close()
    }

    /// Says on stderr when the server is reachable from beyond this host without TLS, or without authentication.
    private static func warnIfOpen(_ address: ListenAddress, _ access: WebAccess.Current, log: Logger) {
        guard !address.isLoopback else { return }
        let missing = [access.tls == nil ? "TLS" : nil, access.authentication == nil ? "authentication" : nil].compactMap { $0 }
        guard !missing.isEmpty else { return }
        log.warning(
            "listening on \(address) without \(missing.joined(separator: " or ")): whoever reaches it reads what it serves; --web-config adds them")
    }

    /// The server's own log: its lines (serving, reloads, warnings, each answer at debug) at `--log-level`, in
    /// `--log-format`.
    private var serverLog: Logger { log(at: logging.verbose ? .debug : logLevel.level) }

    /// The library's log (the monitor's and the radio reader's work): at debug with `--verbose` or `--log-level debug`,
    /// else only its warnings, in `--log-format`.
    private var libraryLog: Logger { log(at: logging.verbose || logLevel == .debug ? .debug : .warning) }

    /// A logger of `level` and up, in `--log-format`, to stderr.
    private func log(at level: Logger.Level) -> Logger {
        Logger(label: "reach") { [logFormat] _ in LineLogHandler(format: logFormat, level: level) }
    }

    /// SIGHUP reads the web configuration again (as does a new connection that finds a file changed: `WebAccess`).
    private static func reloadOnHangUp(_ access: WebAccess) {
        ProcessSignals.handle([SIGHUP], label: "reach.reload") { _ in access.reload() }
    }

    /// What each reading of the web configuration after the first says: renewed certificates serve new connections,
    /// changed users every request. A file that cannot be used, or would take TLS or every user away, is said on
    /// stderr and in `reach_serve_web_config_last_reload_successful` (0), and the server goes on as before.
    private static func reloadReport(_ path: String?, series: PrometheusCollectorRegistry, log: Logger)
        -> @Sendable (WebConfigurationError?) -> Void
    {
        guard let path else { return { _ in } }
        let successful = series.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "reach_serve_web_config_last_reload_successful", unitName: "",
                helpText: "Whether the web configuration was last read (at start, on SIGHUP or on a change) and is served: 1 or 0."))
        let timestamp = series.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "reach_serve_web_config_last_reload_success_timestamp_seconds", unitName: "",
                helpText: "When the web configuration served was read, in seconds since 1970."))
        successful.set(to: 1)
        timestamp.set(to: Double(time(nil)))
        return { failure in
            if let failure {
                successful.set(to: 0)
                log.error("\(failure); still serving with the configuration read before")
            } else {
                successful.set(to: 1)
                timestamp.set(to: Double(time(nil)))
                log.info("read \(path) again")
            }
        }
    }

    /// Raises the soft limit of open descriptors toward the hard one, so the connection bound, not a default of
    /// 1,024 descriptors, is what limits the server.
    private static func allowDescriptors(for limits: ServeLimits) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = rlim_t(limits.maxConnections + 256)
        if limit.rlim_cur < wanted {
            limit.rlim_cur = min(wanted, limit.rlim_max)
            _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    /// Listening ends only when the kernel subscription failed for good: one line, and exit 70.
    private static func endIfListeningFailed(_ reachability: NetworkReachability) {
        guard let failure = reachability.listeningFailure else { return }
        Output.say("\(failure.description)")
        Output.endProcess(70)
    }

}

/// Why `reach serve` could not start serving.
enum ServeError: Error, CustomStringConvertible {
    /// The address could not be bound: in use, not this host's, or not allowed.
    case cannotListen(ListenAddress, any Error)

    var description: String {
        switch self {
        case .cannotListen(let address, let error as IOError):
            "cannot listen on \(address): \(String(cString: strerror(error.errnoCode)))"
        case .cannotListen(let address, let error): "cannot listen on \(address): \(error)"
        }
    }
}

/// `--log-level`, as node_exporter's `--log.level` spells it.
enum LogLevel: String, CaseIterable, ExpressibleByArgument {
    case debug, info, warn, error

    var level: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .warn: .warning
        case .error: .error
        }
    }
}

extension LineLogHandler.Format: ExpressibleByArgument {}
