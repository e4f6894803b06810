import Foundation
import Synchronization
import Testing
@testable import PortalEngine

/// Two integer attributes (one key path type, two key paths) and two optional texts.
private struct Pair: PortalEntity, Equatable {
    static let entityName = "Pair"
    static let idAttribute = "id"
    var id: Int64
    var a: Int64
    var b: Int64
    var label: String?
    var note: String?
}

// One query site each: the same expression type whatever the values.
private func aEquals(_ value: Int64) -> Predicate<Pair> { #Predicate { $0.a == value } }
private func bEquals(_ value: Int64) -> Predicate<Pair> { #Predicate { $0.b == value } }
private func aBelow(_ value: Int64) -> Predicate<Pair> { #Predicate { $0.a < value } }
private func aAbove(_ value: Int64) -> Predicate<Pair> { #Predicate { $0.a > value } }
private func labelIs(_ value: String?) -> Predicate<Pair> { #Predicate { $0.label == value } }
private func labelHas(_ text: String) -> Predicate<Pair> { #Predicate { $0.label?.contains(text) == true } }
private func labelStarts(_ text: String) -> Predicate<Pair> { #Predicate { $0.label?.starts(with: text) == true } }
private func either(_ flag: Bool, _ value: Int64) -> Predicate<Pair> { #Predicate { flag || $0.a == value } }
private func listed(_ values: [Int64], _ least: Int64) -> Predicate<Pair> { #Predicate { values.contains($0.b) && $0.a >= least } }

private struct Fixture: @unchecked Sendable {
    // Unchecked: the folder is only removed when the fixture goes; the rest is Sendable.
    let folder: TemporaryFolder
    let store: Store
    let pairs: [Pair]
    let schema: Schema
    let entity: EntityDescription

    init() throws {
        folder = try TemporaryFolder()
        store = try Store(path: folder.path("pairs.sqlite"))
        try store.write { ctx in
            try ctx.execute("CREATE TABLE Pair (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER NOT NULL, label TEXT, note TEXT)")
        }
        let labels: [String?] = [nil, "", "apple", "Apple", "pear", "café", "x"]
        pairs = (0..<40).map { i in
            Pair(id: Int64(i + 1), a: Int64(i % 7), b: Int64(i % 5), label: labels[i % labels.count], note: i % 3 == 0 ? nil : "n")
        }
        try Portal<Pair>(store).create(pairs)
        (schema, entity) = try store.read { ctx in (try ctx.schema, try ctx.entity(named: "Pair")) }
    }

    /// The bound values with each text as its Unicode scalars (`==` on texts is Swift's, which
    /// takes canonically equivalent texts as equal).
    static func scalars(_ filter: CompiledFilter) -> [String] {
        filter.condition.bindings.map { value in
            guard case .text(let text) = value else { return "\(value)" }
            return text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
        }
    }

    /// The filter through the cache.
    func cached(_ predicate: Predicate<Pair>) throws -> CompiledFilter {
        try FoundationPredicates.filter(predicate, entity: entity, schema: schema, alias: "t0", dialect: .sqlite)
    }

    /// The filter the one translator and compiler make, with no cache.
    func fresh(_ predicate: Predicate<Pair>) throws -> CompiledFilter {
        try PredicateCompiler.compile(Query(predicate: FoundationPredicates.tree(predicate)), entity: entity, schema: schema,
                                      alias: "t0", dialect: .sqlite)
    }

    /// The cached filter equals the fresh one, and the rows it reads are those Foundation keeps
    /// (`rows`: not for text in another normalization, which Swift finds and SQL does not).
    func check(_ predicate: Predicate<Pair>, _ comment: Comment, rows: Bool = true) throws {
        let (cached, fresh) = try (cached(predicate), fresh(predicate))
        #expect(cached == fresh, comment)
        #expect(Self.scalars(cached) == Self.scalars(fresh), comment)
        guard rows else { return }
        let read = try Portal<Pair>(store).findAll(where: predicate, sortedBy: [SortDescriptor(\Pair.id)])
        #expect(read == pairs.filter { (try? predicate.evaluate($0)) == true }, comment)
    }
}

@Suite struct CompiledPredicateCacheTests {
    @Test func aShapeCompiledOnceBindsEachCallsValues() throws {
        let fixture = try Fixture()
        for value: Int64 in [3, 5, 3, 0, -1, Int64.max] {
            try fixture.check(aEquals(value), "a == \(value)")
        }
        #expect(try fixture.cached(aEquals(9)).condition.bindings == [.integer(9)])
        #expect(try fixture.cached(aEquals(4)).condition.bindings == [.integer(4)])
    }

    @Test func keyPathsAndOperatorsOfOneTypeStayApart() throws {
        let fixture = try Fixture()
        for value: Int64 in [2, 4] {
            try fixture.check(aEquals(value), "a == \(value)")
            try fixture.check(bEquals(value), "b == \(value)")
            try fixture.check(aBelow(value), "a < \(value)")
            try fixture.check(aAbove(value), "a > \(value)")
        }
        #expect(try fixture.cached(aEquals(2)).condition.sql != fixture.cached(bEquals(2)).condition.sql)
        #expect(try fixture.cached(aBelow(2)).condition.sql != fixture.cached(aAbove(2)).condition.sql)
    }

    @Test func nilAndOtherValuesThatShapeTheSQLAreCompiledForTheirShape() throws {
        let fixture = try Fixture()
        for label: String? in [nil, "apple", nil, "pear", "", "x"] {
            try fixture.check(labelIs(label), "label == \(String(describing: label))")
        }
        #expect(try fixture.cached(labelIs(nil)).condition.sql.contains("IS NULL"))
        #expect(try !fixture.cached(labelIs("apple")).condition.sql.contains("IS NULL"))
        // A captured empty text is in every text (Swift's contains), decided at translation.
        for text in ["pp", "", "ear", "", "é", "afé"] {
            try fixture.check(labelHas(text), "label contains \(text)")
        }
        for flag in [false, true, false] {
            try fixture.check(either(flag, 3), "\(flag) || a == 3")
        }
        for (values, least) in [([1, 2], 1), ([1, 2], 4), ([3], 1), ([], 0), ([0, 1, 2, 3], 2)] as [([Int64], Int64)] {
            try fixture.check(listed(values, least), "\(values) contains b, a >= \(least)")
        }
    }

    @Test func textTheCompilerRewritesIsHeldToItsBytes() throws {
        let fixture = try Fixture()
        // BEGINSWITH on a text column binds a range computed from the text; "café" in two
        // normalizations is equal to Swift and different to SQL.
        for text in ["ap", "Ap", "caf", "café", "cafe\u{301}", "ap", "café"] {
            try fixture.check(labelStarts(text), "label starts with \(text)", rows: text.utf8.count == text.unicodeScalars.count
                              || text.unicodeScalars.count == text.count)
        }
        #expect(try Fixture.scalars(fixture.cached(labelStarts("cafe\u{301}"))) != Fixture.scalars(fixture.cached(labelStarts("café"))))
    }

    @Test func threadsCompilingOneShapeEachGetTheirOwnValues() throws {
        let fixture = try Fixture()
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let value = Int64(i % 9)
            let predicate = i % 2 == 0 ? aEquals(value) : labelIs(i % 3 == 0 ? nil : "l\(i)")
            let same = (try? fixture.cached(predicate)).map(Fixture.scalars) == (try? fixture.fresh(predicate)).map(Fixture.scalars)
            if !same { failures.withLock { $0 += 1 } }
        }
        #expect(failures.withLock { $0 } == 0)
    }

    @Test func theCacheKeepsABoundedNumberOfShapes() throws {
        let fixture = try Fixture()
        // Each text its own compilation (the compiler rewrites it): more than fit.
        for i in 0..<(CompiledPredicateCache.capacity + 40) {
            _ = try fixture.cached(labelStarts("t\(i)"))
        }
        #expect(CompiledPredicateCache.count <= CompiledPredicateCache.capacity)
        // One query site whose text shapes each SQL: it keeps a few shapes, not one per text.
        let site = try #require(PredicateCaptures.of(labelStarts("z")))
        #expect(CompiledPredicateCache.isFull(CompiledPredicateCache.key(labelStarts("z").expression, site)))
        #expect(CompiledPredicateCache.count > 0)
        try fixture.check(labelStarts("ap"), "after eviction")
    }
}
