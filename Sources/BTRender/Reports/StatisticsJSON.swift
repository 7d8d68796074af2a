import BTCapture
import BTDecode
import BTAnalysis
import BTQuery

/// `btlog stats --json`: the whole report as one JSON document, StatisticsDocument, described
/// by docs/stats.schema.json.
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
        try JSONWriterEncoder().encode(document, into: &json)
        try json.finish()
    }

    public var text: String { JSONWriterEncoder().text(of: document) }

    var document: StatisticsDocument {
        let totals = report.totals
        return StatisticsDocument(
            schemaVersion: Self.schemaVersion, files: files, packets: totals.packets, errors: totals.errors, warnings: totals.warnings,
            commands: totals.commands, events: totals.events, acl: totals.acl, sco: totals.sco, iso: totals.iso,
            air: Omittable(totals.air > 0 ? totals.air : nil), baseband: Omittable(totals.baseband > 0 ? totals.baseband : nil),
            other: totals.other, dropped: Int(totals.drops), durationS: .seconds(microseconds: totals.span),
            firstTime: totals.firstTimestamp.map(UTCTime.init), lastTime: totals.lastTimestamp.map(UTCTime.init),
            protocols: report.protocols.map { ProtocolUsageDocument(protocol: $0.name, packets: $0.packets, bytes: $0.bytes) },
            controllers: report.controllers.map {
                ControllerDocument(index: Int($0.index), address: $0.address?.description, name: $0.name, packets: $0.packets)
            },
            devices: report.devices.map(Self.device),
            connections: report.connections.enumerated().map(connection),
            att: Self.att(report.att),
            gatt: report.characteristics.map {
                CharacteristicDocument(address: $0.address?.description, handle: Int($0.handle), name: $0.name, writes: $0.writes,
                                       writeCommands: $0.writeCommands, notifications: $0.notifications, indications: $0.indications,
                                       reads: $0.reads, bytes: $0.bytes)
            },
            audio: audio, hci: hci, security: security,
            connectFailures: Omittable(report.connectFailures.isEmpty ? nil : report.connectFailures.map {
                ConnectFailureDocument(frame: $0.frame, time: UTCTime($0.time), controller: Int($0.controller), address: $0.address?.description,
                                       reason: Int($0.reason), reasonName: FieldValueNames.name(of: UInt64($0.reason), for: HCIFields.reason))
            }),
            throughput: Omittable(throughput.map(throughputDocument)),
            values: Omittable(report.values.isEmpty ? nil : report.values.map {
                ValueDocument(field: $0.field, label: $0.label, unit: $0.unit, count: $0.count,
                              min: StatisticsText.exact($0.minimum), mean: StatisticsText.exact($0.mean), max: StatisticsText.exact($0.maximum),
                              firstFrame: $0.firstFrame, lastFrame: $0.lastFrame, firstTime: UTCTime($0.first), lastTime: UTCTime($0.last))
            }),
            sourceLinks: Omittable(report.sourceLinks.isEmpty ? nil : report.sourceLinks.map {
                func end(_ e: LinkEnd) -> SourceLinkDocument.End {
                    .init(source: e.source, controller: Int(e.controller), handle: Int(e.handle), accessAddress: Omittable(e.accessAddress.map(Int.init)))
                }
                return SourceLinkDocument(from: end($0.link.from), to: end($0.link.to), latencyMs: DistributionDocument.of($0.latency))
            }),
            resolvedAddresses: Omittable(report.resolvedAddresses.isEmpty ? nil : report.resolvedAddresses.map {
                ResolvedAddressDocument(address: $0.address.description, identity: Omittable($0.identity?.description), keyFrame: max(0, $0.keyFrame),
                                        packets: $0.packets, firstFrame: $0.firstFrame, firstTime: UTCTime($0.first), lastTime: UTCTime($0.last))
            }))
    }

    static func device(_ d: DeviceReport) -> DeviceDocument {
        DeviceDocument(address: d.address.description, addressType: d.addressKind, name: d.name, vendor: d.vendor, packets: d.packets,
                       advertisingReports: d.advertisingReports, firstSeen: UTCTime(d.firstSeen), lastSeen: UTCTime(d.lastSeen),
                       rssi: d.rssi.isEmpty ? nil : DeviceDocument.RSSI(samples: d.rssi.count, min: Int(d.rssi.minimum), median: d.rssi.median,
                                                                        max: Int(d.rssi.maximum)))
    }

    func connection(_ index: Int, _ c: ConnectionReport) -> ConnectionDocument {
        let duration = (c.end ?? c.lastSeen).saturatingSubtract(c.start ?? c.firstSeen)
        return ConnectionDocument(
            file: Omittable(files.count > 1 ? .some(c.file) : nil), id: index, controller: Int(c.controller), handle: Int(c.handle),
            address: c.address?.description, transport: c.transport?.rawValue, role: c.role?.rawValue, start: c.start.map(UTCTime.init),
            startFrame: c.startFrame, end: c.end.map(UTCTime.init), endFrame: c.endFrame, durationS: .seconds(microseconds: duration),
            disconnectReason: c.disconnectReason.map(Int.init),
            disconnectReasonName: c.disconnectReason.flatMap { FieldValueNames.name(of: UInt64($0), for: HCIFields.reason) },
            bytesSent: c.bytesSent, bytesReceived: c.bytesReceived, packetsSent: c.packetsSent, packetsReceived: c.packetsReceived,
            applicationBytesSent: c.trafficSent.bytes, applicationBytesReceived: c.trafficReceived.bytes,
            parameters: Self.parameters(c.parameters),
            air: Omittable(c.air.map {
                AirDocument(dataPdus: $0.dataPDUs, badCrc: $0.badCRC, retransmissions: $0.retransmissions, micFailures: $0.micFailures,
                            undecrypted: $0.undecrypted, decrypted: $0.decrypted, missed: $0.missed, keySource: Omittable($0.keySource),
                            leSecureConnections: Omittable($0.secureConnections ? true : nil))
            }),
            linkQuality: Omittable(c.quality.isEmpty ? nil : c.quality.map {
                LinkQualityDocument(frame: $0.frame, time: UTCTime($0.time), report: $0.report, reportName: $0.reportName,
                                    rssiDbm: $0.rssi, snrDb: $0.snr, unusedAfhChannels: $0.unusedChannels, retransmissions: $0.retransmissions,
                                    nak: $0.nak, txTotal: $0.txTotal, txFlushed: $0.txFlushed, glitches: $0.glitches, detail: $0.detail)
            }),
            timeline: c.timeline.map {
                TimelineEventDocument(frame: $0.frame, time: UTCTime($0.time), event: $0.event, values: $0.values, failure: $0.failure)
            },
            channels: c.channels.map { channel in
                let credits = channel.isCreditBased
                return ChannelDocument(
                    frame: channel.frame, psm: channel.psm, protocol: channel.protocolName, mode: channel.mode, localCid: channel.localCID,
                    remoteCid: channel.remoteCID, localMtu: channel.localMTU, remoteMtu: channel.remoteMTU, localMps: channel.localMPS,
                    remoteMps: channel.remoteMPS, localCredits: channel.localCredits, remoteCredits: channel.remoteCredits,
                    closedFrame: channel.closedFrame, localCreditsExhausted: Omittable(credits ? channel.localCreditsExhausted : nil),
                    remoteCreditsExhausted: Omittable(credits ? channel.remoteCreditsExhausted : nil),
                    firstExhaustedFrame: Omittable(credits ? .some(channel.firstExhaustedFrame) : nil),
                    creditViolations: Omittable(credits ? channel.creditViolations : nil))
            },
            refusedChannels: c.refusedChannels.map {
                RefusedChannelDocument(frame: $0.frame, psm: $0.psm, code: $0.code, result: $0.result,
                                       resultName: StatisticsText.l2capResult(code: $0.code, result: $0.result), by: $0.byLocal ? "local" : "peer")
            })
    }

    static func parameters(_ p: LinkParameters) -> ParametersDocument {
        ParametersDocument(intervalMs: p.interval.map { Double($0) * 1.25 }, latency: p.latency,
                           supervisionTimeoutMs: p.supervisionTimeout.map { $0 * 10 }, txPhy: p.txPHY.map { PHYName.of($0) },
                           rxPhy: p.rxPHY.map { PHYName.of($0) }, maxTxOctets: p.maxTxOctets, maxTxTimeUs: p.maxTxTime,
                           maxRxOctets: p.maxRxOctets, maxRxTimeUs: p.maxRxTime, mtu: p.mtu, encrypted: p.encrypted, keySize: p.keySize,
                           mode: p.mode.map(LinkParameters.modeName), modeIntervalMs: p.modeInterval.map { Double($0) * 0.625 })
    }

    static func att(_ att: ATTReport) -> ATTDocument {
        ATTDocument(
            pdus: att.opcodes.sorted { $0.key < $1.key }.map {
                ATTDocument.PDUCount(opcode: Int($0.key), name: StatisticsText.attOpcode($0.key), count: $0.value)
            },
            responseTimeMs: DistributionDocument.of(att.latency),
            responseTimeByRequest: att.latencyByRequest.sorted { $0.key < $1.key }.map {
                ATTDocument.ByRequest(opcode: Int($0.key), name: StatisticsText.attOpcode($0.key), responseTimeMs: DistributionDocument.of($0.value))
            },
            errors: att.errors.map {
                ATTDocument.ErrorCount(requestOpcode: Int($0.requestOpcode), request: StatisticsText.attOpcode($0.requestOpcode), error: Int($0.error),
                                       errorName: FieldValueNames.name(of: UInt64($0.error), for: ATTFields.error),
                                       count: $0.count, firstFrame: $0.firstFrame)
            },
            unanswered: att.unanswered.map {
                ATTDocument.Unanswered(frame: $0.frame, opcode: Int($0.opcode), name: StatisticsText.attOpcode($0.opcode),
                                       waitedS: .seconds(microseconds: $0.waited), end: $0.end.rawValue)
            },
            lateResponses: att.lateResponses.map {
                ATTDocument.Late(requestFrame: $0.requestFrame, responseFrame: $0.responseFrame, opcode: Int($0.opcode),
                                 name: StatisticsText.attOpcode($0.opcode), delayS: .seconds(microseconds: $0.delay))
            })
    }

    var hci: HCIDocument {
        HCIDocument(
            commandErrors: report.hci.commandErrors.map {
                HCIDocument.CommandErrorDocument(controller: Int($0.controller), opcode: Int($0.opcode), command: StatisticsText.command($0.opcode),
                                                 status: Int($0.status), statusName: StatisticsText.statusName($0.status), count: $0.count,
                                                 frames: $0.frames)
            },
            unansweredCommands: report.hci.unansweredCommands.map {
                HCIDocument.UnansweredCommandDocument(frame: $0.frame, controller: Int($0.controller), opcode: Int($0.opcode),
                                                      command: StatisticsText.command($0.opcode), waitedS: .seconds(microseconds: $0.waited))
            },
            hardwareErrors: report.hci.hardwareErrors.map {
                HCIDocument.HardwareErrorDocument(frame: $0.frame, controller: Int($0.controller), code: Int($0.code))
            })
    }

    var security: SecurityDocument {
        SecurityDocument(
            pairingFailures: report.security.pairingFailures.map {
                SecurityDocument.PairingFailureDocument(
                    frame: $0.frame, handle: $0.handle.map(Int.init), address: $0.address?.description, source: $0.source.rawValue,
                    reason: Int($0.reason), reasonName: $0.source == .smp ? StatisticsText.smpReason($0.reason) : StatisticsText.statusName($0.reason),
                    by: $0.source == .smp ? ($0.byLocal ? "local" : "peer") : nil)
            },
            encryptionFailures: report.security.encryptionFailures.map {
                SecurityDocument.EncryptionFailureDocument(frame: $0.frame, handle: $0.handle.map(Int.init), address: $0.address?.description,
                                                           kind: $0.kind.rawValue, status: $0.kind == .change ? Int($0.status) : nil,
                                                           statusName: $0.kind == .change ? StatisticsText.statusName($0.status) : nil)
            })
    }

    var audio: AudioDocument {
        func synchronous(_ kind: SynchronousStreamReport.Kind) -> [AudioDocument.SynchronousStream] {
            report.synchronousStreams.filter { $0.kind == kind }.map {
                AudioDocument.SynchronousStream(controller: Int($0.controller), handle: Int($0.handle), direction: $0.sent ? "sent" : "received",
                                                codec: $0.codec, packets: $0.packets, bytes: $0.bytes, first: UTCTime($0.first),
                                                last: UTCTime($0.last), lost: $0.lost, badStatus: $0.badStatus, firstLossFrame: $0.firstLossFrame)
            }
        }
        return AudioDocument(
            a2dp: report.a2dpStreams.map {
                AudioDocument.A2DPStream(controller: Int($0.controller), handle: Int($0.handle), cid: Int($0.cid),
                                         direction: $0.sent ? "sent" : "received", address: $0.address?.description, codec: $0.codec,
                                         configuration: ReportItemsDocument(items: $0.configuration), packets: $0.packets,
                                         mediaBytes: $0.mediaBytes, first: UTCTime($0.first), last: UTCTime($0.last),
                                         bitRateKbps: $0.bitRate.map { $0 / 1000 }, rtpGaps: $0.gaps, rtpLostPackets: $0.lostPackets,
                                         firstGapFrame: $0.firstGapFrame)
            },
            avdtpRejects: report.avdtpRejects.map {
                AudioDocument.Reject(frame: $0.frame, handle: Int($0.handle), signal: Int($0.signal), signalName: StatisticsText.avdtpSignal($0.signal),
                                     error: $0.error.map(Int.init), errorName: $0.error.flatMap(StatisticsText.avdtpError))
            },
            sco: synchronous(.sco), iso: synchronous(.iso))
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

    func throughputDocument(_ series: ThroughputSeries) -> ThroughputDocument {
        ThroughputDocument(
            intervalS: .seconds(microseconds: series.interval), intervals: series.binCount,
            diagnosis: ConnectionThroughput.assess(report).map { t in
                ThroughputDocument.Diagnosis(
                    connection: t.connection, handle: Int(report.connections[t.connection].handle), direction: t.sent ? "sent" : "received",
                    bytes: t.bytes, achievedKbps: t.achievedKbps,
                    ceiling: t.ceiling.map { c in
                        ThroughputDocument.Ceiling(kbps: c.kbps, intervalMs: Double(c.intervalMicros) / 1000, phy: c.phy.name, dataLength: c.dataLength,
                                                   mtu: c.mtu, encrypted: c.encrypted, transfer: Self.transferName(c.transfer), payloadBytes: c.payload,
                                                   linkLayerPackets: c.fragments, exchangeUs: c.exchangeTime, exchangesPerEvent: c.exchangesPerEvent)
                    },
                    firstLimit: t.limit.map { ThroughputDocument.Limit(parameter: $0.parameter, kbps: $0.kbps, text: $0.sentence) },
                    pace: t.pace)
            },
            series: series.bins.keys.sorted().map { key in
                let bins = series.bins[key]!
                return ThroughputDocument.Series(
                    connection: key.connection,
                    handle: report.connections.indices.contains(key.connection) ? Int(report.connections[key.connection].handle) : nil,
                    direction: key.sent ? "sent" : "received", firstInterval: bins.first,
                    kbps: series.kbps(key, from: bins.first, to: bins.end))
            })
    }
}
