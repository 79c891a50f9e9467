/// A change handler as a lock holds it: a function in a struct.
///
/// A function that is itself a lock's value is converted on the way into and out of every `withLock` the compiler does
/// not specialize (the body's `inout` parameter is reabstracted and written back), so each read wraps the stored
/// function in two more thunks: a handler read once per change grows without bound and costs more to call each time.
/// A struct is passed as it is, so the function inside stays as it was given.
package struct ChangeHandler<Change>: Sendable {
    /// The handler as given.
    package let call: @Sendable (Change) -> Void

    package init(_ call: @escaping @Sendable (Change) -> Void) {
        self.call = call
    }
}
