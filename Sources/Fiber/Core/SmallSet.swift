/// A handful of values looked up by comparing each rather than by hashing: for
/// the methods and statuses the built-ins check on every request, a few
/// comparisons of a short string or an integer cost less than one hash.
struct SmallSet<Element: Hashable & Sendable>: Sendable {
    private let elements: [Element]

    init(_ elements: Set<Element>) { self.elements = Array(elements) }

    func contains(_ element: Element) -> Bool { elements.contains(element) }

    /// The elements as a `Set` again.
    var all: Set<Element> { Set(elements) }
}
