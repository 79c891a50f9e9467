import NetworkReachabilityCore
import CNetlink

/// A parsed `RTM_NEWRULE` from a rule dump, read only as far as telling the kernel's default policy rules
/// from any other (which table a rule looks up, at which priority, and whether it selects packets at all) and which
/// firewall mark it selects by, the mark a VPN's own packets carry past its routes.
struct PolicyRuleMessage: Sendable, Equatable {
    var family: UInt8
    var priority: UInt32
    var table: UInt32
    /// `FR_ACT_*`: look up a table, go to another rule, drop…
    var action: UInt8
    /// Whether anything narrows the packets the rule applies to, or changes how it applies: addresses, TOS,
    /// interfaces, marks, ports, user ids, inversion, suppression, a jump. The default rules have none.
    var isSelective: Bool
    /// The firewall mark the rule selects packets by (`FRA_FWMARK`), where it names one that is not 0.
    var firewallMark: UInt32?
    /// Whether the rule applies to the packets its selectors do *not* match (`FIB_RULE_INVERT`, `ip rule add not …`).
    var isInverted = false

    init(family: UInt8, priority: UInt32, table: UInt32, action: UInt8, isSelective: Bool) {
        (self.family, self.priority, self.table, self.action, self.isSelective) =
            (family, priority, table, action, isSelective)
    }

    /// Parses a rule message; `nil` when it is truncated or its attributes lie.
    init?(_ message: NetlinkMessage) {
        guard message.type == UInt16(RTM_NEWRULE),
            let rule = message.payload.withUnsafeBytes(Self.parse)
        else { return nil }
        self = rule
    }

    private static func parse(_ payload: UnsafeRawBufferPointer) -> PolicyRuleMessage? {
        // struct fib_rule_hdr: family, dst_len, src_len, tos, table, res1, res2, action, flags
        let headerLength = Int(cnl_fib_rule_hdr_length())
        guard let family = payload.byte(at: 0), let dstLength = payload.byte(at: 1), let srcLength = payload.byte(at: 2),
            let tos = payload.byte(at: 3), let table = payload.byte(at: 4), let action = payload.byte(at: 7),
            let flags = payload.uint32(at: 8),
            let attributes = payload.bytes(at: headerLength, count: payload.count - headerLength)
        else { return nil }
        var rule = PolicyRuleMessage(
            family: family, priority: 0, table: UInt32(table), action: action,
            isSelective: dstLength != 0 || srcLength != 0 || tos != 0 || flags != 0)
        rule.isInverted = flags & UInt32(FIB_RULE_INVERT) != 0
        let wellFormed = NetlinkAttribute.visit(attributes) { type, value in
            switch type {
            case UInt16(FRA_TABLE): if let table = value.uint32(at: 0) { rule.table = table }
            case UInt16(FRA_PRIORITY): if let priority = value.uint32(at: 0) { rule.priority = priority }
            case UInt16(FRA_PROTOCOL), UInt16(FRA_PAD): break
            case UInt16(FRA_FWMARK):
                rule.isSelective = true
                if let mark = value.uint32(at: 0), mark != 0 { rule.firewallMark = mark }
            // Dumped for every rule; all ones means "no suppression".
            case UInt16(FRA_SUPPRESS_PREFIXLEN), UInt16(FRA_SUPPRESS_IFGROUP):
                if value.uint32(at: 0) != UInt32.max { rule.isSelective = true }
            default: rule.isSelective = true
            }
        }
        return wellFormed ? rule : nil
    }

    /// The kernel's default policy for `family`, in order: every packet looks up the `local` table at priority 0,
    /// then `main` at 32766, then (IPv4 only) `default` at 32767.
    static func defaultPolicy(_ family: IPAddress.Family) -> [(priority: UInt32, table: UInt32)] {
        let local = (priority: UInt32(0), table: UInt32(RT_TABLE_LOCAL.rawValue))
        let main = (priority: UInt32(32766), table: UInt32(RT_TABLE_MAIN.rawValue))
        let fallback = (priority: UInt32(32767), table: UInt32(RT_TABLE_DEFAULT.rawValue))
        return family == .ipv4 ? [local, main, fallback] : [local, main]
    }

    /// Whether `rules` are exactly the kernel's default policy for `family` (``defaultPolicy(_:)``), nothing else.
    static func areDefaults(_ rules: [PolicyRuleMessage], family: IPAddress.Family) -> Bool {
        let expected = defaultPolicy(family)
        let familyByte = UInt8(family == .ipv4 ? AF_INET : AF_INET6)
        guard rules.count == expected.count else { return false }
        return zip(rules.sorted { $0.priority < $1.priority }, expected).allSatisfy { rule, expected in
            rule.family == familyByte && rule.action == UInt8(FR_ACT_TO_TBL) && !rule.isSelective
                && rule.priority == expected.priority && rule.table == expected.table
        }
    }
}
