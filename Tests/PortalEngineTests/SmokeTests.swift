import Testing
@testable import PortalEngine

@Test func moduleLoads() { #expect(Bool(true)) }
