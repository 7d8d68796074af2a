import BTCapture
import BTDecode
import BTQuery

/// `btlog stats --json`: the whole report as one JSON document, described by
/// docs/stats.schema.json. Times are RFC 3339 in UTC; durations are `_s` seconds, `_ms`
/// milliseconds; coded values carry their name in a `_name` member beside them.
public struct StatisticsJSON: ReportRenderer {
    public static let schemaVersion = 1
    let report: CaptureReport
    let files: [String]
    let throughput: ThroughputSeries?

    public init(_ report: CaptureReport, files: [String], throughput: ThroughputSeries? = nil) {
        self.report = report
        self.files = files
        self.throughput = throughput
    }

    public func render(to out: OutputWriter) throws {
        var json = JSONWriter(writingTo: out)
        write(&json)
        try json.finish()
    }

    public var document: String {
        var json = JSONWriter()
        write(&json)
        return json.text
    }

    func write(_ json: inout JSONWriter) {
        var time = UTCTimeFormatter()
        let totals = report.totals
        json.object { json in
            json.member("schema_version", Self.schemaVersion)
            json.key("files"); json.array { json in for file in files { json.string(file) } }
            json.member("packets", totals.packets)
            json.member("errors", totals.errors)
            json.member("warnings", totals.warnings)
            json.member("commands", totals.commands)
            json.member("events", totals.events)
            json.member("acl", totals.acl)
            json.member("sco", totals.sco)
            json.member("iso", totals.iso)
            if totals.air > 0 { json.member("air", totals.air) }
            if totals.baseband > 0 { json.member("baseband", totals.baseband) }
            json.member("other", totals.other)
            json.member("dropped", Int(totals.drops))
            json.member("duration_s", Double(totals.span) / 1_000_000, decimals: 6)
            json.member("first_time", totals.firstTimestamp.map { time.format($0) })
            json.member("last_time", totals.lastTimestamp.map { time.format($0) })
            json.objects("protocols", report.protocols) { json, usage in
                json.member("protocol", usage.name)
                json.member("packets", usage.packets)
                json.member("bytes", usage.bytes)
            }
            json.objects("controllers", report.controllers) { json, controller in
                json.member("index", Int(controller.index))
                json.member("address", controller.address?.description)
                json.member("name", controller.name)
                json.member("packets", controller.packets)
            }
            json.key("devices")
            json.array { json in for device in report.devices { Self.device(device, &json, &time) } }
            json.key("connections")
            json.array { json in for (index, connection) in report.connections.enumerated() { self.connection(index, connection, &json, &time) } }
            json.key("att")
            json.object { json in Self.att(report.att, &json) }
            json.objects("gatt", report.characteristics) { json, c in
                json.member("address", c.address?.description)
                json.member("handle", Int(c.handle))
                json.member("name", c.name)
                json.member("writes", c.writes)
                json.member("write_commands", c.writeCommands)
                json.member("notifications", c.notifications)
                json.member("indications", c.indications)
                json.member("reads", c.reads)
                json.member("bytes", c.bytes)
            }
            json.key("audio")
            json.object { json in self.audio(&json, &time) }
            json.key("hci")
            json.object { json in self.hci(&json) }
            json.key("security")
            json.object { json in self.security(&json) }
            if let throughput {
                json.key("throughput")
                json.object { json in self.throughput(throughput, &json) }
            }
        }
    }

    static func device(_ d: DeviceReport, _ json: inout JSONWriter, _ time: inout UTCTimeFormatter) {
        json.object { json in
            json.member("address", d.address.description)
            json.member("address_type", d.addressKind)
            json.member("name", d.name)
            json.member("vendor", d.vendor)
            json.member("packets", d.packets)
            json.member("advertising_reports", d.advertisingReports)
            json.member("first_seen", time.format(d.firstSeen))
            json.member("last_seen", time.format(d.lastSeen))
            json.key("rssi")
            if d.rssi.isEmpty {
                json.null()
            } else {
                json.object { json in
                    json.member("samples", d.rssi.count)
                    json.member("min", Int(d.rssi.minimum))
                    json.member("median", d.rssi.median, decimals: 1)
                    json.member("max", Int(d.rssi.maximum))
                }
            }
        }
    }

    func connection(_ index: Int, _ c: ConnectionReport, _ json: inout JSONWriter, _ time: inout UTCTimeFormatter) {
        json.object { json in
            if files.count > 1 { json.member("file", c.file) }
            json.member("id", index)
            json.member("controller", Int(c.controller))
            json.member("handle", Int(c.handle))
            json.member("address", c.address?.description)
            json.member("transport", c.transport?.rawValue)
            json.member("role", c.role?.rawValue)
            json.member("start", c.start.map { time.format($0) })
            json.member("start_frame", c.startFrame)
            json.member("end", c.end.map { time.format($0) })
            json.member("end_frame", c.endFrame)
            json.member("duration_s", Double((c.end ?? c.lastSeen) - (c.start ?? c.firstSeen)) / 1_000_000, decimals: 6)
            json.member("disconnect_reason", c.disconnectReason.map(Int.init))
            json.member("disconnect_reason_name", c.disconnectReason.flatMap { FieldValueNames.name(of: UInt64($0), for: StatisticsText.reasonField) })
            json.member("bytes_sent", c.bytesSent)
            json.member("bytes_received", c.bytesReceived)
            json.member("packets_sent", c.packetsSent)
            json.member("packets_received", c.packetsReceived)
            json.member("application_bytes_sent", c.trafficSent.bytes)
            json.member("application_bytes_received", c.trafficReceived.bytes)
            json.key("parameters")
            json.object { json in Self.parameters(c.parameters, &json) }
            if let air = c.air {
                json.key("air")
                json.object { json in
                    json.member("data_pdus", air.dataPDUs)
                    json.member("bad_crc", air.badCRC)
                    json.member("retransmissions", air.retransmissions)
                    json.member("mic_failures", air.micFailures)
                    json.member("undecrypted", air.undecrypted)
                    if let source = air.keySource { json.member("key_source", source) }
                    if air.secureConnections { json.member("le_secure_connections", true) }
                }
            }
            json.objects("timeline", c.timeline) { json, event in
                json.member("frame", event.frame)
                json.member("time", time.format(event.time))
                json.member("event", event.event)
                for item in event.values { Self.item(item, &json) }
                json.member("failure", event.failure)
            }
            json.objects("channels", c.channels) { json, channel in
                json.member("frame", channel.frame)
                json.member("psm", channel.psm)
                json.member("protocol", channel.protocolName)
                json.member("mode", channel.mode)
                json.member("local_cid", channel.localCID)
                json.member("remote_cid", channel.remoteCID)
                json.member("local_mtu", channel.localMTU)
                json.member("remote_mtu", channel.remoteMTU)
                json.member("local_mps", channel.localMPS)
                json.member("remote_mps", channel.remoteMPS)
                json.member("local_credits", channel.localCredits)
                json.member("remote_credits", channel.remoteCredits)
                json.member("closed_frame", channel.closedFrame)
                if channel.isCreditBased {
                    json.member("local_credits_exhausted", channel.localCreditsExhausted)
                    json.member("remote_credits_exhausted", channel.remoteCreditsExhausted)
                    json.member("first_exhausted_frame", channel.firstExhaustedFrame)
                    json.key("credit_violations")
                    json.array { json in for frame in channel.creditViolations { json.integer(frame) } }
                }
            }
            json.objects("refused_channels", c.refusedChannels) { json, refused in
                json.member("frame", refused.frame)
                json.member("psm", refused.psm)
                json.member("code", refused.code)
                json.member("result", refused.result)
                json.member("result_name", StatisticsText.l2capResult(code: refused.code, result: refused.result))
                json.member("by", refused.byLocal ? "local" : "peer")
            }
        }
    }

    static func parameters(_ p: LinkParameters, _ json: inout JSONWriter) {
        json.member("interval_ms", p.interval.map { Double($0) * 1.25 })
        json.member("latency", p.latency)
        json.member("supervision_timeout_ms", p.supervisionTimeout.map { $0 * 10 })
        json.member("tx_phy", p.txPHY.map { PHYName.of($0) })
        json.member("rx_phy", p.rxPHY.map { PHYName.of($0) })
        json.member("max_tx_octets", p.maxTxOctets)
        json.member("max_tx_time_us", p.maxTxTime)
        json.member("max_rx_octets", p.maxRxOctets)
        json.member("max_rx_time_us", p.maxRxTime)
        json.member("mtu", p.mtu)
        json.member("encrypted", p.encrypted)
        json.member("key_size", p.keySize)
        json.member("mode", p.mode.map(LinkParameters.modeName))
        json.member("mode_interval_ms", p.modeInterval.map { Double($0) * 0.625 })
    }

    static func item(_ item: ReportItem, _ json: inout JSONWriter) {
        switch item.value {
        case .count(let v): json.member(item.name, v)
        case .milliseconds(let v): json.member(item.name + "_ms", v)
        case .text(let v): json.member(item.name, v)
        case .flag(let v): json.member(item.name, v)
        }
    }

    static func att(_ att: ATTReport, _ json: inout JSONWriter) {
        json.key("pdus")
        json.array { json in
            for (opcode, count) in att.opcodes.sorted(by: { $0.key < $1.key }) {
                json.object { json in
                    json.member("opcode", Int(opcode))
                    json.member("name", StatisticsText.attOpcode(opcode))
                    json.member("count", count)
                }
            }
        }
        json.key("response_time_ms")
        distribution(att.latency, &json)
        json.key("response_time_by_request")
        json.array { json in
            for (opcode, d) in att.latencyByRequest.sorted(by: { $0.key < $1.key }) {
                json.object { json in
                    json.member("opcode", Int(opcode))
                    json.member("name", StatisticsText.attOpcode(opcode))
                    json.key("response_time_ms")
                    distribution(d, &json)
                }
            }
        }
        json.objects("errors", att.errors) { json, error in
            json.member("request_opcode", Int(error.requestOpcode))
            json.member("request", StatisticsText.attOpcode(error.requestOpcode))
            json.member("error", Int(error.error))
            json.member("error_name", FieldValueNames.name(of: UInt64(error.error), for: StatisticsText.attErrorField))
            json.member("count", error.count)
            json.member("first_frame", error.firstFrame)
        }
        json.objects("unanswered", att.unanswered) { json, request in
            json.member("frame", request.frame)
            json.member("opcode", Int(request.opcode))
            json.member("name", StatisticsText.attOpcode(request.opcode))
            json.member("waited_s", Double(request.waited) / 1_000_000, decimals: 6)
            json.member("end", request.end.rawValue)
        }
        json.objects("late_responses", att.lateResponses) { json, late in
            json.member("request_frame", late.requestFrame)
            json.member("response_frame", late.responseFrame)
            json.member("opcode", Int(late.opcode))
            json.member("name", StatisticsText.attOpcode(late.opcode))
            json.member("delay_s", Double(late.delay) / 1_000_000, decimals: 6)
        }
    }

    func hci(_ json: inout JSONWriter) {
        json.objects("command_errors", report.hci.commandErrors) { json, e in
            json.member("controller", Int(e.controller))
            json.member("opcode", Int(e.opcode))
            json.member("command", StatisticsText.command(e.opcode))
            json.member("status", Int(e.status))
            json.member("status_name", StatisticsText.statusName(e.status))
            json.member("count", e.count)
            json.key("frames")
            json.array { json in for frame in e.frames { json.integer(frame) } }
        }
        json.objects("unanswered_commands", report.hci.unansweredCommands) { json, c in
            json.member("frame", c.frame)
            json.member("controller", Int(c.controller))
            json.member("opcode", Int(c.opcode))
            json.member("command", StatisticsText.command(c.opcode))
            json.member("waited_s", Double(c.waited) / 1_000_000, decimals: 6)
        }
        json.objects("hardware_errors", report.hci.hardwareErrors) { json, e in
            json.member("frame", e.frame)
            json.member("controller", Int(e.controller))
            json.member("code", Int(e.code))
        }
    }

    func security(_ json: inout JSONWriter) {
        json.objects("pairing_failures", report.security.pairingFailures) { json, f in
            json.member("frame", f.frame)
            json.member("handle", f.handle.map(Int.init))
            json.member("address", f.address?.description)
            json.member("source", f.source.rawValue)
            json.member("reason", Int(f.reason))
            json.member("reason_name", f.source == .smp ? StatisticsText.smpReason(f.reason) : StatisticsText.statusName(f.reason))
            json.member("by", f.source == .smp ? (f.byLocal ? "local" : "peer") : nil)
        }
        json.objects("encryption_failures", report.security.encryptionFailures) { json, f in
            json.member("frame", f.frame)
            json.member("handle", f.handle.map(Int.init))
            json.member("address", f.address?.description)
            json.member("kind", f.kind.rawValue)
            json.member("status", f.kind == .change ? Int(f.status) : nil)
            json.member("status_name", f.kind == .change ? StatisticsText.statusName(f.status) : nil)
        }
    }

    /// Microsecond samples as milliseconds.
    static func distribution(_ d: Distribution, _ json: inout JSONWriter) {
        guard !d.isEmpty else { return json.null() }
        json.object { json in
            json.member("count", d.count)
            json.member("min", Double(d.minimum) / 1000)
            json.member("median", d.median.map { $0 / 1000 })
            json.member("p95", d.percentile(0.95).map { Double($0) / 1000 })
            json.member("max", Double(d.maximum) / 1000)
            json.member("mean", d.mean.map { $0 / 1000 })
        }
    }

    static func transferName(_ transfer: LEThroughputCeiling.Transfer) -> String {
        switch transfer {
        case .notifications: return "notifications"
        case .writeCommands: return "write_commands"
        case .writeRequests: return "write_requests"
        case .indications: return "indications"
        case .creditBased: return "credit_based_channel"
        }
    }

    func audio(_ json: inout JSONWriter, _ time: inout UTCTimeFormatter) {
        json.key("a2dp")
        json.array { json in
            for s in report.a2dpStreams {
                json.object { json in
                    json.member("controller", Int(s.controller))
                    json.member("handle", Int(s.handle))
                    json.member("cid", Int(s.cid))
                    json.member("direction", s.sent ? "sent" : "received")
                    json.member("address", s.address?.description)
                    json.member("codec", s.codec)
                    json.key("configuration")
                    json.object { json in for item in s.configuration { Self.item(item, &json) } }
                    json.member("packets", s.packets)
                    json.member("media_bytes", s.mediaBytes)
                    json.member("first", time.format(s.first))
                    json.member("last", time.format(s.last))
                    json.member("bit_rate_kbps", s.bitRate.map { $0 / 1000 })
                    json.member("rtp_gaps", s.gaps)
                    json.member("rtp_lost_packets", s.lostPackets)
                    json.member("first_gap_frame", s.firstGapFrame)
                }
            }
        }
        json.objects("avdtp_rejects", report.avdtpRejects) { json, r in
            json.member("frame", r.frame)
            json.member("handle", Int(r.handle))
            json.member("signal", Int(r.signal))
            json.member("signal_name", StatisticsText.avdtpSignal(r.signal))
            json.member("error", r.error.map(Int.init))
            json.member("error_name", r.error.flatMap(StatisticsText.avdtpError))
        }
        for kind in [SynchronousStreamReport.Kind.sco, .iso] {
            json.key(kind == .sco ? "sco" : "iso")
            json.array { json in
                for s in report.synchronousStreams where s.kind == kind {
                    json.object { json in
                        json.member("controller", Int(s.controller))
                        json.member("handle", Int(s.handle))
                        json.member("direction", s.sent ? "sent" : "received")
                        json.member("codec", s.codec)
                        json.member("packets", s.packets)
                        json.member("bytes", s.bytes)
                        json.member("first", time.format(s.first))
                        json.member("last", time.format(s.last))
                        json.member("lost", s.lost)
                        json.member("bad_status", s.badStatus)
                        json.member("first_loss_frame", s.firstLossFrame)
                    }
                }
            }
        }
    }

    func throughput(_ series: ThroughputSeries, _ json: inout JSONWriter) {
        json.member("interval_s", Double(series.interval) / 1_000_000, decimals: 6)
        json.member("intervals", series.binCount)
        json.objects("diagnosis", ConnectionThroughput.assess(report)) { json, t in
            json.member("connection", t.connection)
            json.member("handle", Int(report.connections[t.connection].handle))
            json.member("direction", t.sent ? "sent" : "received")
            json.member("bytes", t.bytes)
            json.member("achieved_kbps", t.achievedKbps)
            json.key("ceiling")
            if let c = t.ceiling {
                json.object { json in
                    json.member("kbps", c.kbps)
                    json.member("interval_ms", Double(c.intervalMicros) / 1000)
                    json.member("phy", c.phy.name)
                    json.member("data_length", c.dataLength)
                    json.member("mtu", c.mtu)
                    json.member("encrypted", c.encrypted)
                    json.member("transfer", Self.transferName(c.transfer))
                    json.member("payload_bytes", c.payload)
                    json.member("link_layer_packets", c.fragments)
                    json.member("exchange_us", c.exchangeTime)
                    json.member("exchanges_per_event", c.exchangesPerEvent)
                }
            } else {
                json.null()
            }
            json.key("first_limit")
            if let limit = t.limit {
                json.object { json in
                    json.member("parameter", limit.parameter)
                    json.member("kbps", limit.kbps)
                    json.member("text", limit.sentence)
                }
            } else {
                json.null()
            }
            json.member("pace", t.pace)
        }
        json.key("series")
        json.array { json in
            for key in series.bins.keys.sorted() {
                let bins = series.bins[key]!
                json.object { json in
                    json.member("connection", key.connection)
                    json.member("handle", report.connections.indices.contains(key.connection) ? Int(report.connections[key.connection].handle) : nil)
                    json.member("direction", key.sent ? "sent" : "received")
                    json.member("first_interval", bins.first)
                    json.key("kbps")
                    json.array { json in for value in series.kbps(key, from: bins.first, to: bins.end) { json.number(value, decimals: 3) } }
                }
            }
        }
    }
}
