import XCTest
import BTCapture
@testable import BTDecode

/// The Session's maps hash their keys as one word (`WordKey`): keys whose words collide must
/// still be told apart by equality, and every key put in a map must be found again.
final class WordKeyTests: XCTestCase {
    /// An address key on controller 0x8000 and a handle-only key on controller 0 pack into the
    /// same word (the handle variant's marker bit is the controller's top bit): two servers.
    func testServersWhoseWordsCollideStayApart() {
        let address = GATTServerKey(controller: 0x8000, device: .address(BDAddr(networkOrder: [0, 0, 0, 0, 0, 5])), isRemote: true)
        let handleOnly = GATTServerKey(controller: 0, device: .handle(5), isRemote: true)
        XCTAssertEqual(address.hashWord, handleOnly.hashWord)
        XCTAssertNotEqual(address, handleOnly)
        var names: [GATTServerKey: String] = [:]
        names[address] = "address"
        names[handleOnly] = "handle"
        XCTAssertEqual(names.count, 2)
        XCTAssertEqual(names[address], "address")
        XCTAssertEqual(names[handleOnly], "handle")
        names[address] = nil
        XCTAssertEqual(names[handleOnly], "handle")
        XCTAssertNil(names[address])
    }

    /// Every link of 16 controllers × 4,096 handles, both directions, in one map and one set:
    /// each found with its own value, none found that was not put there.
    func testEveryLinkIsFoundAgain() {
        var flows: [L2CAPState.FlowKey: Int] = [:]
        var links = Set<Session.LinkKey>()
        for controller in UInt16(0) ..< 16 {
            for handle in UInt16(0) ..< 4096 {
                let link = Session.LinkKey(controller: controller, handle: handle)
                links.insert(link)
                flows[L2CAPState.FlowKey(link: link, sent: true)] = Int(controller) << 16 | Int(handle)
                flows[L2CAPState.FlowKey(link: link, sent: false)] = -(Int(controller) << 16 | Int(handle))
            }
        }
        XCTAssertEqual(links.count, 16 * 4096)
        XCTAssertEqual(flows.count, 2 * 16 * 4096)
        for controller in UInt16(0) ..< 16 {
            for handle in UInt16(0) ..< 4096 {
                let link = Session.LinkKey(controller: controller, handle: handle)
                XCTAssertTrue(links.contains(link))
                XCTAssertEqual(flows[L2CAPState.FlowKey(link: link, sent: true)], Int(controller) << 16 | Int(handle))
                XCTAssertEqual(flows[L2CAPState.FlowKey(link: link, sent: false)], -(Int(controller) << 16 | Int(handle)))
            }
        }
        XCTAssertFalse(links.contains(Session.LinkKey(controller: 16, handle: 0)))
        XCTAssertNil(flows[L2CAPState.FlowKey(link: Session.LinkKey(controller: 0, handle: 4096), sent: true)])
    }

    /// The mix spreads words that differ only in their high bits (controllers, an address's
    /// first bytes) over the low bits a map's buckets are chosen by: 4,096 such words land in
    /// about 2,590 of 4,096 buckets, as random ones would (unmixed, all in one).
    func testWordsDifferingHighSpreadOverBuckets() {
        for shift in [16, 32, 48] as [UInt64] {
            var buckets = Set<Int>()
            for high in 0 ..< 4096 as Range<UInt64> { buckets.insert(WordHash.mix(high << shift, seed: 0x5EED) & 4095) }
            XCTAssertGreaterThan(buckets.count, 2450, "words differing above bit \(shift)")
        }
    }
}
