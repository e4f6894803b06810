// libFuzzer entry point for the predicate parser, printer and evaluator.
//
// Built outside SwiftPM (see `make fuzz`): compiled together with Sources/PortalPredicate/*.swift
// as one module, so it sees the internals. It crashes (abort) when the round trip
// parse → print → parse does not give back the same tree, or when the printed text is not a
// fixed point; any other crash is a bug found by the sanitizers or a trap.
// Crash inputs belong in Tests/PortalPredicateTests/FuzzRegressions/FuzzRegressions.swift.

#if canImport(Glibc)
import Glibc
#endif

private let track = MemoryObject(
    id: 1,
    attributes: ["Name": "Zürich", "Composer": nil, "Milliseconds": 300_000, "UnitPrice": 0.99, "a": 1, "b": "x"],
    affinities: ["Name": .text, "Composer": .text, "Milliseconds": .integer, "UnitPrice": .numeric, "a": .integer],
    toOne: ["Album": MemoryObject(id: 2, attributes: ["Title": "Wave"], affinities: ["Title": .text])])

private let fuzzObject: MemoryObject = {
    var album = MemoryObject(id: 10, attributes: ["Title": "Wave", "a": 2], affinities: ["Title": .text])
    album.toManyRelationships["tracks"] = [track, MemoryObject(id: 3, attributes: ["Name": "", "Milliseconds": nil])]
    album.toOneRelationships["Artist"] = MemoryObject(id: 4, attributes: ["Name": "Antônio"])
    return album
}()

private func fail(_ message: String) -> Never {
    fputs("round trip failure: \(message)\n", stderr)
    abort()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func predicateFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let query = try? Query.parse(text) {
        let printed = query.description
        guard let again = try? Query.parse(printed) else { fail("\(text.debugDescription) printed as unparsable \(printed.debugDescription)") }
        guard again == query else { fail("\(text.debugDescription) → \(printed.debugDescription) → a different tree") }
        guard again.description == printed else { fail("\(printed.debugDescription) is not a fixed point") }
        _ = try? query.predicate.evaluate(with: fuzzObject, variables: ["x": .value(1), "list": .list([1, "a"])])
        _ = try? query.predicate.substituting(variables: ["x": .value(-1), "i": .value(.real(2.5))])
    }
    return 0
}
