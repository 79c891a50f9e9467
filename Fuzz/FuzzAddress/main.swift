import CFuzzDriver
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityCore

// Fuzzes what users type: addresses, targets, host names and NAT64 prefixes, from arbitrary bytes (invalid
// UTF-8 and NULs included). Parsing must throw typed errors, never trap; what parses must survive a round trip
// through its description, and RFC 6052 synthesis must be undone by extraction.
private func fuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let text = String(decoding: bytes, as: UTF8.self)
    if let address = try? IPAddress(text) {
        precondition((try? IPAddress(address.description)) == address, "\(address) does not survive a round trip")
    }
    _ = try? ReachabilityTarget(parsing: text)
    _ = try? ReachabilityTarget(hostOrAddress: text)
    _ = try? HostName(text)
    if let prefix = try? NAT64Prefix(text) {
        precondition((try? NAT64Prefix(prefix.description)) == prefix, "\(prefix) does not survive a round trip")
    }
    for length in [4, 16] where bytes.count >= length {
        if let address = IPAddress(bytes: Array(bytes.prefix(length))) {
            precondition((try? IPAddress(address.description)) == address, "\(address) does not survive a round trip")
        }
    }
    if bytes.count >= 21, let base = IPAddress(bytes: Array(bytes.prefix(16))),
        let ipv4 = IPAddress(bytes: Array(bytes[16..<20])),
        let prefix = try? NAT64Prefix(address: base, length: NAT64Prefix.allowedLengths[Int(bytes[20]) % 6])
    {
        let synthesized = try? prefix.synthesize(ipv4)
        precondition(synthesized.flatMap(prefix.extractIPv4(from:)) == ipv4, "synthesis is not undone by extraction")
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(cfd_run(&argc, &argv, fuzzTarget))
