import Dispatch
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityKit

// `ReadLoop ADDRESS [COUNT]`: COUNT flags reads of ADDRESS after 1,000 to warm up, then one JSON line with the
// nanoseconds per read: the loop scripts/bench-reads runs beside the C round trip (rtm_getroute), outside the
// benchmark harness, whose allocation counting would weigh on every read.
let arguments = CommandLine.arguments
guard arguments.count >= 2, let reachability = try? NetworkReachability(address: arguments[1]) else {
    print("usage: ReadLoop ADDRESS [COUNT]")
    exit(64)
}
let count = arguments.count > 2 ? Int(arguments[2]) ?? 200_000 : 200_000
var flags: ReachabilityFlags?
for _ in 0..<1_000 { flags = reachability.flags }
let start = DispatchTime.now().uptimeNanoseconds
for _ in 0..<count { flags = reachability.flags }
let elapsed = DispatchTime.now().uptimeNanoseconds - start
let shown = flags.map { "\($0)" } ?? "nil"
print("{\"address\": \"\(arguments[1])\", \"ns_per_op\": \(elapsed / UInt64(count)), \"flags\": \"\(shown)\"}")
