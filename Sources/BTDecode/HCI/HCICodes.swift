/// HCI event codes (Core Vol 4, Part E, 7.7) that code acts on, by name: the event decoder's
/// dispatch and the statistics' links read the same constants. Every code's name for people
/// is HCIEvents'; HCIDecoderTests checks these constants against it.
public enum HCIEventCode {
    public static let inquiryResult: UInt8 = 0x02, connectionComplete: UInt8 = 0x03, connectionRequest: UInt8 = 0x04
    public static let disconnectionComplete: UInt8 = 0x05, authenticationComplete: UInt8 = 0x06
    public static let remoteNameRequestComplete: UInt8 = 0x07, encryptionChange: UInt8 = 0x08
    public static let commandComplete: UInt8 = 0x0E, commandStatus: UInt8 = 0x0F, hardwareError: UInt8 = 0x10
    public static let roleChange: UInt8 = 0x12, numberOfCompletedPackets: UInt8 = 0x13, modeChange: UInt8 = 0x14
    public static let linkKeyNotification: UInt8 = 0x18, inquiryResultWithRSSI: UInt8 = 0x22
    public static let synchronousConnectionComplete: UInt8 = 0x2C, extendedInquiryResult: UInt8 = 0x2F
    public static let encryptionKeyRefreshComplete: UInt8 = 0x30, simplePairingComplete: UInt8 = 0x36
    public static let leMeta: UInt8 = 0x3E, encryptionChangeV2: UInt8 = 0x59, vendor: UInt8 = 0xFF
}

/// LE Meta event subevent codes (Core Vol 4, Part E, 7.7.65) that code acts on, by name.
public enum LESubeventCode {
    public static let connectionComplete: UInt8 = 0x01, advertisingReport: UInt8 = 0x02
    public static let connectionUpdateComplete: UInt8 = 0x03, remoteConnectionParameterRequest: UInt8 = 0x06
    public static let dataLengthChange: UInt8 = 0x07, enhancedConnectionComplete: UInt8 = 0x0A
    public static let directedAdvertisingReport: UInt8 = 0x0B, phyUpdateComplete: UInt8 = 0x0C
    public static let extendedAdvertisingReport: UInt8 = 0x0D, cisEstablished: UInt8 = 0x19
    public static let subrateChange: UInt8 = 0x23, enhancedConnectionCompleteV2: UInt8 = 0x29
}

/// HCI command opcodes (OGF << 10 | OCF, Core Vol 4, Part E, 7.1-7.8) that code acts on, by
/// name; their names for people are HCICommands'.
public enum HCIOpcode {
    public static let createConnection: UInt16 = 0x0405, acceptConnectionRequest: UInt16 = 0x0409
    public static let linkKeyRequestNegativeReply: UInt16 = 0x040C
    public static let reset: UInt16 = 0x0C03, readLocalName: UInt16 = 0x0C14
    public static let readLocalVersion: UInt16 = 0x1001, readLocalSupportedFeatures: UInt16 = 0x1003
    public static let readLocalExtendedFeatures: UInt16 = 0x1004, readBufferSize: UInt16 = 0x1005, readBDADDR: UInt16 = 0x1009
    public static let readRSSI: UInt16 = 0x1405
    public static let leReadBufferSize: UInt16 = 0x2002, leReadLocalSupportedFeatures: UInt16 = 0x2003
    public static let leLongTermKeyRequestNegativeReply: UInt16 = 0x201B
    public static let leRemoteConnectionParameterRequestReply: UInt16 = 0x2020
    public static let leRemoteConnectionParameterRequestNegativeReply: UInt16 = 0x2021
    public static let leReadMaximumDataLength: UInt16 = 0x202F, leReadNumberOfSupportedAdvertisingSets: UInt16 = 0x203B
    public static let leReadBufferSizeV2: UInt16 = 0x2060

    /// Commands whose return parameters describe the controller itself (version, features,
    /// buffers, address, name): what `btlog diff` compares between two runs' controllers.
    public static let describingTheController: Set<UInt16> = [
        readLocalVersion, readLocalSupportedFeatures, readLocalExtendedFeatures, readBufferSize, readBDADDR, readLocalName,
        leReadBufferSize, leReadBufferSizeV2, leReadLocalSupportedFeatures, leReadMaximumDataLength, leReadNumberOfSupportedAdvertisingSets,
    ]
}
