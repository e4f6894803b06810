#ifndef PORTAL_CSQLITE_SHIM_H
#define PORTAL_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import.
static inline sqlite3_destructor_type portal_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type portal_sqlite_static(void) { return SQLITE_STATIC; }

// The page cache takes its memory from the heap a page at a time, as pages are first read,
// instead of a bulk allocation of 20 pages per connection written through at its first read: a
// one-line command reads a handful of pages and touched the rest for nothing (page faults).
// sqlite3_config is variadic, which Swift cannot call. Only before SQLite initializes (the first
// open); afterwards SQLite refuses it (SQLITE_MISUSE) and nothing changes.
static inline int portal_sqlite_page_cache_on_demand(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}

// SQLite's count of the memory it holds (sqlite3_memory_used, sqlite3_status) takes a global
// mutex around every allocation and free: a program that never asks for it turns it off, as
// SQLite's documentation recommends for speed (SQLITE_DEFAULT_MEMSTATUS=0). Only before SQLite
// initializes, like the page cache above.
static inline int portal_sqlite_memory_statistics_off(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// The extended result codes the engine tells apart, by SQLite's own names: they are macros of
// the form (SQLITE_X | (n << 8)), which Swift does not import.
static const int PORTAL_SQLITE_CONSTRAINT_CHECK = SQLITE_CONSTRAINT_CHECK;
static const int PORTAL_SQLITE_CONSTRAINT_FOREIGNKEY = SQLITE_CONSTRAINT_FOREIGNKEY;
static const int PORTAL_SQLITE_CONSTRAINT_NOTNULL = SQLITE_CONSTRAINT_NOTNULL;
static const int PORTAL_SQLITE_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT_PRIMARYKEY;
static const int PORTAL_SQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int PORTAL_SQLITE_CONSTRAINT_ROWID = SQLITE_CONSTRAINT_ROWID;
static const int PORTAL_SQLITE_CONSTRAINT_TRIGGER = SQLITE_CONSTRAINT_TRIGGER;
static const int PORTAL_SQLITE_CONSTRAINT_DATATYPE = SQLITE_CONSTRAINT_DATATYPE;
static const int PORTAL_SQLITE_READONLY_ROLLBACK = SQLITE_READONLY_ROLLBACK;
static const int PORTAL_SQLITE_READONLY_DBMOVED = SQLITE_READONLY_DBMOVED;
static const int PORTAL_SQLITE_READONLY_RECOVERY = SQLITE_READONLY_RECOVERY;
static const int PORTAL_SQLITE_READONLY_CANTINIT = SQLITE_READONLY_CANTINIT;
static const int PORTAL_SQLITE_READONLY_DIRECTORY = SQLITE_READONLY_DIRECTORY;
static const int PORTAL_SQLITE_BUSY_SNAPSHOT = SQLITE_BUSY_SNAPSHOT;
static const int PORTAL_SQLITE_IOERR_SHORT_READ = SQLITE_IOERR_SHORT_READ;

#endif
