/// Splits the bytes a bus sends into messages, deciding from each header, before the body has arrived, whether the
/// message is wanted: a message nobody asked for costs its header and nothing more.
///
/// Any local user may send a signal of the bus's maximum size (32 MiB on Debian's system bus) to any connection. An
/// unwanted message, or one larger than its allowance, is discarded as its bytes arrive, never held whole; only a
/// wanted message is buffered and decoded. The buffer is consumed from the front by an index and compacted when
/// more than half of it is read, so that reading costs time linear in the bytes.
struct DBusMessageReader {
    /// How many bytes a message may have, decided from its header (which says how long the message is): 0 skips it.
    typealias Allowance = (DBusHeader) -> Int

    /// What the reader has done with the messages it has seen.
    struct Tally: Equatable {
        /// Messages handed out whole.
        var delivered = 0
        /// Messages discarded because their allowance was 0: not from anyone followed, or of no followed kind.
        var unwanted = 0
        /// Messages discarded because they were longer than their allowance.
        var oversized = 0
        /// Messages discarded because their header or body broke the wire protocol.
        var malformed = 0
        /// The bytes of every message discarded, whole: most of them were never held.
        var discardedBytes = 0
    }

    /// The longest header (fixed part and fields) decoded; a longer one skips its message. Real headers are a few
    /// hundred bytes: names are at most 255 bytes each.
    static let maximumHeaderLength = 8192

    private(set) var tally = Tally()
    /// Bytes received and not yet consumed start at `start`.
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes of a discarded message still to arrive and be dropped.
    private var discarding = 0
    /// The header of the message being buffered, decided wanted, with its length.
    private var wanted: DBusHeader?

    /// The bytes held: at most one wanted message's allowance plus what one read appended.
    var bufferedCount: Int { buffer.count - start }

    /// Takes bytes read from the socket: what belongs to a message being discarded is dropped at once.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        var bytes = bytes[...]
        if discarding > 0 {
            let dropped = min(discarding, bytes.count)
            discarding -= dropped
            bytes = bytes.dropFirst(dropped)
        }
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= Self.keptCapacity)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Capacity kept when the buffer empties; a larger one (after a large wanted message) is given back.
    private static let keptCapacity = 1 << 17

    /// The next whole wanted message of those buffered, or `nil` when more bytes must arrive first.
    ///
    /// - Throws: ``DBusError/malformed(_:)`` when the bytes cannot start a message (the stream is lost: the
    ///   connection must end).
    mutating func next(allowance: Allowance) throws(DBusError) -> DBusMessage? {
        defer { compact() }
        while discarding == 0 {
            let available = buffer[start...]
            if let header = wanted {
                guard available.count >= header.messageLength else { return nil }
                let bodyStart = start + header.length
                let body = Array(buffer[bodyStart..<(bodyStart + header.bodyLength)])
                start += header.messageLength
                wanted = nil
                do {
                    let message = try DBusMessage(header: header, body: body)
                    tally.delivered += 1
                    return message
                } catch {
                    tally.malformed += 1
                    continue
                }
            }
            guard let size = try DBusHeader.size(of: available) else { return nil }
            guard size.headerLength <= Self.maximumHeaderLength else {
                tally.unwanted += 1
                discard(size.messageLength)
                continue
            }
            guard available.count >= size.headerLength else { return nil }
            let header: DBusHeader
            do {
                header = try DBusHeader(decoding: Array(buffer[start..<(start + size.headerLength)]))
            } catch {
                tally.malformed += 1
                discard(size.messageLength)
                continue
            }
            let allowed = allowance(header)
            if allowed == 0 {
                tally.unwanted += 1
                discard(size.messageLength)
            } else if size.messageLength > allowed {
                tally.oversized += 1
                discard(size.messageLength)
            } else {
                wanted = header
            }
        }
        return nil
    }

    /// Drops `count` bytes: those buffered now, and the rest as they arrive.
    private mutating func discard(_ count: Int) {
        tally.discardedBytes += count
        let now = min(count, buffer.count - start)
        start += now
        discarding = count - now
    }

    /// Moves the unread bytes to the front once more than half the buffer is read: each byte moves at most once per
    /// halving, so the cost stays linear.
    private mutating func compact() {
        guard start > 0, start * 2 >= buffer.count else { return }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= Self.keptCapacity)
        } else {
            buffer.removeFirst(start)
        }
        start = 0
    }
}
