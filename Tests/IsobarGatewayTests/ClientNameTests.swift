import IsobarGateway
import Testing

@Suite struct ClientNameTests {
    @Test func acceptsPlainNames() {
        #expect(ClientName.isValid("alice"))
        #expect(ClientName.isValid("web-3fa9c01d"))
        #expect(ClientName.isValid("A.b_c-9"))
        #expect(ClientName.isValid(String(repeating: "x", count: 64)))
    }

    @Test func rejectsEmptyLongAndUnsafeNames() {
        #expect(!ClientName.isValid(""))
        #expect(!ClientName.isValid(String(repeating: "x", count: 65)))
        for bad in ["a/b", "a b", "ä", "a\n", "a\"", "a%2f"] { #expect(!ClientName.isValid(bad), "\(bad)") }
    }

    @Test func generatedNamesAreValidAndDistinct() {
        let names = (0..<200).map { _ in ClientName.generate() }
        #expect(names.allSatisfy { ClientName.isValid($0) && $0.hasPrefix("web-") && $0.count == 12 })
        #expect(Set(names).count == names.count)
    }
}
