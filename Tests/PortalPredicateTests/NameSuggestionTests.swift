import Testing
@testable import PortalPredicate

@Suite struct NameSuggestionTests {
    @Test func closeNamesAreSuggested() {
        #expect(closestName(to: "Nmae", among: ["Name", "Composer"]) == "Name")
        #expect(closestName(to: "trak", among: ["Track", "Album"]) == "Track")
        #expect(closestName(to: "ALBUMID", among: ["AlbumId", "ArtistId"]) == "AlbumId")
    }

    @Test func farNamesAreNot() {
        #expect(closestName(to: "zzzzzz", among: ["Track", "Album"]) == nil)
        #expect(closestName(to: "x", among: []) == nil)
    }

    @Test func tiesGoToTheFirstInSortedOrder() {
        // "Nam" is one edit from both; the answer must not depend on the candidates' order.
        #expect(closestName(to: "Nam", among: ["Nap", "Name"]) == "Name")
        #expect(closestName(to: "Nam", among: ["Name", "Nap"]) == "Name")
    }

    @Test func swapsOfNeighboursCostOne() {
        #expect(editDistance(Array("Nmae"), Array("Name")) == 1)
        #expect(editDistance(Array(""), Array("abc")) == 3)
        #expect(editDistance(Array("kitten"), Array("sitting")) == 3)
    }
}
