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

/// The capture's notes: attached to decoded packets, reloaded when another program writes them, changed under the file's lock.
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

    /// Which version of the notes file is there: each write renames a new file into place (a
    /// new inode), and two writes may share a modification time.
    static func modified(_ path: String) -> [Int]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let modified = SystemCalls.modificationTime(info)
        return [Int(info.st_ino), Int(info.st_size), modified.seconds, modified.nanoseconds]
    }

    /// Reads the notes file again (at start, and when another program changed it).
    func reloadNotes() {
        guard let notesPath else { return }
        notesModified = Self.modified(notesPath)
        do {
            let document = try NotesStore.read(notesPath) ?? NotesDocument(capture: source)
            guard document != notes else { return }
            notes = document
            notesChanged()
        } catch let failure as NotesStore.Failure {
            message = failure.description
        } catch {
            message = "\(notesPath): \(error)"
        }
    }

    /// Changes the selected packet's note under the notes file's lock, as `btlog annotate`
    /// does (what another browser or `annotate` wrote meanwhile is kept).
    func annotate(_ change: (inout PacketNote) -> Void) {
        guard let notesPath, let capturePath else {
            message = "no notes file: a live capture is annotated once written (-w FILE)"
            return
        }
        guard let position = list.selectedPacket, let frame = index.frame(at: position) else { return }
        let number = frame.number, fingerprint = PacketFingerprint(frame)
        do {
            var written: NotesDocument?
            try NotesStore.update(notesPath, capture: capturePath) { document in
                // Notes written for another capture of this name are never mixed with these.
                let frames = index
                if let foreign = document.foreignNote(path: notesPath, fingerprint: { number in
                    frames.frame(at: number - 1).flatMap { $0.number == number ? PacketFingerprint($0) : nil }
                }) {
                    throw NotesStore.Failure(description: foreign)
                }
                var note = document.notes[number] ?? PacketNote(packet: number, fingerprint: fingerprint)
                change(&note)
                document.notes[number] = note.isEmpty ? nil : note
                written = document
            }
            notesModified = Self.modified(notesPath)
            if let written {
                notes = written
                notesChanged()
                let note = written.notes[number]
                message = note == nil ? "Packet \(number): note removed" : "Packet \(number): \(note!.flagged ? "flagged" : "not flagged")\(note!.comment.map { ", comment: \($0)" } ?? "")"
            }
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
