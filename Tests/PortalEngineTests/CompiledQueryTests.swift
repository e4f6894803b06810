import Foundation
import Synchronization
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// `Portal<T>.Query`: a predicate compiled once and run with new `$variable` values. The second
/// way to compute is the same predicate written with `%@` placeholders and fetched afresh.
@Suite struct CompiledQueryTests {
    struct Track: PortalEntity, Equatable {
        static let entityName = "Track"
        static let idAttribute = "TrackId"
        var TrackId: Int64
        var Name: String
        var AlbumId: Int64?
        var Composer: String?
        var Milliseconds: Int64
        var UnitPrice: Double
    }

    func chinook() throws -> Store {
        try Store(path: chinookPath, options: StoreOptions(readOnly: true, create: false))
    }

    /// (with `$x`, with `%@`, the values of each run).
    static let cases: [(variables: String, placeholders: String, runs: [[Argument]])] = [
        ("Milliseconds > $a", "Milliseconds > %@",
         [[.value(300_000)], [.value(500_000)], [.value(5_000_000)], [.value(250_000.5)]]),
        ("Name BEGINSWITH $a", "Name BEGINSWITH %@", [[.value("The")], [.value("A")], [.value("Ü")], [.value("")], [.value("%")]]),
        ("Album.Title CONTAINS[c] $a AND UnitPrice < $b", "Album.Title CONTAINS[c] %@ AND UnitPrice < %@",
         [[.value("rock"), .value(1.0)], [.value("LOVE"), .value(2.0)], [.value("été"), .value(1.0)]]),
        ("TrackId IN $a", "TrackId IN %@", [[.list([1, 2, 3])], [.list([10, 20])], [.list([3503, 1, 7])]]),
        ("Composer == $a OR TrackId == $b", "Composer == %@ OR TrackId == %@",
         [[.value(nil), .value(1)], [.value("AC/DC"), .value(2)], [.value("Queen"), .value(3)]]),
        ("Milliseconds BETWEEN $a", "Milliseconds BETWEEN %@", [[.list([200_000, 210_000])], [.list([1, 100_000])]]),
        ("Genre.Name IN $a", "Genre.Name IN %@", [[.list(["Rock", "Jazz"])], [.list(["Blues"])], [.list(["Jazz", "Metal", "Pop"])]]),
    ]

    @Test func everyRunMatchesTheSamePredicateCompiledAfresh() throws {
        let store = try chinook()
        for test in Self.cases {
            let query = try Portal<Track>.Query(where: test.variables, sortedBy: [SortKey("TrackId")], in: store)
            #expect(query.variables == Array(["a", "b"].prefix(test.runs[0].count)))
            for values in test.runs {
                let named: [String: any ArgumentConvertible] = Dictionary(uniqueKeysWithValues: zip(["a", "b"], values).map { ($0, $1) })
                let compiled = try store.read { ctx in try ctx.fetch(query, named) }
                let afresh = try store.read { ctx in
                    try ctx.fetch(Track.self, where: test.placeholders, values, sortedBy: [SortKey("TrackId")])
                }
                #expect(compiled == afresh, "\(test.variables) with \(values)")
                var streamed: [Track] = []
                try store.read { ctx in try ctx.forEach(query, named) { streamed.append($0) } }
                #expect(streamed == afresh)
            }
        }
    }

    @Test func aShapeIsCompiledOnceAndItsValuesReBound() throws {
        let store = try chinook()
        let longer = try Portal<Track>(store).query(where: "Milliseconds > $ms")
        #expect(try Portal<Track>(store).findAll(longer, ["ms": 1_000_000]).count
                == store.read { ctx in try ctx.count("Track", where: "Milliseconds > 1000000") })
        guard case .template(let template)? = longer.plans.plan(for: QueryShape([.value(.integer(1))])) else {
            Issue.record("no template for integers")
            return
        }
        #expect(template.slots.count == 1)
        #expect(template.filled(with: [.value(.integer(7))]).bindings == [.integer(7)])
        // A BEGINSWITH range is computed from the value: compiled for each run instead.
        let prefix = try Portal<Track>(store).query(where: "Name BEGINSWITH $p")
        let zs = try Portal<Track>(store).findAll(prefix, ["p": "Z"])
        #expect(!zs.isEmpty && zs.allSatisfy { $0.Name.hasPrefix("Z") })
        guard case .compileEachRun? = prefix.plans.plan(for: QueryShape([.value(.text("Z"))])) else {
            Issue.record("BEGINSWITH should compile for each run")
            return
        }
    }

    @Test func aTypoFailsAtConstructionPointingAtIt() throws {
        let store = try chinook()
        let error = portalError { try Portal<Track>.Query(where: "Milisecond > $ms", in: store) }
        #expect(error?.kind == .predicate)
        #expect(error?.predicateError?.kind == .unknownName)
        #expect(error?.predicateError?.range == 0..<10)
        #expect(error?.suggestion == "Milliseconds" || error?.predicateError?.suggestion == "Milliseconds")
        let syntax = portalError { try Portal<Track>.Query(where: "Milliseconds > ", in: store) }
        #expect(syntax?.kind == .predicate)
        #expect(syntax?.predicateError?.kind == .syntax)
        let throughRelationship = portalError { try Portal<Track>.Query(where: "Album.Titel == $t", in: store) }
        #expect(throughRelationship?.predicateError?.kind == .unknownName)
        let sort = portalError { try Portal<Track>.Query(where: "TrackId > $x", sortedBy: [SortKey("Nme")], in: store) }
        #expect(sort?.kind == .predicate)
    }

    @Test func aMissingVariableAtRunTimeIsNamed() throws {
        let store = try chinook()
        let query = try Portal<Track>.Query(where: "Milliseconds > $ms", in: store)
        let error = portalError { try store.read { ctx in try ctx.fetch(query, ["m": 5]) } }
        #expect(error?.kind == .predicate)
        #expect(error?.message.contains("$ms") == true)
    }

    /// A value of a kind the predicate cannot use fails at run time, as a predicate error.
    @Test func aValueOfTheWrongKindFailsWhenRun() throws {
        let store = try chinook()
        let query = try Portal<Track>.Query(where: "Milliseconds + $n > 300000", in: store)
        let error = portalError { try store.read { ctx in try ctx.fetch(query, ["n": "ten"]) } }
        #expect(error?.kind == .predicate)
        let found = try store.read { ctx in try ctx.fetch(query, ["n": 10]) }
        let afresh = try store.read { ctx in try ctx.count("Track", where: "Milliseconds + 10 > 300000") }
        #expect(found.count == afresh)
    }

    @Test func aQueryRunsOnAnotherStoreOfTheSameSchema() throws {
        let query = try Portal<Track>.Query(where: "TrackId == $id", in: try chinook())
        let other = try chinook()
        let fifth = try other.read { ctx in try ctx.fetch(query, ["id": 5]) }
        #expect(fifth.map(\.TrackId) == [5])
    }
}

/// One compiled query shared by threads running it with their own values (its plans are shared
/// state): every run matches the same predicate compiled afresh. Run under ThreadSanitizer by
/// `make tsan-test`.
@Suite struct CompiledQueryStressTests {
    @Test func threadsShareOneQuery() throws {
        let store = try Store(path: chinookPath, options: StoreOptions(readOnly: true, create: false))
        let query = try Portal<CompiledQueryTests.Track>.Query(where: "Milliseconds > $ms AND Name BEGINSWITH $p",
                                                               sortedBy: [SortKey("TrackId")], in: store)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            do {
                for i in 0..<25 {
                    let ms = Int64(100_000 + (i * 37 + thread * 11) % 30 * 10_000)
                    let prefix = ["A", "B", "The", "S"][(i + thread) % 4]
                    let compiled = try store.read { ctx in try ctx.fetch(query, ["ms": ms, "p": prefix]) }
                    let afresh = try store.read { ctx in
                        try ctx.fetch(CompiledQueryTests.Track.self, where: "Milliseconds > %@ AND Name BEGINSWITH %@",
                                      [ms, prefix], sortedBy: [SortKey("TrackId")])
                    }
                    if compiled != afresh { failures.withLock { $0.append("\(ms) \(prefix)") } }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
    }
}
