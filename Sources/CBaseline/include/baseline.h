#ifndef PORTAL_BASELINE_H
#define PORTAL_BASELINE_H
// Benchmark baselines: the work of each portal-bench figure, written in C against the SQLite C API.
#endif
