import Foundation

/// The sanitizer the tests (and the binaries built beside them) were built with, if any.
///
/// Memory figures mean little under one: ASan keeps freed memory in quarantine and TSan keeps bookkeeping per
/// thread ever made, so bounds on resident memory apply only to plain builds; leaks are LeakSanitizer's to find.
public enum Sanitizer {
    /// `"address"`, `"thread"`, or `nil` for a plain build: the sanitizer's runtime entry point is linked in.
    public static let current: String? = {
        for (symbol, name) in [("__tsan_init", "thread"), ("__asan_init", "address")] where dlsym(nil, symbol) != nil {
            return name
        }
        return nil
    }()
}
