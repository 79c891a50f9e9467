import NetworkReachability
import Prometheus

/// A target's link details as series: the modem's radio technology, signal and roaming, and whether the link is
/// metered, from ModemManager and NetworkManager. Used on the server's event loop only.
///
/// A series exists only while the target's path has that fact: most machines have no modem, and an absent series
/// says "not known" where a 0 would say something false.
final class LinkDetailGauges {
    private static let signalPercent = (
        name: "reach_target_signal_percent", help: "The modem's or access point's signal, 0 to 100, as delivered (in steps)."
    )
    private static let signalDBm = (
        name: "reach_target_signal_dbm", help: "The modem's signal in dBm, where ModemManager reads one."
    )
    private static let roaming = (name: "reach_target_roaming", help: "1 when the path's modem is roaming, 0 when it is at home.")
    private static let metered = (
        name: "reach_target_metered", help: "1 when NetworkManager says the path's link is metered, else 0."
    )
    private static let technology = (
        name: "reach_target_radio_technology",
        help: "1 for the path's radio technology (gsm2G, umts3G, lte4G, nr5G), 0 for the others."
    )

    private let registry: PrometheusCollectorRegistry
    private let target: String
    /// The series present now, by name and labels.
    private var present: [String: Gauge] = [:]

    init(target: String, registry: PrometheusCollectorRegistry) {
        self.registry = registry
        self.target = target
    }

    /// Makes the series say `details`: each fact it has set, each it lacks removed.
    func show(_ details: LinkDetails?) {
        var wanted: [(series: (name: String, help: String), labels: [(String, String)], value: Double)] = []
        if let signal = details?.signal {
            wanted.append((Self.signalPercent, [], Double(signal.percent)))
            if let dBm = signal.dBm { wanted.append((Self.signalDBm, [], dBm)) }
        }
        if let isRoaming = details?.isRoaming { wanted.append((Self.roaming, [], isRoaming ? 1 : 0)) }
        if let isMetered = details?.isMetered { wanted.append((Self.metered, [], isMetered ? 1 : 0)) }
        if let current = details?.radioTechnology {
            for technology in RadioTechnology.allCases {
                wanted.append((Self.technology, [("technology", technology.rawValue)], technology == current ? 1 : 0))
            }
        }
        var kept: [String: Gauge] = [:]
        for (series, labels, value) in wanted {
            let all = [("target", target)] + labels
            let key = series.name + all.map { "\($0)=\($1)" }.joined(separator: ",")
            let gauge = present[key] ?? registry.gauge(series.name, labels: all, help: series.help)
            gauge.set(to: value)
            kept[key] = gauge
        }
        for (key, gauge) in present where kept[key] == nil { registry.unregisterGauge(gauge) }
        present = kept
    }
}
