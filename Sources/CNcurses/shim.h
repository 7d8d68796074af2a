// ncursesw for `btlog browse`, through functions Swift can call: curses.h gives attributes,
// colour pairs, mouse masks and the window size as macros, which Swift does not import.
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <locale.h>
#include <langinfo.h>
#include <string.h>

static inline int btlog_curses_lines(void) { return getmaxy(stdscr); }
static inline int btlog_curses_columns(void) { return getmaxx(stdscr); }

static inline attr_t btlog_attr_bold(void) { return A_BOLD; }
static inline attr_t btlog_attr_reverse(void) { return A_REVERSE; }
static inline attr_t btlog_attr_dim(void) { return A_DIM; }
static inline attr_t btlog_attr_underline(void) { return A_UNDERLINE; }
static inline attr_t btlog_color_pair(short pair) { return COLOR_PAIR(pair); }

/// Wide-character input: the key or character read, `*function` set for a function key
/// (KEY_UP...); ERR on timeout.
static inline int btlog_curses_read(int *code, int *function) {
    wint_t value = 0;
    int result = get_wch(&value);
    *code = (int)value;
    *function = result == KEY_CODE_YES;
    return result == ERR ? ERR : OK;
}

static inline int btlog_key_resize(void) { return KEY_RESIZE; }
static inline int btlog_key_mouse(void) { return KEY_MOUSE; }

/// Mouse: clicks and the wheel (buttons 4 and 5), no motion reports.
static inline void btlog_curses_mouse_on(void) {
    mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
}

/// The last mouse event: kind 1 click, 2 double click, 3 wheel up, 4 wheel down, 0 other.
static inline int btlog_curses_mouse(int *y, int *x) {
    MEVENT event;
    if (getmouse(&event) != OK) return 0;
    *y = event.y;
    *x = event.x;
    if (event.bstate & BUTTON4_PRESSED) return 3;
    if (event.bstate & BUTTON5_PRESSED) return 4;
    if (event.bstate & BUTTON1_DOUBLE_CLICKED) return 2;
    if (event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) return 1;
    return 0;
}

/// Writes UTF-8 text at a position with attributes (the locale decodes it).
static inline void btlog_curses_put(int y, int x, const char *text, attr_t attributes) {
    attrset(attributes);
    mvaddstr(y, x, text);
}

/// Whether the locale's character set is UTF-8 (what the terminal is told to expect).
static inline int btlog_locale_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}
