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
static inline WINDOW *portal_stdscr(void) { return stdscr; }
static inline WINDOW *portal_curscr(void) { return curscr; }
static inline int portal_attrset(attr_t a) { return attrset(a); }
static inline int portal_move(int y, int x) { return move(y, x); }
static inline mmask_t portal_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t portal_button5_pressed(void) { return BUTTON5_PRESSED; }
static inline int portal_key_code_yes(void) { return KEY_CODE_YES; }
static inline int portal_key_resize(void) { return KEY_RESIZE; }
static inline int portal_key_mouse(void) { return KEY_MOUSE; }
/// Reads one key or character; returns ERR on timeout, KEY_CODE_YES for function keys.
static inline int portal_get_wch(unsigned int *out) {
    wint_t c = 0;
    int r = get_wch(&c);
    *out = (unsigned int)c;
    return r;
}
/// The button state of the pending mouse event, 0 when there is none.
static inline unsigned long portal_mouse_buttons(void) {
    MEVENT e;
    if (getmouse(&e) != OK) return 0;
    return (unsigned long)e.bstate;
}

#endif
