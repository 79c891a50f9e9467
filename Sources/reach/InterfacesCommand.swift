import ArgumentParser
import NetworkReachability

/// `reach interfaces`: every interface with its type, kind, state, carrier and addresses, and which one carries the
/// internet (`networkctl`'s list).
struct InterfacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "interfaces",
        abstract: "List every interface: type, kind, state, carrier, addresses, and which carries the internet."
    )

    @Flag(help: "Print one JSON array instead of a table.")
    var json = false

    func run() throws {
        let interfaces = try NetworkReachability.interfaces()
        if json {
            Output.line(Output.jsonLine(interfaces))
            return
        }
        let rows =
            [["IDX", "NAME", "TYPE", "KIND", "STATE", "CARRIER", "ADDRESSES"]]
            + interfaces.map { status in
                [
                    "\(status.interface.index)", status.interface.name, status.interface.type.rawValue,
                    status.interface.linkKind ?? "-", status.isUp ? status.operationalState : "off",
                    status.hasCarrier ? "yes" : "no",
                    (status.addresses.isEmpty ? "-" : status.addresses.joined(separator: " "))
                        + (status.carriesInternet ? "  (internet)" : ""),
                ]
            }
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
}
