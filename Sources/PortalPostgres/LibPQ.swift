import CLibpqLoader

/// libpq's functions, loaded from libpq.so.5 on first use (never linked: see libpq_loader.h).
/// The table is written once, before anyone reads it, and never changes: safe to share.
struct LibPQ: @unchecked Sendable {
    let functions: portal_libpq

    /// The loaded library, or why it could not be loaded.
    static let shared: Result<LibPQ, PortalLibPQError> = {
        var reason: UnsafePointer<CChar>?
        guard let loaded = portal_libpq_load(&reason) else {
            return .failure(PortalLibPQError(message: reason.map { String(cString: $0) } ?? "unknown reason"))
        }
        return .success(LibPQ(functions: loaded.pointee))
    }()
}

/// libpq could not be loaded (install Debian's libpq5).
struct PortalLibPQError: Error {
    let message: String
}
