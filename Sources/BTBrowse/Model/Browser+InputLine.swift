import BTCapture
import BTDecode
import BTExport
import BTQuery
import BTRender
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The input line: editing, the filter compiled as it is typed, and what Enter does with each purpose.
extension Browser {
    func editInput(_ key: BrowserKey) {
        guard var line = input else { return }
        switch key {
        case .escape, .control("c"), .control("g"):
            input = nil
            inputError = nil
            return
        case .enter:
            submit(line)
            return
        case .tab where line.purpose == .search: line.searchesTree.toggle()
        case .tab where line.purpose == .filter:
            let found = FilterCompletion.complete(&line)
            message = found.count > 1 ? found.prefix(40).joined(separator: " ") + (found.count > 40 ? " …" : "") : nil
        case .character(let character): line.insert(character)
        case .backspace, .control("h"): line.deleteBackward()
        case .delete, .control("d"): line.deleteForward()
        case .left, .control("b"): line.moveLeft()
        case .right, .control("f"): line.moveRight()
        case .home, .control("a"): line.moveHome()
        case .end, .control("e"): line.moveEnd()
        case .control("u"): line.clear()
        case .control("w"): line.deleteWord()
        default: break
        }
        input = line
        validateInput()
    }

    /// The filter is compiled as it is typed: its error, with the caret, shows at once, and
    /// Enter applies what was compiled.
    func validateInput() {
        inputError = nil
        inputFilter = nil
        guard let line = input else { return }
        switch line.purpose {
        case .filter:
            let text = line.text.trimmingCharacters(in: .whitespaces)
            if !text.isEmpty {
                do { inputFilter = (text, try PacketFilter(text)) } catch let error as FilterError { inputError = error } catch {}
            }
        case .search, .goTo, .comment, .export: break
        }
    }

    func submit(_ line: InputLine) {
        let text = line.text.trimmingCharacters(in: .whitespaces)
        switch line.purpose {
        case .filter:
            let expression = inputFilter?.text == text ? inputFilter?.filter : nil
            guard text.isEmpty || expression != nil else { return } // the error shows under the line
            do {
                try filters.set(text: text, expression: expression)
            } catch {
                message = "\(error)"
                return
            }
            input = nil
            inputError = nil
            inputFilter = nil
            applyFilters()
        case .search:
            input = nil
            guard !text.isEmpty else {
                search.pattern = nil
                return
            }
            do {
                search = SearchState(pattern: try TextPattern(text), inTree: line.searchesTree)
                findMatch(forward: true, includingSelected: true)
            } catch let error as TextPattern.CompileError {
                message = "search: \(error.message) at offset \(error.offset)"
            } catch {}
        case .comment:
            input = nil
            annotate { $0.comment = text.isEmpty ? nil : text }
        case .export(let selectedOnly):
            input = nil
            guard !text.isEmpty, let exporting, let request = exportRequest(to: text, selectedOnly: selectedOnly, exporting) else { return }
            message = "Exporting to \(text)…"
            exporting.start(request)
        case .goTo:
            input = nil
            guard let number = Int(text), number >= 1 else {
                message = text.isEmpty ? nil : "'\(text)' is not a packet number"
                return
            }
            guard number <= index.count else {
                message = "the capture has \(index.count) packets"
                return
            }
            list.select(packet: number - 1)
            if list.selectedPacket != number - 1 { message = "packet \(number) is not listed; the next listed one is selected" }
        }
    }
}
