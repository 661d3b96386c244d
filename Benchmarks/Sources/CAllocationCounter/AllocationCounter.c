// Counts allocations by defining the malloc family in the executable: the dynamic linker binds every library's
// malloc to these, and they forward to glibc's own implementations (__libc_*), so nothing else changes.
// Only on glibc; elsewhere the counter reads 0 and the benchmark prints "-" for allocations.
#include "CAllocationCounter.h"

#if defined(__linux__) && defined(__GLIBC__)

#include <errno.h>
#include <malloc.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static uint64_t allocationCount = 0;

static inline void countOne(void) { __atomic_fetch_add(&allocationCount, 1, __ATOMIC_RELAXED); }

void *malloc(size_t size) {
    countOne();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    countOne();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    countOne();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) { __libc_free(pointer); }

void *memalign(size_t alignment, size_t size) {
    countOne();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    countOne();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    countOne();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

uint64_t hangar_allocation_count(void) { return __atomic_load_n(&allocationCount, __ATOMIC_RELAXED); }

int hangar_allocation_counting_available(void) { return 1; }

void hangar_release_free_memory(void) { malloc_trim(0); }

#else

uint64_t hangar_allocation_count(void) { return 0; }

int hangar_allocation_counting_available(void) { return 0; }

void hangar_release_free_memory(void) {}

#endif
