@preconcurrency import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// The ncurses screen: draws a `ScreenBuffer` and reads keys. Nothing else.
final class Terminal {
    private let useColor: Bool
    private var forceFullRedraw = false

    /// Takes over the terminal: wide-character ncurses, no echo, keypad, mouse wheel.
    init(color: Bool) {
        setlocale(LC_ALL, "")
        // ncurses learns of resizes through SIGWINCH: make sure it is not blocked here.
        var winch = sigset_t()
        sigemptyset(&winch)
        sigaddset(&winch, SIGWINCH)
        pthread_sigmask(SIG_UNBLOCK, &winch, nil)
        initscr()
        cbreak()
        noecho()
        nonl()
        keypad(portal_stdscr(), true)
        set_escdelay(25)
        // Ctrl-C arrives as a key, so a slow count can be cancelled without killing the session.
        raw()
        timeout(250)
        mousemask(portal_button4_pressed() | portal_button5_pressed(), nil)
        useColor = color && has_colors()
        if useColor { setUpColors() }
    }

    func close() {
        endwin()
    }

    var width: Int { Int(portal_getmaxx(portal_stdscr())) }
    var height: Int { Int(portal_getmaxy(portal_stdscr())) }

    /// The next key; `.tick` after a quarter second without one.
    func readKey() -> BrowserKey {
        var code: UInt32 = 0
        let result = portal_get_wch(&code)
        return key(result, code)
    }

    /// A key if one comes within `timeoutMilliseconds`, else nil.
    func readKey(timeoutMilliseconds: Int32) -> BrowserKey? {
        timeout(timeoutMilliseconds)
        defer { timeout(250) }
        var code: UInt32 = 0
        let result = portal_get_wch(&code)
        return result == ERR ? nil : key(result, code)
    }

    private func key(_ result: Int32, _ code: UInt32) -> BrowserKey {
        if result == ERR { return .tick }
        if result == portal_key_code_yes() { return functionKey(Int32(bitPattern: code)) }
        return characterKey(code)
    }

    private func functionKey(_ code: Int32) -> BrowserKey {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .deleteForward
        case KEY_BTAB: return .backTab
        case KEY_ENTER: return .enter
        case portal_key_resize(): return .resize(width: width, height: height)
        case portal_key_mouse():
            let buttons = portal_mouse_buttons()
            if buttons & UInt(portal_button4_pressed()) != 0 { return .wheelUp }
            if buttons & UInt(portal_button5_pressed()) != 0 { return .wheelDown }
            return .tick
        default: return .tick
        }
    }

    private func characterKey(_ code: UInt32) -> BrowserKey {
        switch code {
        case 10, 13: return .enter
        case 27: return .escape
        case 9: return .tab
        case 8, 127: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(UInt8(code) + 96)))
        default:
            guard code >= 32, let scalar = Unicode.Scalar(code) else { return .tick }
            return .character(Character(scalar))
        }
    }

    /// Drops every key typed but not read yet.
    func discardTypeAhead() { flushinp() }

    /// Makes the next draw repaint every cell (after output that bypassed ncurses).
    func invalidate() { forceFullRedraw = true }

    /// Shows the buffer: each row as runs of equally styled text.
    func draw(_ screen: ScreenBuffer) {
        if forceFullRedraw {
            clearok(portal_curscr(), true)
            forceFullRedraw = false
        }
        erase()
        for y in 0..<min(screen.height, height) {
            var x = 0
            while x < screen.width {
                let style = screen.style(x: x, y: y) ?? .normal
                var run = ""
                var end = x
                while end < screen.width, screen.style(x: end, y: y) == style {
                    screen.appendText(x: end, y: y, to: &run)
                    end += 1
                }
                _ = portal_attrset(attributes(for: style))
                _ = portal_mvaddstr(Int32(y), Int32(x), run)
                x = end
            }
        }
        _ = portal_attrset(0)
        if let cursor = screen.cursor {
            curs_set(1)
            _ = portal_move(Int32(cursor.y), Int32(cursor.x))
        } else {
            curs_set(0)
        }
        refresh()
    }

    private static let styles: [CellStyle] = [.normal, .title, .header, .cursor, .cursorRow, .special, .status, .error,
                                             .pane, .paneSelected, .modal, .keyColumn]

    private func setUpColors() {
        start_color()
        use_default_colors()
        let colors: [(CellStyle, Int16, Int16)] = [
            (.title, Int16(COLOR_BLACK), Int16(COLOR_CYAN)),
            (.header, Int16(COLOR_YELLOW), -1),
            (.cursor, Int16(COLOR_BLACK), Int16(COLOR_YELLOW)),
            (.cursorRow, -1, -1),
            (.special, Int16(COLOR_MAGENTA), -1),
            (.status, Int16(COLOR_BLACK), Int16(COLOR_WHITE)),
            (.error, Int16(COLOR_WHITE), Int16(COLOR_RED)),
            (.pane, Int16(COLOR_CYAN), -1),
            (.paneSelected, Int16(COLOR_BLACK), Int16(COLOR_GREEN)),
            (.modal, -1, -1),
            (.keyColumn, Int16(COLOR_GREEN), -1),
        ]
        for (style, fg, bg) in colors { init_pair(pair(style), fg, bg) }
    }

    private func pair(_ style: CellStyle) -> Int16 { Int16((Self.styles.firstIndex(of: style) ?? 0)) }

    /// Colour pairs where there is colour; otherwise attributes that still tell the styles apart.
    private func attributes(for style: CellStyle) -> attr_t {
        if useColor {
            switch style {
            case .normal, .modal: return 0
            case .header: return portal_color_pair(Int32(pair(style))) | portal_a_bold()
            case .cursorRow: return portal_a_bold()
            default: return portal_color_pair(Int32(pair(style)))
            }
        }
        switch style {
        case .normal, .modal, .pane: return 0
        case .title, .status, .paneSelected: return portal_a_reverse()
        case .header: return portal_a_bold() | portal_a_underline()
        case .cursor: return portal_a_reverse() | portal_a_bold()
        case .cursorRow, .keyColumn: return portal_a_bold()
        case .special: return portal_a_dim()
        case .error: return portal_a_reverse() | portal_a_bold()
        }
    }
}
