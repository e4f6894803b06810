// Users of the engine get Value, Argument and the predicate types with `import PortalEngine`.
@_exported import PortalPredicate
