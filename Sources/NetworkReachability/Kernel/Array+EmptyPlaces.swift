extension Array {
    /// `count` empty places, for results filled in by position.
    ///
    /// Not `init(repeating:count:)`: that allocates through the standard library's unspecialized code, which looks
    /// the storage's type up in the runtime's metadata cache on every call (about 650 instructions and some
    /// kilobytes of the runtime's code on each change's path, callgrind 2026-11-24). Reserving and appending is
    /// specialized here.
    static func emptyPlaces<Wrapped>(_ count: Int) -> [Wrapped?] where Element == Wrapped? {
        var places: [Wrapped?] = []
        places.reserveCapacity(count)
        for _ in 0..<count { places.append(nil) }
        return places
    }
}
