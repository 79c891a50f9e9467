// What the example uses without making it: the reader's own logger.
#if canImport(NetworkReachabilityRadio)
    import Logging

    let logger = Logger(label: "example")
#endif
