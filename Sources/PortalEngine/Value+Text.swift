extension Value {
    /// The text of a `.text` value, nil otherwise.
    public var textValue: String? { if case .text(let text) = self { return text } else { return nil } }
}
