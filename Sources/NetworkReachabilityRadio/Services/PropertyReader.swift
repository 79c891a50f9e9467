/// Reads a service's properties by the type the specification gives them, and keeps a line for each one that has
/// another type: a service that answers with wrong types loses that fact, is logged once, and breaks nothing.
struct PropertyReader {
    /// The service, for the complaints: `ModemManager`.
    let service: String
    /// One line per property that had the wrong type.
    private(set) var complaints: [String] = []

    init(service: String) { self.service = service }

    /// The property `name` of `properties` read by `read`, or `nil` when it is absent or `read` cannot read it.
    mutating func read<Value>(
        _ name: String, of properties: [String: DBusValue]?, at path: String, expecting type: String,
        _ read: (DBusValue) -> Value?
    ) -> Value? {
        guard let value = properties?[name] else { return nil }
        guard let typed = read(value) else {
            complaints.append("\(service): \(name) of \(path) is \(value.typeName), not \(type); ignored")
            return nil
        }
        return typed
    }
}
