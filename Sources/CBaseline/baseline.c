#include "baseline.h"
#include <sqlite3.h>
