import Testing
@testable import PortalTUI

@Test func moduleLoads() { #expect(Bool(true)) }
