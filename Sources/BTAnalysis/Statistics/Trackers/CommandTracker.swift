import BTCapture
import BTDecode
import BTQuery

/// HCI commands: those that failed (by command and status), those never answered, and the
/// controllers' hardware errors.
struct CommandTracker {
    private var report = HCIReport()
    /// Commands sent and not yet answered by Command Complete or Status, per controller, oldest first.
    private var pending: [UInt16: [(opcode: UInt16, frame: Int, time: Int64)]] = [:]
    private var errorIndex: [UInt64: Int] = [:]

    mutating func sent(_ opcode: Int, _ frame: Frame) {
        // Host Number Of Completed Packets is the one command no event answers; BTstack's
        // daemon commands never reach the controller.
        guard opcode != 0x0C35, !BTstack.isDaemonCommand(UInt16(truncatingIfNeeded: opcode)) else { return }
        pending[frame.controller, default: []].append((UInt16(truncatingIfNeeded: opcode), frame.number, frame.timestamp))
    }

    /// A Command Complete or Status: the oldest command of its opcode is answered; a non-zero
    /// status counts against the command.
    mutating func answered(_ layer: Layer, _ frame: Frame, status: Int) {
        guard let opcode = layer.integer(HCIFields.commandOpcode), opcode != 0 else { return }
        if opcode == Int(HCICommands.unsupportedAnswer) {
            // The controller's "not supported", naming no command: it answers the oldest vendor
            // command waiting (controllers answer unknown vendor commands so).
            guard let position = pending[frame.controller]?.firstIndex(where: { $0.opcode >> 10 == 0x3F }) else { return }
            let command = pending[frame.controller]!.remove(at: position)
            report.unsupportedCommands.append(UnsupportedCommand(frame: command.frame, answerFrame: frame.number, controller: frame.controller,
                                                                 opcode: command.opcode))
            return
        }
        if let position = pending[frame.controller]?.firstIndex(where: { Int($0.opcode) == opcode }) {
            pending[frame.controller]!.remove(at: position)
        }
        guard status != 0 else { return }
        let key = UInt64(frame.controller) << 32 | UInt64(opcode) << 8 | UInt64(status & 0xFF)
        if let position = errorIndex[key] {
            report.commandErrors[position].count += 1
            if report.commandErrors[position].frames.count < 20 { report.commandErrors[position].frames.append(frame.number) }
        } else {
            errorIndex[key] = report.commandErrors.count
            report.commandErrors.append(CommandError(controller: frame.controller, opcode: UInt16(truncatingIfNeeded: opcode),
                                                     status: UInt8(truncatingIfNeeded: status), count: 1, frames: [frame.number]))
        }
    }

    mutating func hardwareError(_ layer: Layer, _ frame: Frame) {
        report.hardwareErrors.append(HardwareError(frame: frame.number, controller: frame.controller,
                                                   code: UInt8(truncatingIfNeeded: layer.integer(HCIFields.hardwareCode) ?? 0)))
    }

    /// A controller gone: its commands will get no answer.
    mutating func controllerGone(_ controller: UInt16) { pending[controller] = nil }

    /// The end of a file at `end`: a command still waiting a second or more was never answered.
    mutating func closeAll(end: Int64) {
        for (controller, commands) in pending {
            for command in commands where end.saturatingSubtract(command.time) >= 1_000_000 {
                report.unansweredCommands.append(UnansweredCommand(frame: command.frame, controller: controller, opcode: command.opcode,
                                                                   waited: end.saturatingSubtract(command.time)))
            }
        }
        pending.removeAll()
    }

    func finish() -> HCIReport {
        var result = report
        result.unansweredCommands.sort { $0.frame < $1.frame }
        return result
    }
}
