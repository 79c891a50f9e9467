/// The Prometheus text of a registry in a stable order: families by name, and within a gauge's or counter's family
/// the series by their text, so two hosts' `/metrics` (or two scrapes') differ only where their values do. The
/// registry keeps families in a dictionary, whose order changes with every process. A histogram's lines keep the
/// registry's order, which is the order its buckets must have.
enum ExpositionOrder {
    /// `exposition` with its families and series in order.
    static func sorted(_ exposition: [UInt8]) -> [UInt8] {
        var families: [(name: Substring, header: [Substring], samples: [Substring], keepsOrder: Bool)] = []
        let text = String(decoding: exposition, as: UTF8.self)
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let name = line.dropFirst(7).prefix { $0 != " " }
                if families.last?.name != name { families.append((name, [], [], false)) }
                families[families.count - 1].header.append(line)
                if line.hasPrefix("# TYPE "), line.hasSuffix(" histogram") || line.hasSuffix(" summary") {
                    families[families.count - 1].keepsOrder = true
                }
            } else if !families.isEmpty {
                families[families.count - 1].samples.append(line)
            } else {
                families.append(("", [], [line], true))  // a sample before any header: kept first, as it came
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity(exposition.count)
        for family in families.sorted(by: { $0.name < $1.name }) {
            for line in family.header + (family.keepsOrder ? family.samples : family.samples.sorted()) {
                result.append(contentsOf: line.utf8)
                result.append(UInt8(ascii: "\n"))
            }
        }
        return result
    }
}
