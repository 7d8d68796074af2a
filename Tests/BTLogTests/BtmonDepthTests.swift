import XCTest
import Foundation

/// Depth against btmon: on the classic fixtures, every value btmon prints for a profile PDU
/// (its "Name: value" lines under the L2CAP channel line) is one btlog decodes into a field of
/// the same packet. btmon 5.66 crashes on the LE fixtures and on bnep-pan (it over-reads the
/// BNEP extension header), so those are not compared.
final class BtmonDepthTests: XCTestCase {
    /// btmon's line name → the btlog fields with the same meaning (any one will do: btmon uses
    /// "Error code" for SDP and AVDTP, "AttributeID" for media and player-setting attributes, and
    /// labels a Service Search Attribute request's byte limit "Max record count").
    static let pairs: [String: String] = [
        "ACP SEID": "avdtp.seid", "INT SEID": "avdtp.int_seid", "Service Category": "avdtp.category",
        "Media Type": "avdtp.media_type", "Media Codec": "avdtp.codec", "Vendor ID": "avdtp.vendor_id",
        "Vendor Specific Codec ID": "avdtp.vendor_codec", "Frequency": "avdtp.sampling", "Channel Mode": "avdtp.channel_mode",
        "Block Length": "avdtp.sbc.block_length", "Subbands": "avdtp.sbc.subbands", "Allocation Method": "avdtp.sbc.allocation",
        "Minimum Bitpool": "avdtp.sbc.min_bitpool", "Maximum Bitpool": "avdtp.sbc.max_bitpool", "Object Type": "avdtp.aac.object_type",
        "VBR": "avdtp.aac.vbr", "SEP Type": "avdtp.tsep", "In use": "avdtp.in_use", "Error code": "avdtp.error_code|sdp.error_code",
        "Subunit": "avrcp.subunit_type", "Opcode": "avrcp.opcode", "Company ID": "avrcp.company_id", "Operation": "avrcp.operation",
        "EventID": "avrcp.event", "AttributeID": "avrcp.attribute|avrcp.settings.attribute", "CharsetID": "avrcp.character_set",
        "AttributeCount": "avrcp.attribute_count", "Volume": "avrcp.volume", "PlayStatus": "avrcp.play_status",
        "CapabilityID": "avrcp.capability", "UIDCounter": "avrcp.uid_counter", "Scope": "avrcp.scope",
        "Number of Items": "avrcp.number_of_items", "PlayerID": "avrcp.player_id", "StartItem": "avrcp.start_item",
        "Address": "rfcomm.dlci", "Control": "rfcomm.frame_type", "FCS": "rfcomm.fcs", "MCC Message type": "rfcomm.mcc.cmd",
        "Total record count": "sdp.total_records", "Current record count": "sdp.current_records", "Record handle": "sdp.record_handle",
        "Max record count": "sdp.max_records|sdp.max_bytes", "Max attribute bytes": "sdp.max_bytes", "Attribute bytes": "sdp.byte_count",
    ]
    static let files = ["Fixtures/bredr-handsfree.btsnoop", "Fixtures/avrcp-remote.btsnoop", "Fixtures/a2dp-codecs.btsnoop",
                        "Fixtures/a2dp-stream.btsnoop", "Fixtures/hid-keyboard.btsnoop", "Fixtures/bredr-l2cap.btsnoop"]

    /// btmon's names under each packet's channel line, by frame number.
    static func btmonNames(_ output: String) -> [Int: Set<String>] {
        var names: [Int: Set<String>] = [:]
        var frame: Int?
        var inChannel = false
        for line in output.split(separator: "\n") {
            if let first = line.first, "<>@=".contains(first) {
                frame = line.range(of: "#").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
                inChannel = false
                continue
            }
            let text = line.drop { $0 == " " }
            if text.hasPrefix("Channel:") { inChannel = true; continue }
            guard inChannel, let frame, let colon = text.firstIndex(of: ":") else { continue }
            let name = String(text[..<colon])
            if pairs[name] != nil { names[frame, default: []].insert(name) }
        }
        return names
    }

    func testClassicPDUsShowWhatBtmonShows() throws {
        let fields = Array(Set(Self.pairs.values.flatMap { $0.split(separator: "|").map(String.init) } + ["avrcp.packet_type"])).sorted()
        var compared = 0
        for file in Self.files {
            let reference = try Reference.output("btmon", ["-r", file], recordedAs: "btmon/" + (file as NSString).lastPathComponent + ".txt")
            let theirs = Self.btmonNames(reference)
            let ours = try Tool.run(Tool.btlog, ["show", file, "--fields", (["number"] + fields).joined(separator: ",")])
            XCTAssertEqual(ours.status, 0, ours.err)
            var rows: [Int: [Substring]] = [:]
            for row in ours.out.split(separator: "\n") {
                let columns = row.split(separator: "\t", omittingEmptySubsequences: false)
                if let number = Int(columns[0]) { rows[number] = Array(columns.dropFirst()) }
            }
            for (frame, names) in theirs.sorted(by: { $0.key < $1.key }) {
                guard let row = rows[frame] else {
                    XCTFail("\(file): btlog has no packet \(frame)")
                    continue
                }
                // A response in parts is decoded once joined, on its last part; btmon decodes each
                // part as far as its bytes go.
                let part = row[fields.firstIndex(of: "avrcp.packet_type")!]
                if part == "1" || part == "2" { continue }
                for name in names.sorted() {
                    let candidates = Self.pairs[name]!.split(separator: "|").map(String.init)
                    let found = candidates.contains { !row[fields.firstIndex(of: $0)!].isEmpty }
                    XCTAssertTrue(found, "\(file) packet \(frame): btmon prints \(name), btlog has no \(candidates.joined(separator: " or "))")
                    compared += 1
                }
            }
        }
        XCTAssertGreaterThan(compared, 300, "the comparison covered too little")
    }
}
