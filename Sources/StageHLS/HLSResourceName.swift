/// The files of a rendition: `init-<generation>.mp4`, `<msn>.m4s`, `<msn>.<part>.m4s`.
public enum HLSResourceName: Equatable, Sendable {
    case initSection(Int)
    case segment(Int)
    case part(HLSLiveRendition.Position)

    public init?(_ file: String) {
        if file.hasPrefix("init-"), file.hasSuffix(".mp4"), let generation = Int(file.dropFirst(5).dropLast(4)), generation >= 0 {
            self = .initSection(generation)
            return
        }
        guard file.hasSuffix(".m4s") else { return nil }
        let numbers = file.dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.allSatisfy({ !$0.isEmpty && $0.count <= 12 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return nil }
        let values = numbers.compactMap { Int($0) }
        switch values.count {
        case 1: self = .segment(values[0])
        case 2: self = .part(.init(sequence: values[0], part: values[1]))
        default: return nil
        }
    }
}
