#!/usr/bin/env python3
"""Checks a kernel-capture run (Scripts/kernel-capture.sh): btlog's capture against btmon's.

Reads both btsnoop files with its own parser (not btlog's), and passes when
  1. every frame btmon recorded is in btlog's capture, in the same order, with the same bytes,
     controller index, opcode (so direction) and a timestamp within a millisecond; frames only
     btlog has are counted as frames btmon missed (the kernel dropped them from btmon's socket);
  2. the capture that got SIGTERM mid-run is a whole file (no partial record) whose frames are
     the start of the main capture;
  3. `btlog show` finds no decoding error (a malformed or truncated PDU) in a frame that btmon's
     own decode of the same file does not also call invalid.

Usage: compare-captures.py [--btlog PATH] OUTDIR
Exit status 0 when all hold, 1 otherwise; the findings are printed either way.
"""
import re
import struct
import subprocess
import sys

EPOCH_OFFSET = 0x00DCDDB30F2F8000
HCI_OPCODES = {2, 3, 4, 5, 6, 7, 18, 19}  # command, event, ACL/SCO/ISO TX and RX
# System notes and user logging reach the monitor without a kernel timestamp, so each socket
# stamps them when its reader receives them: their times differ between two readers.
STAMPED_ON_READ = {12, 13}
# Frames each monitor socket is sent when it is bound (its own copy, stamped at its own bind).
BIND_REPLAY_OPCODES = {0, 8, 10, 12, 14}  # new index, open index, index info, note, control open


def read_btsnoop(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"btsnoop\0":
        raise SystemExit(f"{path}: not a btsnoop file")
    version, datalink = struct.unpack(">II", data[8:16])
    if datalink != 2001:
        raise SystemExit(f"{path}: datalink {datalink}, expected 2001 (Linux monitor)")
    frames, offset = [], 16
    while offset + 24 <= len(data):
        original, included, flags, drops, stamp = struct.unpack(">IIIIq", data[offset:offset + 24])
        if offset + 24 + included > len(data):
            break
        payload = data[offset + 24:offset + 24 + included]
        frames.append({"opcode": flags & 0xFFFF, "index": flags >> 16, "time": stamp - EPOCH_OFFSET,
                       "bytes": payload, "drops": drops})
        offset += 24 + included
    return frames, len(data) - offset


def bind_replay_length(frames):
    """The leading frames the kernel sent this socket when it was bound."""
    n = 0
    while n < len(frames) and frames[n]["opcode"] in BIND_REPLAY_OPCODES:
        n += 1
    return n


def key(frame):
    return frame["opcode"], frame["index"], frame["bytes"]


def match(reference, other, window=400):
    """Pairs each frame of `other` with an unused frame of `reference` that has the same bytes,
    controller and opcode, a timestamp within a millisecond (except frames stamped when read),
    and sits near the same position: with two CPUs the
    kernel can queue two frames to two monitor sockets in different orders. Returns the indexes
    of `other` left unmatched and the number of `reference` frames no `other` frame took."""
    replay_ref, replay_other = bind_replay_length(reference), bind_replay_length(other)
    positions = {}
    for i, frame in enumerate(reference):
        positions.setdefault(key(frame), []).append(i)
    used = [False] * len(reference)
    unmatched = []
    for j, frame in enumerate(other):
        found = None
        for i in positions.get(key(frame), []):
            if used[i] or abs(i - j) > window + abs(len(reference) - len(other)):
                continue
            if ((j < replay_other and i < replay_ref) or frame["opcode"] in STAMPED_ON_READ
                    or abs(reference[i]["time"] - frame["time"]) <= 1000):
                found = i
                break
        if found is None:
            unmatched.append(j)
        else:
            used[found] = True
    return unmatched, used.count(False)


def frame_text(frame):
    return f"opcode {frame['opcode']} hci{frame['index']} {frame['bytes'][:12].hex()}"


DECODE_FAILURE = re.compile(r"^error: (Truncated|Malformed|Empty ATT PDU|L2CAP length mismatch|ACL continuation fragment|New L2CAP PDU started|SDU length|L2CAP PDU on the null CID)")
BTMON_INVALID = re.compile(r"invalid size|invalid packet size|malformed|too short|packet too", re.IGNORECASE)
BTMON_FRAME = re.compile(r"^[<>]\s.*#(\d+)\s")


def decode_check(btlog_binary, path, frames, findings):
    shown = subprocess.run([btlog_binary, "show", "--fields", "number,issues", path],
                           capture_output=True, text=True)
    if shown.returncode != 0:
        findings.append(f"btlog show failed: {shown.stderr.strip()}")
        return 0, 0
    failures = {}
    for line in shown.stdout.splitlines():
        number, _, issues = line.partition("\t")
        for issue in issues.split("; "):
            if DECODE_FAILURE.match(issue):
                failures[int(number)] = issue
    # btmon numbers its frames #N counting HCI packets only (commands, events, ACL, SCO, ISO).
    hci_number, count = {}, 0
    for position, frame in enumerate(frames, start=1):
        if frame["opcode"] in HCI_OPCODES:
            count += 1
            hci_number[position] = count
    btmon = subprocess.run(["btmon", "-r", path], capture_output=True, text=True, errors="replace")
    flagged, current = set(), None
    for line in btmon.stdout.splitlines():
        header = BTMON_FRAME.match(line)
        if header:
            current = int(header.group(1))
        elif line[:1] in "@=":
            current = None
        elif current is not None and BTMON_INVALID.search(line):
            flagged.add(current)
    agreed = 0
    for number, issue in sorted(failures.items()):
        if hci_number.get(number) in flagged:
            agreed += 1
        else:
            findings.append(f"btlog packet {number}: {issue} (btmon's #{hci_number.get(number)} shows no error)")
    return agreed, len(flagged)


def main():
    args = sys.argv[1:]
    btlog_binary = ".build/release/btlog"
    if args[:1] == ["--btlog"]:
        btlog_binary, args = args[1], args[2:]
    if len(args) != 1:
        raise SystemExit(__doc__)
    out = args[0]
    findings = []
    btlog, btlog_rest = read_btsnoop(f"{out}/btlog.btsnoop")
    btmon, _ = read_btsnoop(f"{out}/btmon.btsnoop")
    if btlog_rest:
        findings.append(f"btlog.btsnoop ends with {btlog_rest} bytes of a partial record")
    missing, extra = match(btlog, btmon)
    print(f"frames: btlog {len(btlog)}, btmon {len(btmon)}; btmon frames missing from btlog: {len(missing)}; "
          f"btlog frames btmon missed: {extra} (btlog's drops field: {max((f['drops'] for f in btlog), default=0)})")
    for j in missing[:10]:
        findings.append(f"btmon frame {j + 1} ({frame_text(btmon[j])}) is not in btlog's capture")
    if not btlog:
        findings.append("btlog captured nothing")

    sigterm, rest = read_btsnoop(f"{out}/btlog-sigterm.btsnoop")
    if rest:
        findings.append(f"the SIGTERM capture ends with {rest} bytes of a partial record")
    foreign, _ = match(btlog, sigterm)
    print(f"SIGTERM capture: {len(sigterm)} whole frames, {rest} stray bytes, {len(foreign)} not in the main capture")
    if foreign:
        findings.append(f"{len(foreign)} frames of the SIGTERM capture are not in the main capture, the first: {frame_text(sigterm[foreign[0]])}")
    if not 0 < len(sigterm) < len(btlog):
        findings.append(f"the SIGTERM capture holds {len(sigterm)} frames; expected some, fewer than the {len(btlog)} of the full run")

    agreed, btmon_flagged = decode_check(btlog_binary, f"{out}/btlog.btsnoop", btlog, findings)
    print(f"decoding: {agreed} frames both btlog and btmon call malformed; btmon flags {btmon_flagged} in all")
    for finding in findings:
        print(f"FAIL: {finding}")
    print("OK" if not findings else f"{len(findings)} problem(s)")
    return 0 if not findings else 1


if __name__ == "__main__":
    sys.exit(main())
