import Foundation
import PortalEngine

// #Predicate closures collected from public SwiftData code, each adapted to the music test
// schema (the same shape of expression over a property of the same kind): the first string is
// where it was found (an id of the public code corpus searched) and the closure as written
// there. Foundation's evaluation is the oracle of each (FoundationPredicateCorpusTests, on SQLite
// and PostgreSQL).

/// Values the closures capture, as the originals capture theirs.
public struct CorpusValues {
    public struct Reference: Codable, Sendable { var id: Int64 }
    public struct Transfer: Codable, Sendable { var code: UUID }
    let reference = Reference(id: 4)
    let text = "Love"
    let other = "Rock"
    let price = 0.99
    let optionalId: Int64? = 3
    let optionalText: String? = "Blue"
    let code = MusicWorld.code(5)
    let transfer = Transfer(code: MusicWorld.code(9))
    let start = MusicWorld.day(10)
    let end = MusicWorld.day(40)
    let now = MusicWorld.day(30)
    let kind = MediaKind.video
    let id: Int64 = 7
    let idSet: Set<Int64> = [1, 2, 3, 10, 20]
    let milliseconds: Int

    public init(milliseconds: Int) { self.milliseconds = milliseconds }
}

public enum PredicateCorpus {
    public static func tracks(_ values: CorpusValues) -> [(source: String, predicate: Predicate<MusicTrack>)] {
        let (reference, text, other, price, optionalId, optionalText, code) = (values.reference, values.text, values.other,
            values.price, values.optionalId, values.optionalText, values.code)
        let (transfer, start, end, now, kind, id, idSet, milliseconds) = (values.transfer, values.start, values.end, values.now,
            values.kind, values.id, values.idSet, values.milliseconds)
        _ = (reference, text, other, price, optionalId, optionalText, code, transfer, start, end, now, kind, id, idSet, milliseconds)
        return [
            ("32188854886: #Predicate<AppVehicle> { $0.isTrackedBySamsara }",
             #Predicate<MusicTrack> { $0.explicit }),
            ("53129731066: #Predicate<Todo> { !$0.isCompleted }",
             #Predicate<MusicTrack> { !$0.explicit }),
            ("55188699856: #Predicate<LocalList> { !$0.isSynced }",
             #Predicate<MusicTrack> { !($0.unitPrice > 0) }),
            ("272456971: #Predicate<Student> { $0.id == student.id }",
             #Predicate<MusicTrack> { $0.trackId == reference.id }),
            ("71642613121: #Predicate<TransactionItem> { $0.splitExpenseID != nil }",
             #Predicate<MusicTrack> { $0.composer != nil }),
            ("46280524381: #Predicate<ListItem> { item in item.isWant == true }",
             #Predicate<MusicTrack> { item in item.explicit == true }),
            ("61452413791: #Predicate<Resume> { $0.active == true }",
             #Predicate<MusicTrack> { $0.explicit == true }),
            ("57642796636: #Predicate<FormattingPipeline> { $0.scopeRawValue == \"postCapture\" }",
             #Predicate<MusicTrack> { $0.name == "Love" }),
            ("66710726971: #Predicate<NFT> { nft in nft.accountAddressRawValue == accountAddress && nft.networkRawValue == chainRawValue && nft.audioUrl != nil }",
             #Predicate<MusicTrack> { nft in nft.name == text && nft.unitPrice == price && nft.composer != nil }),
            ("16992749311: #Predicate<Character> { $0.characterId == characterId }",
             #Predicate<MusicTrack> { $0.albumId == optionalId }),
            ("54509513498: #Predicate<TodoTask> { $0.stateRaw != doneStateRaw && $0.stateRaw != trashedStateRaw }",
             #Predicate<MusicTrack> { $0.name != text && $0.name != other }),
            ("18139002623: #Predicate<WeeklyTemplate> { $0.isActive }",
             #Predicate<MusicTrack> { $0.explicit }),
            ("59810614568: #Predicate<UserConfiguration> { $0.isActive == true }",
             #Predicate<MusicTrack> { $0.explicit == true }),
            ("71388274328: #Predicate<Bowler> { $0.isPrimary }",
             #Predicate<MusicTrack> { $0.explicit }),
            ("56196530828: #Predicate<Pokemon> { $0.isBookmarked }",
             #Predicate<MusicTrack> { $0.explicit }),
            ("52147313918: #Predicate<ExerciseSnapshot> { $0.exerciseName == name }",
             #Predicate<MusicTrack> { $0.composer == optionalText }),
            ("63156657428: #Predicate<DailyAggregate> { $0.date == date }",
             #Predicate<MusicTrack> { $0.name == text }),
            ("68653182608: #Predicate<StoredPlan> { $0.isActive == false }",
             #Predicate<MusicTrack> { $0.explicit == false }),
            ("63846998: #Predicate<PracticeSession> { $0.hasDedication == true }",
             #Predicate<MusicTrack> { $0.explicit == true }),
            ("39013381673: #Predicate<JournalEntrySwiftData> { journalEntry in return !(journalEntry.archived ?? false) }",
             #Predicate<MusicTrack> { entry in return !(entry.album?.title.isEmpty ?? false) }),
            ("56171765226: #Predicate { $0.characterId == charId }  (FetchDescriptor<Conversation>)",
             #Predicate<MusicTrack> { $0.code == code }),
            ("71652799326: #Predicate { $0.uuid == nil }  (FetchDescriptor<T>)",
             #Predicate<MusicTrack> { $0.albumId == nil }),
            ("25959936: #Predicate { $0.path == path }  (FetchDescriptor<Project>)",
             #Predicate<MusicTrack> { $0.name == text }),
            ("53851429641: #Predicate { $0.id == id }  (FetchDescriptor<AppTask>)",
             #Predicate<MusicTrack> { $0.code == code }),
            ("21136632186: #Predicate { $0.completedAt >= startOfDay }  (FetchDescriptor<ReminderCompletion>)",
             #Predicate<MusicTrack> { $0.added >= start }),
            ("68575150821: #Predicate { $0.coachId == coachId }  (FetchDescriptor<WorkoutTemplate>)",
             #Predicate<MusicTrack> { $0.albumId == optionalId }),
            ("58513795941: #Predicate { $0.id == taskID }  (FetchDescriptor<TaskRecord>)",
             #Predicate<MusicTrack> { $0.code == code }),
            ("47548839081: #Predicate { $0.idCategory == category.rawValue }  (FetchDescriptor<Note>)",
             #Predicate<MusicTrack> { $0.kind == kind }),
            ("61399519311: #Predicate { $0.sessionId == sessionId }  (FetchDescriptor<StepResult>)",
             #Predicate<MusicTrack> { $0.trackId == id }),
            ("65798097276: #Predicate { $0.id == id }  (FetchDescriptor<NotificationHistoryEntity>)",
             #Predicate<MusicTrack> { $0.trackId == id }),
            ("52467358851: #Predicate<Item> { $0.id == id }",
             #Predicate<MusicTrack> { $0.trackId == id }),
            ("29863409796: #Predicate<Item> { item in item.folder == nil }",
             #Predicate<MusicTrack> { item in item.album == nil }),
            ("20448285201: #Predicate<Item> { $0.isCompleted == true }",
             #Predicate<MusicTrack> { $0.explicit == true }),
            ("55128405951: #Predicate<Item> { !$0.isDeleted }",
             #Predicate<MusicTrack> { !$0.explicit }),
            ("69751571121: #Predicate<Item> { persistedItem in persistedItem.id == itemID }",
             #Predicate<MusicTrack> { persistedItem in persistedItem.code == code }),
            ("2565465696: #Predicate<Item> { item in category.rawValue == item.typeRaw }",
             #Predicate<MusicTrack> { item in reference.id == item.trackId }),
            ("18058554756: #Predicate<Item> { item in item.uuid == transferData.itemUUID }",
             #Predicate<MusicTrack> { item in item.code == transfer.code }),
            ("52577680041: #Predicate<Item> { $0.deletedAt == nil && $0.listId == nil && $0.dueDate == nil && $0.status == \"active\" }",
             #Predicate<MusicTrack> { $0.composer == nil && $0.albumId == nil && $0.name == "Love" }),
            ("40656806721: #Predicate<Item> { $0.unread == true }",
             #Predicate<MusicTrack> { $0.explicit == true }),
            ("51856411488: #Predicate { $0.id == tripId }  (FetchDescriptor<SDTrip>)",
             #Predicate<MusicTrack> { $0.trackId == id }),
            ("71633474763: #Predicate { $0.id == id }  (FetchDescriptor<ExpenseTitleModel>)",
             #Predicate<MusicTrack> { $0.code == code }),
            ("68407047798: #Predicate { $0.mantra == nil }  (FetchDescriptor<SessionDataModel>)",
             #Predicate<MusicTrack> { $0.album == nil }),
            ("63306115233: #Predicate { $0.deletedAt == nil }  (FetchDescriptor<ItemCollection>)",
             #Predicate<MusicTrack> { $0.composer == nil }),
            ("54025225503: #Predicate { $0.servingSize?.id == servingId }  (FetchDescriptor<FoodLog>)",
             #Predicate<MusicTrack> { $0.album?.albumId == id }),
            ("58295664528: #Predicate { $0.refKey == refKey }  (FetchDescriptor<DetectedFace>)",
             #Predicate<MusicTrack> { $0.name == text }),
            ("27493354968: #Predicate { $0.isCompleted }  (FetchDescriptor<Workout>)",
             #Predicate<MusicTrack> { $0.explicit }),
            ("60940349313: #Predicate { $0.id == id }  (FetchDescriptor<ScheduledDose>)",
             #Predicate<MusicTrack> { $0.trackId == id }),
            ("78745758: #Predicate { $0.team?.name == tName }  (FetchDescriptor<Player>)",
             #Predicate<MusicTrack> { $0.album?.title == text }),
            ("55899019158: #Predicate { $0.drankAt >= start && $0.drankAt <= end }  (FetchDescriptor<HydrationLog>)",
             #Predicate<MusicTrack> { $0.added >= start && $0.added <= end }),
            ("16177132317: #Predicate<Transaction> { !$0.isHidden }",
             #Predicate<MusicTrack> { !$0.explicit }),
            ("52836745108: #Predicate<Transaction> { idSet.contains($0.id) }",
             #Predicate<MusicTrack> { idSet.contains($0.trackId) }),
            ("57802916533: #Predicate<Transaction> { $0.confirmed }",
             #Predicate<MusicTrack> { $0.explicit }),
            ("70876173658: #Predicate<Transaction> { $0.date >= start && $0.date < end }",
             #Predicate<MusicTrack> { $0.added >= start && $0.added < end }),
            ("61385215737: #Predicate<Transaction> { $0.date >= monthStart && $0.date < nextMonthStart }",
             #Predicate<MusicTrack> { $0.added >= start && $0.added < end }),
            ("52472212572: #Predicate<Transaction> { $0.userId == userId }",
             #Predicate<MusicTrack> { $0.albumId == optionalId }),
            ("61954806343: #Predicate<Transaction> { $0.date >= startDate && $0.date < endDate }",
             #Predicate<MusicTrack> { $0.added >= start && $0.added < end }),
            ("6541373398: #Predicate<Transaction> { $0.year == year }",
             #Predicate<MusicTrack> { $0.milliseconds == milliseconds }),
            ("35421724722: #Predicate<Transaction> { transaction in if let cat = transaction.category { return cat.name == categoryName && transaction.… } else { return false } }",
             #Predicate<MusicTrack> { transaction in if let album = transaction.album { return album.title == text && transaction.explicit } else { return false } }),
            ("55163791407: #Predicate<Transaction> { $0.isDeleted == false }",
             #Predicate<MusicTrack> { $0.explicit == false }),
            ("25495275906: #Predicate<Note> { note in !note.isDeleted }",
             #Predicate<MusicTrack> { note in !note.explicit }),
            ("57475689471: #Predicate<Note> { $0.dayKey == key }",
             #Predicate<MusicTrack> { $0.name == text }),
            ("15147003771: #Predicate<Note> { $0.isCompleted }",
             #Predicate<MusicTrack> { $0.explicit }),
            ("16880204422: #Predicate<Note> { return $0.category?.categoryTitle == category }",
             #Predicate<MusicTrack> { return $0.album?.title == optionalText }),
            ("70903848861: #Predicate<Highlight> { $0.chapterID == id }",
             #Predicate<MusicTrack> { $0.trackId == id }),
            ("53567636526: #Predicate<Note> { _ in true }",
             #Predicate<MusicTrack> { _ in true }),
            ("53567636526: #Predicate<Note> { $0.isPinned }",
             #Predicate<MusicTrack> { $0.explicit }),
            ("2449949526: #Predicate<Note> { $0.bibleId == bibleId && $0.chapterId == chapterId }",
             #Predicate<MusicTrack> { $0.albumId == optionalId && $0.trackId == id }),
            ("36197089776: #Predicate<Note> { note in note.userId == userId && note.updatedAt > since }",
             #Predicate<MusicTrack> { note in note.albumId == optionalId && note.added > start }),
            ("52647197886: #Predicate<Note> { note in note.scopeIsAll == true || note.searchIndexStudentID == studentID }",
             #Predicate<MusicTrack> { note in note.explicit == true || note.code == code }),
            ("18409671122: #Predicate<Task> { task in task.category?.id == categoryID }",
             #Predicate<MusicTrack> { task in task.album?.albumId == id }),
            ("48163816472: #Predicate<Task> { return $0.date >= startDate && $0.date < endOfDay }",
             #Predicate<MusicTrack> { return $0.added >= start && $0.added < end }),
            ("9919514237: #Predicate<Task> { task in !task.isArchived }",
             #Predicate<MusicTrack> { task in !task.explicit }),
            ("2493866912: #Predicate<Task> { !$0.isCompleted }",
             #Predicate<MusicTrack> { !$0.explicit }),
            ("24681353792: #Predicate<Task> { task in task.routine?.startTime ?? \"00:00\" <= \"18:00\" }",
             #Predicate<MusicTrack> { task in task.album?.title ?? "" <= "M" }),
            ("32471064888: #Predicate<Task> { return $0.creationDate >= startOfDate && $0.creationDate < endOfDate }",
             #Predicate<MusicTrack> { return $0.added >= start && $0.added < end }),
            ("10181775677: #Predicate<Task> { task in !task.isArchived }",
             #Predicate<MusicTrack> { task in !task.explicit }),
            ("8869592958: #Predicate<Task> { !$0.isCompleted }",
             #Predicate<MusicTrack> { !$0.explicit }),
            ("66581672342: #Predicate<Task> { !$0.completed }",
             #Predicate<MusicTrack> { !$0.explicit }),
            ("53456169318: #Predicate<Task> { !$0.isCompleted && $0.dueDate > Date() }  (README snippet)",
             #Predicate<MusicTrack> { !$0.explicit && $0.added > now }),
            ("34441039773: albums?.filter({ ($0.collectionName?.lowercased().contains(searchText.lowercased()) ?? false) })  (as a #Predicate)",
             #Predicate<MusicTrack> { ($0.composer?.contains(text) ?? false) }),
            ("71599899471: debt.title.localizedStandardContains(query) || (debt.person?.name ?? \"\").localizedStandardContains(query)  (contains on Linux)",
             #Predicate<MusicTrack> { $0.name.contains(text) || ($0.album?.title.contains(text) ?? false) }),
            ("46846485379: favorites.filter({ $0.name.starts(with: currentFitler) })  (as a #Predicate)",
             #Predicate<MusicTrack> { $0.name.starts(with: text) }),
            ("55924031403: results.filter { $0.score >= minScore }  (as a #Predicate)",
             #Predicate<MusicTrack> { $0.unitPrice >= price }),
            ("68910312123: k.buttons.filter { $0.kind == \"integration\" && !($0.savantCaptured ?? false) }  (as a #Predicate)",
             #Predicate<MusicTrack> { $0.name == text && !($0.composer?.isEmpty ?? false) }),
        ]
    }

    public static func albums(_ values: CorpusValues) -> [(source: String, predicate: Predicate<MusicAlbum>)] {
        let (text, kind, id, optionalId) = (values.text, values.kind, values.id, values.optionalId)
        _ = (text, kind, id, optionalId)
        return [
            ("57802916533: #Predicate<Account> { !$0.archived }",
             #Predicate<MusicAlbum> { !($0.title == "") }),
            ("66445099416: #Predicate<Folder> { $0.isDeleted == false }",
             #Predicate<MusicAlbum> { ($0.artistId == nil) == false }),
            ("53567636526: #Predicate<Note> { note in note.tags.contains { $0.id == id } }",
             #Predicate<MusicAlbum> { album in album.tracks.contains { $0.trackId == id } }),
            ("69434257551: saved.title.localizedStandardContains(q) || saved.messages.contains { $0.text.localizedStandardContains(q) }  (contains on Linux)",
             #Predicate<MusicAlbum> { album in album.title.contains(text) || album.tracks.contains { $0.name.contains(text) } }),
            ("55384937700: lines.contains { $0.kind == .removed && $0.text == \"b\" }  (as a #Predicate over a relationship)",
             #Predicate<MusicAlbum> { album in album.tracks.contains { $0.kind == kind && $0.name == text } }),
            ("47710403115: connections.contains { $0.toNode == node.id && $0.toPort == port.id }  (as a #Predicate over a relationship)",
             #Predicate<MusicAlbum> { album in album.tracks.contains { $0.trackId == id && $0.albumId == optionalId } }),
            ("22000066542: favorites.contains(where: { $0.locationKey == group.locationKey })  (as a #Predicate over a relationship)",
             #Predicate<MusicAlbum> { album in album.tracks.contains(where: { $0.name == text }) }),
        ]
    }
}
