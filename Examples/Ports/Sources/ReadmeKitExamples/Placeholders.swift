// What the examples use without making it: the reader's own queue, logger, object and upload.
#if canImport(NetworkReachabilityKit)
    import Logging
    import NetworkReachabilityKit

    let queue = DispatchQueue(label: "example")
    let logger = Logger(label: "example")
    let reachability = NetworkReachability()
    let report = "report"
    let client = Client()

    struct Client: Sendable { func send(_ report: String) async throws {} }
    func upload(_ report: String) async throws {}
#endif
