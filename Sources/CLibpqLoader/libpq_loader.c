#include "libpq_loader.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

static struct portal_libpq functions;
static const char *failure;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        failure = dlerror();
        return;
    }
#define LOAD(field, name) \
    if ((functions.field = (__typeof__(functions.field))dlsym(library, #name)) == NULL) { failure = "libpq has no " #name; return; }
    LOAD(connectdb, PQconnectdb)
    LOAD(status, PQstatus)
    LOAD(errorMessage, PQerrorMessage)
    LOAD(finish, PQfinish)
    LOAD(getCancel, PQgetCancel)
    LOAD(freeCancel, PQfreeCancel)
    LOAD(cancel, PQcancel)
    LOAD(exec, PQexec)
    LOAD(prepare, PQprepare)
    LOAD(execPrepared, PQexecPrepared)
    LOAD(resultStatus, PQresultStatus)
    LOAD(resultErrorMessage, PQresultErrorMessage)
    LOAD(resultErrorField, PQresultErrorField)
    LOAD(clear, PQclear)
    LOAD(ntuples, PQntuples)
    LOAD(nfields, PQnfields)
    LOAD(fname, PQfname)
    LOAD(ftype, PQftype)
    LOAD(getisnull, PQgetisnull)
    LOAD(getvalue, PQgetvalue)
    LOAD(cmdTuples, PQcmdTuples)
    LOAD(cmdStatus, PQcmdStatus)
    LOAD(transactionStatus, PQtransactionStatus)
    LOAD(putCopyData, PQputCopyData)
    LOAD(putCopyEnd, PQputCopyEnd)
    LOAD(getResult, PQgetResult)
    LOAD(sendQueryPrepared, PQsendQueryPrepared)
    LOAD(setSingleRowMode, PQsetSingleRowMode)
    LOAD(describePrepared, PQdescribePrepared)
    LOAD(sendQuery, PQsendQuery)
    LOAD(reset, PQreset)
    LOAD(setNoticeProcessor, PQsetNoticeProcessor)
    LOAD(enterPipelineMode, PQenterPipelineMode)
    LOAD(exitPipelineMode, PQexitPipelineMode)
    LOAD(pipelineSync, PQpipelineSync)
    LOAD(sendFlushRequest, PQsendFlushRequest)
    LOAD(flush, PQflush)
    LOAD(sendQueryParams, PQsendQueryParams)
    LOAD(consumeInput, PQconsumeInput)
    LOAD(notifies, PQnotifies)
    LOAD(freemem, PQfreemem)
#undef LOAD
}

const struct portal_libpq *portal_libpq_load(const char **error) {
    pthread_once(&once, load);
    if (failure != NULL) {
        if (error != NULL) *error = failure;
        return NULL;
    }
    return &functions;
}
