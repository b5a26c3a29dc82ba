import FiberLoad
import Foundation
import Testing

@Suite struct LoadFailureDescriptionTests {
    /// A person reading `localizedDescription` sees what the failure is tallied under, not Foundation's generic text.
    @Test func readsAsOneSentence() {
        #expect(LoadFailure(kind: "HTTP 503").localizedDescription == "the request failed: HTTP 503")
    }
}
