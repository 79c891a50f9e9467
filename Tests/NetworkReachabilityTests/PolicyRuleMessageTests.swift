import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// Rule dumps read only far enough to tell the kernel's default policy from any other.
struct PolicyRuleMessageTests {
    /// A rule message as the kernel dumps it: fib_rule_hdr, then FRA_TABLE, FRA_SUPPRESS_PREFIXLEN (all ones),
    /// FRA_PROTOCOL, FRA_PRIORITY unless 0, and `extra` attributes.
    private static func ruleMessage(
        family: Int32 = AF_INET, priority: UInt32, table: UInt32, tos: UInt8 = 0, extra: [(UInt16, [UInt8])] = []
    ) throws -> PolicyRuleMessage? {
        var request = NetlinkRequest(
            type: UInt16(RTM_NEWRULE), sequence: 1,
            familyHeader: [UInt8(family), 0, 0, tos, UInt8(truncatingIfNeeded: table), 0, 0, UInt8(FR_ACT_TO_TBL), 0, 0, 0, 0])
        request.appendAttribute(UInt16(FRA_TABLE), uint32: table)
        request.appendAttribute(UInt16(FRA_SUPPRESS_PREFIXLEN), uint32: .max)
        request.appendAttribute(UInt16(FRA_PROTOCOL), [2])
        if priority != 0 { request.appendAttribute(UInt16(FRA_PRIORITY), uint32: priority) }
        for (type, payload) in extra { request.appendAttribute(type, payload) }
        let bytes = request.finished()
        let message = try #require(NetlinkMessage.split(bytes[...]).messages.first)
        return PolicyRuleMessage(message)
    }

    @Test func theKernelsDefaultRulesAreToldFromAnyOther() throws {
        let local = try #require(try Self.ruleMessage(priority: 0, table: 255))
        let main = try #require(try Self.ruleMessage(priority: 32766, table: 254))
        let fallback = try #require(try Self.ruleMessage(priority: 32767, table: 253))
        #expect(!local.isSelective && local.table == 255 && local.priority == 0)
        #expect(PolicyRuleMessage.areDefaults([main, fallback, local], family: .ipv4))
        #expect(!PolicyRuleMessage.areDefaults([local, main], family: .ipv4))
        let table100 = try #require(try Self.ruleMessage(priority: 32800, table: 100))
        #expect(!PolicyRuleMessage.areDefaults([local, main, fallback, table100], family: .ipv4))
        // A selector makes the same priorities and tables another policy.
        let toPrefix = try #require(try Self.ruleMessage(priority: 32766, table: 254, extra: [(UInt16(FRA_DST), [10, 0, 0, 0])]))
        #expect(toPrefix.isSelective)
        #expect(!PolicyRuleMessage.areDefaults([local, toPrefix, fallback], family: .ipv4))
        #expect(try #require(try Self.ruleMessage(priority: 32766, table: 254, tos: 4)).isSelective)
        let marked = try #require(try Self.ruleMessage(priority: 32766, table: 254, extra: [(UInt16(FRA_FWMARK), [1, 0, 0, 0])]))
        #expect(marked.isSelective && marked.firewallMark == 1 && main.firewallMark == nil)
        // wg-quick's `not fwmark 51820`: the mark its tunnel's own packets carry past the tunnel
        let notMarked = try #require(try Self.ruleMessage(
            priority: 32765, table: 51820, extra: [(UInt16(FRA_FWMARK), withUnsafeBytes(of: UInt32(51820)) { Array($0) })]))
        #expect(notMarked.firewallMark == 51820)
        let zeroMark = try #require(try Self.ruleMessage(priority: 1, table: 254, extra: [(UInt16(FRA_FWMARK), [0, 0, 0, 0])]))
        #expect(zeroMark.firewallMark == nil)
        let suppressing = try Self.ruleMessage(
            priority: 32766, table: 254, extra: [(UInt16(FRA_SUPPRESS_IFGROUP), [0, 0, 0, 0])])
        #expect(suppressing?.isSelective == true)
        // IPv6 has no `default` table rule.
        let local6 = try #require(try Self.ruleMessage(family: AF_INET6, priority: 0, table: 255))
        let main6 = try #require(try Self.ruleMessage(family: AF_INET6, priority: 32766, table: 254))
        #expect(PolicyRuleMessage.areDefaults([local6, main6], family: .ipv6))
        #expect(!PolicyRuleMessage.areDefaults([local6, main6], family: .ipv4))
    }

    @Test func aTruncatedRuleIsDropped() throws {
        let bytes = NetlinkRequest(type: UInt16(RTM_NEWRULE), sequence: 1, familyHeader: [UInt8(AF_INET), 0, 0]).finished()
        let message = try #require(NetlinkMessage.split(bytes[...]).messages.first)
        #expect(PolicyRuleMessage(message) == nil)
    }
}
