// What the examples use without making it: the reader's own logger, registry, event loop and upload.
import Logging
import NIOPosix
import Prometheus

let logger = Logger(label: "example")
let registry = PrometheusCollectorRegistry()
let eventLoop = MultiThreadedEventLoopGroup.singleton.next()

func upload<Value>(_ value: Value) async throws {}
func showLogin(_ url: String?) {}
