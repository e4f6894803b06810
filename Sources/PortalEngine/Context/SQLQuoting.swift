/// Helpers for writing SQL text.
enum SQLText {
    /// `name` as an SQL identifier: in double quotes, inner quotes doubled.
    static func quoted(_ name: String) -> String {
        var result = "\""
        for character in name {
            if character == "\"" { result += "\"\"" } else { result.append(character) }
        }
        return result + "\""
    }

    /// `?, ?, ?` for `count` parameters.
    static func placeholders(_ count: Int) -> String {
        var result = ""
        result.reserveCapacity(count * 3)
        for i in 0..<count { result += i == 0 ? "?" : ", ?" }
        return result
    }
}

