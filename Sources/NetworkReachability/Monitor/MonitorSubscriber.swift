/// What a ``ReachabilityMonitor`` registration delivers to: an object's ``ListenerHub``.
///
/// A protocol rather than two closures: with 10,000 objects listening, each closure's context was an
/// allocation per registration, and the registration held both.
protocol MonitorSubscriber: AnyObject, Sendable {
    /// A snapshot of the registration's target that it has not heard yet, on the monitor's thread; must return
    /// quickly and never block. Deliveries to dispatch queues go into `batch`, sent once every subscriber of the
    /// part has been called; they name `snapshot` by its `position` in the list the batch holds. `registration`
    /// tells the current registration's deliveries from late ones of an earlier registration.
    func receive(_ snapshot: ReachabilitySnapshot, at position: Int, registration: UInt64, batch: DeliveryBatch)

    /// Told once, on the monitor's thread, that the subscription failed for good and the registration is gone.
    func registrationEnded(_ registration: UInt64, because error: ReachabilityError)
}
