import XCTest
import BTCapture
@testable import BTDecode
import BTFixtures

/// The typed vocabulary the stages after decoding read (issue 51): field definitions, named
/// codes and each protocol's conversation, declared in BTDecode and checked against its tables.
final class VocabularyTests: XCTestCase {
    /// The typed definitions analysis reads where only a layout declares the field: each is the
    /// registry's own (name, label, type), so a stage reading it reads what the decoder adds.
    func testLayoutFieldsNamedInCodeAreTheLayouts() {
        for field in HCIFields.declaredByLayoutsAll + BQRFields.all {
            let registered = FieldRegistry.lookup(field.name)
            XCTAssertNotNil(registered, field.name)
            XCTAssertEqual(registered?.label, field.label, field.name)
            XCTAssertEqual(registered?.type, field.type, field.name)
        }
        XCTAssertEqual(HCIFields.txPHY.name, "hci.tx_phy")
        XCTAssertEqual(BQRFields.remoteAddress.type, .address)
    }

    /// What `diff` follows of each protocol is described with the protocol: every field a
    /// conversation names is the protocol's own (or the GATT fields ATT carries), operations
    /// are coded or textual, ranks are distinct, and ATT's discovery is ATT's table's.
    func testConversationDescriptionsBelongToTheirProtocols() {
        let descriptions = ConversationDescription.all
        XCTAssertEqual(descriptions.map(\.name), ["ATT", "SMP", "L2CAP", "SDP", "RFCOMM", "HFP", "AVDTP", "AVRCP"])
        XCTAssertEqual(Set(descriptions.map(\.rank)).count, descriptions.count)
        for description in descriptions {
            let owner = ProtocolCatalog.all.first { $0.conversation?.name == description.name }
            XCTAssertNotNil(owner, description.name)
            let own = Set((owner?.fields ?? []) + GATTFields.all)
            for field in description.operations + Array(description.ignored) + Array(description.values) + [description.qualifier].compactMap({ $0 }) {
                XCTAssertTrue(own.contains(field), "\(description.name) names \(field.name), not its own")
            }
        }
        XCTAssertEqual(ATTFields.conversation.discoveryResponses, [0x05, 0x07, 0x09, 0x11])
        XCTAssertEqual((0 ... 255).filter { ATTOpcode.isDiscoveryRequest(UInt8($0)) }, [0x04, 0x06, 0x08, 0x10])
        XCTAssertEqual(ATTOpcode.access(of: 0x16), .write)
        XCTAssertEqual(ATTOpcode.access(of: 0xD2), .writeWithoutResponse)
        XCTAssertNil(ATTOpcode.access(of: 0x23), "a Multiple Handle Value Notification names several values")
    }

    /// The named HCI codes code acts on are the codes the name tables give those names.
    func testNamedHCICodesAreTheNameTables() {
        let events: [(UInt8, String)] = [
            (HCIEventCode.inquiryResult, "Inquiry Result"), (HCIEventCode.connectionComplete, "Connection Complete"),
            (HCIEventCode.connectionRequest, "Connection Request"), (HCIEventCode.disconnectionComplete, "Disconnection Complete"),
            (HCIEventCode.authenticationComplete, "Authentication Complete"),
            (HCIEventCode.remoteNameRequestComplete, "Remote Name Request Complete"), (HCIEventCode.encryptionChange, "Encryption Change"),
            (HCIEventCode.commandComplete, "Command Complete"), (HCIEventCode.commandStatus, "Command Status"),
            (HCIEventCode.hardwareError, "Hardware Error"), (HCIEventCode.roleChange, "Role Change"),
            (HCIEventCode.numberOfCompletedPackets, "Number Of Completed Packets"), (HCIEventCode.modeChange, "Mode Change"),
            (HCIEventCode.linkKeyNotification, "Link Key Notification"), (HCIEventCode.inquiryResultWithRSSI, "Inquiry Result with RSSI"),
            (HCIEventCode.synchronousConnectionComplete, "Synchronous Connection Complete"),
            (HCIEventCode.extendedInquiryResult, "Extended Inquiry Result"),
            (HCIEventCode.encryptionKeyRefreshComplete, "Encryption Key Refresh Complete"),
            (HCIEventCode.simplePairingComplete, "Simple Pairing Complete"), (HCIEventCode.leMeta, "LE Meta"),
            (HCIEventCode.encryptionChangeV2, "Encryption Change v2"), (HCIEventCode.vendor, "Vendor"),
        ]
        for (code, name) in events { XCTAssertEqual(HCIEvents.name(code), name, "event \(code)") }
        let subevents: [(UInt8, String)] = [
            (LESubeventCode.connectionComplete, "Connection Complete"), (LESubeventCode.advertisingReport, "Advertising Report"),
            (LESubeventCode.connectionUpdateComplete, "Connection Update Complete"),
            (LESubeventCode.remoteConnectionParameterRequest, "Remote Connection Parameter Request"),
            (LESubeventCode.dataLengthChange, "Data Length Change"), (LESubeventCode.enhancedConnectionComplete, "Enhanced Connection Complete"),
            (LESubeventCode.directedAdvertisingReport, "Directed Advertising Report"), (LESubeventCode.phyUpdateComplete, "PHY Update Complete"),
            (LESubeventCode.extendedAdvertisingReport, "Extended Advertising Report"), (LESubeventCode.cisEstablished, "CIS Established"),
            (LESubeventCode.subrateChange, "Subrate Change"), (LESubeventCode.enhancedConnectionCompleteV2, "Enhanced Connection Complete v2"),
        ]
        for (code, name) in subevents { XCTAssertEqual(HCIEvents.subeventName(code), name, "subevent \(code)") }
        let commands: [(UInt16, String)] = [
            (HCIOpcode.createConnection, "Create Connection"), (HCIOpcode.acceptConnectionRequest, "Accept Connection Request"),
            (HCIOpcode.linkKeyRequestNegativeReply, "Link Key Request Negative Reply"), (HCIOpcode.reset, "Reset"),
            (HCIOpcode.readLocalName, "Read Local Name"), (HCIOpcode.readLocalVersion, "Read Local Version Information"),
            (HCIOpcode.readLocalSupportedFeatures, "Read Local Supported Features"),
            (HCIOpcode.readLocalExtendedFeatures, "Read Local Extended Features"), (HCIOpcode.readBufferSize, "Read Buffer Size"),
            (HCIOpcode.readBDADDR, "Read BD ADDR"), (HCIOpcode.readRSSI, "Read RSSI"), (HCIOpcode.leReadBufferSize, "LE Read Buffer Size"),
            (HCIOpcode.leReadLocalSupportedFeatures, "LE Read Local Supported Features"),
            (HCIOpcode.leLongTermKeyRequestNegativeReply, "LE Long Term Key Request Negative Reply"),
            (HCIOpcode.leRemoteConnectionParameterRequestReply, "LE Remote Connection Parameter Request Reply"),
            (HCIOpcode.leRemoteConnectionParameterRequestNegativeReply, "LE Remote Connection Parameter Request Negative Reply"),
            (HCIOpcode.leReadMaximumDataLength, "LE Read Maximum Data Length"),
            (HCIOpcode.leReadNumberOfSupportedAdvertisingSets, "LE Read Number of Supported Advertising Sets"),
            (HCIOpcode.leReadBufferSizeV2, "LE Read Buffer Size v2"),
        ]
        for (opcode, name) in commands { XCTAssertEqual(HCICommands.name(opcode), name, "command \(opcode)") }
        XCTAssertEqual(L2CAPSignaling.codeNames[L2CAPSignaling.flowControlCreditIndication], "Flow Control Credit Indication")
        XCTAssertEqual(RFCOMMDecoder.frameTypes[RFCOMMDecoder.uih]?.short, "UIH")
    }
}
