import BTCapture
import CNcurses
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal through ncursesw: terminfo, wide characters, colours, the mouse and resizes
/// handled by the library every terminal is tested with. It copies a CellGrid out (ncurses
/// sends only what changed) and turns what the user does into BrowserKeys. The terminal is
/// given back as it was on quit, on SIGTERM, SIGHUP and SIGINT, and on a crash.
public final class CursesTerminal {
    public let colours: Bool
    public let unicode: Bool
    private var pairs: [CellGrid.Look.Colour: Int16] = [:]
    private static var active = false

    /// Takes the terminal over. `colours`: whether to use colour at all (NO_COLOR, --color never).
    public init(colours wantsColours: Bool) {
        setlocale(LC_ALL, "")
        unicode = btlog_locale_is_utf8() != 0
        // Esc is a key of its own here: no waiting a second for a sequence it might start.
        setenv("ESCDELAY", "25", 0)
        initscr()
        Self.active = true
        Self.installSignalHandlers()
        raw() // Ctrl-C arrives as a key: the loop quits and restores the terminal
        noecho()
        nonl()
        keypad(stdscr, true)
        curs_set(0)
        btlog_curses_mouse_on()
        colours = wantsColours && has_colors()
        if colours {
            start_color()
            use_default_colors()
            let codes: [(CellGrid.Look.Colour, Int16)] = [(.red, Int16(COLOR_RED)), (.green, Int16(COLOR_GREEN)), (.yellow, Int16(COLOR_YELLOW)),
                                                           (.blue, Int16(COLOR_BLUE)), (.magenta, Int16(COLOR_MAGENTA)), (.cyan, Int16(COLOR_CYAN))]
            for (offset, entry) in codes.enumerated() {
                let pair = Int16(offset + 1)
                init_pair(pair, entry.1, -1)
                pairs[entry.0] = pair
            }
        }
    }

    /// Gives the terminal back (idempotent).
    public func close() {
        guard Self.active else { return }
        Self.active = false
        endwin()
    }

    deinit { close() }

    public var size: (width: Int, height: Int) {
        (Int(btlog_curses_columns()), Int(btlog_curses_lines()))
    }

    /// Draws the grid: runs of cells with one look written at once.
    public func draw(_ grid: CellGrid) {
        erase()
        let height = min(grid.height, Int(btlog_curses_lines()))
        let width = min(grid.width, Int(btlog_curses_columns()))
        for row in 0 ..< height {
            var column = 0
            while column < width {
                let look = grid[row, column].look
                var run = ""
                let start = column
                while column < width, grid[row, column].look == look {
                    run += grid[row, column].text
                    column += 1
                }
                // The last cell of the screen is written too: ncurses handles the scroll it implies.
                btlog_curses_put(Int32(row), Int32(start), unicode ? run : Self.ascii(run), attributes(look))
            }
        }
        refresh()
    }

    /// Outside a UTF-8 locale, what is not ASCII is shown as '?'.
    static func ascii(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.isASCII ? $0 : "?" }))
    }

    private func attributes(_ look: CellGrid.Look) -> attr_t {
        var value: attr_t = 0
        if look.bold { value |= btlog_attr_bold() }
        if look.reverse { value |= btlog_attr_reverse() }
        if look.dim { value |= btlog_attr_dim() }
        if look.underline { value |= btlog_attr_underline() }
        if let pair = pairs[look.colour] { value |= btlog_color_pair(pair) }
        return value
    }

    /// The next thing the user did, waiting at most `milliseconds` (nil on timeout).
    public func read(waiting milliseconds: Int) -> BrowserKey? {
        timeout(Int32(milliseconds))
        var code: Int32 = 0, function: Int32 = 0
        guard btlog_curses_read(&code, &function) == OK else {
            return nil
        }
        if function != 0 { return functionKey(code) }
        switch code {
        case 0x0D, 0x0A: return .enter
        case 0x09: return .tab
        case 0x1B: return .escape
        case 0x7F, 0x08: return .backspace
        case 0x01 ... 0x1A: return .control(Character(UnicodeScalar(UInt8(code) + 0x60)))
        default:
            guard let scalar = UnicodeScalar(UInt32(truncatingIfNeeded: code)) else { return nil }
            return .character(Character(scalar))
        }
    }

    private func functionKey(_ code: Int32) -> BrowserKey? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_ENTER: return .enter
        case KEY_BTAB: return .backTab
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case btlog_key_resize():
            let (width, height) = size
            return .resize(width: width, height: height)
        case btlog_key_mouse():
            var y: Int32 = 0, x: Int32 = 0
            switch btlog_curses_mouse(&y, &x) {
            case 1: return .click(row: Int(y), column: Int(x), double: false)
            case 2: return .click(row: Int(y), column: Int(x), double: true)
            case 3: return .wheel(row: Int(y), column: Int(x), down: false)
            case 4: return .wheel(row: Int(y), column: Int(x), down: true)
            default: return nil
            }
        default: return nil
        }
    }

    // MARK: Signals

    /// The signal (SIGTERM, SIGHUP or SIGINT) that asked the browser to end: the loop quits as
    /// after `q`, and the process exits as that signal's default would say (128 + its number).
    nonisolated(unsafe) public static var signalled: sig_atomic_t = 0

    private static func installSignalHandlers() {
        for signal in [SIGTERM, SIGHUP, SIGINT] {
            SystemCalls.signal(signal) { number in CursesTerminal.signalled = number }
        }
        // A crash leaves the terminal usable: curses' state is given back before the default
        // action (a core dump, the message) runs.
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            SystemCalls.signal(signal) { number in
                endwin()
                SystemCalls.signal(number, SIG_DFL)
                raise(number)
            }
        }
    }
}
