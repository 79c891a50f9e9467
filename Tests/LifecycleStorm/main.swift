import Dispatch
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityKit
import NetworkReachabilityLinux
import Synchronization

// Creates, starts, stops and releases reachability objects on several threads at once, including listeners
// that stop themselves or release their object inside the callback, then prints one JSON line with the
// process's open descriptors and resident memory before and after, and how many closes named a descriptor that
// was not open (a repeated close, which would close another thread's socket had it opened one in between). Run inside a test's namespace by
// LifecycleStormInNamespaceTests; a deadlock shows as the test's timeout killing it.
//
//   LifecycleStorm CYCLES THREADS

/// Holds an object that its own callback releases.
final class Holder: @unchecked Sendable {
    var reachability: NetworkReachability?  // touched by the starting thread, then only by the callback
}

func openDescriptorCount() -> Int {
    guard let directory = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
        if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
    }
    return count - 1  // the descriptor opendir holds
}

/// The open descriptors once the library's background work has ended: a DNS64 or host lookup that a storm's last
/// objects started may hold a socket for a moment after them. The count is taken when it has not changed for
/// 300 ms, within 10 s.
func settledDescriptorCount() -> Int {
    var last = openDescriptorCount()
    var unchanged = 0
    for _ in 0..<100 where unchanged < 3 {
        usleep(100_000)
        let count = openDescriptorCount()
        unchanged = count == last ? unchanged + 1 : 0
        last = count
    }
    return last
}

func residentKiB() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmRSS:") { return Int(text.split(separator: " ")[1]) ?? -1 }
    }
    return -1
}

/// The sanitizer the binary was built with, if any: its runtime's entry point is then linked in.
func sanitizer() -> String {
    for (symbol, name) in [("__tsan_init", "thread"), ("__asan_init", "address")] where dlsym(nil, symbol) != nil {
        return name
    }
    return "none"
}

func cycle(_ index: Int, on queue: DispatchQueue) {
    let heard = DispatchSemaphore(value: 0)
    switch index % 4 {
    case 0:  // start, then stop at once
        let reachability = NetworkReachability()
        reachability.startListening(onQueue: queue) { @Sendable _ in }
        reachability.stopListening()
    case 1:  // the listener stops itself inside its callback
        let reachability = NetworkReachability()
        reachability.startListening(onQueue: queue) { @Sendable [reachability] _ in
            reachability.stopListening()
            heard.signal()
        }
        heard.wait()
    case 2:  // the callback releases the last reference to its own object
        let holder = Holder()
        holder.reachability = try? NetworkReachability(address: "127.0.0.1")
        holder.reachability?.startListening(onQueue: queue) { @Sendable _ in
            holder.reachability = nil
            heard.signal()
        }
        heard.wait()
    default:  // released while listening, without a stop
        let reachability = try? NetworkReachability(host: "localhost")
        reachability?.startListening(onQueue: queue) { @Sendable _ in }
    }
}

func storm(cycles: Int, threads: Int) {
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
        let queue = DispatchQueue(label: "storm-\(thread)")
        for index in stride(from: thread, to: cycles, by: threads) { cycle(index, on: queue) }
    }
}

let arguments = CommandLine.arguments
let cycles = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
let threads = arguments.count > 2 ? Int(arguments[2]) ?? 4 : 4
storm(cycles: 400, threads: threads)  // warm up: dispatch threads, malloc arenas, caches
let descriptorsBefore = settledDescriptorCount()
let residentBefore = residentKiB()
storm(cycles: cycles, threads: threads)
print(
    "{\"sanitizer\":\"\(sanitizer())\",\"cycles\":\(cycles),\"descriptorsBefore\":\(descriptorsBefore),\"descriptorsAfter\":\(settledDescriptorCount()),"
        + "\"residentBeforeKiB\":\(residentBefore),\"residentAfterKiB\":\(residentKiB()),"
        + "\"closesOfUnopenedDescriptors\":\(SystemCall.closesOfUnopenedDescriptors.load(ordering: .relaxed))}")
