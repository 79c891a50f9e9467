import NetworkReachabilityPOSIX
import NetworkReachabilityCore
import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Request/response exchanges with the kernel over one reused socket, serialized by a lock.
///
/// The socket opens on the first query and closes with ``close()`` or when the object is released.
///
/// With `followsLinks`, the same socket also carries the kernel's link notifications, and the queries keep the
/// links they have seen exact from them (``followedLinks()``). A notification queues ahead of any later reply,
/// so each exchange has read every change made before its answer: a synchronous read of a routed address costs one
/// `send` and one `recvfrom`, with no separate drain and no second request for its link. A full queue drops replies
/// too (`ENOBUFS`): the links are then forgotten and the requests asked again.
final class KernelQueries: RouteQuerying {
    private struct State {
        var socket: NetlinkSocket?
        var sequence: UInt32 = 0
        /// Requests sent so far: an exchange sends one or more.
        var requests = 0
        /// Exchanges and catch-ups so far: after each, `links` is as current as the moment it ended.
        var refreshes = 0
        /// With `followsLinks`, the links seen so far; links never asked about are not here.
        var links: [Int: Link] = [:]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        /// The current exchange's requests, encoded, and per request whether it is a dump and whether its answer is
        /// still open: kept from one exchange to the next with their capacity, so that a read allocates none of
        /// them (`Benchmarks/`, flags reads).
        var encoded: [UInt8] = []
        var isDump: [Bool] = []
        var isOpen: [Bool] = []
    }

    // Guarded by its lock: one exchange at a time.
    private let state = Locked(State())
    private let namespace: NetworkNamespace?
    private let followsLinks: Bool
    private let strictChecking: Bool
    /// Seconds a socket that follows links waits for a reply before asking again.
    private static let replyTimeout = 5

    /// Makes a client whose socket opens in `namespace` (the caller's when `nil`), subscribed to link
    /// notifications when it `followsLinks`, checked strictly by the kernel with `strictChecking`.
    init(namespace: NetworkNamespace?, followsLinks: Bool = false, strictChecking: Bool = false) {
        self.namespace = namespace
        self.followsLinks = followsLinks
        self.strictChecking = strictChecking
    }

    // MARK: - Queries

    /// Asks the kernel which route a packet to `destination` would take (`ip route get`).
    func lookupRoute(
        to destination: IPAddress, from source: IPAddress? = nil, interfaceIndex: Int? = nil
    ) throws(ReachabilityError) -> RouteAnswer {
        try state.withLock { (state: inout State) throws(ReachabilityError) in
            try routeAnswer(.route(to: destination, from: source, interfaceIndex: interfaceIndex), in: &state)
        }
    }

    /// Asks which route a packet to `destination` would take out of the interface with `interfaceIndex`, and
    /// whether a table entry sends it there at all, in one round trip. Pinned to an interface with no route through
    /// it, the kernel answers as if the destination were on that interface's link; the entry (`fibmatch`) tells the
    /// two apart, so such an answer is no route.
    func lookupRoute(
        to destination: IPAddress, from source: IPAddress?, outOf interfaceIndex: Int
    ) throws(ReachabilityError) -> RouteAnswer {
        let (path, entry) = try pinnedLookups([(destination, source, interfaceIndex)])[0]
        guard case .route = entry else { return entry }
        return path
    }

    /// The routes to several destinations, each pinned to the interface with `interfaceIndex`, together:
    /// ``lookupRoute(to:from:outOf:)`` for each, answers in order.
    func lookupRoutes(to destinations: [IPAddress], outOf interfaceIndex: Int) throws(ReachabilityError) -> [RouteAnswer] {
        try pinnedLookups(destinations.map { ($0, nil, interfaceIndex) }).map { path, entry in
            guard case .route = entry else { return entry }
            return path
        }
    }

    /// For each lookup, the path a packet takes out of the interface (`ip route get … oif`) and the table entry
    /// that lookup matches (`fibmatch`), asked together: answers in order.
    private func pinnedLookups(
        _ lookups: [(destination: IPAddress, source: IPAddress?, interface: Int)]
    ) throws(ReachabilityError) -> [(path: RouteAnswer, entry: RouteAnswer)] {
        let answers = try lookupRoutes(2 * lookups.count) { position in
            let lookup = lookups[position / 2]
            return position % 2 == 0
                ? .route(to: lookup.destination, from: lookup.source, interfaceIndex: lookup.interface)
                : .matchedRoute(to: lookup.destination, from: lookup.source, interfaceIndex: lookup.interface)
        }
        guard answers.count == 2 * lookups.count else { throw .malformedKernelReply("pinned route lookup answers") }
        return lookups.indices.map { (answers[2 * $0], answers[2 * $0 + 1]) }
    }

    /// Asks which table entry a packet to `destination` matches (`fibmatch`).
    func matchedRoute(to destination: IPAddress) throws(ReachabilityError) -> RouteAnswer {
        let answers = try lookupRoutes([.entry(matching: destination)])
        guard let answer = answers.first else { throw .malformedKernelReply("matched route answer") }
        return answer
    }

    /// Asks for the routes to several destinations together (``batchLimit`` a round trip), answers in order.
    func lookupRoutes(to destinations: [IPAddress]) throws(ReachabilityError) -> [RouteAnswer] {
        try lookupRoutes(destinations.count) { KernelRequest.route(to: destinations[$0], from: nil, interfaceIndex: nil) }
    }

    /// Asks several lookups, paths or matched entries, together (``batchLimit`` a round trip), answers in order.
    func lookupRoutes(_ lookups: [RouteLookup]) throws(ReachabilityError) -> [RouteAnswer] {
        try lookupRoutes(lookups.count) { position in
            switch lookups[position] {
            case .path(let destination): .route(to: destination, from: nil, interfaceIndex: nil)
            case .entry(let destination): .matchedRoute(to: destination)
            }
        }
    }

    /// The most lookups sent in one `send`. The kernel queues every answer before the first is read, and about 250
    /// route answers fill a socket's default receive buffer: past it answers are lost, and the batch is asked again
    /// until it fails (260 marked lookups, or the pinned lookups of 200 interfaces, failed so).
    static let batchLimit = 128

    /// `count` lookups, ``batchLimit`` a round trip, answers in order.
    private func lookupRoutes(_ count: Int, _ request: (Int) -> KernelRequest) throws(ReachabilityError) -> [RouteAnswer] {
        var open = [RouteAnswer?](repeating: nil, count: count)
        for start in stride(from: 0, to: count, by: Self.batchLimit) {
            try exchange(min(Self.batchLimit, count - start), { request(start + $0) }) { position, event in
                Self.record(event, in: &open[start + position])
            }
        }
        return try open.map { (answer) throws(ReachabilityError) in
            guard let answer else { throw .malformedKernelReply("route lookup answer") }
            return answer
        }
    }

    /// Whether `family`'s policy rules are the kernel's defaults (`RTM_GETRULE` dump).
    func hasDefaultPolicyRules(_ family: IPAddress.Family) throws(ReachabilityError) -> Bool {
        PolicyRuleMessage.areDefaults(try dump(.rules(family: family), PolicyRuleMessage.init), family: family)
    }

    /// The routes a packet to `destination` takes when it carries the firewall mark of a rule that sends marked
    /// packets past a tunnel: a rule that selects packets *without* a mark (wg-quick's and NetworkManager's
    /// `not fwmark 51820 lookup 51820`), or one that sends marked packets to `main` (Tailscale's). At most
    /// ``markLimit`` marks, in the rules' order: a host with hundreds of mark rules is a policy router whose marks say
    /// nothing of its tunnels.
    func markedRoutes(to destination: IPAddress) throws(ReachabilityError) -> [Route] {
        var marks: [UInt32] = []
        for rule in try dump(.rules(family: destination.family), PolicyRuleMessage.init).sorted(by: { $0.priority < $1.priority }) {
            guard let mark = rule.firewallMark, rule.action == UInt8(FR_ACT_TO_TBL),
                rule.isInverted || rule.table == Route.mainTable, !marks.contains(mark)
            else { continue }
            marks.append(mark)
            if marks.count == Self.markLimit { break }
        }
        guard !marks.isEmpty else { return [] }
        return try lookupRoutes(marks.count) { .markedRoute(to: destination, mark: marks[$0]) }.compactMap { answer in
            if case .route(let route) = answer { route } else { nil }
        }
    }

    /// The most marks ``markedRoutes(to:)`` asks about.
    static let markLimit = 8

    /// The main table's default routes out of each of `interfaces`: for each, the route a packet to `destination`
    /// takes out of it (`ip route get … oif`), where the entry that lookup matches is a unicast default of `main`,
    /// with that entry's metric. Pinned lookups find a default a split default shadows, and each leg of a multipath
    /// default, without dumping a table that may hold a million routes: two lookups an interface.
    func defaultRoutes(to destination: IPAddress, outOf interfaces: [Int]) throws(ReachabilityError) -> [DefaultRoute] {
        let answers = try pinnedLookups(interfaces.map { (destination, nil, $0) })
        return zip(interfaces, answers).compactMap { index, answer in
            guard case .route(let path) = answer.path, case .route(let entry) = answer.entry,
                entry.table == Route.mainTable, entry.destinationLength == 0, entry.type == .unicast,
                path.outputInterface == index
            else { return nil }
            return DefaultRoute(route: path, metric: entry.priority ?? 0)
        }
    }

    /// `family`'s routes in `table` and of `type` (`RTN_*`), each where given (`RTM_GETROUTE` dump). The kernel
    /// filters only for a strictly checked socket, so a client without strict checking asks through a short-lived
    /// one that has it; the filters are checked here too.
    func routes(family: IPAddress.Family, table: UInt32?, type: UInt8?) throws(ReachabilityError) -> [Route] {
        guard strictChecking else {
            return try KernelQueries(namespace: namespace, strictChecking: true).routes(family: family, table: table, type: type)
        }
        let routes: [Route]
        do {
            routes = try dump(.routes(family: family, table: table, type: type), Route.init)
        } catch .systemCallFailed(_, ENOENT) {
            return []  // the table does not exist: the kernel makes it with its first route
        }
        return routes.filter { route in
            route.family == family && table.map { route.table == $0 } ?? true
                && type.map { route.type == Route.RouteType($0) } ?? true
        }
    }

    /// One route lookup's answer, with the lock already held.
    private func routeAnswer(_ request: KernelRequest, in state: inout State) throws(ReachabilityError) -> RouteAnswer {
        var answer: RouteAnswer?
        try exchange(in: &state, 1, { _ in request }) { _, event in Self.record(event, in: &answer) }
        guard let answer else { throw .malformedKernelReply("route lookup answer") }
        return answer
    }

    /// Updates a route lookup's answer so far with `event`: its route message, or the errno it failed with. A
    /// lookup that completes without a route stays `nil`, which the caller reports as a malformed reply.
    private static func record(_ event: Event, in answer: inout RouteAnswer?) {
        switch event {
        case .message(let message): if let route = Route(message) { answer = .route(route) }
        case .failed(let code): answer = .noRoute(RouteRefusal(errno: code))
        case .completed: break
        case .restarted: answer = nil
        }
    }

    /// The index of the link called `name`, or `nil` when there is none.
    func linkIndex(named name: String) throws(ReachabilityError) -> Int? {
        try singleLink(.linkNamed(name))?.index
    }

    /// Every link (`RTM_GETLINK` dump).
    func links() throws(ReachabilityError) -> [Link] {
        try dump(.links, Link.init)
    }

    /// Every address of every link (`RTM_GETADDR` dump).
    func addresses() throws(ReachabilityError) -> [InterfaceAddress] {
        try dump(.addresses, InterfaceAddress.init)
    }

    /// One family's neighbour table (`RTM_GETNEIGH` dump): the entries that name an IP address.
    func neighbours(family: IPAddress.Family) throws(ReachabilityError) -> [Neighbour] {
        try dump(.neighbours(family: family), Neighbour.init)
    }

    /// Both families' neighbour tables: what a network's identity reads gateways' link-layer addresses from.
    func neighbours() throws(ReachabilityError) -> [Neighbour] {
        try neighbours(family: .ipv4) + neighbours(family: .ipv6)
    }

    /// The links as this client follows them, for one read: the first link asked for catches up with the
    /// notifications queued since the read began, unless an exchange of the read already did.
    func followedLinks() -> FollowedLinks {
        FollowedLinks(queries: self, since: state.withLock { $0.refreshes })
    }

    /// The link with `index` as notifications and earlier answers left it; asked for when not seen yet.
    fileprivate func followedLink(index: Int, since refresh: Int) throws(ReachabilityError) -> Link? {
        try state.withLock { (state: inout State) throws(ReachabilityError) -> Link? in
            if state.refreshes == refresh { try catchUp(&state) }
            if let link = state.links[index] { return link }
            let link = try singleLink(.link(index: index), in: &state)
            if let link { state.links[index] = link }
            return link
        }
    }

    /// How many requests this client has sent, however many went in one `send`.
    var requestCount: Int { state.withLock { $0.requests } }

    /// Closes the socket; the next query opens a new one, with no links followed yet.
    func close() {
        state.withLock {
            $0.socket?.close()
            $0.socket = nil
            Self.forgetFollowed(&$0)
        }
    }

    // MARK: - Exchanges

    /// What an exchange hands its caller for one request: each message of the answer as it arrives, then
    /// how the request ended; or that it is asked again and what arrived so far no longer counts.
    private enum Event {
        case message(NetlinkMessage)
        case completed
        case failed(Int32)
        case restarted
    }

    private func singleLink(_ request: KernelRequest) throws(ReachabilityError) -> Link? {
        try state.withLock { (state: inout State) throws(ReachabilityError) in try singleLink(request, in: &state) }
    }

    /// One link request and its answer, with the lock already held.
    private func singleLink(_ request: KernelRequest, in state: inout State) throws(ReachabilityError) -> Link? {
        var link: Link?
        var failure: Int32?
        try exchange(in: &state, 1, { _ in request }) { _, event in
            switch event {
            case .message(let message): link = Link(message)
            case .failed(let code): failure = code
            case .completed, .restarted: break
            }
        }
        try Self.checkLinkReply(failure)
        return link
    }

    /// A link that does not exist is an answer (`nil`); any other error is not.
    private static func checkLinkReply(_ failure: Int32?) throws(ReachabilityError) {
        if let code = failure, code != ENODEV { throw .systemCallFailed(call: "RTM_GETLINK", errno: code) }
    }

    /// A dump, parsed message by message as datagrams arrive: only the parsed values are kept, never the
    /// kernel's bytes, so a dump of any size needs one receive buffer.
    private func dump<Value>(_ request: KernelRequest, _ parse: (NetlinkMessage) -> Value?) throws(ReachabilityError) -> [Value] {
        // A dump that raced a change is marked NLM_F_DUMP_INTR; ask again, a few times at most.
        for _ in 0..<4 {
            var values: [Value] = []
            var interrupted = false
            var failure: Int32?
            try exchange(1, { _ in request }) { _, event in
                switch event {
                case .message(let message):
                    if message.flags & UInt16(NLM_F_DUMP_INTR) != 0 { interrupted = true }
                    if let value = parse(message) { values.append(value) }
                case .failed(let code): failure = code
                case .completed: break
                case .restarted:
                    values = []
                    interrupted = false
                    failure = nil
                }
            }
            if let failure { throw .systemCallFailed(call: "netlink dump \(request.type)", errno: failure) }
            if !interrupted { return values }
        }
        throw .malformedKernelReply("dump kept being interrupted by changes")
    }

    /// Sends `count` requests in one `send` (the kernel handles each in turn and answers each), and hands
    /// every event of each to `handle` with the request's position as it arrives: its messages, then how it
    /// ended. Messages are matched by port id and sequence number; replies to older exchanges are skipped.
    private func exchange(
        _ count: Int, _ request: (Int) -> KernelRequest, handle: (Int, Event) -> Void
    ) throws(ReachabilityError) {
        try state.withLock { (state: inout State) throws(ReachabilityError) in
            try exchange(in: &state, count, request, handle: handle)
        }
    }

    private func exchange(
        in state: inout State, _ count: Int, _ request: (Int) -> KernelRequest, handle: (Int, Event) -> Void
    ) throws(ReachabilityError) {
        // A socket that follows links can overflow, and so can one whose batch of replies outgrows its buffer; then
        // a reply may be lost. The queue is emptied first:
        // until it has been, the kernel drops further replies without saying so again. Then the requests are
        // asked again under new sequence numbers (late answers to the old ones are skipped). A reply that has
        // not come after `replyTimeout` is taken as lost the same way, so no drop unforeseen here can hang a read.
        for attempt in 1...4 {
            do throws(ReachabilityError) {
                try exchangeOnce(in: &state, count, request, handle: handle)
                return
            } catch .systemCallFailed(_, let code) where (code == ENOBUFS || code == EAGAIN) && attempt < 4 {
                try catchUp(&state)
                Self.forgetFollowed(&state)
                for position in 0..<count { handle(position, .restarted) }
            }
        }
    }

    private func exchangeOnce(
        in state: inout State, _ count: Int, _ request: (Int) -> KernelRequest, handle: (Int, Event) -> Void
    ) throws(ReachabilityError) {
        let socket = try openSocket(&state)
        let first = state.sequence &+ 1
        state.sequence &+= UInt32(count)
        var encoded: [UInt8] = []
        swap(&encoded, &state.encoded)  // moved out, so that appending to it copies nothing
        encoded.removeAll(keepingCapacity: true)
        state.isDump.removeAll(keepingCapacity: true)
        state.isOpen.removeAll(keepingCapacity: true)
        for position in 0..<count {
            let request = request(position)
            encoded = request.encode(sequence: first &+ UInt32(position), appendingTo: consume encoded)
            state.isDump.append(request.isDump)
            state.isOpen.append(true)
        }
        defer { state.encoded = encoded }
        try socket.send(encoded)
        state.requests += count
        var open = count
        while open > 0 {
            guard case .completed(let datagram) = try socket.receive(into: &state.buffer) else {
                throw .systemCallFailed(call: "recvfrom(AF_NETLINK)", errno: EAGAIN)  // the reply timed out
            }
            guard datagram.senderPortID == 0 else { continue }
            guard !datagram.isTruncated else { throw .malformedKernelReply("datagram larger than the buffer") }
            _ = NetlinkMessage.walk(state.buffer[0..<datagram.count]) { message in
                guard message.portID == socket.portID else { return follow(message, in: &state) }
                let position = Int(message.sequence &- first)
                guard position >= 0, position < count, state.isOpen[position] else { return }
                let end: Event?
                if let code = message.errorCode {
                    end = code == 0 ? .completed : .failed(-code)
                } else if message.isDone {
                    end = message.dumpErrorCode.map { .failed(-$0) } ?? .completed
                } else {
                    handle(position, .message(message))
                    end = state.isDump[position] ? nil : .completed
                }
                guard let end else { return }
                state.isOpen[position] = false
                open -= 1
                handle(position, end)
            }
        }
        state.refreshes += 1
    }

    /// Reads, without waiting, the notifications queued since the last exchange.
    private func catchUp(_ state: inout State) throws(ReachabilityError) {
        let socket = try openSocket(&state)
        while let datagram = try socket.receiveQueued(into: &state.buffer) {
            switch datagram {
            case .kernel(let count):
                _ = NetlinkMessage.walk(state.buffer[0..<count]) { message in
                    if message.portID != socket.portID { follow(message, in: &state) }
                }
            case .truncated, .overflowed: Self.forgetFollowed(&state)  // notifications were lost: what they said is unknown
            case .foreign: continue
            }
        }
        state.refreshes += 1
    }

    /// Applies a notification (a message not answering this socket) to the links followed.
    private func follow(_ message: NetlinkMessage, in state: inout State) {
        guard followsLinks, let link = Link(message) else { return }
        state.links[link.index] = link.isDeletion ? nil : link
    }

    /// Notifications were lost, or not followed yet: forgets the links.
    private static func forgetFollowed(_ state: inout State) {
        state.links = [:]
    }

    private func openSocket(_ state: inout State) throws(ReachabilityError) -> NetlinkSocket {
        if let socket = state.socket { return socket }
        let groups = followsLinks ? cnl_link_group_mask() : 0
        let socket = try NetlinkSocket(
            groups: groups, receiveTimeout: Self.replyTimeout, strictChecking: strictChecking,
            namespace: namespace)
        state.socket = socket
        Self.forgetFollowed(&state)
        return socket
    }
}

/// The links one synchronous read sees (see ``KernelQueries/followedLinks()``).
struct FollowedLinks: LinkSource {
    fileprivate let queries: KernelQueries
    /// The queries' refresh count when the read began.
    fileprivate let since: Int

    func link(index: Int) throws(ReachabilityError) -> Link? {
        try queries.followedLink(index: index, since: since)
    }

    /// Every link, from a dump (only the link-local target needs them all).
    func allLinks() throws(ReachabilityError) -> [Link] { try queries.links() }
}

extension RouteRefusal {
    /// The refusal a route lookup's errno stands for.
    init(errno code: Int32) {
        switch code {
        case ENETUNREACH: self = .nothingMatched
        case EHOSTUNREACH: self = .unreachable
        case EACCES: self = .prohibited
        case EINVAL: self = .blackhole
        default: self = .other(code)
        }
    }
}
