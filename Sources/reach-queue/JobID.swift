import ArgumentParser

/// A job's id as typed: digits only, within `Int64`.
struct JobID {
    let value: Int64

    init(_ text: String) throws {
        guard !text.isEmpty, text.count <= 19, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(text),
            value >= 1
        else { throw ValidationError("must be a job's id, a whole number from 1") }
        self.value = value
    }
}
