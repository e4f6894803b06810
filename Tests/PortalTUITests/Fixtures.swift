import Foundation
import PortalEngine
@testable import PortalTUI

/// A small catalogue: 30 artists, 100 albums referring to them, and a read-only view.
func makeSource() -> MemoryDataSource {
    let artist = BrowserEntity(name: "Artist", columns: [
        BrowserColumn(name: "ArtistId", declaredType: "INTEGER", isKey: true),
        BrowserColumn(name: "Name", declaredType: "TEXT"),
    ], idColumns: ["ArtistId"])
    let album = BrowserEntity(name: "Album", columns: [
        BrowserColumn(name: "AlbumId", declaredType: "INTEGER", isKey: true),
        BrowserColumn(name: "Title", declaredType: "TEXT"),
        BrowserColumn(name: "ArtistId", declaredType: "INTEGER",
                      reference: BrowserReference(entity: "Artist", column: "ArtistId")),
    ], idColumns: ["AlbumId"])
    let view = BrowserEntity(name: "Summary", columns: [BrowserColumn(name: "Total", declaredType: "INTEGER")],
                             isReadOnly: true, idColumns: [])
    let artists = (1...30).map { i in
        BrowserRow(id: [.integer(Int64(i))], values: [.integer(Int64(i)), .text("Artist \(i)")])
    }
    let albums = (1...100).map { (i: Int) -> BrowserRow in
        let id = Value.integer(Int64(i))
        let title = Value.text(String(format: "Album %03d", i))
        let artist = Value.integer(Int64((i - 1) % 30 + 1))
        return BrowserRow(id: [id], values: [id, title, artist])
    }
    return MemoryDataSource([(album, albums), (artist, artists), (view, [BrowserRow(id: [], values: [.integer(7)])])])
}

/// A model on the fixture, opened on `entity`, 80×12 (9 rows per page).
func makeModel(_ source: MemoryDataSource = makeSource(), entity: String = "Album", width: Int = 80, height: Int = 12,
               readOnly: Bool = false, runCommand: ((String) -> String)? = nil) throws -> BrowserModel {
    let model = BrowserModel(source: source, width: width, height: height, readOnly: readOnly, runCommand: runCommand)
    try model.start(entity: entity, filter: nil)
    model.runPendingCounts()
    return model
}

extension BrowserModel {
    /// Keys as the runner delivers them: each followed by the background counts it started.
    func press(_ keys: BrowserKey...) {
        for key in keys {
            handle(key)
            runPendingCounts()
        }
    }
    func type(_ text: String) { for c in text { press(.character(c)) } }
    var screen: ScreenBuffer { Renderer.render(self) }
    /// The first value of the cursor's row (the id in the fixture).
    var cursorID: Value? { currentRow?.values.first }
}
