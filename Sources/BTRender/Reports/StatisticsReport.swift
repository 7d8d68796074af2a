import BTCapture
import BTDecode
import BTAnalysis
import BTQuery

/// `btlog stats`: the capture's totals, protocols, controllers, devices, connections with
/// their parameter timelines, ATT, GATT and audio, as text for a terminal.
public struct StatisticsReport: ReportRenderer {
    let report: CaptureReport
    let style: Style
    /// Only this many devices and characteristics (the rest are counted).
    let listLimit: Int

    public init(_ report: CaptureReport, style: Style, listLimit: Int = 20) {
        self.report = report
        self.style = style
        self.listLimit = listLimit
    }

    public func render(to out: OutputWriter) throws {
        try write { try out.line($0) }
    }

    public var lines: [String] {
        var lines: [String] = []
        try? write { lines.append($0) }
        return lines
    }

    /// Each line as it is made: a report of thousands of connections is never held whole.
    func write(_ emit: (String) throws -> Void) throws {
        var clock = TimeFormatter(mode: .abs)
        let totals = report.totals
        try emit(heading("Capture") + "  " + totals.statusLine)
        if let first = totals.firstTimestamp, let last = totals.lastTimestamp {
            try emit("         from \(clock.format(first)) to \(clock.format(last))")
        }
        try section(emit, "Protocols", report.protocols.isEmpty ? [] : {
            var table = TextTable(["PROTOCOL", "PACKETS", "BYTES"], rightAligned: [1, 2], indent: 2)
            for usage in report.protocols { table.add([usage.name, String(usage.packets), String(usage.bytes)]) }
            return table.lines
        }())
        try section(emit, "Controllers", report.controllers.isEmpty ? [] : {
            var table = TextTable(["INDEX", "ADDRESS", "NAME", "PACKETS"], rightAligned: [3], indent: 2)
            for controller in report.controllers {
                table.add(["hci\(controller.index)", controller.address?.description ?? "-", controller.name ?? "-", String(controller.packets)])
            }
            return table.lines
        }())
        try section(emit, "Devices", deviceLines(&clock))
        try section(emit, "Links across sources (latency from the sender's HCI to the receiver's)", sourceLinkLines())
        try section(emit, "Private addresses resolved (one device under the addresses it took)", resolvedAddressLines(&clock))
        if !report.connections.isEmpty {
            try emit("")
            try emit(heading("Connections"))
            try connectionLines(&clock, emit)
        }
        try section(emit, "Connect failures (Bluetooth Quality Report)", report.connectFailures.map {
            "  #\($0.frame) \(clock.format($0.time))  \($0.address?.description ?? "-")  \(StatisticsText.reason($0.reason))"
        })
        try section(emit, "ATT", attLines())
        try section(emit, "GATT characteristics", characteristicLines())
        try section(emit, "Values (described fields)", valueLines())
        try section(emit, "Audio", audioLines())
    }

    private func heading(_ text: String) -> String { style.paint(text, Style.bold) }

    private func section(_ emit: (String) throws -> Void, _ title: String, _ body: [String]) throws {
        guard !body.isEmpty else { return }
        try emit("")
        try emit(heading(title))
        for line in body { try emit(line) }
    }

    private func deviceLines(_ clock: inout TimeFormatter) -> [String] {
        guard !report.devices.isEmpty else { return [] }
        var table = TextTable(["ADDRESS", "TYPE", "NAME", "VENDOR", "PACKETS", "ADV", "FIRST SEEN", "LAST SEEN", "RSSI MIN/MEDIAN/MAX"],
                              rightAligned: [4, 5], indent: 2)
        for device in report.devices.prefix(listLimit) {
            let rssi = device.rssi
            let rssiText = rssi.isEmpty ? "-" : "\(rssi.minimum)/\(StatisticsText.number(rssi.median ?? 0, decimals: 1))/\(rssi.maximum) dBm"
            table.add([device.address.description, device.addressKind, device.name ?? "-", device.vendor ?? "-", String(device.packets),
                       String(device.advertisingReports), clock.format(device.firstSeen), clock.format(device.lastSeen), rssiText])
        }
        var lines = table.lines
        if report.devices.count > listLimit { lines.append("  ... and \(report.devices.count - listLimit) more (--json lists every one)") }
        return lines
    }

    private func connectionLines(_ clock: inout TimeFormatter, _ emit: (String) throws -> Void) throws {
        let several = Set(report.connections.compactMap(\.file)).count > 1
        var table = TextTable((several ? ["FILE"] : []) + ["HANDLE", "PEER", "TRANSPORT", "ROLE", "START", "END", "DURATION", "SENT", "RECEIVED", "END REASON"],
                              rightAligned: several ? [8, 9] : [7, 8], indent: 2)
        for c in report.connections {
            var row = several ? [c.file ?? "-"] : []
            row += [Hex.u16(c.handle), c.address?.description ?? "-", c.transport?.rawValue ?? "-", c.role?.rawValue ?? "-",
                    c.start.map { clock.format($0) } ?? "(before)", c.end.map { clock.format($0) } ?? "(still up)",
                    StatisticsText.seconds((c.end ?? c.lastSeen).saturatingSubtract(c.start ?? c.firstSeen)),
                    StatisticsText.bytes(c.bytesSent), StatisticsText.bytes(c.bytesReceived),
                    c.disconnectReason.map { StatisticsText.reason($0) } ?? "-"]
            table.add(row)
        }
        for line in table.lines { try emit(line) }
        for c in report.connections where !c.timeline.isEmpty || !c.channels.isEmpty || c.air != nil || !c.quality.isEmpty {
            try emit("")
            let name = c.address.flatMap { address in report.devices.first { $0.address == address }?.name }
            try emit("  \(Hex.u16(c.handle)) \(c.address?.description ?? "-")\(name.map { " (\($0))" } ?? "")"
                         + ", \(c.transport?.rawValue ?? "transport unknown"), \(c.role?.rawValue ?? "role unknown")")
            if let air = c.air {
                try emit("    from the air: \(air.dataPDUs) data PDUs, \(air.badCRC) bad CRC, \(air.retransmissions) sent again, "
                         + "\(air.micFailures) MIC failure\(air.micFailures == 1 ? "" : "s"), \(air.decrypted) decrypted, \(air.undecrypted) not decrypted, "
                         + "\(air.missed) missed by the sniffer"
                         + (air.keySource.map { "; key: \($0)" } ?? "")
                         + (air.secureConnections ? "; paired with LE Secure Connections: no sniffer can recover its key, give the LTK with --ltk" : ""))
            }
            for line in StatisticsText.qualityLines(c.quality) { try emit(line) }
            let origin = c.start ?? c.firstSeen
            for event in c.timeline {
                var text = "    " + StatisticsText.offset(event.time.saturatingSubtract(origin)).padded(to: 10) + ("#\(event.frame)").padded(to: 8) + event.event
                if let failure = event.failure {
                    text += style.paint(" failed: " + failure, Style.red)
                } else if !event.values.isEmpty {
                    text += ": " + event.values.map(StatisticsText.item).joined(separator: ", ")
                }
                try emit(text)
            }
            for channel in c.channels {
                var text = "    channel \(channel.protocolName) (PSM \(Hex.u16(UInt16(truncatingIfNeeded: channel.psm)))), \(channel.mode), "
                text += "local CID \(Hex.u16(UInt16(truncatingIfNeeded: channel.localCID))) MTU \(channel.localMTU.map(String.init) ?? "-")"
                if let mps = channel.localMPS { text += " MPS \(mps)" }
                if let credits = channel.localCredits { text += " credits \(credits)" }
                text += " / remote CID \(Hex.u16(UInt16(truncatingIfNeeded: channel.remoteCID))) MTU \(channel.remoteMTU.map(String.init) ?? "-")"
                if let mps = channel.remoteMPS { text += " MPS \(mps)" }
                if let credits = channel.remoteCredits { text += " credits \(credits)" }
                text += ", #\(channel.frame)" + (channel.closedFrame.map { "-#\($0)" } ?? "")
                try emit(text)
            }
        }
    }

    private func attLines() -> [String] {
        let att = report.att
        guard !att.opcodes.isEmpty else { return [] }
        var table = TextTable(["OPCODE", "PDUS"], rightAligned: [1], indent: 2)
        for (opcode, count) in att.opcodes.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
            table.add([StatisticsText.attOpcode(opcode), String(count)])
        }
        var lines = table.lines
        if let summary = StatisticsText.latency(att.latency) { lines.append("  Response time: " + summary) }
        if att.latencyByRequest.count > 1 {
            for (opcode, distribution) in att.latencyByRequest.sorted(by: { $0.key < $1.key }) {
                if let summary = StatisticsText.latency(distribution) { lines.append("    \(StatisticsText.attOpcode(opcode)): " + summary) }
            }
        }
        if !att.errors.isEmpty {
            lines.append("  Errors:")
            for error in att.errors.sorted(by: { $0.count != $1.count ? $0.count > $1.count : $0.firstFrame < $1.firstFrame }) {
                lines.append("    \(StatisticsText.attOpcode(error.requestOpcode)): \(StatisticsText.attError(error.error)) × \(error.count) (first #\(error.firstFrame))")
            }
        }
        if !att.unanswered.isEmpty {
            let shown = att.unanswered.prefix(10).map { "#\($0.frame)" }.joined(separator: ", ")
            lines.append(style.paint("  Unanswered requests: \(att.unanswered.count) (\(shown)\(att.unanswered.count > 10 ? ", ..." : ""))", Style.yellow))
        }
        return lines
    }

    private func characteristicLines() -> [String] {
        guard !report.characteristics.isEmpty else { return [] }
        var table = TextTable(["DEVICE", "HANDLE", "ATTRIBUTE", "WRITES", "WRITE CMDS", "NOTIFICATIONS", "INDICATIONS", "READS", "BYTES"],
                              rightAligned: [3, 4, 5, 6, 7, 8], indent: 2)
        for c in report.characteristics.prefix(listLimit) {
            table.add([c.address?.description ?? "-", Hex.u16(c.handle), c.name ?? "-", String(c.writes), String(c.writeCommands),
                       String(c.notifications), String(c.indications), String(c.reads), String(c.bytes)])
        }
        var lines = table.lines
        if report.characteristics.count > listLimit { lines.append("  ... and \(report.characteristics.count - listLimit) more (--json lists every one)") }
        return lines
    }

    private func sourceLinkLines() -> [String] {
        guard !report.sourceLinks.isEmpty else { return [] }
        func end(_ e: LinkEnd) -> String {
            e.accessAddress.map { "\(e.source) air \(Hex.format($0, width: 8))" } ?? "\(e.source) hci\(e.controller) \(Hex.u16(e.handle))"
        }
        var table = TextTable(["FROM", "TO", "PDUS", "MIN", "MEDIAN", "P95", "MAX"], rightAligned: [2, 3, 4, 5, 6], indent: 2)
        for link in report.sourceLinks {
            let d = link.latency
            table.add([end(link.link.from), end(link.link.to), String(d.count), StatisticsText.milliseconds(Double(d.minimum)),
                       d.median.map(StatisticsText.milliseconds) ?? "-", d.percentile(0.95).map { StatisticsText.milliseconds(Double($0)) } ?? "-",
                       StatisticsText.milliseconds(Double(d.maximum))])
        }
        return table.lines
    }

    private func resolvedAddressLines(_ clock: inout TimeFormatter) -> [String] {
        guard !report.resolvedAddresses.isEmpty else { return [] }
        var table = TextTable(["ADDRESS", "IDENTITY", "KEY IN", "PACKETS", "FIRST", "LAST"], rightAligned: [3], indent: 2)
        for row in report.resolvedAddresses.prefix(listLimit) {
            table.add([row.address.description, row.identity?.description ?? "(not in the capture)", row.keyFrame > 0 ? "#\(row.keyFrame)" : row.keyFrame == 0 ? "--irk" : "merge",
                       String(row.packets), clock.format(row.first), clock.format(row.last)])
        }
        var lines = table.lines
        if report.resolvedAddresses.count > listLimit { lines.append("  ... and \(report.resolvedAddresses.count - listLimit) more (--json lists every one)") }
        return lines
    }

    private func valueLines() -> [String] {
        guard !report.values.isEmpty else { return [] }
        var table = TextTable(["FIELD", "VALUES", "MIN", "MEAN", "MAX", "UNIT", "PACKETS"], rightAligned: [1, 2, 3, 4], indent: 2)
        for v in report.values {
            table.add([v.field, String(v.count), StatisticsText.amount(v.minimum), StatisticsText.amount(v.mean), StatisticsText.amount(v.maximum), v.unit ?? "-",
                       "#\(v.firstFrame)-#\(v.lastFrame)"])
        }
        return table.lines + ["  'btlog plot FIELD... FILE' draws them over time"]
    }


    private func audioLines() -> [String] {
        var lines: [String] = []
        for s in report.a2dpStreams {
            var text = "  A2DP \(Hex.u16(s.handle)) CID \(Hex.u16(s.cid)) \(s.sent ? "sent to" : "received from") \(s.address?.description ?? "-"): "
            text += s.codec ?? "codec unknown"
            let settings = s.configuration.filter { $0.name != "sbc_bitrate" && $0.name != "bitpool_used" }
            if !settings.isEmpty { text += " (" + settings.map(StatisticsText.item).joined(separator: ", ") + ")" }
            text += ", \(s.packets) packets, \(StatisticsText.bytes(s.mediaBytes))"
            if let rate = s.bitRate { text += ", \(StatisticsText.number(rate / 1000, decimals: 1)) kbit/s" }
            if s.gaps > 0 {
                text += style.paint(", \(s.gaps) RTP gap\(s.gaps == 1 ? "" : "s") (\(s.lostPackets) packets lost, first #\(s.firstGapFrame ?? 0))", Style.yellow)
            } else {
                text += ", no RTP gaps"
            }
            lines.append(text)
        }
        for s in report.synchronousStreams {
            var text = "  \(s.kind.rawValue) \(Hex.u16(s.handle)) \(s.sent ? "sent" : "received"): "
            if let codec = s.codec { text += codec + ", " }
            text += "\(s.packets) packets, \(StatisticsText.bytes(s.bytes))"
            let span = s.last.saturatingSubtract(s.first)
            if span > 0 { text += ", \(StatisticsText.number(Double(s.bytes) * 8 / (Double(span) / 1_000_000) / 1000, decimals: 1)) kbit/s" }
            if s.lost > 0 {
                text += style.paint(", \(s.lost) lost or damaged (first #\(s.firstLossFrame ?? 0))", Style.yellow)
            } else {
                text += ", none lost"
            }
            lines.append(text)
        }
        return lines
    }
}

/// How the reports write numbers, sizes, durations and coded values for a person.
public enum StatisticsText {
    /// The link quality lines of a connection: each measure's first and last value with its
    /// sparkline, then the reports of trouble.
    public static func qualityLines(_ quality: [LinkQualitySample]) -> [String] {
        guard !quality.isEmpty else { return [] }
        var lines = ["    link quality: \(quality.count) report\(quality.count == 1 ? "" : "s") (Bluetooth Quality Report), #\(quality[0].frame)-#\(quality[quality.count - 1].frame)"]
        func measure(_ name: String, _ unit: String, _ values: [Int], low: Int, high: Int?) {
            guard let first = values.first, let last = values.last else { return }
            let range = "\(first)\(unit) → \(last)\(unit)", lowest = values.min()!, highest = values.max()!
            lines.append("      " + name.padded(to: 22) + range.padded(to: 22) + "min \(lowest)\(unit), max \(highest)\(unit)".padded(to: 28)
                         + ThroughputReport.sparkline(values.map(Double.init), width: 48, scale: Double(low) ... Double(high ?? max(highest, low + 1))))
        }
        measure("RSSI", " dBm", quality.compactMap(\.rssi), low: -100, high: -30)
        measure("SNR", " dB", quality.compactMap(\.snr), low: 0, high: 40)
        measure("retransmissions", "", quality.compactMap(\.retransmissions), low: 0, high: nil)
        measure("unused AFH channels", "", quality.compactMap(\.unusedChannels), low: 0, high: 79)
        let rates = quality.compactMap(\.retransmissionRate)
        if !rates.isEmpty { measure("retransmission rate", "%", rates.map { Int(($0 * 100).rounded()) }, low: 0, high: 100) }
        for sample in quality where sample.report != 0x01 {
            var text = "      #\(sample.frame) \(sample.reportName ?? "report \(sample.report)")"
            var parts: [String] = []
            if let glitches = sample.glitches { parts.append("\(glitches) glitch\(glitches == 1 ? "" : "es")") }
            if let detail = sample.detail { parts.append(detail) }
            if let rssi = sample.rssi { parts.append("RSSI \(rssi) dBm") }
            if !parts.isEmpty { text += ": " + parts.joined(separator: ", ") }
            lines.append(text)
        }
        return lines
    }
    public static func number(_ value: Double, decimals: Int) -> String { JSONWriter.decimal(value, decimals: decimals) }

    /// A value as a number reads: whole numbers without a point, others to six decimals at
    /// most, so that a minimum or maximum reads as the packet that holds it (an RR interval of
    /// 0.8125 s is not "0.813" beside a packet that says 0.812).
    public static func amount(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : value < 0 ? "-INF" : "+INF" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return number(value, decimals: amountDecimals)
    }

    static let amountDecimals = 6

    /// `amount`'s precision for JSON.
    static func exact(_ value: Double) -> FixedDecimal { FixedDecimal(value, decimals: amountDecimals) }

    public static func bytes(_ count: Int) -> String {
        if count < 10_000 { return "\(count) B" }
        if count < 10_000_000 { return number(Double(count) / 1000, decimals: 1) + " kB" }
        return number(Double(count) / 1_000_000, decimals: 1) + " MB"
    }

    /// Always three decimals: durations line up in a column.
    public static func seconds(_ micros: Int64) -> String {
        let sign = micros < 0 ? "-" : "", magnitude = micros.magnitude
        let milliseconds = (magnitude + 500) / 1000
        let fraction = String(milliseconds % 1000)
        return "\(sign)\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
    }

    public static func offset(_ micros: Int64) -> String { "+" + seconds(micros) }

    public static func milliseconds(_ micros: Double) -> String { number(micros / 1000, decimals: 3) + " ms" }

    public static func latency(_ d: Distribution) -> String? {
        guard !d.isEmpty, let median = d.median, let p95 = d.percentile(0.95) else { return nil }
        return "\(d.count) response\(d.count == 1 ? "" : "s"), min \(milliseconds(Double(d.minimum))), median \(milliseconds(median)), "
            + "p95 \(milliseconds(Double(p95))), max \(milliseconds(Double(d.maximum)))"
    }

    public static func item(_ item: ReportItem) -> String {
        let label = item.name.replacingOccurrences(of: "_", with: " ")
        switch item.value {
        case .count(let v): return "\(label) \(v)"
        case .milliseconds(let v): return "\(label) \(number(v, decimals: 3)) ms"
        case .text(let v): return "\(label) \(v)"
        case .flag(let v): return "\(label) \(v ? "on" : "off")"
        }
    }

    public static func command(_ opcode: UInt16) -> String { FieldValueNames.name(of: UInt64(opcode), for: HCIFields.opcode) ?? "Command \(Hex.u16(opcode))" }
    public static func statusName(_ status: UInt8) -> String? { FieldValueNames.name(of: UInt64(status), for: HCIFields.status) }
    public static func smpReason(_ reason: UInt8) -> String? { FieldValueNames.name(of: UInt64(reason), for: SMPFields.reason) }
    public static func avdtpSignal(_ signal: UInt8) -> String? { FieldValueNames.name(of: UInt64(signal), for: AVDTPFields.signal) }
    public static func avdtpError(_ error: UInt8) -> String? { FieldValueNames.name(of: UInt64(error), for: AVDTPFields.errorCode) }
    public static func l2capResult(code: Int, result: Int) -> String? {
        L2CAPSignaling.resultName(code: code, result: result)
    }

    public static func attOpcode(_ opcode: UInt8) -> String {
        FieldValueNames.name(of: UInt64(opcode), for: ATTFields.opcode) ?? "Opcode \(Hex.u8(opcode))"
    }

    public static func attError(_ code: UInt8) -> String {
        "\(FieldValueNames.name(of: UInt64(code), for: ATTFields.error) ?? "Error") (\(Hex.u8(code)))"
    }

    public static func reason(_ code: UInt8) -> String {
        "\(FieldValueNames.name(of: UInt64(code), for: HCIFields.reason) ?? "Reason") (\(Hex.u8(code)))"
    }
}

extension String {
    func padded(to width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}
