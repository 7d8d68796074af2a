import BTCapture

/// A controller as the Linux monitor announces it (New Index, Index Info, Open/Close/Delete
/// Index), kept by the decoder's session; `btlog capture --list` prints it.
public struct ControllerInfo: Equatable, Sendable {
    public var index: UInt16
    public var name = ""
    /// 0 primary (BR/EDR and LE), 1 AMP.
    public var type: UInt8 = 0
    /// The transport: 0 virtual, 1 USB, 3 UART, ... (see SystemDecoder.busName).
    public var bus: UInt8 = 0
    public var address: BDAddr?
    public var manufacturer: UInt16?
    public var isUp = false

    public init(index: UInt16) { self.index = index }
}
