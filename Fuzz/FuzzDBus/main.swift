import CFuzzDriver
import NetworkReachabilityRadio

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// Fuzzes what the system bus sends a radio-details reader: a byte stream read in chunks, each message's header
// decided before its body (every fourth refused, and any longer than 64 KiB discarded as it arrives), the rest decoded,
// re-encoded and decoded again (which must give the same message), applied to ModemManager's and NetworkManager's
// mirrors, and read as link details. Bad bytes must be refused with a typed error, never trap; the reader must never
// hold more than one wanted message. The input's length picks the chunk size and whether to refuse, so that the
// committed corpus (whole messages) stays a valid start.
private let chunkLengths = [65536, 1, 7, 4096, 65536]

private func fuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = BusBytes.exercise(bytes, chunkLength: chunkLengths[size % 5], skippingEveryFourth: size / 5 % 2 == 1)
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(cfd_run(&argc, &argv, fuzzTarget))
