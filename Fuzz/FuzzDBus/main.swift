import CFuzzDriver
import NetworkReachabilityRadio

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// Fuzzes what the system bus sends a radio-details reader: a byte stream split into D-Bus messages, each decoded,
// re-encoded and decoded again (which must give the same message), applied to ModemManager's and NetworkManager's
// mirrors, and read as link details. Bad bytes must be refused with a typed error, never trap.
private func fuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = BusBytes.exercise(bytes)
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(cfd_run(&argc, &argv, fuzzTarget))
