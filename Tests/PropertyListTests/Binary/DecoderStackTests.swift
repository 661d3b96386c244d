import HangarTestSupport
import PropertyList
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The binary decoder recurses once per level of nesting, on whatever thread the caller decodes on: a Swift
/// concurrency thread, a test's, a server's, 8 MiB of stack each by default on Linux, with one 4 KiB guard page
/// below it. At the 511 levels the decoders allow, a debug build's binary decoder once took 7.7 MiB of that, in
/// frames of 10.6 KiB: a little more stack above the decode and it could run off the end, over the guard page
/// without touching it, into the stack of the thread mapped below, and corrupt what that thread was doing (the likely
/// cause of a full-suite crash in an unrelated test: a bad release in `PropertyList.Dictionary`'s destroy under
/// `DocumentFormat.open`). These tests hold the decoder to a small part of a default stack, in every build.
@Suite struct DecoderStackTests {
    /// Half of a default thread stack: what a decode of the deepest document allowed may use, in any build.
    static let budget = 4 << 20

    /// The deepest dictionaries-and-arrays document the decoders allow, in binary.
    @Test func theDeepestDocumentDecodesInAFractionOfADefaultStack() throws {
        let deep = DeepDocuments.envelope()
        let bytes = try deep.encoded(as: .binary)
        var decoded: PropertyList?
        let used = try #require(Self.stackUsed { decoded = try? PropertyList(binary: bytes) })
        #expect(decoded == deep)
        #expect(used < Self.budget, "\(used / 1024) KiB of stack for \(DeepDocuments.deepestLevels) levels")
    }

    /// Arrays nested as deep as the decoders allow, and a file nested deeper, refused at the limit.
    @Test func nestedArraysAndTheRefusalPastTheLimitStayInTheBudget() throws {
        var value: PropertyList = "leaf"
        for _ in 0..<512 { value = [value] }
        let bytes = try value.encoded(as: .binary)
        let used = try #require(Self.stackUsed { _ = try? PropertyList(binary: bytes) })
        #expect(used < Self.budget, "\(used / 1024) KiB of stack for 512 arrays")

        let tooDeep = Corpus.bytes(Corpus.directory + "/invalid/gen-deep-nesting-1000.bplist")
        var refused = false
        let usedRefusing = try #require(Self.stackUsed { refused = Self.isRefusedAtTheLimit(tooDeep) })
        #expect(refused)
        #expect(usedRefusing < Self.budget, "\(usedRefusing / 1024) KiB of stack refusing 1000 levels")
    }

    static func isRefusedAtTheLimit(_ bytes: [UInt8]) -> Bool {
        do {
            _ = try PropertyList(binary: bytes)
            return false
        } catch {
            return error.code == .limitExceeded
        }
    }

    /// The bytes of stack `body` used, run on a thread of its own whose stack (16 MiB) is memory mapped and filled
    /// with a pattern here: the lowest byte no longer holding it is how deep the thread went. `nil` where threads
    /// cannot be given a stack this way.
    static func stackUsed(_ body: @escaping () -> Void) -> Int? {
        #if canImport(Glibc)
            let size = 16 << 20
            let pattern: UInt8 = 0xA5
            guard let stack = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                stack != MAP_FAILED
            else { return nil }
            defer { munmap(stack, size) }
            memset(stack, Int32(pattern), size)
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            guard pthread_attr_setstack(&attributes, stack, size) == 0 else { return nil }
            final class Box {
                let body: () -> Void
                init(_ body: @escaping () -> Void) { self.body = body }
            }
            let box = Unmanaged.passRetained(Box(body))
            var thread = pthread_t()
            let created = pthread_create(
                &thread, &attributes,
                { context in
                    let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
                    box.body()
                    return nil
                }, box.toOpaque())
            guard created == 0 else {
                box.release()
                return nil
            }
            pthread_join(thread, nil)
            let bytes = stack.assumingMemoryBound(to: UInt8.self)
            var lowest = 0
            while lowest < size, bytes[lowest] == pattern { lowest += 1 }
            return size - lowest
        #else
            print("SKIPPED: DecoderStackTests measures a thread's stack with Glibc's pthread_attr_setstack (Linux)")
            return 0
        #endif
    }
}
