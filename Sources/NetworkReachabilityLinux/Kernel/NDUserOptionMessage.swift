import NetworkReachabilityCore
import CNetlink

/// Parses `RTM_NEWNDUSEROPT`: a router advertisement's options that the kernel does not consume itself.
enum NDUserOptionMessage {
    /// The advertisement's PREF64, RDNSS and captive-portal options; `nil` when the message is not one, is
    /// truncated, or an option's length lies. Unknown options are skipped.
    static func parse(_ message: NetlinkMessage) -> RouterAdvertisement? {
        let header = Int(cnl_nduseroptmsg_length())
        guard message.type == UInt16(RTM_NEWNDUSEROPT),
            let optionsLength = message.payload.uint16(at: 2).map(Int.init),
            let index = message.payload.int32(at: 4),
            let icmpType = message.payload.byte(at: 8), icmpType == 134,  // router advertisement
            let options = message.payload.bytes(at: header, count: optionsLength)
        else { return nil }
        var advertisement = RouterAdvertisement(interfaceIndex: Int(index))
        var offset = 0
        while offset < options.count {
            guard let type = options.byte(at: offset), let units = options.byte(at: offset + 1), units > 0,
                let option = options.bytes(at: offset, count: Int(units) * 8)
            else { return nil }
            switch Int(type) {
            case CNL_ND_OPT_PREF64: parsePrefix64(option).map { advertisement.nat64Prefixes.append($0) }
            case CNL_ND_OPT_RDNSS: parseDNSServers(option, into: &advertisement)
            case CNL_ND_OPT_CAPTIVE_PORTAL:
                advertisement.captivePortal = option.dropFirst(2).cString.isEmpty ? nil : option.dropFirst(2).cString
            default: break
            }
            offset += option.count
        }
        return advertisement
    }

    /// RFC 8781 §4: 13-bit scaled lifetime (× 8 s) and 3-bit prefix length code, then the prefix's top 96 bits.
    static func parsePrefix64(_ option: ArraySlice<UInt8>) -> RouterAdvertisement.AdvertisedPrefix? {
        guard option.count == 16, let high = option.byte(at: 2), let low = option.byte(at: 3),
            let top = option.bytes(at: 4, count: 12)
        else { return nil }
        let field = UInt16(high) << 8 | UInt16(low)
        let lengths = [96, 64, 56, 48, 40, 32]
        let code = Int(field & 0x7)
        guard code < lengths.count, let base = IPAddress(bytes: Array(top) + [0, 0, 0, 0]) else { return nil }
        // Bits past the length are ignored on receipt (RFC 8781 §4): clear them before validating.
        var bytes = base.bytes
        for position in (lengths[code] / 8)..<16 { bytes[position] = 0 }
        guard let cleared = IPAddress(bytes: bytes), let prefix = try? NAT64Prefix(address: cleared, length: lengths[code])
        else { return nil }
        return .init(prefix: prefix, lifetime: .seconds(Int(field >> 3) * 8))
    }

    /// RFC 8106 §5.1: reserved (2), lifetime (4), then 16-byte addresses.
    private static func parseDNSServers(_ option: ArraySlice<UInt8>, into advertisement: inout RouterAdvertisement) {
        guard option.count >= 24, let lifetime = option.bytes(at: 4, count: 4) else { return }
        advertisement.dnsLifetime = .seconds(Int(lifetime.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
        var offset = 8
        while let address = option.bytes(at: offset, count: 16).flatMap({ IPAddress(bytes: Array($0)) }) {
            advertisement.dnsServers.append(address)
            offset += 16
        }
    }
}
