#ifndef HANGAR_C_ALLOCATION_COUNTER_H
#define HANGAR_C_ALLOCATION_COUNTER_H

#include <stdint.h>

/// The number of malloc-family calls (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign)
/// made by this process so far, or 0 when counting is not available on this platform.
uint64_t hangar_allocation_count(void);

/// 1 when this build replaces the allocator entry points and counts, 0 otherwise.
int hangar_allocation_counting_available(void);

/// Returns the allocator's free memory (consolidating freed small blocks first: glibc's malloc_trim), so that what a
/// timed run finds in the heap does not depend on what the run before it freed. A no-op where that is not glibc.
void hangar_release_free_memory(void);

#endif
