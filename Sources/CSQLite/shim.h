#ifndef PORTAL_CSQLITE_SHIM_H
#define PORTAL_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import.
static inline sqlite3_destructor_type portal_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type portal_sqlite_static(void) { return SQLITE_STATIC; }

#endif
