import Testing
@testable import PortalShell

@Test func moduleLoads() { #expect(Bool(true)) }
