import Testing
@testable import StageHLS

@Suite struct HLSResourceNameTests {
    @Test(arguments: [
        ("init-1.mp4", HLSResourceName.initSection(1)),
        ("12.m4s", .segment(12)),
        ("12.3.m4s", .part(.init(sequence: 12, part: 3))),
    ])
    func names(file: String, expected: HLSResourceName) {
        #expect(HLSResourceName(file) == expected)
    }

    @Test(arguments: ["", "init-.mp4", "init-x.mp4", "init-1.m4s", ".m4s", "1..m4s", "1.2.3.m4s", "-1.m4s", "1.-2.m4s",
                      "１.m4s", "1234567890123.m4s", "1.m4s.m4s", "../1.m4s", "1.mp4", "index.m3u8", "a.m4s"])
    func refuses(file: String) {
        #expect(HLSResourceName(file) == nil)
    }
}
