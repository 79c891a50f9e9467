/// Where the evaluation learns about links: a cache link notifications keep exact (synchronous reads), or the
/// table the subscription keeps current.
protocol LinkSource {
    /// The link with `index`, or `nil` when there is none.
    func link(index: Int) throws(ReachabilityError) -> LinkMessage?
    /// Every link.
    func allLinks() throws(ReachabilityError) -> [LinkMessage]
}

/// The links as last announced by the kernel, kept by the subscription.
struct LinkTable: LinkSource {
    private(set) var byIndex: [Int: LinkMessage] = [:]

    init(_ links: [LinkMessage] = []) {
        for link in links { byIndex[link.index] = link }
    }

    /// Applies an `RTM_NEWLINK`/`RTM_DELLINK`.
    mutating func apply(_ link: LinkMessage) {
        byIndex[link.index] = link.isDeletion ? nil : link
    }

    func link(index: Int) -> LinkMessage? { byIndex[index] }

    func allLinks() -> [LinkMessage] { byIndex.values.sorted { $0.index < $1.index } }
}
