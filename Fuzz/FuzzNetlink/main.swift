import CFuzzDriver
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
@_spi(Tooling) import NetworkReachabilityLinux

// Fuzzes the netlink wire-format parsers: a datagram split into messages, each parsed into its typed form,
// policy rules as a rule dump reads them, sock_diag's reports of TCP sockets as the quality reader reads them, and the same bytes read as a bare run of attributes. Any trap or memory error is a finding; the parsers
// must drop and count what they cannot read.
private func fuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let (parsed, malformed) = KernelBytes.tally(datagram: bytes[...])
    precondition(parsed >= 0 && malformed >= 0)
    _ = KernelBytes.attributeCount(bytes[...])
    precondition(KernelBytes.ruleCount(datagram: bytes[...]) >= 0)
    precondition(KernelBytes.flowReportCount(datagram: bytes[...]) >= 0)
    // An unaligned start must not matter either.
    if bytes.count > 1 { _ = KernelBytes.tally(datagram: bytes[1...]) }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(cfd_run(&argc, &argv, fuzzTarget))
