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

/// The filter and quick toggles in force, the scan that lists their packets, and the export of what is listed.
extension Browser {
    /// Applies a filter expression and quick filters given on the command line; throws the
    /// FilterError or QuickFilterError the command line reports.
    public func setFilters(expression: String, quick newQuick: QuickFilters) throws {
        try filters.set(text: expression, expression: expression.isEmpty ? nil : PacketFilter(expression), quick: newQuick)
        applyFilters()
        tick()
    }

    /// A change of the quick filters, applied; one that does not compile is said, and undone.
    func changeQuick(_ change: (inout QuickFilters) -> Void) {
        do {
            try filters.changeQuick(change)
        } catch {
            message = "\(error)"
            return
        }
        applyFilters()
    }

    func toggleHidden(_ hidden: QuickFilters.HiddenClass) {
        changeQuick { quick in
            if let at = quick.hidden.firstIndex(of: hidden) { quick.hidden.remove(at: at) } else { quick.hidden.append(hidden) }
        }
    }

    /// A quick filter on one value of the selected packet (its device, its handle): on with
    /// that value, or off when it was on.
    func toggle<Value>(_ filter: WritableKeyPath<QuickFilters, [Value]>, to value: Value?, lacking: String) {
        if !quick[keyPath: filter].isEmpty {
            changeQuick { $0[keyPath: filter] = [] }
        } else if let value {
            changeQuick { $0[keyPath: filter] = [value] }
        } else {
            message = "the selected packet has no \(lacking)"
        }
    }

    /// The selected packet's highest protocol (att, smp, ...), or its HCI kind.
    func toggleType() {
        if !quick.types.isEmpty {
            changeQuick { $0.types = [] }
        } else if let packet = openPacket, let top = packet.top {
            let name = top.protocolName
            if FieldRegistry.protocols.contains(name), !["frame", "acl"].contains(name) {
                changeQuick { $0.types = [name] }
            } else if let kind = QuickFilters.kindNames.first(where: { $0.value == packet.frame.kind })?.key {
                changeQuick { $0.types = [kind] }
            } else {
                message = "no type filter for \(packet.typeName)"
            }
        }
    }

    /// Starts a scan for the filter and quick filters in force (none: every packet listed).
    func applyFilters() {
        scan?.cancel()
        scan = nil
        guard let combined = filters.compiled else {
            if let pending = pendingSelection {
                list.replace(with: .all(count: index.count), selecting: pending.packet, offset: pending.offset)
                pendingSelection = nil
                openSelected()
                return
            }
            list.replace(with: .all(count: index.count))
            openSelected()
            return
        }
        var stages: [any PacketStage] = [FilterStage(combined)]
        // Notes first, as in show's chain, so that `flagged` and `comment` test them.
        if combined.readsAnnotations { stages.insert(annotationStage, at: 0) }
        scanReadsNotes = combined.readsAnnotations
        let newScan = MatchScan(index: index, stages: stages)
        if let packet = list.selectedPacket { pendingSelection = (packet, (list.selected ?? 0) - list.top) }
        scan = newScan
        newScan.start()
        list.replace(with: .matches(newScan.matches))
    }

    // MARK: Export

    /// The export of what the list shows (its filter and quick filters, and its notes), or of
    /// the selected packet alone, to `output` (the format from its extension, as export
    /// decides); nil when there is nothing to export.
    func exportRequest(to output: String, selectedOnly: Bool, _ exporting: BrowserExport) -> ExportRequest? {
        guard let capturePath else { return nil }
        let annotations = notes.notes.isEmpty ? nil : annotationStage
        if selectedOnly {
            guard let position = list.selectedPacket, let frame = index.frame(at: position) else {
                message = "no packet selected"
                return nil
            }
            let number = frame.number
            return exporting.request(capture: capturePath, output: output) { _ in
                (annotations.map { [$0] } ?? []) + [PacketSelection(range: number ... number)]
            }
        }
        let filters = filters
        return exporting.request(capture: capturePath, output: output) { _ in
            var stages: [any PacketStage] = annotations.map { [$0] } ?? []
            if let filter = try filters.compiledAnew() { stages.append(FilterStage(filter)) }
            return stages
        }
    }
}
