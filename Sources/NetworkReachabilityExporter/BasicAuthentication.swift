import NetworkReachabilityPOSIX
import CCrypt
import FoundationEssentials
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NetworkReachabilityCore

/// `basic_auth_users` of a web configuration: checks a request's `Authorization: Basic` against the users' bcrypt
/// hashes with the system's crypt(3) (libxcrypt knows `$2a$`, `$2b$` and `$2y$`).
///
/// A bcrypt check costs about 50 ms at cost 10: it runs on a thread of its own that exists while checks wait (the
/// library's `SerialLane`), never on the event loop, so wrong passwords sent as fast as they go cannot hold a scrape
/// up. Past ``waitingChecks`` waiting, a request is answered 503 (busy), never 401: a flood must not make a right
/// password look wrong. A user who passed before has ``reservedChecks`` more, which a flood of unknown names cannot
/// take. A pair that passed is remembered by a keyed hash of user, password and stored hash (the process's random
/// SipHash key: no password is kept), across readings of the configuration, so a scraper that comes every 15 s costs
/// one bcrypt, not one a scrape, and a changed hash is checked afresh. An unknown user's password is checked against
/// a user's hash all the same, so the time of the answer does not tell which names exist.
package final class BasicAuthentication: Sendable {
    /// What a check of a request's credentials found.
    enum Verdict: Sendable, Equatable {
        /// A user's right password.
        case passed
        /// No credentials, an unknown user or a wrong password: 401.
        case refused
        /// Too many checks wait: 503, to be tried again.
        case busy
    }

    /// The users and their hashes.
    let users: [String: String]
    /// The hash an unknown user's password is checked against, for the time it takes; `nil` with no users.
    private let stand: String?
    /// The pairs that passed, and the names of their users, of every reading of the configuration.
    private static let passed = NIOLockedValueBox<(pairs: Set<Int>, users: Set<String>)>(([], []))
    /// The checks waiting for the lane, of every reading of the configuration.
    private static let waiting = NIOLockedValueBox(0)
    /// Where passwords are checked, one at a time.
    private static let lane = SerialLane(name: "reach-bcrypt")

    /// The most checks that wait at once; a request beyond them is answered 503 (a flood of wrong passwords).
    static let waitingChecks = 32

    /// The checks past ``waitingChecks`` kept for users who passed before.
    static let reservedChecks = 8

    /// The most pairs remembered; past it the memory is cleared (a flood of right passwords for many users).
    static let remembered = 1024

    init(users: [String: String]) {
        self.users = users
        stand = users.values.min()
    }

    /// Whether `hash` is a bcrypt hash crypt(3) checks: `$2a$`, `$2b$` or `$2y$`, a two-digit cost, 53 characters.
    static func isBcrypt(_ hash: String) -> Bool {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, hash.hasPrefix("$2a$") || hash.hasPrefix("$2b$") || hash.hasPrefix("$2y$"),
            bytes[6] == UInt8(ascii: "$"), bytes[4...5].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return false }
        return bytes[7...].allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "/")
        }
    }

    /// What `head`'s credentials are; the future completes on `eventLoop`.
    func check(_ head: HTTPRequestHead, on eventLoop: any EventLoop) -> EventLoopFuture<Verdict> {
        guard let (user, password) = Self.credentials(in: head), let stand else {
            return eventLoop.makeSucceededFuture(.refused)
        }
        let hash = users[user]
        var hasher = Hasher()
        hasher.combine(user)
        hasher.combine(password)
        hasher.combine(hash ?? "")
        let key = hasher.finalize()
        let (known, proven) = Self.passed.withLockedValue { ($0.pairs.contains(key), $0.users.contains(user)) }
        if hash != nil && known { return eventLoop.makeSucceededFuture(.passed) }
        let admitted = Self.waiting.withLockedValue { waiting in
            guard waiting < Self.waitingChecks + (proven ? Self.reservedChecks : 0) else { return false }
            waiting += 1
            return true
        }
        guard admitted else { return eventLoop.makeSucceededFuture(.busy) }
        let answer = eventLoop.makePromise(of: Verdict.self)
        Self.lane.run {
            let verified = Self.verify(password, against: hash ?? stand) && hash != nil
            if verified {
                Self.passed.withLockedValue { passed in
                    if passed.pairs.count >= Self.remembered { passed = ([], []) }
                    passed.pairs.insert(key)
                    passed.users.insert(user)
                }
            }
            Self.waiting.withLockedValue { $0 -= 1 }
            answer.succeed(verified ? .passed : .refused)
        }
        return answer.futureResult
    }

    /// The user and password of an `Authorization: Basic` header.
    static func credentials(in head: HTTPRequestHead) -> (user: String, password: String)? {
        guard let value = head.headers["Authorization"].first, value.count <= 4096 else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let decoded = Data(base64Encoded: String(parts[1])),
            let text = String(validating: decoded, as: UTF8.self), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// Whether crypt(3) of `password` with `hash`'s setting is `hash`, compared in constant time.
    static func verify(_ password: String, against hash: String) -> Bool {
        guard !password.utf8.contains(0) else { return false }
        var output = [CChar](repeating: 0, count: 128)
        guard ccrypt_hash(password, hash, &output, output.count) == 0 else { return false }
        let computed = Array(output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
        let expected = Array(hash.utf8)
        guard computed.count == expected.count else { return false }
        return zip(computed, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
