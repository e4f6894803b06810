import Testing
@testable import PortalShell

/// `ByteScan.first` (the import reader's word-at-a-time search) against a byte-by-byte search,
/// on every start and end of windows that mix the bytes sought with bytes of every other value.
@Suite struct ByteScanTests {
    @Test func findsWhatAByteByByteSearchFinds() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200 {
            let count = Int(state % 40)
            var bytes: [UInt8] = []
            for _ in 0..<count {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                // Mostly field bytes (ASCII and UTF-8 lead/continuation bytes), sometimes the ones sought.
                let pick = Int(state >> 58)
                bytes.append(pick < 3 ? [44, 10, 13][pick] : UInt8(truncatingIfNeeded: state >> 33))
            }
            bytes.withUnsafeBufferPointer { window in
                for from in 0...count {
                    for to in from...count {
                        let expected = (from..<to).first { [44, 10, 13].contains(window[$0]) } ?? to
                        #expect(ByteScan.first(of: 44, 10, 13, in: window, from: from, to: to) == expected)
                    }
                }
            }
        }
    }

    @Test func aByteThatIsNotSoughtIsNeverFound() {
        let bytes = [UInt8](repeating: 0x2C ^ 0x80, count: 17) + [0x0B, 0x2D, 0x2B, 0xFF]
        bytes.withUnsafeBufferPointer { window in
            #expect(ByteScan.first(of: 44, 10, 13, in: window, from: 0, to: window.count) == window.count)
        }
    }
}
