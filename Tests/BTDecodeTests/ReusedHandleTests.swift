import XCTest
import BTCapture
import BTDecode

/// A link that completes on a handle starts with nothing an earlier link on that handle left,
/// whether or not its disconnection was seen (a controller reset or removed mid-test, as the
/// kernel harness caught: Captures/README.md).
final class ReusedHandleTests: XCTestCase {
    func testANewLinkOnAHandleForgetsTheOldLinksChannels() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Captures/handle-reused-after-reset.btsnoop").path
        let reader = try CaptureInput.open(path)
        let decoder = Decoder()
        var lastConnection = 0
        var rfcommAfterIt = 0
        while let frame = try reader.next() {
            let packet = decoder.decode(frame)
            if packet.layers.first?.summary.description.hasPrefix("Connection Complete") == true { lastConnection = frame.number }
            // The old LE channel's SDU reassembly must not take the new link's frames.
            XCTAssertFalse(packet.summary.contains("SDU"), "packet \(frame.number): \(packet.summary)")
            if lastConnection > 0, packet.handle == 0x002A, packet.top?.name == "RFCOMM" { rfcommAfterIt += 1 }
        }
        XCTAssertGreaterThan(lastConnection, 2_600, "the BR/EDR link completes near the end of the cut")
        XCTAssertGreaterThanOrEqual(rfcommAfterIt, 3, "its RFCOMM channel decodes as RFCOMM")
    }
}
