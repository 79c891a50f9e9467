import NetworkReachabilityCore
import NetworkReachabilityValidationCore
import Prometheus

/// One target's series in the registry, which is what `/metrics` says of it. Used on the server's event loop only.
///
/// The status, the flags and the validation outcome are state sets (one series per value, 1 for the current one and
/// 0 for the others), so a query needs no knowledge of a numeric code; the path is an info series (always 1) whose
/// labels change, and the link's details are series that exist only while known (``ChangingSeries``).
final class TargetGauges {
    /// Every metric name and its help text, in one place: the README's metric list says the same.
    enum Name {
        static let reachable = (
            name: "reach_target_reachable", help: "1 when a packet sent now can leave toward the target, else 0."
        )
        static let status = (
            name: "reach_target_status", help: "1 for the target's status (unknown, notReachable, reachable), 0 for the others."
        )
        static let flags = (name: "reach_target_flags", help: "1 for each reachability flag that is set, 0 for the others.")
        static let info = (
            name: "reach_target_info",
            help: "Always 1: the path's outgoing interface, its type and the gateway, in labels (empty when none)."
        )
        static let underlying = (
            name: "reach_target_underlying_info",
            help: "Always 1 for each known link under the path's VPN: its interface, type and gateway, in labels."
        )
        static let lastChange = (
            name: "reach_target_last_change_timestamp_seconds",
            help: "Unix time of the target's last published change (its first state counts)."
        )
        static let validation = (
            name: "reach_target_validation",
            help: "With --validate: 1 for the probe's outcome (validated, captivePortal, limited, notChecked), 0 for the others."
        )
        static let signalRatio = (
            name: "reach_target_signal_ratio", help: "The modem's or access point's signal, 0 to 1, as delivered (in steps)."
        )
        static let signalDBm = (name: "reach_target_signal_dbm", help: "The modem's signal in dBm, where ModemManager reads one.")
        static let roaming = (name: "reach_target_roaming", help: "1 when the path's modem is roaming, 0 when it is at home.")
        static let metered = (
            name: "reach_target_metered",
            help: "1 when the path's network is metered, as its settings or else NetworkManager say, else 0."
        )
        static let network = (
            name: "reach_network_info",
            help: "Always 1 while the path's network is known: its id and its label (empty without one), in labels."
        )
        static let technology = (
            name: "reach_target_radio_technology",
            help: "1 for the path's radio technology (gsm2G, umts3G, lte4G, nr5G), 0 for the others."
        )
        static let effectiveType = (
            name: "reach_effective_connection_type",
            help: "With --quality: 1 for the link's measured class (unknown, slow-2g, 2g, 3g, 4g), 0 for the others."
        )
        static let rtt = (
            name: "reach_rtt_seconds",
            help: "With --quality: the round trip of the host's TCP flows through the path's gateway (weighted median)."
        )
        static let downlink = (
            name: "reach_downlink_bits_per_second",
            help: "With --quality: the throughput of flows that moved 32 KB or more (weighted median)."
        )
    }

    private static let statusNames = ["unknown", "notReachable", "reachable"]
    private static let outcomeNames = ["validated", "captivePortal", "limited", "notChecked"]

    private let target: String
    private let reachable: Gauge
    private let statuses: [(name: String, gauge: Gauge)]
    private let flags: [(flag: ReachabilityFlags, gauge: Gauge)]
    private let lastChange: Gauge
    private let outcomes: [(name: String, gauge: Gauge)]
    private let path: ChangingSeries

    /// Registers the target's series, a flag's for each of `flagSeries`; `validated` adds the validation outcome's.
    init(target: String, validated: Bool, flagSeries: ReachabilityFlags, registry: PrometheusCollectorRegistry) {
        self.target = target
        let label = [("target", target)]
        reachable = registry.gauge(Name.reachable.name, labels: label, help: Name.reachable.help)
        statuses = Self.statusNames.map { name in
            (name, registry.gauge(Name.status.name, labels: label + [("status", name)], help: Name.status.help))
        }
        flags = ReachabilityFlags.named.filter { flagSeries.contains($0.flag) }.map { flag, name in
            (flag, registry.gauge(Name.flags.name, labels: label + [("flag", name)], help: Name.flags.help))
        }
        path = ChangingSeries(registry: registry)
        lastChange = registry.gauge(Name.lastChange.name, labels: label, help: Name.lastChange.help)
        outcomes =
            validated
            ? Self.outcomeNames.map { name in
                (
                    name,
                    registry.gauge(Name.validation.name, labels: label + [("outcome", name)], help: Name.validation.help)
                )
            } : []
    }

    /// Sets every series to `snapshot` (and `validation`, with `--validate`), changed at `time` (Unix seconds).
    func show(_ snapshot: ReachabilitySnapshot, validation: ValidationOutcome?, changedAt time: Double) {
        reachable.set(to: snapshot.status.isReachable ? 1 : 0)
        for (name, gauge) in statuses { gauge.set(to: name == snapshot.status.name ? 1 : 0) }
        for (flag, gauge) in flags { gauge.set(to: snapshot.flags.contains(flag) ? 1 : 0) }
        if let validation {
            for (name, gauge) in outcomes { gauge.set(to: name == validation.name ? 1 : 0) }
        }
        lastChange.set(to: time)
        let label = [("target", target)]
        let interface = snapshot.path.interface
        let info = [
            ("interface", interface?.name ?? ""), ("type", interface?.type.rawValue ?? ""),
            ("gateway", snapshot.path.gateway?.description ?? ""),
        ]
        var series: [ChangingSeries.Series] = [(Name.info, label + info, 1)]
        if let network = snapshot.path.network {
            series.append((Name.network, label + [("network", network.id), ("label", network.label ?? "")], 1))
        }
        // Through a VPN, each link under it (every leg of a multipath default), and the radio, roaming and metered
        // facts of the first: what the tunnel's traffic costs
        var details = snapshot.path.details
        var metered = snapshot.path.network?.isMetered
        for under in snapshot.path.underlying {
            series.append(
                (Name.underlying, label + [
                    ("interface", under.interface.name), ("type", under.interface.type.rawValue),
                    ("gateway", under.gateway?.description ?? ""),
                ], 1))
        }
        if let under = snapshot.path.underlying.first {
            details = under.details
            metered = metered ?? under.network?.isMetered
        }
        path.show(series + Self.series(of: details, metered: metered, label) + Self.series(of: snapshot.path.quality, label))
    }

    /// The series of a measured quality: its class as a state set, and the figures it has.
    private static func series(of quality: LinkQuality?, _ label: [(String, String)]) -> [ChangingSeries.Series] {
        guard let quality else { return [] }
        var series: [ChangingSeries.Series] = EffectiveConnectionType.allCases.map { type in
            (Name.effectiveType, label + [("type", type.rawValue)], type == quality.effectiveType ? 1 : 0)
        }
        if let rtt = quality.rtt { series.append((Name.rtt, label, Double(LinkQuality.milliseconds(rtt)) / 1000)) }
        if let downlink = quality.downlinkKbps { series.append((Name.downlink, label, Double(downlink) * 1000)) }
        return series
    }

    /// The series of each fact `details` has; whether the link is metered as the network's settings say (`metered`)
    /// over what the details say.
    private static func series(
        of details: LinkDetails?, metered: Bool?, _ label: [(String, String)]
    ) -> [ChangingSeries.Series] {
        var series: [ChangingSeries.Series] = []
        if let signal = details?.signal {
            series.append((Name.signalRatio, label, Double(signal.percent) / 100))
            if let dBm = signal.dBm { series.append((Name.signalDBm, label, dBm)) }
        }
        if let isRoaming = details?.isRoaming { series.append((Name.roaming, label, isRoaming ? 1 : 0)) }
        if let isMetered = metered ?? details?.isMetered { series.append((Name.metered, label, isMetered ? 1 : 0)) }
        if let current = details?.radioTechnology {
            for technology in RadioTechnology.allCases {
                series.append((Name.technology, label + [("technology", technology.rawValue)], technology == current ? 1 : 0))
            }
        }
        return series
    }
}
