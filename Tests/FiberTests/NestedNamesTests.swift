import Foundation
import Testing

/// Every public type the `Fiber` module declares is also a member of the class
/// (`Fiber+Names.swift`), so `Fiber.Name` names it beside packages with the same
/// names; a type added without its member fails here.
@Suite struct NestedNamesTests {
    @Test func everyPublicTypeOfTheModuleIsAMemberOfTheClass() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/Fiber").standardized
        let names = try String(contentsOf: sources.appendingPathComponent("Core/Fiber+Names.swift"), encoding: .utf8)
        let declaration = /^public (?:final class|class|struct|enum|protocol|actor|typealias) ([A-Za-z]+)/.anchorsMatchLineEndings()
        var declared: Set<String> = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            for match in try String(contentsOf: file, encoding: .utf8).matches(of: declaration) {
                declared.insert(String(match.1))
            }
        }
        #expect(declared.count > 50, "the scan found too few declarations: \(declared.count)")
        let members = Set(names.matches(of: /public typealias ([A-Za-z]+) =/).map { String($0.1) })
        // Names that start with "Fiber" cannot clash; the class itself is one of them.
        let missing = declared.filter { !$0.hasPrefix("Fiber") && !members.contains($0) }.sorted()
        #expect(missing.isEmpty, "add these to Sources/Fiber/Core/Fiber+Names.swift: \(missing)")
    }
}
