import XCTest
import Foundation
import BTCapture
import BTDecode
import BTExport
import BTAnalysis
import BTQuery
import BTRender
import BTFixtures
import BTBrowse

/// The browser driven by keys as a user presses them, on real fixtures, with no terminal: what
/// each key does to the list, the tree, the filter and the search, and what the screen shows.
final class BrowserTests: XCTestCase {
    /// A browser over a fixture, loaded to its end before the first key.
    static func browser(_ fixture: String, width: Int = 120, height: Int = 40, time: TimeFormatter.Mode = .abs,
                        notes: String? = nil) throws -> Browser {
        let path = PacketIndexTests.root.appendingPathComponent("Fixtures/" + fixture).path
        let index = PacketIndex(decoder: Decoder(options: DecodeOptions(buildsDisplayText: false)), interval: 32)
        let loader = CaptureLoader(index: index)
        loader.load(try CaptureInput.open(path), live: false)
        XCTAssertTrue(loader.isFinished)
        XCTAssertNil(loader.error)
        return Browser(index: index, loader: loader, source: fixture, timeMode: time, width: width, height: height,
                       notesPath: notes, capturePath: path)
    }

    /// Keys, then whatever scan they started run to its end.
    static func press(_ browser: Browser, _ keys: [BrowserKey]) {
        for key in keys {
            browser.handle(key)
            browser.scan?.wait()
            browser.tick()
        }
    }

    static func type(_ text: String) -> [BrowserKey] { text.map { .character($0) } }

    /// The rows `show` prints for a fixture, with its options (the list must read the same).
    static func showRows(_ fixture: String, filter: String? = nil, quick: QuickFilters? = nil, time: TimeFormatter.Mode = .abs) throws -> [String] {
        let path = PacketIndexTests.root.appendingPathComponent("Fixtures/" + fixture).path
        var options = RenderOptions()
        options.time = time
        options.flagColumn = "⚑"
        var stages: [any PacketStage] = []
        if let filter { stages.append(FilterStage(try PacketFilter(filter))) }
        if let quick, let compiled = try quick.filter() { stages.append(FilterStage(compiled)) }
        var pipeline = PacketPipeline(decoder: Decoder(options: DecodeOptions(buildsDisplayText: false)), stages: stages, onWarning: { _ in })
        var sink = RowSink(renderer: TableRenderer(options: options))
        try pipeline.run(try CaptureInput.open(path), into: &sink)
        return sink.rows
    }

    struct RowSink: PacketSink {
        var renderer: TableRenderer
        var rows: [String] = []
        mutating func consume(_ packet: Packet) throws { rows.append(renderer.plainRow(packet)) }
    }

    /// The list's rows, drawn a screen at a time from the saved Sessions, are `show`'s rows, in
    /// every time mode (relative and delta times read the packets before a row).
    /// Also on captures this project did not make: the kernel harness's, crackle's air captures
    /// (the link layer looks ahead at later packets), and a btmon capture of two controllers
    /// (rows name their controller from the second controller's first packet on, as show's do).
    func testTheListReadsAsShowPrints() throws {
        let captures = ["kernel-l2cap.btsnoop", "kernel-iso.btsnoop", "third-party/crackle/known_ltk.pcap", "third-party/crackle/numeric_pin.pcap",
                        "wwdc-dual-monitor.btsnoop"]
        for capture in captures {
            for time in TimeFormatter.Mode.allCases where capture == captures[0] || time == .delta {
                try checkRows(capture, time: time)
            }
        }
    }

    func checkRows(_ capture: String, time: TimeFormatter.Mode) throws {
        let browser = try Self.browser(capture, height: 30, time: time)
        let expected = try Self.showRows(capture, time: time)
        XCTAssertGreaterThan(expected.count, 50, capture)
        var seen: [Int: String] = [:]
        // Page by page from the end backwards: every row drawn out of order.
        Self.press(browser, [.end])
        while true {
            for (row, _, content) in browser.visibleRows() { seen[row] = content.text }
            if browser.list.top == 0 { break }
            Self.press(browser, [.pageUp])
        }
        XCTAssertEqual(seen.count, expected.count, "\(capture) \(time)")
        for (row, text) in seen where text != expected[row] {
            XCTFail("\(capture) \(time) row \(row): \(text) ≠ \(expected[row])")
            break
        }
    }

    func testMovingOpensTheSelectedPacket() throws {
        let browser = try Self.browser("le-heart-rate.btsnoop")
        XCTAssertEqual(browser.openPacket?.frame.number, 1)
        Self.press(browser, [.end])
        XCTAssertEqual(browser.openPacket?.frame.number, 141)
        Self.press(browser, [.character("k"), .character("k"), .up])
        XCTAssertEqual(browser.openPacket?.frame.number, 138)
        XCTAssertEqual(browser.openPacket?.top?.name, "ATT")
        Self.press(browser, [.character("g")])
        XCTAssertEqual(browser.list.selected, 0)
        // Enter: to the tree; down to a field; its bytes are highlighted.
        Self.press(browser, [.character(":")] + Self.type("138") + [.enter])
        XCTAssertEqual(browser.openPacket?.frame.number, 138)
        Self.press(browser, [.enter])
        XCTAssertEqual(browser.focus, .tree)
        Self.press(browser, [.down, .down])
        XCTAssertEqual(browser.tree.selectedLine?.text, "Handle: 0x0003")
        XCTAssertEqual(browser.shownBytes.highlight, 9 ..< 11)
        // Left on a field folds its layer; the fold holds on the next ATT packet.
        Self.press(browser, [.left])
        XCTAssertEqual(browser.tree.selectedLine?.kind, .layer(expanded: false))
        Self.press(browser, [.tab, .tab, .down])
        XCTAssertEqual(browser.focus, .list)
        XCTAssertEqual(browser.openPacket?.frame.number, 139)
        XCTAssertFalse(browser.tree.tree.lines.contains { $0.layerName == "ATT" && $0.kind == .field })
        // A packet number past the end says so.
        Self.press(browser, [.character(":")] + Self.type("9999") + [.enter])
        XCTAssertEqual(browser.message, "the capture has 141 packets")
        Self.press(browser, [.character("q")])
        XCTAssertTrue(browser.quits)
    }

    /// A filter typed in the field: checked at every key, its error shown with the caret where
    /// the command line puts it; Enter applies it, and the list is `show -f`'s packets.
    func testTheFilterField() throws {
        let browser = try Self.browser("le-heart-rate.btsnoop")
        Self.press(browser, [.character("f")] + Self.type("att.opcode == "))
        XCTAssertNotNil(browser.inputError, "an incomplete comparison is an error")
        Self.press(browser, [.enter])
        XCTAssertNotNil(browser.input, "Enter keeps a filter with an error in the field")
        Self.press(browser, Self.type("read_rex"))
        let error = try XCTUnwrap(browser.inputError)
        let expected: FilterError
        do {
            _ = try PacketFilter("att.opcode == read_rex")
            return XCTFail("the filter compiled")
        } catch let thrown as FilterError { expected = thrown }
        XCTAssertEqual(error, expected)
        // The screen shows the caret under the unknown name, one row under the field.
        let screen = BrowserScreen(colours: false).draw(browser)
        let field = screen.lines[browser.layout.statusRow], caret = screen.lines[browser.layout.inputRow]
        XCTAssertEqual(field, "Filter: att.opcode == read_rex")
        let column = try XCTUnwrap(caret.firstIndex(of: "^"), screen.lines.suffix(3).joined(separator: "\n"))
        XCTAssertEqual(caret.distance(from: caret.startIndex, to: column), "Filter: ".count + expected.span.lowerBound)
        XCTAssertTrue(caret.contains(expected.message) || screen.lines[browser.layout.statusRow - 1] == expected.message)
        // Fixed with the keys a shell has, then applied.
        Self.press(browser, [.backspace, .backspace, .character("e"), .character("q")])
        XCTAssertNil(browser.inputError)
        Self.press(browser, [.enter])
        XCTAssertNil(browser.input)
        let rows = browser.visibleRows().map(\.content.text)
        XCTAssertEqual(rows, try Self.showRows("le-heart-rate.btsnoop", filter: "att.opcode == read_req"))
        XCTAssertTrue(browser.statusLine.contains("of 141 listed"))
        XCTAssertEqual(browser.filterSummary, "filter: att.opcode == read_req")
        // Escape leaves the field without changing the filter; c clears it.
        Self.press(browser, [.character("f"), .control("u")] + Self.type("smp") + [.escape])
        XCTAssertEqual(browser.filterSummary, "filter: att.opcode == read_req")
        Self.press(browser, [.character("c")])
        XCTAssertEqual(browser.list.rows.count, 141)
    }

    func testCompletionOfFieldAndValueNames() throws {
        var line = InputLine(.filter, text: "att.opco")
        XCTAssertEqual(FilterCompletion.complete(&line), ["att.opcode"])
        XCTAssertEqual(line.text, "att.opcode ")
        line.insert("== write_r")
        let values = FilterCompletion.candidates(for: line)
        XCTAssertEqual(values, ["write_request", "write_response"])
        FilterCompletion.complete(&line)
        XCTAssertEqual(line.text, "att.opcode == write_re", "as far as the candidates agree")
        FilterCompletion.complete(&line)
        XCTAssertEqual(line.text, "att.opcode == write_re")
        line = InputLine(.filter, text: "hci.event in {0x0e com")
        XCTAssertTrue(FilterCompletion.candidates(for: line).contains("command_complete"), "\(FilterCompletion.candidates(for: line))")
        XCTAssertEqual(FilterCompletion.candidates(for: InputLine(.filter, text: "zzz")), [])
    }

    /// The quick filters as toggles: the packets `show --hide adv` and `show --errors` list.
    func testQuickFilterToggles() throws {
        let browser = try Self.browser("le-heart-rate.btsnoop")
        Self.press(browser, [.character("E")])
        let errors = browser.visibleRows().map(\.content.text)
        XCTAssertEqual(errors.count, 4)
        XCTAssertEqual(browser.filterSummary, "errors only")
        Self.press(browser, [.character("E"), .character("A")])
        var quick = QuickFilters()
        quick.hidden = [.adv]
        let expected = try Self.showRows("le-heart-rate.btsnoop", quick: quick)
        XCTAssertEqual(browser.list.rows.count, expected.count)
        XCTAssertEqual(browser.visibleRows().map(\.content.text), Array(expected[browser.list.visibleRows]))
        XCTAssertLessThan(expected.count, 141)
        // H: the selected packet's handle only.
        Self.press(browser, [.character("A"), .character(":")] + Self.type("130") + [.enter, .character("H")])
        XCTAssertEqual(browser.filterSummary, "handle 0x0041")
        XCTAssertTrue(browser.visibleRows().allSatisfy { $0.content.text.contains("0x0041") })
        XCTAssertEqual(browser.openPacket?.frame.number, 130, "the selected packet stays selected")
        Self.press(browser, [.character("H"), .character("T")])
        XCTAssertEqual(browser.filterSummary, "type smp")
        XCTAssertTrue(browser.visibleRows().allSatisfy { $0.content.text.contains("SMP") })
    }

    func testSearchFindsRowsBothWays() throws {
        let browser = try Self.browser("le-heart-rate.btsnoop")
        let pattern = "Pairing (Confirm|Random)"
        let regex = try NSRegularExpression(pattern: pattern)
        let hits = try Self.showRows("le-heart-rate.btsnoop").enumerated().filter { _, row in
            regex.firstMatch(in: row, range: NSRange(row.startIndex..., in: row)) != nil
        }.map { $0.offset + 1 }
        XCTAssertGreaterThan(hits.count, 3)
        Self.press(browser, [.character("/")] + Self.type(pattern) + [.enter])
        XCTAssertEqual(browser.openPacket?.frame.number, hits[0])
        for hit in hits.dropFirst() {
            Self.press(browser, [.character("n")])
            XCTAssertEqual(browser.openPacket?.frame.number, hit)
        }
        Self.press(browser, [.character("n")])
        XCTAssertEqual(browser.openPacket?.frame.number, hits.last)
        XCTAssertEqual(browser.message, "\"\(pattern)\" not found below")
        Self.press(browser, [.character("N")])
        XCTAssertEqual(browser.openPacket?.frame.number, hits[hits.count - 2])
        // Marked rows: those the pattern matches.
        let marked = browser.visibleRows().filter { browser.searchMatches($0.content) }.map { $0.packet + 1 }
        XCTAssertEqual(marked, hits.filter { hit in browser.visibleRows().contains { $0.packet + 1 == hit } })
        XCTAssertFalse(marked.isEmpty)
        Self.press(browser, [.end, .character("n")])
        XCTAssertEqual(browser.openPacket?.frame.number, 141)
        Self.press(browser, [.character("N")])
        XCTAssertEqual(browser.openPacket?.frame.number, hits.last)
        // Tab: the search reads every line of the tree. SMP's "Code: Pairing Failed (0x05)" is
        // a line of packet 135's tree, in no row.
        Self.press(browser, [.character("g"), .character("/"), .control("u")] + Self.type("Code: Pairing Failed") + [.enter])
        XCTAssertEqual(browser.message, "\"Code: Pairing Failed\" not found below", "not in any row")
        Self.press(browser, [.character("/"), .tab, .enter])
        XCTAssertTrue(browser.searchesTree)
        XCTAssertEqual(browser.openPacket?.frame.number, 135)
        XCTAssertTrue(browser.filterSummary.contains("search (tree): "))
        Self.press(browser, [.character("/"), .control("u")] + Self.type("(unclosed") + [.enter])
        XCTAssertTrue(browser.message?.hasPrefix("search: ") ?? false, browser.message ?? "")
    }

    /// The screen: the header, rows as `show` prints them cut to the width, the tree's title,
    /// the status line `show` ends with; resizing re-lays the panes; the help lists every key.
    func testTheScreen() throws {
        let browser = try Self.browser("le-heart-rate.btsnoop", width: 100, height: 30)
        let screen = BrowserScreen(colours: true)
        var grid = screen.draw(browser)
        let rows = try Self.showRows("le-heart-rate.btsnoop")
        // The header's names stand over their columns: packet 15's row has every column.
        func column(_ text: String, in line: String) -> Int? {
            line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
        }
        let header = grid.lines[0], full = rows[16]
        XCTAssertEqual(column("#", in: header).map { $0 + 1 }, column("17 ", in: full).map { $0 + 2 }, "numbers end under #")
        XCTAssertEqual(column("Time", in: header), column("May", in: full))
        XCTAssertEqual(column("Type", in: header), column("HCI Event", in: full))
        XCTAssertEqual(column("Handle", in: header), column("0x0040", in: full))
        XCTAssertEqual(column("Address", in: header), column("C0:FF:EE", in: full))
        XCTAssertEqual(column("Summary", in: header), column("LE - Connection Complete", in: full))
        XCTAssertEqual(grid.lines[1], String(rows[0].prefix(100)).replacingOccurrences(of: " +$", with: "", options: .regularExpression))
        XCTAssertTrue(grid[1, 0].look.reverse, "the selected row")
        XCTAssertTrue(grid.lines[browser.layout.treeTop - 1].contains("Packet 1: "))
        var statistics = CaptureStatistics()
        for position in 0 ..< browser.index.count { statistics.add(try XCTUnwrap(browser.index.packet(at: position))) }
        let status = grid.lines[browser.layout.statusRow]
        XCTAssertTrue((" le-heart-rate.btsnoop  " + statistics.statusLine).hasPrefix(status.replacingOccurrences(of: "  ? help", with: "")), status)
        XCTAssertGreaterThan(status.count, 60)
        // An error row is red.
        Self.press(browser, [.character(":")] + Self.type("135") + [.enter, .down])
        grid = screen.draw(browser)
        let errorRow = browser.layout.listTop + (browser.list.selected ?? 0) - 1 - browser.list.top
        XCTAssertEqual(grid[errorRow, 10].look.colour, .red, grid.lines[errorRow])
        XCTAssertEqual(BrowserScreen(colours: false).draw(browser)[errorRow, 10].look.colour, .plain, "NO_COLOR")
        Self.press(browser, [.resize(width: 60, height: 12)])
        grid = screen.draw(browser)
        XCTAssertEqual(grid.width, 60)
        XCTAssertEqual(browser.layout.inputRow, 11)
        XCTAssertLessThanOrEqual(browser.list.visibleRows.count, browser.layout.listHeight)
        Self.press(browser, [.character("?")])
        grid = screen.draw(browser)
        XCTAssertTrue(grid.lines[0].contains("keys"))
        Self.press(browser, [.resize(width: 120, height: 40)])
        grid = screen.draw(browser)
        for (keys, _) in Browser.keyHelp { XCTAssertTrue(grid.lines.contains { $0.contains(keys) }, keys) }
        Self.press(browser, [.character("x")])
        XCTAssertFalse(browser.showsHelp)
    }

    /// F and C write the notes `btlog annotate` writes, under its lock; a second browser on the
    /// same capture sees them, and what each writes survives the other.
    func testFlagsAndCommentsAreTheCapturesNotes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("browse-notes-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let notes = folder.appendingPathComponent("heart.btlog-notes.json").path
        let first = try Self.browser("le-heart-rate.btsnoop", notes: notes)
        let second = try Self.browser("le-heart-rate.btsnoop", notes: notes)
        Self.press(first, [.character(":")] + Self.type("135") + [.enter, .character("F"), .character("C")] + Self.type("confirm fails") + [.enter])
        var document = try XCTUnwrap(NotesStore.read(notes))
        XCTAssertEqual(document.notes[135]?.flagged, true)
        XCTAssertEqual(document.notes[135]?.comment, "confirm fails")
        XCTAssertEqual(document.notes[135]?.fingerprint, PacketFingerprint(try XCTUnwrap(first.index.frame(at: 134))))
        XCTAssertEqual(first.message, "Packet 135: flagged, comment: confirm fails")
        let row = try XCTUnwrap(first.visibleRows().first { $0.packet == 134 })
        XCTAssertTrue(row.content.flagged)
        XCTAssertTrue(row.content.text.hasPrefix("   135 ⚑"), row.content.text)
        XCTAssertEqual(row.content.comment, "confirm fails")
        XCTAssertEqual(first.tree.tree.lines.last?.text, "Comment: confirm fails")
        // The other browser, meanwhile, comments on another packet; each keeps the other's note.
        Self.press(second, [.character(":")] + Self.type("17") + [.enter, .character("C")] + Self.type("connected") + [.enter])
        document = try XCTUnwrap(NotesStore.read(notes))
        XCTAssertEqual(document.notes.keys.sorted(), [17, 135])
        XCTAssertEqual(second.notes.notes[135]?.comment, "confirm fails", "read again before writing")
        // The first sees the second's note once the file changed (every tick looks).
        first.tick()
        XCTAssertEqual(first.notes.notes[17]?.comment, "connected")
        // A filter on notes; unflagging runs it again.
        Self.press(first, [.character("f"), .control("u")] + Self.type("flagged") + [.enter])
        XCTAssertEqual(first.list.rows, .matches([134]))
        Self.press(first, [.character("F")])
        XCTAssertEqual(first.list.rows, .matches([]))
        // An empty comment removes it; a note left empty is removed.
        Self.press(first, [.character("c"), .character(":")] + Self.type("135") + [.enter, .character("C"), .control("u"), .enter])
        XCTAssertNil(try XCTUnwrap(NotesStore.read(notes)).notes[135])
        XCTAssertEqual(first.message, "Packet 135: note removed")
        // Notes written for another capture of the same name are refused, and left alone.
        let other = try Self.browser("le-throughput.btsnoop", notes: notes)
        Self.press(other, [.character("F")])
        XCTAssertTrue(other.message?.contains("was written for another capture") ?? false, other.message ?? "")
        XCTAssertEqual(try XCTUnwrap(NotesStore.read(notes)).notes.keys.sorted(), [17])
        // No notes file (a live capture): F says why.
        let live = try Self.browser("le-heart-rate.btsnoop")
        Self.press(live, [.character("F")])
        XCTAssertTrue(live.message?.hasPrefix("no notes file") ?? false)
    }

    /// s, a and d: `btlog stats`, `btlog gatt` and `btlog diagnose` of the capture, line for
    /// line as the commands make them, scrolled and closed with the usual keys.
    /// v: the selected tree field's values over the listed packets, as a sparkline between
    /// their minimum and maximum; every listed packet that has the field counts once.
    func testValuesOfTheSelectedFieldOverTheListedPackets() throws {
        let fixture = "le-heart-rate.btsnoop"
        let path = PacketIndexTests.root.appendingPathComponent("Fixtures/" + fixture).path
        // What the report must count: the notifications' handles, from a pass of our own.
        let decoder = Decoder(options: DecodeOptions(buildsDisplayText: false))
        let reader = try CaptureInput.open(path)
        var handles: [Int] = []
        while let frame = try reader.next() {
            let packet = decoder.decode(frame)
            if let att = packet.layers.first(where: { $0.kind == .att }), att.integer(ATTFields.opcode) == 0x1B,
               let handle = att.integer(ATTFields.handle) { handles.append(handle) }
        }
        XCTAssertGreaterThan(handles.count, 3)
        let browser = try Self.browser(fixture, height: 30)
        Self.press(browser, [.character("f")] + Self.type("att.opcode == 0x1b") + [.enter])
        XCTAssertEqual(browser.list.rows.count, handles.count)
        Self.press(browser, [.character("g"), .enter, .down, .down])
        XCTAssertEqual(browser.tree.selectedLine?.field, ATTFields.handle, browser.tree.selectedLine?.text ?? "")
        Self.press(browser, [.character("v")])
        let deadline = Date().addingTimeInterval(20)
        while browser.report?.lines == nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let lines = try XCTUnwrap(browser.report?.lines)
        XCTAssertEqual(lines[0], "Values over the \(handles.count) listed packets (Esc closes; 'btlog plot' draws them against time)")
        XCTAssertTrue(lines[2].hasPrefix("att.handle (Handle): \(handles.count) values, \(handles.min()!) to \(handles.max()!), "), lines[2])
        let sparkline = lines[3].dropFirst(2)
        XCTAssertEqual(sparkline.count, handles.count)
        // The lowest handle at the bottom (▁), the highest at the top (█), in packet order.
        XCTAssertEqual(Array(sparkline).enumerated().filter { $0.element == "█" }.map(\.offset),
                       handles.enumerated().filter { $0.element == handles.max()! }.map(\.offset))
        Self.press(browser, [.escape])
        XCTAssertNil(browser.report)
    }

    func testWholeCaptureReports() throws {
        let fixture = "le-heart-rate.btsnoop"
        let path = PacketIndexTests.root.appendingPathComponent("Fixtures/" + fixture).path
        // What the commands make, from a first pass of their own.
        let decoder = Decoder(options: DecodeOptions(buildsDisplayText: false, keepsLastValues: true))
        var pipeline = PacketPipeline(decoder: decoder, onWarning: { _ in })
        var collector = StatisticsCollector()
        collector.beginFile(fixture)
        try pipeline.run(try CaptureInput.open(path), into: &collector)
        collector.endFile(session: decoder.session)
        let report = collector.finish(vendors: VendorNames.system)
        let statistics = StatisticsReport(report, style: Style(enabled: false)).lines
        let problems = Diagnosis.problems(in: report)
        XCTAssertFalse(problems.isEmpty)
        let diagnosis = DiagnosisReport(problems, packets: report.totals.packets, files: [fixture], style: Style(enabled: false)).lines
        let out = OutputWriter(fd: -1, capacity: 1 << 24)
        try GATTReport(session: decoder.session, style: Style(enabled: false)).render(to: out)
        let gatt = out.drain { String(decoding: $0, as: UTF8.self) }.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        XCTAssertGreaterThan(gatt.count, 10)

        let browser = try Self.browser(fixture, height: 30)
        func shown(_ key: Character) throws -> [String] {
            Self.press(browser, [.character(key)])
            let deadline = Date().addingTimeInterval(20)
            while browser.report?.lines == nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            return try XCTUnwrap(browser.report?.lines)
        }
        XCTAssertEqual(try shown("s"), statistics)
        // On screen: the title and the first lines, in place of the tree; scrolled a page.
        var grid = BrowserScreen().draw(browser)
        XCTAssertTrue(grid.lines[browser.layout.treeTop - 1].contains("Statistics · lines 1-"), grid.lines[browser.layout.treeTop - 1])
        XCTAssertEqual(grid.lines[browser.layout.treeTop], statistics[0].replacingOccurrences(of: " +$", with: "", options: .regularExpression))
        Self.press(browser, [.pageDown])
        XCTAssertGreaterThan(browser.reportTop, 0)
        grid = BrowserScreen().draw(browser)
        XCTAssertEqual(grid.lines[browser.layout.treeTop],
                       statistics[browser.reportTop].replacingOccurrences(of: " +$", with: "", options: .regularExpression))
        Self.press(browser, [.end])
        XCTAssertEqual(browser.reportTop, statistics.count - (browser.layout.statusRow - browser.layout.treeTop))
        XCTAssertEqual(try shown("a"), gatt)
        XCTAssertEqual(try shown("d"), diagnosis)
        // Keys the report does not take still work: the go-to field opens over it.
        Self.press(browser, [.character(":")])
        XCTAssertEqual(browser.input?.purpose, .goTo)
        Self.press(browser, [.escape])
        XCTAssertNotNil(browser.report)
        Self.press(browser, [.escape])
        XCTAssertNil(browser.report)
        XCTAssertTrue(BrowserScreen().draw(browser).lines[browser.layout.treeTop - 1].contains("Packet "))
    }

    /// w and W export what the list shows (the filter, the quick filters, the notes) or the
    /// selected packet alone, in process through BTExport: the file holds exactly the packets
    /// the list shows, in the format its extension names. (The tmux test checks the same from
    /// the terminal, against `btlog export`.)
    func testExportWritesWhatTheListShows() throws {
        let browser = try Self.browser("le-heart-rate.btsnoop")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlog-browse-export-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        browser.exporting = BrowserExport(runs: { $0() })
        func numbers(_ csv: String) throws -> [Int] {
            let text = try String(contentsOfFile: folder + "/" + csv, encoding: .utf8)
            return text.split(separator: "\n").dropFirst().compactMap { Int($0.prefix { $0 != "," }) }
        }
        func listed() -> [Int] {
            (0 ..< browser.list.rows.count).compactMap { browser.list.rows.packet(atRow: $0) }.compactMap { browser.index.frame(at: $0)?.number }
        }
        Self.press(browser, [.character("f")] + Self.type("att") + [.enter, .character("A")])
        Self.press(browser, [.character("w")] + Self.type(folder + "/att.csv") + [.enter])
        XCTAssertEqual(browser.exporting?.lastRequest?.format, .csv)
        XCTAssertTrue(browser.message?.hasPrefix("Exported to \(folder)/att.csv (") ?? false, browser.message ?? "")
        XCTAssertFalse(listed().isEmpty)
        XCTAssertEqual(try numbers("att.csv"), listed())
        // The selected packet alone, as a capture file that reads back as one frame.
        Self.press(browser, [.character("c"), .character(":")] + Self.type("17") + [.enter, .character("W")] + Self.type(folder + "/one.btsnoop") + [.enter])
        let reader = try CaptureInput.open(folder + "/one.btsnoop")
        XCTAssertEqual(try reader.next()?.number, 1)
        XCTAssertNil(try reader.next())
        // A file that cannot be written: the browser says why, and goes on.
        Self.press(browser, [.character("w")] + Self.type("/nonexistent-folder/x.csv") + [.enter])
        XCTAssertTrue(browser.message?.hasPrefix("Export failed: /nonexistent-folder/x.csv") ?? false, browser.message ?? "")
        // A live capture not written to a file has nothing to export.
        let live = Browser(index: browser.index, loader: nil, source: "live")
        live.exporting = browser.exporting
        Self.press(live, [.character("w")])
        XCTAssertNil(live.input)
        XCTAssertTrue(live.message?.hasPrefix("nothing to export from") ?? false)
    }

    /// Clicks select, a double click opens a layer or folds it, the wheel scrolls what is under it.
    func testTheMouse() throws {
        let browser = try Self.browser("le-heart-rate.btsnoop")
        let layout = browser.layout
        Self.press(browser, [.click(row: layout.listTop + 4, column: 10, double: false)])
        XCTAssertEqual(browser.openPacket?.frame.number, 5)
        Self.press(browser, [.wheel(row: layout.listTop, column: 0, down: true)])
        XCTAssertEqual(browser.openPacket?.frame.number, 8)
        Self.press(browser, [.click(row: layout.treeTop, column: 3, double: true)])
        XCTAssertEqual(browser.focus, .tree)
        XCTAssertEqual(browser.tree.selectedLine?.kind, .layer(expanded: false))
        // A click below the rows, on nothing, changes nothing.
        Self.press(browser, [.click(row: layout.inputRow, column: 0, double: false)])
        XCTAssertEqual(browser.openPacket?.frame.number, 8)
    }

    /// A capture cut short: every complete packet listed, and the reader's warning (what show
    /// writes to standard error) on the bottom line, where a person sees it.
    func testATruncatedCaptureSaysSo() throws {
        let whole = try Data(contentsOf: PacketIndexTests.root.appendingPathComponent("Fixtures/le-heart-rate.btsnoop"))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("browse-cut-\(getpid()).btsnoop").path
        try whole.prefix(3000).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let index = PacketIndex(decoder: Decoder(options: DecodeOptions(buildsDisplayText: false)), interval: 16)
        let loader = CaptureLoader(index: index)
        loader.load(try CaptureInput.open(path), live: false)
        let browser = Browser(index: index, loader: loader, source: "cut.btsnoop", width: 120, height: 30)
        XCTAssertGreaterThan(browser.list.rows.count, 50)
        let bottom = BrowserScreen().draw(browser).lines[browser.layout.inputRow]
        XCTAssertTrue(bottom.hasPrefix("Warning: ") && bottom.contains("truncated record header at byte 2990"), bottom)
    }

    /// An empty capture and an unreadable one: a screen that says so, no trap on any key.
    func testNothingToShow() throws {
        let index = PacketIndex(decoder: Decoder(), interval: 8)
        let browser = Browser(index: index, loader: nil, source: "empty", width: 40, height: 10)
        for key: BrowserKey in [.down, .end, .pageDown, .enter, .tab, .character("n"), .character("H"), .character("T"), .character("D"),
                                .click(row: 3, column: 3, double: true), .wheel(row: 5, column: 1, down: true), .resize(width: 1, height: 1)] {
            Self.press(browser, [key])
            _ = BrowserScreen().draw(browser)
        }
        // A field open on a screen too small to show it (the fuzzer's find: the cursor's cell
        // was read outside the grid).
        Self.press(browser, [.resize(width: 40, height: 3), .character("f"), .character("x")])
        _ = BrowserScreen().draw(browser)
        Self.press(browser, [.escape, .resize(width: 40, height: 10)])
        XCTAssertTrue(BrowserScreen().draw(browser).lines.contains { $0.contains("The capture holds no packet.") })
    }
}
