/// The Prometheus text of a registry with its families in name order, so two hosts' `/metrics` (or two scrapes')
/// list the same families in the same order; the registry keeps them in a dictionary, whose order changes with
/// every process. A family's lines stay as the registry wrote them (a histogram's must). One pass over the bytes and a
/// sort of the few dozen families: with 1,000 targets, a sort of every line took a debug build 0.1 s a scrape.
enum ExpositionOrder {
    /// `exposition` with its families in name order.
    static func sorted(_ exposition: [UInt8]) -> [UInt8] {
        // Each family: its name and the range of its lines, from its first `# HELP` or `# TYPE` line.
        var families: [(name: ArraySlice<UInt8>, range: Range<Int>)] = []
        var lineStart = 0
        let hash = UInt8(ascii: "#"), newline = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
        while lineStart < exposition.count {
            let lineEnd = exposition[lineStart...].firstIndex(of: newline).map { $0 + 1 } ?? exposition.count
            if exposition[lineStart] == hash, lineEnd - lineStart > 7 {
                // `# HELP name …` or `# TYPE name …`: the name starts at the 8th byte
                let nameStart = lineStart + 7
                let nameEnd = exposition[nameStart..<lineEnd].firstIndex { $0 == space || $0 == newline } ?? lineEnd
                let name = exposition[nameStart..<nameEnd]
                if families.last?.name.elementsEqual(name) != true {
                    families.append((name, lineStart..<lineEnd))
                }
            }
            if families.isEmpty {
                families.append(([], lineStart..<lineEnd))  // lines before any header keep their place, first
            }
            families[families.count - 1].range = families[families.count - 1].range.lowerBound..<lineEnd
            lineStart = lineEnd
        }
        var result: [UInt8] = []
        result.reserveCapacity(exposition.count)
        for family in families.sorted(by: { $0.name.lexicographicallyPrecedes($1.name) }) {
            result.append(contentsOf: exposition[family.range])
        }
        return result
    }
}
