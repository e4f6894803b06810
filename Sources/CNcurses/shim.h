#ifndef PORTAL_CNCURSES_SHIM_H
#define PORTAL_CNCURSES_SHIM_H
// Every header that includes curses must agree on the wide-character build.
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <ncurses.h>

// Macros Swift cannot import, wrapped as functions.
static inline int portal_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int portal_getmaxx(WINDOW *w) { return getmaxx(w); }
static inline attr_t portal_a_bold(void) { return A_BOLD; }
static inline attr_t portal_a_reverse(void) { return A_REVERSE; }
static inline attr_t portal_a_underline(void) { return A_UNDERLINE; }
static inline attr_t portal_a_dim(void) { return A_DIM; }
static inline attr_t portal_color_pair(int n) { return COLOR_PAIR(n); }
static inline int portal_key_f(int n) { return KEY_F(n); }
static inline int portal_mvaddstr(int y, int x, const char *s) { return mvaddstr(y, x, s); }

#endif
