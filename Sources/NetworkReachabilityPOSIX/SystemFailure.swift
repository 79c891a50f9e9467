#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POSIX call that failed: its name and `errno`. The core turns it into its own error type.
package struct SystemFailure: Error, Sendable, Hashable {
    /// The call, e.g. `pthread_create`.
    package var call: String
    /// The `errno` it failed with.
    package var errno: Int32

    package init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// What an `errno` value means, in the C library's words and with its name where the C library gives one
    /// (glibc 2.32 and later): `Permission denied (EACCES)`, else `Permission denied (errno 13)`.
    package static func words(forErrno number: Int32) -> String {
        let message = String(cString: strerror(number))
        guard let name = errnoName?(number) else { return "\(message) (errno \(number))" }
        return "\(message) (\(String(cString: name)))"
    }

    /// `strerrorname_np` where the C library has it; looked up at run time, as other C libraries lack it and
    /// Swift's Glibc module does not declare it.
    private static let errnoName: (@convention(c) (Int32) -> UnsafePointer<CChar>?)? = CLibrary.symbol(
        "strerrorname_np")
}

/// Functions of the C library that its Swift module does not declare, found by name at run time.
package enum CLibrary {
    /// The function `name` of the running process's C library, cast to `Function`; `nil` when there is none.
    package static func symbol<Function>(_ name: String, as type: Function.Type = Function.self) -> Function? {
        guard let address = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
        return unsafeBitCast(address, to: type)
    }
}

/// Milliseconds on `CLOCK_MONOTONIC`: the clock the library's deadlines are on.
package enum MonotonicClock {
    /// Now, in milliseconds.
    package static func milliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int(now.tv_sec) * 1000 + Int(now.tv_nsec) / 1_000_000
    }

    /// The moment `duration` from now, held at `Int64`'s bounds (``Swift/Duration/after(_:)``): a deadline of any
    /// timeout a caller passes.
    package static func deadline(after duration: Duration) -> Int { Int(duration.after(Int64(milliseconds()))) }
}
