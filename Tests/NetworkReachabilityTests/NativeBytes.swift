/// Builds kernel structures by hand in tests, field by field.
extension Array where Element == UInt8 {
    /// Appends `value` in native byte order.
    mutating func appendNative<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value) { append(contentsOf: $0) }
    }
}
