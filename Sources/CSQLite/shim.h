#ifndef HANGAR_CSQLITE_SHIM_H
#define HANGAR_CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: SQLite copies the bound bytes.
static inline sqlite3_destructor_type hangar_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}

/// sqlite3_db_config is variadic: the one call Hangar needs, behind a fixed signature.
static inline int hangar_sqlite3_enable_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}

#endif
