import CLibpqLoader
import PortalEngine

/// libpq's functions, loaded from libpq.so.5 on first use (never linked: see libpq_loader.h).
/// The table is written once, before anyone reads it, and never changes: safe to share.
struct LibPQ: @unchecked Sendable {
    let functions: portal_libpq

    /// The loaded library, or why it could not be loaded (`.cannotOpen`: install Debian's libpq5).
    static let shared: Result<LibPQ, PortalError> = {
        var reason: UnsafePointer<CChar>?
        guard let loaded = portal_libpq_load(&reason) else {
            let why = reason.map { String(cString: $0) } ?? "unknown reason"
            return .failure(PortalError(.cannotOpen, "cannot load libpq (install libpq5): " + why))
        }
        return .success(LibPQ(functions: loaded.pointee))
    }()
}
