import CZlib
import PortalEngine

/// Raw DEFLATE (no zlib header), as `Z_MODELCACHE.Z_CONTENT` holds it.
enum Inflate {
    /// The inflated bytes of `data`; throws on damaged or truncated input, and past `limit`
    /// bytes (a corrupt length must not eat the memory).
    static func raw(_ data: [UInt8], limit: Int = 64 << 20) throws -> [UInt8] {
        var stream = z_stream()
        guard portal_inflate_init_raw(&stream) == Z_OK else { throw failure("zlib would not start") }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = data
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            var rc = Z_OK
            while rc == Z_OK {
                rc = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
                if output.count > limit { return Z_MEM_ERROR }
                // No progress with input left over: the data stops before the stream's end.
                if rc == Z_OK && stream.avail_in == 0 && stream.avail_out != 0 { return Z_BUF_ERROR }
            }
            return rc
        }
        guard status == Z_STREAM_END else {
            throw failure(status == Z_BUF_ERROR ? "the compressed model is truncated"
                                                : "the compressed model is damaged (zlib error \(status))")
        }
        return output
    }

    private static func failure(_ message: String) -> PortalError {
        PortalError(.coreDataModel, "Z_MODELCACHE: " + message)
    }
}
