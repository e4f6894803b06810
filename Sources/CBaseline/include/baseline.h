#ifndef PORTAL_BASELINE_H
#define PORTAL_BASELINE_H
// Benchmark baselines: the work of each portal-bench figure, written in C against the SQLite C API.
#include <stdint.h>

typedef struct sqlite3 sqlite3;

/// Opens `path` as the engine opens its writer (WAL, synchronous=NORMAL). NULL on failure.
sqlite3 *baseline_open(const char *path);
void baseline_close(sqlite3 *db);

/// engine.fetch.*: runs `sql` and copies every row's first `columns` INTEGER columns into a freshly
/// allocated row-major array (the C equivalent of building rows). Returns the row count, -1 on
/// error; `*checksum` receives the sum of all values so the work cannot be optimised away.
int64_t baseline_fetch_integers(sqlite3 *db, const char *sql, int columns, int64_t *checksum);

/// The same, handing the row-major array to `*rows` (free it with `baseline_free`; NULL when
/// the fetch failed): for a caller that turns the rows into its own values.
int64_t baseline_fetch_integer_rows(sqlite3 *db, const char *sql, int columns, int64_t **rows, int64_t *checksum);
void baseline_free(void *pointer);

/// engine.insert.*: in one transaction, inserts `rows` rows of `columns` integers (value = row * column)
/// with `sql` (an INSERT with `columns` parameters). Returns 0, or the SQLite error code.
int baseline_insert_integers(sqlite3 *db, const char *sql, int rows, int columns);

/// engine.query.compiled: prepares `sql` (one integer parameter) once, then `runs` times binds a
/// new value (i * 7919 % `modulo`), copies each row's first `columns` INTEGER columns into an
/// array allocated for that run, and resets. Returns the rows read in all, -1 on error;
/// `*checksum` receives the sum of all values.
int64_t baseline_query_repeated(sqlite3 *db, const char *sql, int runs, int64_t modulo, int columns, int64_t *checksum);

#endif
