#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A dump of route messages built from real ones the kernel sent (the fuzz corpus), repeated into datagrams
/// of at most 32 KiB as the kernel packs a dump.
enum RouteDump {
    static func make(messages count: Int) -> [[UInt8]] {
        let corpus = #filePath.split(separator: "/").dropLast(4).joined(separator: "/")
        let routes = ["dump-route-ipv4-0", "dump-route-ipv6-0"].flatMap {
            routeMessages(in: "/\(corpus)/Fuzz/corpus/netlink/\($0)")
        }
        precondition(!routes.isEmpty, "no route messages in the corpus")
        var datagrams: [[UInt8]] = []
        var current: [UInt8] = []
        for index in 0..<count {
            let message = routes[index % routes.count]
            if current.count + message.count > 32 * 1024 {
                datagrams.append(current)
                current = []
            }
            current += message
        }
        datagrams.append(current)
        return datagrams
    }

    /// The RTM_NEWROUTE messages (aligned) of a captured datagram.
    private static func routeMessages(in path: String) -> [[UInt8]] {
        guard let file = fopen(path, "rb") else { return [] }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 65536)
        let count = fread(&bytes, 1, bytes.count, file)
        var messages: [[UInt8]] = []
        var offset = 0
        while offset + 16 <= count {
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
            let type = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8
            guard length >= 16, offset + length <= count else { break }
            let aligned = (length + 3) & ~3
            if type == 24 { messages.append(Array(bytes[offset..<min(offset + aligned, count)])) }
            offset += aligned
        }
        return messages
    }
}
