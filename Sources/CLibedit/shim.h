#ifndef PORTAL_CLIBEDIT_SHIM_H
#define PORTAL_CLIBEDIT_SHIM_H
#include <stdio.h>
#include <editline/readline.h>
#endif
