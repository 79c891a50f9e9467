import ArgumentParser
import NetworkReachabilityExporter

/// `--listen ADDR:PORT`, parsed as ``ListenAddress`` parses it.
extension ListenAddress: ExpressibleByArgument {
    package var defaultValueDescription: String { description }
}
