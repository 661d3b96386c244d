// Writers' output: one set of append helpers over any byte destination, and a buffer that writes straight
// into the memory of the array it returns.

/// Somewhere bytes can be appended: a `[UInt8]` or an ``OutputBuffer``.
protocol ByteAppending {
    /// Appends one byte.
    mutating func append(_ byte: UInt8)
    /// Appends `bytes`.
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer)
    /// Appends `count` bytes that `body` writes, all of them.
    mutating func appendWriting(count: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void)
}

extension ByteAppending {
    /// Appends the UTF-8 bytes of a literal.
    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(contentsOf: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a string's UTF-8 bytes in one copy.
    @inline(__always)
    mutating func appendUTF8(_ string: String) {
        var string = string
        string.withUTF8 { append(contentsOf: UnsafeRawBufferPointer($0)) }
    }

    /// Appends `count` copies of `byte` (indentation).
    @inline(__always)
    mutating func append(repeating byte: UInt8, count: Int) {
        guard count > 0 else { return }
        appendWriting(count: count) { $0.initialize(repeating: byte) }
    }

    /// Appends an integer in decimal, without making a `String`.
    mutating func appendDecimal(_ integer: PropertyList.Integer) {
        if integer.isNegative { append(UInt8(ascii: "-")) }
        // Two's complement: the magnitude of a negative value is its negation as unsigned bits.
        let magnitude = integer.isNegative ? 0 &- integer.bits : integer.bits
        let digits = decimalDigitCount(magnitude)
        appendWriting(count: digits) { buffer in
            var rest = magnitude
            var index = digits
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while index > 0
        }
    }
}

/// The number of decimal digits of `value` (1 for zero).
@inline(__always)
func decimalDigitCount(_ value: UInt64) -> Int {
    var digits = 1
    var bound: UInt64 = 10
    while digits < 20, value >= bound {
        digits += 1
        bound = digits < 20 ? bound &* 10 : .max
    }
    return digits
}

extension [UInt8]: ByteAppending {
    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes.bindMemory(to: UInt8.self))
    }

    @inline(__always)
    mutating func appendWriting(count: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        let start = self.count
        append(contentsOf: repeatElement(0, count: count))
        withUnsafeMutableBufferPointer { buffer in
            body(UnsafeMutableBufferPointer(rebasing: buffer[start..<(start + count)]))
        }
    }
}

/// Bytes written straight into the memory of the array ``collect(estimate:_:)`` returns: no growth, no final
/// copy, no per-append bookkeeping beyond one bounds check. Writing past the estimate sets ``overflowed``
/// and writes nothing more; `collect` then runs the writer again with twice the room.
struct OutputBuffer: ByteAppending {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0
    private(set) var overflowed = false

    private init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        guard count < capacity else {
            overflowed = true
            return
        }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= capacity - count else {
            overflowed = true
            return
        }
        if let source = bytes.baseAddress {
            UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
    }

    @inline(__always)
    mutating func appendWriting(count written: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        guard written <= capacity - count else {
            overflowed = true
            return
        }
        body(UnsafeMutableBufferPointer(start: base + count, count: written))
        count += written
    }

    /// The bytes `write` appends, in an array allocated once at `estimate` bytes (more only if `write`
    /// overflows it, which costs one more run).
    static func collect(
        estimate: Int, _ write: (inout OutputBuffer) throws(PropertyListError) -> Void
    ) throws(PropertyListError) -> [UInt8] {
        var capacity = max(estimate, 64)
        while true {
            var failure: PropertyListError?
            var overflowed = false
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initializedCount in
                guard let base = buffer.baseAddress else { return }
                var out = OutputBuffer(base: base, capacity: buffer.count)
                do throws(PropertyListError) {
                    try write(&out)
                } catch {
                    failure = error
                }
                overflowed = out.overflowed
                initializedCount = failure == nil && !overflowed ? out.count : 0
            }
            if let failure { throw failure }
            if !overflowed { return bytes }
            capacity *= 2
        }
    }
}
