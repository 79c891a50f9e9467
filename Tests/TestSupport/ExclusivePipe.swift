public import Foundation

/// A pipe of raw descriptors, both close-on-exec, so only the child it is handed to inherits it, each end
/// closed exactly once by its owner.
///
/// Tests start processes concurrently: a plain `Pipe()` write end leaks into every child spawned meanwhile,
/// and Foundation's `readabilityHandler` source was seen to outlive its descriptor and read from whatever
/// pipe reused the number. Raw descriptors with one owner each avoid both.
public final class ExclusivePipe: @unchecked Sendable {
    /// Serializes "make a pipe, mark it close-on-exec" against every spawn in the test support, so no child
    /// is forked between the two steps (`pipe2` is not visible through Swift's Glibc module).
    public static let spawnLock = NSLock()

    /// The end the parent reads.
    public let readDescriptor: Int32
    /// The end handed to the child as its standard output or error.
    public let writeDescriptor: Int32
    private let lock = NSLock()
    private var readOpen = true  // guarded by `lock`
    private var writeOpen = true  // guarded by `lock`

    /// Makes the pipe.
    public init() {
        var descriptors: [Int32] = [-1, -1]
        let result = Self.spawnLock.withLock {
            let made = pipe(&descriptors)
            for descriptor in descriptors where made == 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            return made
        }
        precondition(result == 0, "pipe failed: \(errno)")
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    deinit {
        closeWritingInParent()
        closeReading()
    }

    /// Closes the parent's copy of the write end, after the child has started, so end-of-file can come.
    public func closeWritingInParent() {
        lock.withLock {
            if writeOpen { close(writeDescriptor) }
            writeOpen = false
        }
    }

    /// Closes the read end.
    public func closeReading() {
        lock.withLock {
            if readOpen { close(readDescriptor) }
            readOpen = false
        }
    }

    /// Reads what is there, blocking until something or end-of-file comes; empty at end-of-file.
    public func readSome() -> Data {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(readDescriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? Data(buffer[0..<count]) : Data()
        }
    }

    /// Reads until end-of-file.
    public func readAll() -> Data {
        var data = Data()
        while true {
            let chunk = readSome()
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }
}
