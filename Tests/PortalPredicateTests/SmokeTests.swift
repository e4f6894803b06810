import Testing
@testable import PortalPredicate

@Test func moduleLoads() { #expect(Bool(true)) }
