#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension HangarError.Code {
    /// The code for a file system failure's `errno`: ``diskFull`` for `ENOSPC` and `EDQUOT`, ``readOnly``
    /// for `EROFS`, `EACCES` and `EPERM`, ``io`` for the others; `nil` for 0 (no failure reported).
    package init?(systemErrno: Int32) {
        switch systemErrno {
        case 0: return nil
        case ENOSPC, EDQUOT: self = .diskFull
        case EROFS, EACCES, EPERM: self = .readOnly
        default: self = .io
        }
    }
}
