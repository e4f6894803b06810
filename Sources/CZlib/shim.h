#ifndef PORTAL_CZLIB_SHIM_H
#define PORTAL_CZLIB_SHIM_H
#include <zlib.h>

// inflateInit2 is a macro that Swift cannot import: it passes the library's version and the
// stream's size to inflateInit2_.
static inline int portal_inflate_init_raw(z_streamp stream) {
    return inflateInit2(stream, -15);
}

#endif
