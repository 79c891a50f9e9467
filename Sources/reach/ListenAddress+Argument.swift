import ArgumentParser
import NetworkReachabilityExporter

/// `--listen ADDR:PORT`, parsed as ``ListenAddress`` parses it; a refusal says why.
extension ListenAddress {
    @Sendable static func parser(_ text: String) throws -> ListenAddress {
        do throws(ListenAddress.Refusal) {
            return try ListenAddress(parsing: text)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
