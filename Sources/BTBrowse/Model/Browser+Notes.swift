import BTDecode
import BTQuery

/// The capture's notes (`NotesPart`): attached to decoded packets, shown again when they change.
extension Browser {
    /// The notes as show's chain attaches them (a note whose packet differs is not shown).
    var annotationStage: AnnotationStage {
        AnnotationStage(notes) { _, _ in }
    }

    /// A packet decoded again gets its note as the pipeline's annotation stage gives it.
    func attachNote(to packet: inout Packet) {
        guard notes.notes[packet.frame.number] != nil else { return }
        var stage = annotationStage
        _ = stage.process(&packet, context: StageContext())
    }

    /// Reads the notes file again (at start, and when another program changed it).
    func reloadNotes() {
        do {
            if try notesPart.reload(capture: source) { notesChanged() }
        } catch let failure as NotesStore.Failure {
            message = failure.description
        } catch {
            message = "\(notesPath ?? ""): \(error)"
        }
    }

    /// Changes the selected packet's note under the notes file's lock, as `btlog annotate`
    /// does (what another browser or `annotate` wrote meanwhile is kept).
    func annotate(_ change: (inout PacketNote) -> Void) {
        guard notesPart.path != nil, notesPart.capturePath != nil else {
            message = NotesPart.unwritable
            return
        }
        guard let position = list.selectedPacket else { return }
        do {
            guard let (number, note) = try notesPart.update(at: position, of: index, change) else { return }
            notesChanged()
            message = note.map { "Packet \(number): \($0.flagged ? "flagged" : "not flagged")\($0.comment.map { ", comment: \($0)" } ?? "")" }
                ?? "Packet \(number): note removed"
        } catch let failure as NotesStore.Failure {
            message = failure.description
        } catch {
            message = "\(error)"
        }
    }

    /// Rows, the open packet and a filter on notes are made again with the new notes.
    func notesChanged() {
        rowCache.removeAll()
        openPacket = nil
        if scanReadsNotes { applyFilters() }
        openSelected()
    }
}
