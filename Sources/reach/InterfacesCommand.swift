import ArgumentParser
import NetworkReachabilityKit
import ReachCommandLine

/// `reach interfaces`: every interface with its type, kind, state, carrier and addresses, which one carries the
/// internet (`networkctl`'s list), and what ModemManager and NetworkManager say of each.
struct InterfacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "interfaces",
        abstract: """
            List every interface: type, kind, state, carrier, a modem's or network manager's details, addresses, \
            and which carries the internet.
            """
    )

    @Flag(help: "Print one JSON array instead of a table.")
    var json = false

    @OptionGroup var logging: VerboseOption

    func run() throws {
        NetworkSettingsStart.start(logger: logging.logger)
        RadioDetailsStart.start(verbose: logging.verbose, logger: logging.logger)
        let interfaces = try NetworkReachability.interfaces()
        if json {
            Output.line(Output.jsonLine(interfaces))
            return
        }
        // The details column only where a service describes an interface: most hosts have none.
        let hasDetails = interfaces.contains { $0.details != nil }
        var header = ["IDX", "NAME", "TYPE", "KIND", "STATE", "CARRIER"]
        if hasDetails { header.append("DETAILS") }
        header.append("ADDRESSES")
        let rows = [header] + interfaces.map { Self.row($0, withDetails: hasDetails) }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { column, cell in
                column == 0
                    ? String(repeating: " ", count: widths[0] - cell.count) + cell
                    : column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            Output.line(cells.joined(separator: "  "))
        }
    }

    /// One interface's cells, in the header's order.
    private static func row(_ status: InterfaceStatus, withDetails: Bool) -> [String] {
        var cells = [
            "\(status.interface.index)", status.interface.name, status.interface.type.rawValue,
            status.interface.linkKind ?? "-", status.isUp ? status.operationalState : "off", status.hasCarrier ? "yes" : "no",
        ]
        if withDetails {
            let summary = status.details?.summary ?? ""
            cells.append(summary.isEmpty ? "-" : summary)
        }
        let addresses = status.addresses.isEmpty ? "-" : status.addresses.joined(separator: " ")
        cells.append(addresses + (status.carriesInternet ? "  (internet)" : ""))
        return cells
    }
}
