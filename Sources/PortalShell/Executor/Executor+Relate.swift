import PortalEngine

/// `relate E.col -> F`: relationships for tables without declared foreign keys, so that key
/// paths work there too; saved per database (`SavedRelationships`).
extension Executor {
    func relate(_ from: Located<String>, _ to: Located<String>) throws {
        let database = try requireDatabase()
        let (entity, attribute) = try entityAndAttribute(from)
        let (destination, destinationColumn) = try destinationAndColumn(to, in: database.schema)
        let toColumns = destinationColumn.map { [$0] } ?? destination.identifyingColumns
        guard toColumns.count == 1 else {
            throw ShellError("\(destination.name) has no single-column id (\(toColumns.joined(separator: ", "))): "
                             + "name the column: relate \(KeyName.written(entity.name)).\(KeyName.written(attribute.name)) -> "
                             + "\(KeyName.written(destination.name)).COLUMN", to.range)
        }
        let key = ForeignKey(from: entity.name, to: destination.name, fromColumns: [attribute.name],
                             toColumns: destinationColumn.map { [$0] } ?? [])
        if database.declaredRelationships.contains(key) {
            throw ShellError("\(entity.name).\(attribute.name) -> \(destination.name) is already related", from.range)
        }
        let file = try database.declare(key, adding: true)
        let names = relationshipNames(of: key, in: database.schema)
        report("related \(entity.name).\(attribute.name) -> \(destination.name): "
               + "\(entity.name).\(names.toOne ?? "?") (to-one), \(destination.name).\(names.toMany ?? "?") (to-many); "
               + (file.map { "saved in \($0)" } ?? "for this session"))
    }

    func unrelate(_ from: Located<String>) throws {
        let database = try requireDatabase()
        let (entity, attribute) = try entityAndAttribute(from)
        let keys = database.declaredRelationships.filter { $0.from == entity.name && $0.fromColumns == [attribute.name] }
        guard !keys.isEmpty else {
            throw ShellError("\(entity.name).\(attribute.name) has no relationship made with 'relate'", from.range)
        }
        for key in keys { _ = try database.declare(key, adding: false) }
        report("unrelated \(entity.name).\(attribute.name)")
    }

    func listRelations() throws {
        let database = try requireDatabase()
        let renderer = makeRenderer(options, stream: output)
        renderer.begin(columns: ["entity", "attribute", "destination", "to-one", "to-many"])
        for key in database.declaredRelationships {
            let names = relationshipNames(of: key, in: database.schema)
            renderer.row([.text(key.from), .text(key.fromColumns.joined(separator: ", ")), .text(key.to),
                          names.toOne.map(Value.text) ?? .null, names.toMany.map(Value.text) ?? .null])
        }
        renderer.end()
    }

    /// `Track.GenreId`: the entity and its attribute (the last dot divides them).
    private func entityAndAttribute(_ path: Located<String>) throws -> (EntityDescription, AttributeDescription) {
        guard let dot = path.value.lastIndex(of: ".") else {
            throw ShellError("expected ENTITY.attribute, found '\(path.value)'", path.range)
        }
        let entity = try entity(Located(String(path.value[..<dot]), path.range))
        let attribute = try attribute(Located(String(path.value[path.value.index(after: dot)...]), path.range), of: entity)
        return (entity, attribute)
    }

    /// `Genre` or `Genre.GenreId`.
    private func destinationAndColumn(_ name: Located<String>, in schema: Schema) throws -> (EntityDescription, String?) {
        if schema.entity(named: name.value) != nil { return (try entity(name), nil) }
        let (entity, attribute) = try entityAndAttribute(name)
        return (entity, attribute.name)
    }

    private func relationshipNames(of key: ForeignKey, in schema: Schema) -> (toOne: String?, toMany: String?) {
        let toOne = schema.entity(named: key.from)?.relationships
            .last { $0.kind == .toOne && $0.destination == key.to && $0.sourceColumns == key.fromColumns }
        let toMany = schema.entity(named: key.to)?.relationships
            .last { $0.kind == .toMany && $0.destination == key.from && $0.destinationColumns == key.fromColumns }
        return (toOne?.name, toMany?.name)
    }
}
