#ifndef HANGAR_BENCH_SQLITE_SHIM_H
#define HANGAR_BENCH_SQLITE_SHIM_H

// The system SQLite for the raw baseline of the store rows. The root package's CSQLite is not a product,
// so the benchmark has its own module (a module name must be unique in the package graph).
#include <sqlite3.h>

/// SQLITE_STATIC is a cast macro Swift cannot import: SQLite reads the bound bytes in place, without a copy.
static inline sqlite3_destructor_type hangar_bench_sqlite3_static(void) {
    return SQLITE_STATIC;
}

/// SQLITE_TRANSIENT, likewise: SQLite copies the bound bytes (for bridged Swift strings, valid only during the call).
static inline sqlite3_destructor_type hangar_bench_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
