import Foundation
import PortalCoreData
import PortalEngine
import PortalSQLite
import Testing

/// Core Data's dates (seconds since 2001) and UUIDs (16-byte blobs) by their meaning: shown as
/// dates and UUID text in `find … select` and the browser's F and I, a UUID text literal matches
/// the blob, and writes of date and UUID text store Core Data's form; each checked on the raw
/// tables.
@Suite struct CoreDataValueTests {
    let shell = try? CoreDataShellTests()
    let t = "ZICCLOUDSYNCINGOBJECT"

    func output(_ arguments: [String]) throws -> String {
        let run = try Shell.run(arguments + ["--format", "tsv", "--no-header"])
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        return run.stdout
    }

    /// A date of Core Data's seconds as the engine writes a `Date`.
    func dateText(_ secondsSince2001: String) throws -> String {
        let seconds = try #require(Double(secondsSince2001.trimmingCharacters(in: .newlines)))
        return try #require(Date(timeIntervalSinceReferenceDate: seconds).databaseValue.textValue)
    }

    @Test(arguments: CoreDataShellTests.notesStores)
    func selectedDatesShowAsDates(name: String) throws {
        let store = try #require(shell).copy(name)
        let title = "This note is password protected"
        let raw = try output(["--raw", store, "-e", "sql SELECT ZCREATIONDATE3 FROM \(t) WHERE ZTITLE1 = '\(title)'"])
        let shown = try output([store, "-e", #"find ICNote select title, creationDate, folder.title where title == "\#(title)""#])
        #expect(shown == "\(title)\t\(try dateText(raw))\tNotes\n")
        let newest = try output(["--raw", store, "-e", "sql SELECT max(ZCREATIONDATE3) FROM \(t) WHERE Z_ENT = 11"])
        #expect(try output([store, "-e", "find ICNote select max(creationDate) as newest"]) == "\(try dateText(newest))\n")
        // A to-many's @max through the key path, per folder.
        let notes = try output(["--raw", store, "-e", "sql SELECT max(ZCREATIONDATE3) FROM \(t) WHERE Z_ENT = 11 "
                                     + "AND ZFOLDER = (SELECT Z_PK FROM \(t) WHERE Z_ENT = 14 AND ZTITLE2 = 'Notes')"])
        #expect(try output([store, "-e", #"find ICFolder select notes.@max.creationDate as newest where title == "Notes""#])
                    == "\(try dateText(notes))\n")
        // Sorted and compared by the stored value still.
        let first = try output([store, "-e", "find ICNote select creationDate sort by creationDate limit 1"])
        let earliest = try output(["--raw", store, "-e", "sql SELECT min(ZCREATIONDATE3) FROM \(t) WHERE Z_ENT = 11"])
        #expect(first == "\(try dateText(earliest))\n")
    }

    @Test func dateTextWrittenThroughTheEngineIsStoredAsSecondsSince2001() throws {
        let store = try #require(shell).copy("NoteStore-macOS-12-Monterey.sqlite")
        var options = StoreOptions()
        options.switchesToWAL = false
        options.catalog = CoreDataStoreCatalog()
        let model = try Store(path: store, options: options)
        #expect(try model.write { ctx in
            try ctx.update("ICNote", set: ["creationDate": "2030-01-02 03:04:05"], where: "title == 'This is a note'")
        } == 1)
        var bad: PortalError?
        do { try model.write { ctx in _ = try ctx.update("ICNote", set: ["creationDate": "soon"]) } } catch let error as PortalError { bad = error }
        #expect(bad?.kind == .conversion && bad?.message.contains("'soon' is not a date") == true, "\(String(describing: bad))")
        try model.close()
        #expect(try output(["--raw", store, "-e", "sql SELECT ZCREATIONDATE3 = strftime('%s', '2030-01-02 03:04:05') - 978307200 "
                                + "FROM \(t) WHERE ZTITLE1 = 'This is a note'"]) == "1\n")
    }

    /// The built store with a UUID attribute `token`: Ada's holds `uuid`, Bo's nothing.
    func uuidStore(_ uuid: UUID) throws -> (store: String, model: [String]) {
        let (store, model) = try #require(shell).uuidStore(uuid)
        return (store, ["--model", model])
    }

    @Test func uuidTextMatchesTheBlobAndIsStoredAsOne() throws {
        let uuid = UUID()
        let (store, model) = try uuidStore(uuid)
        let hex = { (u: UUID) in u.uuidString.replacingOccurrences(of: "-", with: "") }
        #expect(try output([store, "-e", #"find UnrelatedEntity select name where token == "\#(uuid.uuidString)""#] + model) == "Ada\n")
        #expect(try output([store, "-e", #"count UnrelatedEntity where token IN {"\#(UUID().uuidString)", "\#(uuid.uuidString.lowercased())"}"#]
                           + model) == "1\n")
        #expect(try output([store, "-e", #"count UnrelatedEntity where token != "\#(uuid.uuidString)""#] + model) == "1\n")
        #expect(try output([store, "-e", "find UnrelatedEntity select token where name == 'Ada'"] + model) == "\(uuid.uuidString)\n")
        let other = UUID()
        #expect(try output([store, "-e", #"update UnrelatedEntity set token = "\#(other.uuidString)" where name == "Bo""#] + model)
                    .isEmpty)
        #expect(try output(["--raw", store, "-e", "sql SELECT hex(ZTOKEN), typeof(ZTOKEN) FROM ZUNRELATEDENTITY ORDER BY Z_PK"])
                    == "\(hex(uuid))\tblob\n\(hex(other))\tblob\n")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let bad = try Shell.run([store, "-e", #"update UnrelatedEntity set token = "not a uuid" where TRUEPREDICATE"#] + model)
        #expect(bad.status == 1 && bad.stderr.contains("token holds UUIDs: 'not a uuid' is not a UUID"), "\(bad.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    /// Transformable values (keyed archives the app wrote) shown decoded in every format,
    /// filtered by their text, compared with SQL over the raw bytes; text is never written into
    /// them, nil is.
    @Test func archivedValuesShowDecodedAndFilterByTheirText() throws {
        let store = try #require(shell).copy("Photos-macOS-10.15.sqlite")
        let names = #"find Moment select localizedLocationNames where localizedLocationNames != nil sort by localizedLocationNames"#
        #expect(try output([store, "-e", names]) == #"""
            ["Palos Verdes Peninsula"]
            ["San Juan Capistrano"]
            ["Torrance"]

            """#)
        let json = try Shell.run([store, "--format", "json", "-e", names + " limit 1"])
        #expect(json.stdout.contains(#"{"localizedLocationNames":"[\"Palos Verdes Peninsula\"]"}"#), "\(json.stdout)")
        let csv = try Shell.run([store, "--format", "csv", "--no-header", "-e", names + " limit 1"])
        #expect(csv.stdout == "\"[\"\"Palos Verdes Peninsula\"\"]\"\n", "\(csv.stdout)")
        #expect(try output([store, "-e", "find AdditionalAssetAttributes select reverseLocationData limit 1"]) == "<PLRevGeoLocationInfo>\n")
        for (predicate, sql) in [(#"localizedLocationNames CONTAINS[c] "torr""#, "instr(lower(ZLOCALIZEDLOCATIONNAMES), 'torr') > 0"),
                                 (#"localizedLocationNames CONTAINS "San""#, "instr(ZLOCALIZEDLOCATIONNAMES, 'San') > 0")] {
            let mapped = try output([store, "-e", "count Moment where " + predicate])
            let raw = try output(["--raw", store, "-e", "sql SELECT count(*) FROM ZMOMENT WHERE " + sql])
            #expect(mapped == raw && mapped == "1\n", "\(predicate): \(mapped) vs \(raw)")
        }
        let before = try output(["--raw", store, "-e", "sql SELECT hex(ZLOCALIZEDLOCATIONNAMES) FROM ZMOMENT WHERE Z_PK = 2"])
        let refused = try Shell.run([store, "-e", #"update Moment set localizedLocationNames = "Torrance" where SELF == 2"#])
        #expect(refused.status == 1 && refused.stderr.contains("localizedLocationNames holds archived values, shown decoded"),
                "\(refused.stderr)")
        #expect(try output(["--raw", store, "-e", "sql SELECT hex(ZLOCALIZEDLOCATIONNAMES) FROM ZMOMENT WHERE Z_PK = 2"]) == before)
        #expect(try Shell.run([store, "-e", "update Moment set localizedLocationNames = nil where SELF == 2"]).status == 0)
        #expect(try output(["--raw", store, "-e", "sql SELECT count(*) FROM ZMOMENT WHERE Z_PK = 2 AND ZLOCALIZEDLOCATIONNAMES IS NULL"])
                == "1\n")
    }

    /// A value kept in an external data file (`.<store>_SUPPORT/_EXTERNAL_DATA/<UUID>`, named in
    /// the column by 2, the UUID and a NUL) is the file's: decoded when it is an archive, its
    /// bytes otherwise (which `export` writes); a missing file is said. A value kept inline by such
    /// an attribute (1 before the bytes) is decoded too.
    @Test func externalDataFilesAreTheirValues() throws {
        let shell = try #require(shell)
        let store = try shell.builtStore()
        let folder = URL(fileURLWithPath: store).deletingLastPathComponent()
            .appendingPathComponent("." + URL(fileURLWithPath: store).deletingPathExtension().lastPathComponent + "_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (archived, image, missing) = (UUID().uuidString, UUID().uuidString, UUID().uuidString)
        try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: ["kept", "outside"]), requiringSecureCoding: false)
            .write(to: folder.appendingPathComponent(archived))
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<300).map { UInt8($0 % 251) })
        try png.write(to: folder.appendingPathComponent(image))
        let reference = { (name: String) in Value.blob([2] + Array(name.utf8) + [0]) }
        let inline = try PropertyListSerialization.data(fromPropertyList: ["inline": 1], format: .binary, options: 0)
        let raw = try Store(path: store, options: { var o = StoreOptions(); o.switchesToWAL = false; return o }())
        try raw.write { ctx in
            for (key, value) in [(1, reference(archived)), (2, reference(image)), (3, reference(missing))] {
                try ctx.execute("UPDATE ZABSTRACTENTITY SET ZTRANSFORMABLEATTRIBUTE = ? WHERE Z_PK = ?", [value, .integer(Int64(key))])
            }
        }
        try raw.close()
        let model = ["--model", CoreDataShellTests.xmlModel]
        #expect(try output([store, "-e", "find Entity select stringAttribute, transformableAttribute sort by stringAttribute"] + model) == """
            alpha	["kept","outside"]
            beta	\(png.base64EncodedString())
            gamma	<external data \(missing): the file is missing>

            """)
        #expect(try output([store, "-e", #"count Entity where transformableAttribute CONTAINS "outside""#] + model) == "1\n")
        let exported = folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("out.json")
        let run = try Shell.run([store, "-e", "export Entity select transformableAttribute where stringAttribute == 'beta' to \(exported.path)"] + model)
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: exported)) as? [[String: Any]]
        let blob = json?.first?["transformableAttribute"] as? [String: Any]
        #expect(blob?["$base64"] as? Bool == true, "\(String(describing: json))")
        #expect((blob?["encoded"] as? String).flatMap { Data(base64Encoded: $0) } == png, "\(String(describing: json))")
        // Kept inline, behind the 1.
        let again = try Store(path: store, options: { var o = StoreOptions(); o.switchesToWAL = false; return o }())
        try again.write { ctx in
            try ctx.execute("UPDATE ZABSTRACTENTITY SET ZTRANSFORMABLEATTRIBUTE = ? WHERE Z_PK = 3", [.blob([1] + [UInt8](inline))])
        }
        try again.close()
        #expect(try output([store, "-e", "find Entity select transformableAttribute where stringAttribute == 'gamma'"] + model)
                == #"{"inline":1}"# + "\n")
    }
}

/// The browser's F and I on a Core Data date column show dates, as the grid does.
@Suite(.serialized) struct CoreDataColumnTmuxTests {
    @Test func frequencyAndStatisticsShowDates() throws {
        let s = try BrowserSession(copyChinook: false)
        try FileManager.default.copyItem(
            atPath: CoreDataShellTests.fixtures.appendingPathComponent("NoteStore-macOS-12-Monterey.sqlite").path, toPath: s.database)
        let seconds = try Spawn.run(Shell.binary, ["--raw", s.database, "--format", "tsv", "--no-header", "-e",
                                                   "sql SELECT min(ZCREATIONDATE3) FROM ZICCLOUDSYNCINGOBJECT WHERE Z_ENT = 11"])
        let number = try #require(Double(seconds.trimmingCharacters(in: .newlines)))
        let earliest = try #require(Date(timeIntervalSinceReferenceDate: number).databaseValue.textValue)
        // creationDate is ICNote's 25th attribute (after ICCloudSyncingObject's 23 and attachmentViewType).
        try s.start(["--entity", "ICNote"], width: 140, height: 40)
        try s.waitFor("ICNote  7 rows")
        try s.type(String(repeating: "l", count: 24) + "F")
        try s.waitFor("a date in the frequency table") { $0.contains(String(earliest.prefix(19))) }
        try s.press("Escape")
        try s.type("I")
        try s.waitFor("the earliest date in the statistics") { $0.contains(String(earliest.prefix(16))) && !$0.contains(seconds.prefix(6)) }
        try s.press("Escape")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }
}
