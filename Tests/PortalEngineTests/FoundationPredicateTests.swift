import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite
import FoundationOracle

/// The engine's tree of a Foundation predicate, as predicate text.
private func text(_ predicate: Predicate<MusicTrack>) throws -> String {
    return try FoundationPredicates.tree(predicate).description
}

private func refusal(_ predicate: Predicate<MusicTrack>) -> String? {
    do { _ = try FoundationPredicates.tree(predicate); return nil } catch { return "\(error)" }
}

private func musicStore(seed: UInt64 = 7) throws -> (Store, MusicWorld, TemporaryFolder) {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("music.sqlite"))
    let world = MusicWorld(seed: seed)
    try world.store(into: store)
    return (store, world, folder)
}

@Suite struct FoundationPredicateTranslationTests {
    @Test func comparisonsLogicAndCapturedValues() throws {
        let least = 300_000, prefix = "Co"
        #expect(try text(#Predicate { $0.milliseconds > least && $0.name.starts(with: prefix) })
                == #"milliseconds > 300000 AND name BEGINSWITH "Co""#)
        #expect(try text(#Predicate { $0.composer == nil || !($0.unitPrice >= 0.99) })
                == "composer == NULL OR NOT unitPrice >= 0.99")
        #expect(try text(#Predicate { $0.composer != nil && $0.name.contains("ove") })
                == #"composer != NULL AND name CONTAINS "ove""#)
        let video = MediaKind.video
        #expect(try text(#Predicate { $0.kind == video && $0.explicit })
                == "MediaKind == 2 AND explicit == 1")
        #expect(try text(#Predicate { $0.milliseconds / 1000 % 60 == 0 })
                == "trunc(milliseconds / 1000) - 60 * trunc(trunc(milliseconds / 1000) / 60) == 0")
    }

    @Test func rangesListsCoalescingAndTernary() throws {
        let kinds = [MediaKind.audio, .podcast]
        #expect(try text(#Predicate { (1_000...5_000).contains($0.milliseconds) })
                == "milliseconds >= 1000 AND milliseconds <= 5000")
        #expect(try text(#Predicate { kinds.contains($0.kind) }) == "MediaKind IN {1, 3}")
        #expect(try text(#Predicate { ($0.composer ?? "none") == "none" })
                == #"composer != NULL AND composer == "none" OR composer == NULL AND TRUEPREDICATE"#)
        #expect(try text(#Predicate { ($0.explicit ? 1 : 2) == 2 })
                == "explicit == 1 AND FALSEPREDICATE OR NOT explicit == 1 AND TRUEPREDICATE")
    }

    @Test func relationships() throws {
        #expect(try text(#Predicate { $0.album?.title.starts(with: "A") == true })
                == #"album != NULL AND album.title BEGINSWITH "A""#)
        #expect(try text(#Predicate { $0.album?.artist?.name == "Blue" }) == #"album.artist.name == "Blue""#)
        let albums = #Predicate<MusicAlbum> { album in
            album.tracks.contains { $0.milliseconds > 300_000 } && album.tracks.allSatisfy { $0.unitPrice > 0 }
                && album.tracks.filter { $0.explicit }.count > 2 && !album.tracks.isEmpty
        }
        #expect(try FoundationPredicates.tree(albums).description
                == "SUBQUERY(tracks, $e1, $e1.milliseconds > 300000).@count > 0 AND SUBQUERY(tracks, $e2, NOT $e2.unitPrice > 0.0).@count == 0 "
                + "AND SUBQUERY(tracks, $e3, $e3.explicit == 1).@count > 2 AND NOT tracks.@count == 0")
    }

    @Test func refusalsNameTheExpression() {
        #expect(refusal(#Predicate { $0.seconds > 3 })?.contains("computed property") == true)
        let names = ["a", "b"]
        #expect(refusal(#Predicate { (names.max() ?? "") == $0.name })?.contains("PredicateExpressions.SequenceMaximum") == true)
    }

    @Test func propertiesOfCapturedValuesAreRead() throws {
        struct Reference: Codable, Sendable { var id: Int64 }
        let other = Reference(id: 4)
        #expect(try text(#Predicate { $0.trackId == other.id }) == "trackId == 4")
        // A computed property of an attribute's value (an enum's rawValue) is not a column.
        #expect(refusal(#Predicate { $0.kind.rawValue == 2 })?.contains("on a value has no translation") == true)
    }

    @Test func capturedValuesOfEachTypeBecomeLiterals() throws {
        typealias T = FoundationPredicateTranslator
        // A decimal keeps every digit (compared in numeric on PostgreSQL, as its double on SQLite).
        #expect(try T.literal(Decimal(string: "1.5") as Any) == .literal(ExactDecimal("1.5").map(Value.decimal) ?? .null))
        let long = try #require(Decimal(string: "12345678901234567890.0123456789"))
        #expect(try T.literal(long) == .literal(ExactDecimal("12345678901234567890.0123456789").map(Value.decimal) ?? .null))
        #expect(try T.literal(Data([1, 2])) == .literal(.blob([1, 2])))
        let uuid = MusicWorld.code(3)
        #expect(try T.literal(uuid) == .literal(.text(uuid.uuidString)))
        // A date is compared by each column's own convention: CAST of seconds since 2001.
        #expect(try T.literal(Date(timeIntervalSinceReferenceDate: 86_400)) == .cast(.literal(.real(86_400)), "NSDate"))
        #expect(try T.literal(MediaKind.podcast) == .literal(.integer(3)))
        #expect(try T.literal(Int?.none as Any) == .literal(.null))
        #expect(try T.literal(Int8(-3)) == .literal(.integer(-3)))
        #expect(try T.literal(Float(0.5)) == .literal(.real(0.5)))
        #expect(try T.literal([1, 2]) == .aggregate([.literal(.integer(1)), .literal(.integer(2))]))
        #expect((try? T.literal(UInt64.max)) == nil)
    }

    @Test func sortDescriptorsNameColumns() throws {
        let keys = try FoundationPredicates.sortKeys([SortDescriptor(\MusicTrack.milliseconds, order: .reverse),
                                                      SortDescriptor(\MusicTrack.name)])
        #expect(keys == [SortKey("milliseconds", ascending: false), SortKey("name")])
        // Through a to-one relationship, as SwiftData sorts by `\.album?.title`.
        #expect(try FoundationPredicates.sortKeys([SortDescriptor(\MusicTrack.album?.title)]) == [SortKey("album.title")])
    }
}

@Suite struct FoundationPredicatePortalTests {
    @Test func findAllCountFirstCursorAndDelete() async throws {
        let (store, world, folder) = try musicStore()
        defer { withExtendedLifetime(folder) {} }
        let tracks = Portal<MusicTrack>(store)
        let long = try tracks.findAll(where: #Predicate { $0.milliseconds > 300_000 },
                                      sortedBy: [SortDescriptor(\.milliseconds, order: .reverse)], limit: 5)
        let expected = world.tracks.filter { $0.milliseconds > 300_000 }.sorted { $0.milliseconds > $1.milliseconds }.prefix(5)
        #expect(long.map(\.trackId) == expected.map(\.trackId))
        #expect(try tracks.count(where: #Predicate { $0.composer != nil }) == world.tracks.filter { $0.composer != nil }.count)
        #expect(try tracks.findFirst(where: #Predicate { $0.trackId == 3 })?.trackId == 3)
        var streamed: [Int64] = []
        for try await track in try tracks.cursor(where: #Predicate { $0.milliseconds < 100_000 }, sortedBy: [SortDescriptor(\.trackId)]) {
            streamed.append(track.trackId)
        }
        #expect(streamed == world.tracks.filter { $0.milliseconds < 100_000 }.map(\.trackId))
        let short = world.tracks.filter { $0.milliseconds < 100_000 }.count
        #expect(try tracks.deleteAll(where: #Predicate { $0.milliseconds < 100_000 }) == short)
        #expect(try tracks.count(where: #Predicate { _ in true }) == world.tracks.count - short)
    }

    @Test func refusedPredicateFailsAtTheCall() throws {
        let (store, _, folder) = try musicStore()
        defer { withExtendedLifetime(folder) {} }
        let error = portalError { try Portal<MusicTrack>(store).findAll(where: #Predicate { $0.seconds > 3 }) }
        #expect(error?.kind == .predicate)
        #expect(error?.message.contains("computed property") == true)
    }

    @Test func contextsTakeFoundationPredicates() throws {
        let (store, world, folder) = try musicStore()
        defer { withExtendedLifetime(folder) {} }
        let n = try store.read { ctx in try ctx.count(MusicAlbum.self, where: #Predicate { $0.tracks.count >= 5 }) }
        #expect(n == world.albums.filter { $0.tracks.count >= 5 }.count)
        let sql = try store.read { ctx in try ctx.selectStatement(MusicTrack.self, where: #Predicate { $0.milliseconds > 5 }) }
        #expect(sql.bindings == [.integer(5)])
    }
}


/// The shell's closure text and the compiled `#Predicate` it was copied from compile to the same
/// SQL: one meaning, whichever way the closure arrives.
@Suite struct SwiftClosureTextTests {
    /// A long closure's parse asks `PredicateInterruption` as it goes, as NSPredicate text's does,
    /// and stops with `.interrupted`. The question says yes on this test's thread only.
    @Test func aLongClosuresParseStopsWhenAsked() throws {
        let (store, _, folder) = try musicStore()
        defer { withExtendedLifetime(folder) {} }
        let text = "{ " + (1...20_000).map { "$0.milliseconds == \($0)" }.joined(separator: " || ") + " }"
        let nsText = (1...20_000).map { "milliseconds == \($0)" }.joined(separator: " OR ")
        let schema = try store.read { ctx in try ctx.schema }
        let track = try #require(schema.entity(named: "Track"))
        Thread.current.threadDictionary["stop parsing"] = true
        PredicateInterruption.requested = { Thread.current.threadDictionary["stop parsing"] != nil }
        defer {
            PredicateInterruption.requested = nil
            Thread.current.threadDictionary["stop parsing"] = nil
        }
        for parse in [{ _ = try SwiftClosurePredicate.tree(text, entity: track, schema: schema) },
                      { _ = try Query.parse(nsText) }] as [() throws -> Void] {
            #expect(throws: PortalPredicateError.self) { try parse() }
            do { try parse() } catch let error as PortalPredicateError { #expect(error.kind == .interrupted) }
        }
    }

    @Test func textAndCompiledClosuresCompileAlike() throws {
        let (store, _, folder) = try musicStore()
        defer { withExtendedLifetime(folder) {} }
        let pairs: [(String, Predicate<MusicTrack>)] = [
            (#"{ $0.milliseconds > 300_000 && $0.name.starts(with: "Co") }"#, #Predicate { $0.milliseconds > 300_000 && $0.name.starts(with: "Co") }),
            (#"#Predicate<MusicTrack> { t in t.album?.title.starts(with: "A") == true }"#, #Predicate { t in t.album?.title.starts(with: "A") == true }),
            (#"{ ($0.composer ?? "none") == "none" || !$0.explicit }"#, #Predicate { ($0.composer ?? "none") == "none" || !$0.explicit }),
            (#"{ ($0.explicit ? $0.milliseconds : 0) > 1_000 }"#, #Predicate { ($0.explicit ? $0.milliseconds : 0) > 1_000 }),
            (#"{ (1_000...5_000).contains($0.milliseconds) && $0.composer != nil }"#,
             #Predicate { (1_000...5_000).contains($0.milliseconds) && $0.composer != nil }),
            (#"{ $0.album?.artist?.name == "Blue" }"#, #Predicate { $0.album?.artist?.name == "Blue" }),
            (#"{ $0.milliseconds / 1000 % 60 == 0 }"#, #Predicate { $0.milliseconds / 1000 % 60 == 0 }),
            (#"{ $0.name.contains("") && $0.unitPrice * 2.0 >= 1.5 }"#, #Predicate { $0.name.contains("") && $0.unitPrice * 2.0 >= 1.5 }),
        ]
        for (text, predicate) in pairs {
            let compiled = try store.read { ctx in try ctx.selectStatement(MusicTrack.self, where: predicate) }
            let parsed = try store.read { ctx in try ctx.select("Track", .rows(includeRowid: false), text, [], [], nil, nil) }
            #expect(parsed.sql.lowercased() == compiled.sql.lowercased(), "\(text)")
            #expect(parsed.bindings == compiled.bindings, "\(text)")
        }
        let albums = #Predicate<MusicAlbum> { album in
            album.tracks.contains { $0.milliseconds > 300_000 } && album.tracks.filter { $0.explicit }.count > 2
        }
        let compiled = try store.read { ctx in try ctx.selectStatement(MusicAlbum.self, where: albums) }
        let parsed = try store.read { ctx in
            try ctx.select("Album", .rows(includeRowid: false),
                           "{ album in album.tracks.contains { $0.milliseconds > 300_000 } && album.tracks.filter { $0.explicit }.count > 2 }",
                           [], [], nil, nil)
        }
        #expect(parsed.sql.lowercased() == compiled.sql.lowercased())
    }

    @Test func anyTextFailsOrParsesWithoutOverflowingTheStack() throws {
        let (store, _, folder) = try musicStore()
        defer { withExtendedLifetime(folder) {} }
        let (entity, schema) = try store.read { ctx in (try ctx.entity(named: "Track"), try ctx.schema) }
        for text in ["{ " + String(repeating: "!", count: 20_000) + "$0.explicit }",
                     "{ " + String(repeating: "-", count: 20_000) + "$0.milliseconds > 0 }",
                     "{ " + String(repeating: "(", count: 20_000) + "$0.explicit",
                     "{ $0.composer " + String(repeating: "?? $0.composer ", count: 5_000) + "== nil }",
                     "{ " + String(repeating: "$0.tracks.contains { ", count: 2_000) + "true }"] {
            #expect(throws: PortalPredicateError.self) { try SwiftClosurePredicate.tree(text, entity: entity, schema: schema) }
        }
        // A long chain is one list, built in one pass.
        let chain = "{ " + String(repeating: "$0.trackId == 1 || ", count: 5_000) + "false }"
        guard case .or(let operands) = try SwiftClosurePredicate.tree(chain, entity: entity, schema: schema) else {
            Issue.record("expected one OR")
            return
        }
        #expect(operands.count == 5_001)
    }
}

