import BTCapture
import BTDecode

/// Attaches each note to its packet, once the packet's fingerprint says it is the packet the
/// note was written for; a note whose packet differs is reported (`onMismatch`) and not shown.
/// It comes first in the chain, so that filters can test `flagged` and `comment`.
public struct AnnotationStage: PacketStage {
    let notes: [Int: PacketNote]
    let onMismatch: (PacketNote, PacketFingerprint) -> Void

    /// The frame's bytes and time, no field.
    public var fieldsRead: FieldMask { .only([]) }

    public init(_ document: NotesDocument, onMismatch: @escaping (PacketNote, PacketFingerprint) -> Void) {
        notes = document.notes
        self.onMismatch = onMismatch
    }

    public mutating func process(_ packet: inout Packet, context: StageContext) -> StageVerdict {
        guard let note = notes[packet.frame.number] else { return .keep }
        let actual = PacketFingerprint(packet.frame)
        guard actual == note.fingerprint else {
            onMismatch(note, actual)
            return .keep
        }
        // A note's comment stands before one the capture file holds (a pcapng packet comment).
        if let comment = note.comment { packet.comment = comment }
        packet.flagged = note.flagged
        return .keep
    }
}
