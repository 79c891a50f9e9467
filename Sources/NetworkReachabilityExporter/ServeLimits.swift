package import NIOCore
import NIOHTTP1

/// The bounds `reach serve` keeps whatever its clients do, so that its memory stays bounded and a well-behaved
/// client is answered.
package struct ServeLimits: Sendable {
    /// The defaults for serving `targets` targets.
    package init(targets: Int = 1) {
        streamBacklog = (64 << 10) + 1024 * targets
    }

    /// Connections open at once. At the bound, a new connection closes the oldest one not yet answered (a request
    /// head not yet whole, or an answer not yet taken); when every connection is a stream, the new one is closed.
    package var maxConnections = 256
    /// `/events` streams open at once; one more is answered 503.
    package var maxStreams = 16
    /// Requests for the metrics path answered at once (from their head to their answer's last byte taken), as
    /// node_exporter's `--web.max-requests`; one more is answered 503. 0: no bound.
    package var maxRequests = 40
    /// The path the Prometheus exposition is served at.
    package var metricsPath = "/metrics"
    /// `/events` streams one client address may hold at once: a quarter of ``maxStreams``, and at least 4 (or all of
    /// them, when there are fewer): one client that opens streams and never reads them cannot take every place.
    var streamsPerPeer: Int { max(min(maxStreams, 4), maxStreams / 4) }
    /// How often an `/events` stream gets a comment line while nothing changes: proxies keep it, a reader learns the
    /// stream is alive, and a peer gone without a word is found (its kernel stops acknowledging).
    var streamHeartbeat = TimeAmount.seconds(20)
    /// The connections a server can hold: each is a descriptor, and the soft limit is raised to fit them.
    package static let connectionRange = 1...65_536
    /// The bounds `--max-requests` takes.
    package static let requestRange = 0...65_536
    /// The streams a server can hold: each may keep up to its backlog in memory.
    package static let streamRange = 1...1024
    /// How long a connection may take to send a whole request head, counted from its opening or from the end of its
    /// previous answer, and how long an answer may take to be written: silent, slow (slowloris) and idle clients
    /// are closed after it.
    package var requestTimeout = TimeAmount.seconds(10)
    /// How long a stop waits for answers being written before it closes their connections (or the request timeout,
    /// when shorter): a client that does not read cannot hold a stop up.
    var stopGrace = TimeAmount.seconds(1)
    /// Bytes an `/events` stream may have waiting in the process before its reader counts as behind: then each
    /// target's newest change waits in its place, written when the reader catches up, and a reader behind for
    /// ``requestTimeout`` is dropped. ``init(targets:)`` makes it 64 KiB and 1 KiB per target (an event is 400 to 800
    /// bytes), so a stream holds at most about twice that, whatever the routes do.
    var streamBacklog: Int
    /// The kernel's send buffer of an `/events` stream, so a reader that stops reading holds little there too.
    var streamSocketBuffer = 64 << 10
    /// The kernel's send buffer of every other connection (the kernel doubles it): a client that does not read its
    /// answer holds 256 KiB of kernel memory, where the kernel's own tuning lets it hold up to 4 MiB (measured with
    /// `ss -tm`: 3.9 MiB), and a scrape that large stays in flight until it is read or timed out.
    var answerSocketBuffer = 128 << 10

    /// A request head is a few hundred bytes; these bounds answer anything much larger with 400 and close it.
    static let requestHeadLimits: NIOHTTPDecoderLimitConfiguration = {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = 8 << 10
        limits.maxHeaderListSize = 16 << 10
        limits.maxHeaderFieldCount = 64
        return limits
    }()
}
