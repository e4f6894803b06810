extension Portal {
    /// The matching entities, now and after every commit that changed them (the store's
    /// observation: this store's commits that touched the entity, and other processes' commits
    /// noticed by polling), decoded as `Entity` (by `RowDecodable` when it conforms). Bursts of
    /// commits are coalesced. It ends with an error when the query or the decoding fails.
    public func observe(where predicate: String? = nil,
                        _ arguments: [any ArgumentConvertible] = []) -> AsyncThrowingStream<[Entity], Error> {
        AsyncThrowingStream { continuation in
            let token = observe(where: predicate, arguments, onError: { continuation.finish(throwing: $0) }) {
                continuation.yield($0)
            }
            continuation.onTermination = { _ in token.cancel() }
        }
    }

    /// The callback form of `observe(where:)`: `onChange` gets the entities on a private serial
    /// queue. Keep the token: observation stops when it is cancelled or released.
    public func observe(where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = [],
                        onError: (@Sendable (Error) -> Void)? = nil,
                        _ onChange: @escaping @Sendable ([Entity]) -> Void) -> ObservationToken {
        store.observe(Entity.entityName, where: predicate, arguments, onError: onError) { rows in
            do {
                onChange(try rows.map { try $0.decoded(as: Entity.self, entity: Entity.entityName) })
            } catch let error as PortalError {
                onError?(error)
            } catch {
                onError?(PortalError.conversion(error, entity: Entity.entityName))
            }
        }
    }
}
