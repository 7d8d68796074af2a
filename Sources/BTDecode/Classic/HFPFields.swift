/// The Hands-Free and Headset profiles' AT commands and results (HFP 1.9, HSP 1.2).
public enum HFPFields {
    static let f = FieldDefinition.maker("hfp")
    public static let command = f("command", "Command", .string, "An AT command's name from the hands-free side: +BRSF, +CIND, A (answer), D (dial)...")
    public static let response = f("response", "Result", .string, "A result from the audio gateway: +BRSF, +CIEV, OK, ERROR, RING...")
    public static let commandType = f("type", "Type", .string, "set (=), read (?), test (=?), action, or result")
    public static let parameters = f("parameters", "Parameters", .string, "The command's or result's parameters as sent")
    public static let line = f("line", "Line", .string, "One command or result line, without CR and LF")
    public static let hfFeatures = f("hf_features", "HF Supported Features", .uint32, "AT+BRSF: the hands-free unit's features")
    public static let agFeatures = f("ag_features", "AG Supported Features", .uint32, "+BRSF: the audio gateway's features")
    public static let codec = f("codec", "Codec", .uint8, "Codec ID: 1 CVSD, 2 mSBC, 3 LC3-SWB")
    public static let indicator = f("indicator", "Indicator", .string, "An indicator's name (from the +CIND test result)")
    public static let indicatorValue = f("indicator_value", "Indicator Value", .int, "An indicator's value")
    public static let gain = f("gain", "Gain", .uint8, "Speaker (+VGS) or microphone (+VGM) gain, 0-15")
    public static let number = f("number", "Number", .string, "A phone number (+CLIP, +CCWA, ATD)")
    public static let cmeError = f("cme_error", "CME Error", .uint16, "+CME ERROR code")
    public static let joined = f("joined", "Joined", .uint16, "Frames a command or result was joined from")

    public static let all = [command, response, commandType, parameters, line, hfFeatures, agFeatures, codec, indicator,
                             indicatorValue, gain, number, cmeError, joined]
}

extension HFPFields {
    public static let conversation = ConversationDescription("HFP", rank: 5, operations: [command, response], qualifier: commandType,
                                                             ignored: [line, joined], values: [parameters, number])
}
