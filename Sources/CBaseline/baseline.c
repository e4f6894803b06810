#include "baseline.h"
#include <sqlite3.h>
#include <stdlib.h>

sqlite3 *baseline_open(const char *path) {
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
    return db;
}

void baseline_close(sqlite3 *db) { sqlite3_close(db); }

/* Steps `stmt` to its end, keeping every row's integer columns in a growing array (as the
 * engine keeps rows) and adding them to `*sum`; the number of rows, or -1 when memory ran out.
 * The array is handed to `*kept` when `kept` is not NULL (the caller frees it), else freed. */
static int64_t step_rows(sqlite3_stmt *stmt, int columns, size_t capacity, int64_t *sum, int64_t **kept) {
    size_t count = 0;
    int64_t *rows = malloc(capacity * (size_t)columns * sizeof(int64_t));
    while (rows && sqlite3_step(stmt) == SQLITE_ROW) {
        if (count == capacity) {
            capacity *= 2;
            int64_t *grown = realloc(rows, capacity * (size_t)columns * sizeof(int64_t));
            if (!grown) { free(rows); rows = NULL; break; }
            rows = grown;
        }
        int64_t *row = rows + count * (size_t)columns;
        for (int c = 0; c < columns; c++) {
            row[c] = sqlite3_column_int64(stmt, c);
            *sum += row[c];
        }
        count++;
    }
    if (!rows) return -1;
    if (kept) *kept = rows; else free(rows);
    return (int64_t)count;
}

static int64_t fetch_rows(sqlite3 *db, const char *sql, int columns, int64_t *checksum, int64_t **kept) {
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) return -1;
    int64_t sum = 0;
    int64_t count = step_rows(stmt, columns, 1024, &sum, kept);
    sqlite3_finalize(stmt);
    *checksum = sum;
    return count;
}

int64_t baseline_fetch_integers(sqlite3 *db, const char *sql, int columns, int64_t *checksum) {
    return fetch_rows(db, sql, columns, checksum, NULL);
}

int64_t baseline_fetch_integer_rows(sqlite3 *db, const char *sql, int columns, int64_t **rows, int64_t *checksum) {
    *rows = NULL;
    return fetch_rows(db, sql, columns, checksum, rows);
}

void baseline_free(void *pointer) { free(pointer); }

int baseline_insert_integers(sqlite3 *db, const char *sql, int rows, int columns) {
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    for (int r = 0; rc == SQLITE_OK && r < rows; r++) {
        for (int c = 0; c < columns; c++) sqlite3_bind_int64(stmt, c + 1, (sqlite3_int64)r * (c + 1));
        rc = sqlite3_step(stmt) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        sqlite3_reset(stmt);
    }
    sqlite3_finalize(stmt);
    sqlite3_exec(db, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int64_t baseline_query_repeated(sqlite3 *db, const char *sql, int runs, int64_t modulo, int columns, int64_t *checksum) {
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) return -1;
    int64_t total = 0, sum = 0;
    for (int i = 0; i < runs; i++) {
        sqlite3_bind_int64(stmt, 1, (int64_t)i * 7919 % modulo);
        int64_t count = step_rows(stmt, columns, 16, &sum, NULL);
        sqlite3_reset(stmt);
        if (count < 0) { sqlite3_finalize(stmt); return -1; }
        total += count;
    }
    sqlite3_finalize(stmt);
    *checksum = sum;
    return total;
}
