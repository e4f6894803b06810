#ifndef PORTAL_LIBPQ_LOADER_H
#define PORTAL_LIBPQ_LOADER_H

// libpq, loaded when first needed rather than linked: libpq and the TLS, Kerberos and LDAP
// libraries it links add about 11 ms to the start of every process (measured here), which a
// shell that opens an SQLite file must not pay. The header gives the types; the loader, the
// functions.
#include <postgresql/libpq-fe.h>

/// The libpq functions the engine calls, each with libpq's own signature.
struct portal_libpq {
    __typeof__(PQconnectdb) * _Nonnull connectdb;
    __typeof__(PQstatus) * _Nonnull status;
    __typeof__(PQerrorMessage) * _Nonnull errorMessage;
    __typeof__(PQfinish) * _Nonnull finish;
    __typeof__(PQgetCancel) * _Nonnull getCancel;
    __typeof__(PQfreeCancel) * _Nonnull freeCancel;
    __typeof__(PQcancel) * _Nonnull cancel;
    __typeof__(PQexec) * _Nonnull exec;
    __typeof__(PQprepare) * _Nonnull prepare;
    __typeof__(PQexecPrepared) * _Nonnull execPrepared;
    __typeof__(PQresultStatus) * _Nonnull resultStatus;
    __typeof__(PQresultErrorMessage) * _Nonnull resultErrorMessage;
    __typeof__(PQresultErrorField) * _Nonnull resultErrorField;
    __typeof__(PQclear) * _Nonnull clear;
    __typeof__(PQntuples) * _Nonnull ntuples;
    __typeof__(PQnfields) * _Nonnull nfields;
    __typeof__(PQfname) * _Nonnull fname;
    __typeof__(PQftype) * _Nonnull ftype;
    __typeof__(PQgetisnull) * _Nonnull getisnull;
    __typeof__(PQgetvalue) * _Nonnull getvalue;
    __typeof__(PQcmdTuples) * _Nonnull cmdTuples;
    __typeof__(PQcmdStatus) * _Nonnull cmdStatus;
    __typeof__(PQtransactionStatus) * _Nonnull transactionStatus;
    __typeof__(PQputCopyData) * _Nonnull putCopyData;
    __typeof__(PQputCopyEnd) * _Nonnull putCopyEnd;
    __typeof__(PQgetResult) * _Nonnull getResult;
    __typeof__(PQsendQueryPrepared) * _Nonnull sendQueryPrepared;
    __typeof__(PQsetSingleRowMode) * _Nonnull setSingleRowMode;
    __typeof__(PQdescribePrepared) * _Nonnull describePrepared;
    __typeof__(PQsendQuery) * _Nonnull sendQuery;
    __typeof__(PQreset) * _Nonnull reset;
    __typeof__(PQsetNoticeProcessor) * _Nonnull setNoticeProcessor;
    __typeof__(PQenterPipelineMode) * _Nonnull enterPipelineMode;
    __typeof__(PQexitPipelineMode) * _Nonnull exitPipelineMode;
    __typeof__(PQpipelineSync) * _Nonnull pipelineSync;
    __typeof__(PQsendFlushRequest) * _Nonnull sendFlushRequest;
    __typeof__(PQflush) * _Nonnull flush;
    __typeof__(PQsendQueryParams) * _Nonnull sendQueryParams;
    __typeof__(PQconsumeInput) * _Nonnull consumeInput;
    __typeof__(PQnotifies) * _Nonnull notifies;
    __typeof__(PQfreemem) * _Nonnull freemem;
};

/// libpq's functions, loaded on the first call (thread-safe); NULL when libpq.so.5 or one of its
/// functions cannot be loaded, with the reason in `*error`.
const struct portal_libpq * _Nullable portal_libpq_load(const char * _Nullable * _Nullable error);

#endif
