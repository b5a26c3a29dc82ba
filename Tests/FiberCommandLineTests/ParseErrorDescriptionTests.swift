@testable import FiberCommandLine
import Foundation
import Testing

@Suite struct ParseErrorDescriptionTests {
    /// A bad request item reads the same through `localizedDescription` as through `description`.
    @Test func readsAsItsOwnSentence() {
        do {
            _ = try RequestItems(parsing: ["count:=not json"])
            Issue.record("a raw JSON item that is not JSON must be refused")
        } catch {
            #expect(error.localizedDescription == "\(error)")
            #expect(!error.localizedDescription.contains("The operation could not be completed"))
        }
    }
}
