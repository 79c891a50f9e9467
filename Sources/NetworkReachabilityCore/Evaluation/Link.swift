/// An interface as the evaluation reads one: index and name, whether it is up and has carrier, its kind of link and
/// operational state. The Linux backend reads it from rtnetlink (`Link+Netlink.swift`); a simulated network states it.
package struct Link: Sendable, Equatable {
    /// The operational state (RFC 2863), numbered as Linux numbers it (`IF_OPER_*`).
    package enum OperationalState: UInt8, Sendable {
        case unknown = 0, notPresent, down, lowerLayerDown, testing, dormant, up
    }

    package var index: Int
    package var name: String
    /// The platform's number for the link's hardware (Linux's `ARPHRD_*`), read only by its interface classifier.
    package var hardwareType: UInt16
    /// Administratively up.
    package var isUp: Bool
    /// Has carrier: a cable in, Wi-Fi associated, a veth's peer up.
    package var hasCarrier: Bool
    /// A point-to-point link (PPP, tun-style).
    package var isPointToPoint: Bool
    /// The loopback interface.
    package var isLoopback: Bool
    package var operationalState: OperationalState
    /// The kind of virtual link, e.g. `veth`, `tun`.
    package var kind: String?
    /// Whether the link was removed.
    package var isDeletion = false

    /// Makes a link as a dump states it.
    package init(
        index: Int, name: String, hardwareType: UInt16 = 0, isUp: Bool, hasCarrier: Bool, isPointToPoint: Bool = false,
        isLoopback: Bool = false, operationalState: OperationalState, kind: String? = nil
    ) {
        self.index = index
        self.name = name
        self.hardwareType = hardwareType
        self.isUp = isUp
        self.hasCarrier = hasCarrier
        self.isPointToPoint = isPointToPoint
        self.isLoopback = isLoopback
        self.operationalState = operationalState
        self.kind = kind
    }

    /// The operational state's RFC 2863 name, as ``InterfaceStatus/operationalState`` gives it.
    package var operationalStateName: String {
        switch operationalState {
        case .notPresent: "notPresent"
        case .down: "down"
        case .lowerLayerDown: "lowerLayerDown"
        case .testing: "testing"
        case .dormant: "dormant"
        case .up: "up"
        case .unknown: "unknown"
        }
    }

    /// Up and with carrier, with operstate up or unknown: packets can leave now.
    package var isReadyToCarry: Bool {
        isUp && hasCarrier && (operationalState == .up || operationalState == .unknown)
    }

    /// Operstate `dormant`: the link waits for something such as 802.1X authentication.
    package var isDormant: Bool { operationalState == .dormant }
}
