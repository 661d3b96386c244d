extension PropertyList {
    /// A property-list integer: any whole number from −2^63 to 2^64−1, the range a binary plist can hold.
    ///
    /// Values in `Int64` and values in `UInt64` share one representation, so `Integer(5 as Int64)` equals
    /// `Integer(5 as UInt64)`.
    public struct Integer: Sendable, Hashable {
        /// The two's-complement bits for negative values, the plain value otherwise.
        @usableFromInline let bits: UInt64
        /// True exactly when the value is below zero.
        @usableFromInline let isNegative: Bool

        /// The integer holding `value`.
        @inlinable
        public init(_ value: Int64) {
            bits = UInt64(bitPattern: value)
            isNegative = value < 0
        }

        /// The integer holding `value`.
        @inlinable
        public init(_ value: UInt64) {
            bits = value
            isNegative = false
        }

        /// The integer holding `value`.
        @inlinable
        public init(_ value: Int) {
            self.init(Int64(value))
        }

        /// The integer holding `value`, or `nil` when it is outside −2^63 … 2^64−1.
        @inlinable
        public init?(exactly value: some BinaryInteger) {
            if value < 0 {
                guard let signed = Int64(exactly: value) else { return nil }
                self.init(signed)
            } else {
                guard let unsigned = UInt64(exactly: value) else { return nil }
                self.init(unsigned)
            }
        }

        /// The value as an `Int64`, or `nil` when it is 2^63 or more.
        @inlinable
        public var int64Value: Int64? {
            isNegative || bits <= UInt64(Int64.max) ? Int64(bitPattern: bits) : nil
        }

        /// The value as a `UInt64`, or `nil` when it is negative.
        @inlinable
        public var uint64Value: UInt64? {
            isNegative ? nil : bits
        }

        /// The value converted to `T`, or `nil` when `T` cannot hold it.
        @inlinable
        public func exactly<T: FixedWidthInteger>(_: T.Type = T.self) -> T? {
            isNegative ? T(exactly: Int64(bitPattern: bits)) : T(exactly: bits)
        }
    }
}

extension PropertyList.Integer: Comparable {
    @inlinable
    public static func < (lhs: Self, rhs: Self) -> Bool {
        switch (lhs.isNegative, rhs.isNegative) {
        case (true, false): true
        case (false, true): false
        case (true, true): Int64(bitPattern: lhs.bits) < Int64(bitPattern: rhs.bits)
        case (false, false): lhs.bits < rhs.bits
        }
    }
}

extension PropertyList.Integer: CustomStringConvertible {
    /// The value in decimal, as `<integer>` writes it.
    public var description: String {
        isNegative ? String(Int64(bitPattern: bits)) : String(bits)
    }
}

extension PropertyList.Integer: ExpressibleByIntegerLiteral {
    @inlinable
    public init(integerLiteral value: Int64) {
        self.init(value)
    }
}
