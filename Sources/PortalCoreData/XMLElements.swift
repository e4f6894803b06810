import PortalEngine

/// The start and end tags of an XML document, enough to read an Xcode model file (`contents`):
/// text, comments, processing instructions and CDATA are skipped. (FoundationXML would pull
/// libxml2 into the statically linked release build for this one file format.)
struct XMLElements {
    /// A tag: `<name a="1">` (`isEnd` false; `isEmpty` true for `<name/>`) or `</name>`.
    struct Tag: Equatable {
        var name: String
        var attributes: [String: String]
        var isEnd: Bool
        var isEmpty: Bool
    }

    /// The tags of `text` in order; throws on a tag that does not close or a broken attribute.
    static func tags(in text: String, source: String) throws -> [Tag] {
        let bytes = Array(text.utf8)
        var tags: [Tag] = []
        var i = 0
        while let open = bytes[i...].firstIndex(of: UInt8(ascii: "<")) {
            i = open
            if starts(bytes, i, "<!--") {
                i = try skip(bytes, past: "-->", from: i, source: source)
            } else if starts(bytes, i, "<![CDATA[") {
                i = try skip(bytes, past: "]]>", from: i, source: source)
            } else if starts(bytes, i, "<?") {
                i = try skip(bytes, past: "?>", from: i, source: source)
            } else if starts(bytes, i, "<!") {
                i = try skip(bytes, past: ">", from: i, source: source)
            } else {
                let end = try skip(bytes, past: ">", from: i, source: source, quoted: true)
                tags.append(try tag(bytes[(i + 1)..<(end - 1)], source: source))
                i = end
            }
        }
        return tags
    }

    private static func tag(_ body: ArraySlice<UInt8>, source: String) throws -> Tag {
        var body = body
        let isEnd = body.first == UInt8(ascii: "/")
        if isEnd { body = body.dropFirst() }
        let isEmpty = body.last == UInt8(ascii: "/")
        if isEmpty { body = body.dropLast() }
        var scanner = body.startIndex
        let name = word(body, &scanner)
        guard !name.isEmpty else { throw PortalError(.coreDataModel, "\(source): a tag without a name") }
        var attributes: [String: String] = [:]
        while true {
            while scanner < body.endIndex, isSpace(body[scanner]) { scanner += 1 }
            guard scanner < body.endIndex else { break }
            let key = word(body, &scanner)
            while scanner < body.endIndex, isSpace(body[scanner]) { scanner += 1 }
            guard !key.isEmpty, scanner + 1 < body.endIndex, body[scanner] == UInt8(ascii: "=") else {
                throw PortalError(.coreDataModel, "\(source): a broken attribute in <\(name)>")
            }
            scanner += 1
            while scanner < body.endIndex, isSpace(body[scanner]) { scanner += 1 }
            guard scanner < body.endIndex else {
                throw PortalError(.coreDataModel, "\(source): an attribute without a value in <\(name)>")
            }
            let quote = body[scanner]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"),
                  let close = body[(scanner + 1)...].firstIndex(of: quote) else {
                throw PortalError(.coreDataModel, "\(source): an unquoted attribute value in <\(name)>")
            }
            attributes[key] = decodeEntities(String(decoding: body[(scanner + 1)..<close], as: UTF8.self))
            scanner = close + 1
        }
        return Tag(name: name, attributes: attributes, isEnd: isEnd, isEmpty: isEmpty)
    }

    private static func word(_ body: ArraySlice<UInt8>, _ i: inout Int) -> String {
        let start = i
        while i < body.endIndex, !isSpace(body[i]), body[i] != UInt8(ascii: "="), body[i] != UInt8(ascii: "/") { i += 1 }
        return String(decoding: body[start..<i], as: UTF8.self)
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private static func starts(_ bytes: [UInt8], _ i: Int, _ prefix: String) -> Bool {
        bytes[i...].starts(with: prefix.utf8)
    }

    /// The index just past `terminator`, searching from `i`; `quoted` skips `>` inside quotes.
    private static func skip(_ bytes: [UInt8], past terminator: String, from i: Int, source: String,
                             quoted: Bool = false) throws -> Int {
        let end = Array(terminator.utf8)
        var j = i
        var quote: UInt8?
        while j + end.count <= bytes.count {
            let byte = bytes[j]
            if quoted, let q = quote {
                if byte == q { quote = nil }
            } else if quoted, byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if bytes[j..<(j + end.count)].elementsEqual(end) {
                return j + end.count
            }
            j += 1
        }
        throw PortalError(.coreDataModel, "\(source): the XML ends inside a tag or comment")
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and numeric references.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";") else { break }
            let name = rest[rest.index(after: amp)..<semi]
            switch name {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                let number = name.hasPrefix("#x") ? UInt32(name.dropFirst(2), radix: 16)
                    : name.hasPrefix("#") ? UInt32(name.dropFirst()) : nil
                if let scalar = number.flatMap(Unicode.Scalar.init) {
                    result.unicodeScalars.append(scalar)
                } else {
                    result += rest[amp...semi]
                }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return result + rest
    }
}
