#ifndef PORTAL_CSQLITE_SHIM_H
#define PORTAL_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import.
static inline sqlite3_destructor_type portal_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type portal_sqlite_static(void) { return SQLITE_STATIC; }

// The extended result codes the engine tells apart, by SQLite's own names: they are macros of
// the form (SQLITE_X | (n << 8)), which Swift does not import.
static const int PORTAL_SQLITE_CONSTRAINT_CHECK = SQLITE_CONSTRAINT_CHECK;
static const int PORTAL_SQLITE_CONSTRAINT_FOREIGNKEY = SQLITE_CONSTRAINT_FOREIGNKEY;
static const int PORTAL_SQLITE_CONSTRAINT_NOTNULL = SQLITE_CONSTRAINT_NOTNULL;
static const int PORTAL_SQLITE_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT_PRIMARYKEY;
static const int PORTAL_SQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int PORTAL_SQLITE_CONSTRAINT_ROWID = SQLITE_CONSTRAINT_ROWID;
static const int PORTAL_SQLITE_READONLY_ROLLBACK = SQLITE_READONLY_ROLLBACK;
static const int PORTAL_SQLITE_READONLY_DBMOVED = SQLITE_READONLY_DBMOVED;
static const int PORTAL_SQLITE_READONLY_RECOVERY = SQLITE_READONLY_RECOVERY;
static const int PORTAL_SQLITE_READONLY_CANTINIT = SQLITE_READONLY_CANTINIT;
static const int PORTAL_SQLITE_READONLY_DIRECTORY = SQLITE_READONLY_DIRECTORY;
static const int PORTAL_SQLITE_BUSY_SNAPSHOT = SQLITE_BUSY_SNAPSHOT;
static const int PORTAL_SQLITE_IOERR_SHORT_READ = SQLITE_IOERR_SHORT_READ;

#endif
