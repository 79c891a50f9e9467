/// One service's objects as its `org.freedesktop.DBus.ObjectManager` tells them, kept current by its
/// `InterfacesAdded`, `InterfacesRemoved` and `PropertiesChanged` signals: path → interface → property → value.
///
/// Some objects are not in the object manager (ModemManager's bearers): the mirror names them as companions, which
/// the session reads with `Properties.GetAll` and which the same `PropertiesChanged` signals keep current.
struct ServiceMirror {
    /// Properties by name.
    typealias Properties = [String: DBusValue]
    /// Interfaces by name, each with its properties.
    typealias Interfaces = [String: Properties]

    /// The service's well-known bus name.
    let name: String
    /// The name a person knows it by, for logs: `ModemManager`.
    let label: String
    /// The path of its object manager.
    let root: String
    /// The unique name that owns ``name`` now; `nil` while the service is not on the bus.
    var owner: String?
    /// Every object the service manages.
    var objects: [String: Interfaces] = [:]
    /// Why its objects are not known, when they are not: absent, not answering, answering nonsense.
    var problem: String?

    /// Objects outside the object manager that the mirror follows: their interface, and which paths the managed
    /// objects name.
    struct Companions {
        var interface: String
        var paths: ([String: Interfaces]) -> Set<String>
    }

    /// The companions of this service, if it has any.
    let companions: Companions?

    init(name: String, label: String, root: String, companions: Companions? = nil) {
        self.name = name
        self.label = label
        self.root = root
        self.companions = companions
    }

    /// ModemManager's mirror: its bearers are companions, named by each modem's `Bearers`.
    static func modemManager() -> ServiceMirror {
        ServiceMirror(
            name: ModemManagerFacts.service, label: "ModemManager", root: ModemManagerFacts.root,
            companions: Companions(interface: ModemManagerFacts.bearer, paths: ModemManagerFacts.bearerPaths(of:)))
    }

    /// NetworkManager's mirror: every object it describes is in its object manager.
    static func networkManager() -> ServiceMirror {
        ServiceMirror(name: NetworkManagerFacts.service, label: "NetworkManager", root: NetworkManagerFacts.root)
    }

    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"

    /// Whether a signal of `interface` and `member` is one a mirror applies: decided before its body is read.
    static func follows(interface: String?, member: String?) -> Bool {
        switch (interface, member) {
        case (objectManager, "InterfacesAdded"), (objectManager, "InterfacesRemoved"), (properties, "PropertiesChanged"): true
        default: false
        }
    }

    /// The call that loads every object.
    var loadingCall: DBusMessage {
        .methodCall(destination: name, path: root, interface: Self.objectManager, member: "GetManagedObjects")
    }

    /// Takes the objects of a `GetManagedObjects` answer.
    ///
    /// - Throws: ``DBusError/malformed(_:)`` naming what the answer held instead of `a{oa{sa{sv}}}`.
    mutating func load(_ answer: DBusMessage) throws(DBusError) {
        guard answer.signature == "a{oa{sa{sv}}}", let entries = answer.body.first?.dictionary else {
            throw .malformed("GetManagedObjects answered '\(answer.signature)', not a{oa{sa{sv}}}")
        }
        objects = entries.compactMapValues(Self.interfaces(of:))
        problem = nil
    }

    // MARK: - Companions

    /// The companion paths named now that the mirror does not hold.
    var missingCompanions: Set<String> {
        guard let companions else { return [] }
        return companions.paths(objects).filter { objects[$0]?[companions.interface] == nil }
    }

    /// Drops the companions no object names any more; returns whether any went.
    mutating func dropUnnamedCompanions() -> Bool {
        guard let companions else { return false }
        let named = companions.paths(objects)
        let unnamed = objects.keys.filter { objects[$0]?[companions.interface] != nil && !named.contains($0) }
        for path in unnamed { objects[path] = nil }
        return !unnamed.isEmpty
    }

    /// The call that reads one companion's properties.
    func companionCall(_ path: String) -> DBusMessage? {
        companions.map { companions in
            .methodCall(
                destination: name, path: path, interface: Self.properties, member: "GetAll",
                body: [.string(companions.interface)])
        }
    }

    /// Takes a companion's `GetAll` answer, if the companion is still named; returns whether the mirror changed.
    mutating func loadCompanion(_ path: String, _ answer: DBusMessage) -> Bool {
        guard let companions, companions.paths(objects).contains(path), answer.signature == "a{sv}",
            let properties = answer.body.first?.dictionary
        else { return false }
        objects[path, default: [:]][companions.interface] = properties
        return true
    }

    /// Forgets every object, keeping the owner: the service is on the bus but did not answer as it should.
    mutating func forget(because problem: String) {
        objects = [:]
        self.problem = problem
    }

    /// Forgets the owner and every object: the service left the bus, or the bus went away.
    mutating func leave(because problem: String) {
        owner = nil
        forget(because: problem)
    }

    /// Applies one of the service's signals; returns whether the mirror changed. Signals of other senders, or of a
    /// shape other than the specification's, change nothing.
    mutating func apply(_ signal: DBusMessage) -> Bool {
        guard signal.kind == .signal, let owner, signal.sender == owner, let path = signal.path else { return false }
        switch (signal.interface, signal.member, signal.signature) {
        case (Self.objectManager, "InterfacesAdded", "oa{sa{sv}}"):
            guard let object = signal.body[0].string, let added = Self.interfaces(of: signal.body[1]) else { return false }
            objects[object, default: [:]].merge(added) { _, new in new }
            return true
        case (Self.objectManager, "InterfacesRemoved", "oas"):
            guard let object = signal.body[0].string, let removed = signal.body[1].elements?.compactMap(\.string) else {
                return false
            }
            for interface in removed { objects[object]?[interface] = nil }
            if objects[object]?.isEmpty == true { objects[object] = nil }
            return true
        case (Self.properties, "PropertiesChanged", "sa{sv}as"):
            guard objects[path] != nil, let interface = signal.body[0].string, let changed = signal.body[1].dictionary,
                let invalidated = signal.body[2].elements?.compactMap(\.string)
            else { return false }
            objects[path]?[interface, default: [:]].merge(changed) { _, new in new }
            for property in invalidated { objects[path]?[interface]?[property] = nil }
            return true
        default:
            return false
        }
    }

    /// An `a{sa{sv}}` value as interfaces and their properties.
    private static func interfaces(of value: DBusValue) -> Interfaces? {
        value.dictionary?.compactMapValues(\.dictionary)
    }
}
