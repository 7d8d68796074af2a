import BTCapture
import Foundation
import BTDecode
import BTQuery

/// Output about the whole capture rather than one packet, printed once the input has ended:
/// the GATT databases, the controllers, what was left open (later: statistics).
public protocol ReportRenderer {
    func render(to out: OutputWriter) throws
}

/// `btlog gatt`: one table per attribute server the capture's discovery revealed.
public struct GATTReport: ReportRenderer {
    let databases: [GATTServerKey: GATTDatabase]
    let names: UUIDNames
    let style: Style

    public init(session: Session, style: Style) {
        databases = session.gatt.databases.filter { !$0.value.attributes.isEmpty }
        names = session.names
        self.style = style
    }

    public func render(to out: OutputWriter) throws {
        if databases.isEmpty { try out.line("No GATT discovery in this capture.") }
        for (index, key) in databases.keys.sorted().enumerated() {
            if index > 0 { try out.line("") }
            for line in GATTTableRenderer.lines(key, databases[key]!, names: names, style: style) { try out.line(line) }
        }
    }
}

/// `capture --list`: index, address, type, bus, manufacturer, name and state of each controller.
public struct ControllerReport: ReportRenderer {
    let controllers: [ControllerInfo]

    public init(session: Session) {
        controllers = session.controllers.values.sorted { $0.index < $1.index }
    }

    public func render(to out: OutputWriter) throws {
        if controllers.isEmpty { try out.line("No Bluetooth controllers.") }
        for line in lines { try out.line(line) }
    }

    var lines: [String] {
        guard !controllers.isEmpty else { return [] }
        var table = TextTable(["INDEX", "ADDRESS", "TYPE", "BUS", "MANUFACTURER", "NAME", "STATE"])
        for info in controllers {
            let manufacturer = info.manufacturer.map { AssignedNumbers.company($0) ?? "Company \($0)" } ?? "-"
            table.add(["hci\(info.index)", info.address?.description ?? "-",
                       SystemDecoder.controllerTypeName(info.type),
                       SystemDecoder.busName(info.bus), manufacturer, info.name.isEmpty ? "-" : info.name,
                       info.isUp ? "up" : "down"])
        }
        return table.lines
    }
}

/// What was still open when the capture ended (PDUs being reassembled, requests never
/// answered), one warning line each for standard error: "btlog: warning: packet 140: ...".
public struct OpenItemsReport: ReportRenderer {
    let reports: [SessionReport]

    public init(_ reports: [SessionReport]) { self.reports = reports }

    public func render(to out: OutputWriter) throws {
        for report in reports { try out.line("btlog: warning: packet \(report.frameNumber): \(report.message)") }
    }
}
