// Built before NetworkReachabilityExporter, so that a build without its trait stops here with one line that names it,
// instead of a "no such module 'NIOCore'" and the errors after it.
#if !Exporter
    #error("NetworkReachabilityExporter needs the package trait Exporter (SwiftNIO, Prometheus): .package(url: …, from: …, traits: [\"Exporter\"])")
#endif
