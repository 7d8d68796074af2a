#!/usr/bin/env python3
"""btlog against tshark and btmon on the same large captures, in the same run (issue 5).

Run through Scripts/bench.sh (installs the peers, builds btlog in release mode). This script:
  1. generates the captures with the project's generator (btlog-fixtures bench): an LE session
     and a BR/EDR audio session, btsnoop and PacketLogger forms; and repeats a real, ATT-heavy
     capture this project did not make (Fixtures/third-party/revcar: a phone's GATT discovery,
     writes and notifications) to a size worth timing, its timestamps carried on;
  2. checks once that every command reads the whole file (packet and line counts), so that no
     ratio compares against a tool that stopped early;
  3. runs every command on a file several times in rounds, the order rotated and reversed each
     round so that machine drift falls on all of them alike, and takes medians of wall time and
     peak RSS (from wait4, per process);
  4. prints ratios (peer median / btlog median) and writes a Markdown table.

Commands and comparisons are data (COMMANDS, COMPARISONS): a later feature (JSON export,
filters, grep) adds its commands and its rows there.
"""
import argparse
import datetime
import os
import platform
import statistics
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The real capture repeated for the "real" session: an Android HCI log of a phone's app driving a
# toy car over GATT (MIT; Fixtures/third-party/revcar/LICENSE), 149 ACL records, all ATT.
REAL_CAPTURE = os.path.join(ROOT, "Fixtures", "third-party", "revcar", "btsnoop_hci.log")


def repeat_btsnoop(source, packets, out):
    """Writes `packets` records of the btsnoop file `source`, repeated from its first record as
    often as it takes, each repetition's timestamps moved on to follow the one before (1 ms after
    its last record), so that time only goes forward; the header is the source's."""
    data = open(source, "rb").read()
    header, records, offset = data[:16], [], 16
    if header[:8] != b"btsnoop\0":
        raise SystemExit(f"bench: {source} is not a btsnoop file")
    while offset + 24 <= len(data):
        original, included, flags, drops, stamp = struct.unpack(">IIIIq", data[offset:offset + 24])
        records.append((original, included, flags, drops, stamp, data[offset + 24:offset + 24 + included]))
        offset += 24 + included
    if not records:
        raise SystemExit(f"bench: {source} holds no record")
    span = records[-1][4] - records[0][4] + 1000
    with open(out, "wb") as handle:
        handle.write(header)
        for index in range(packets):
            original, included, flags, drops, stamp, body = records[index % len(records)]
            shift = (index // len(records)) * span
            handle.write(struct.pack(">IIIIq", original, included, flags, drops, stamp + shift) + body)


def commands(btlog, walker, path, kind):
    """Every command measured on one file, by name. None: the tool cannot read this file."""
    pklg = path.endswith(".pklg")
    # Text that every tool prints for some packets of the file: the generated sessions' controller
    # reports buffers freed; the real capture holds only ATT, mostly writes of the car's commands.
    searched = "Write Command" if kind == "real" else "Completed Packets"
    return {
        "btlog show": [btlog, "show", path],
        "btlog show -V": [btlog, "show", "-V", path],
        "btlog fields": [btlog, "show", path, "--fields", "number,att.opcode,att.handle"],
        "tshark -r": ["tshark", "-r", path],
        "tshark -V": ["tshark", "-r", path, "-V"] if not pklg else None,
        "tshark fields": ["tshark", "-r", path, "-T", "fields", "-e", "frame.number", "-e", "btatt.opcode",
                          "-e", "btatt.handle"] if not pklg else None,
        # btmon 5.66 reads only btsnoop (given a .pklg it prints its banner and stops).
        "btmon -r": ["btmon", "-r", path] if not pklg else None,
        # Issue 15: a filter that keeps a few packets, one that keeps none, and text search.
        "btlog filter": [btlog, "show", path, "-f", "att.opcode == 0x1b"],
        "tshark -Y": ["tshark", "-r", path, "-Y", "btatt.opcode == 0x1b"],
        "btlog filter none": [btlog, "show", path, "-f", "hci.opcode == 0xfc00"],
        "btlog grep": [btlog, "grep", searched, path],
        "btmon | grep": ["sh", "-c", f"btmon -r '{path}' | grep '{searched}'"] if not pklg else None,
        # Issue 16: JSON Lines against tshark's JSON and Elasticsearch forms; CSV against -T fields.
        "btlog jsonl": [btlog, "export", path],
        "tshark -T json": ["tshark", "-r", path, "-T", "json"] if not pklg else None,
        "tshark -T ek": ["tshark", "-r", path, "-T", "ek"] if not pklg else None,
        "btlog csv": [btlog, "export", path, "--format", "csv", "--fields", "number,att.opcode,att.handle"],
        "tshark csv": ["tshark", "-r", path, "-T", "fields", "-E", "separator=,", "-e", "frame.number", "-e", "btatt.opcode",
                       "-e", "btatt.handle"] if not pklg else None,
        # Issue 17: statistics against tshark's nearest, its conversation and endpoint tables.
        "btlog stats": [btlog, "stats", path],
        # Issue 18: the sink's own thread against everything on one, and on one CPU (taskset -c 0:
        # one CPU in the affinity mask, so btlog stays on one thread), which must not lose.
        "btlog show, 1 thread": ["env", "BTLOG_THREADS=1", btlog, "show", path],
        "btlog show -V, 1 thread": ["env", "BTLOG_THREADS=1", btlog, "show", "-V", path],
        "btlog jsonl, 1 thread": ["env", "BTLOG_THREADS=1", btlog, "export", path],
        "btlog stats, 1 thread": ["env", "BTLOG_THREADS=1", btlog, "stats", path],
        "btlog show -V, 1 CPU": ["taskset", "-c", "0", btlog, "show", "-V", path],
        "tshark -z": ["tshark", "-r", path, "-q", "-z", "conv,bluetooth", "-z", "endpoints,bluetooth"],
        "record walker": [walker, path],
        "cat": ["cat", path],
    }


# (task, btlog command, peer command): the rows of the table.
COMPARISONS = [
    ("One-line summaries", "btlog show", "tshark -r"),
    ("One-line summaries", "btlog show", "btmon -r"),
    ("Full tree", "btlog show -V", "tshark -V"),
    ("Full tree", "btlog show -V", "btmon -r"),
    ("Fields", "btlog fields", "tshark fields"),
    ("Filter: ATT notifications", "btlog filter", "tshark -Y"),
    ("Filter keeping nothing, against printing all", "btlog filter none", "btlog show"),
    ("Text search", "btlog grep", "btmon | grep"),
    ("JSON Lines", "btlog jsonl", "tshark -T json"),
    ("JSON Lines", "btlog jsonl", "tshark -T ek"),
    ("CSV", "btlog csv", "tshark csv"),
    ("Statistics", "btlog stats", "tshark -z"),
    ("Sink thread: summaries, against one thread", "btlog show", "btlog show, 1 thread"),
    ("Sink thread: tree, against one thread", "btlog show -V", "btlog show -V, 1 thread"),
    ("Sink thread: JSON Lines, against one thread", "btlog jsonl", "btlog jsonl, 1 thread"),
    ("Sink thread: statistics, against one thread", "btlog stats", "btlog stats, 1 thread"),
    ("One CPU (taskset -c 0), against one thread", "btlog show -V, 1 CPU", "btlog show -V, 1 thread"),
    ("Floor: touching the bytes", "btlog show", "record walker"),
    ("Floor: touching the bytes", "btlog show", "cat"),
]


MEASURE = None  # the launcher built from Scripts/bench/measure.c


def run(command):
    """Wall seconds, peak RSS in KiB and exit status of one run, output discarded."""
    output = subprocess.run([MEASURE] + command, capture_output=True, text=True, check=True).stdout.split()
    return float(output[0]), int(output[1]), int(output[2])


def count_lines(command, predicate=None):
    """Runs once with the output piped here; returns (lines counted, exit status)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    count, tail = 0, b""
    for chunk in iter(lambda: process.stdout.read(1 << 20), b""):
        if predicate is None:
            count += chunk.count(b"\n")
        else:
            lines = (tail + chunk).split(b"\n")
            tail = lines.pop()
            count += sum(1 for line in lines if predicate(line))
    return count, process.wait()


def is_btmon_packet(line):
    # btmon starts each packet with its direction mark: < sent, > received, @ / = other.
    return line[:2] in (b"< ", b"> ", b"@ ", b"= ")


def verify(name, command, packets):
    """None if the command reads the whole file, else why not."""
    expected = {
        "btlog show": (None, packets + 1),  # plus the status line
        "btlog fields": (None, packets),
        "btlog jsonl": (None, packets),
        "btlog csv": (None, packets + 1),  # plus the header
        "tshark csv": (None, packets),
        "tshark -r": (None, packets),
        "tshark fields": (None, packets),
        "btmon -r": (is_btmon_packet, packets),
        "record walker": None,
    }
    if name not in expected:
        return None
    if expected[name] is None:
        output = subprocess.run(command, capture_output=True, text=True)
        return None if output.stdout.strip() == str(packets) else f"walker counted {output.stdout.strip()}"
    predicate, lines = expected[name]
    count, status = count_lines(command, predicate)
    if status != 0:
        return f"exit status {status}"
    if count != lines:
        return f"{count} lines for {packets} packets"
    return None


def measure(file, table, runs):
    """Medians per command name: {name: (seconds, rss_kib, all_seconds)}."""
    names = [name for name, command in table.items() if command is not None]
    samples = {name: [] for name in names}
    for round_index in range(runs):
        order = names[round_index % len(names):] + names[:round_index % len(names)]
        if round_index % 2:
            order.reverse()
        for name in order:
            seconds, rss, status = run(table[name])
            if status != 0:
                raise SystemExit(f"bench: {name} on {file} exited with status {status}")
            samples[name].append((seconds, rss))
        print(f"  round {round_index + 1}/{runs} done", file=sys.stderr)
    return {name: (statistics.median(s for s, _ in values), statistics.median(r for _, r in values),
                   [s for s, _ in values])
            for name, values in samples.items()}


def tool_version(command):
    try:
        output = subprocess.run(command, capture_output=True, text=True).stdout.strip().splitlines()
        return output[0] if output else "?"
    except OSError:
        return "not installed"


def megabytes(kib):
    return f"{kib / 1024:.0f} MB" if kib >= 10 * 1024 else f"{kib / 1024:.1f} MB"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--le", type=int, default=1_000_000, help="packets in the LE session (default 1,000,000)")
    parser.add_argument("--audio", type=int, default=200_000, help="packets in the audio session (default 200,000)")
    parser.add_argument("--real", type=int, default=500_000,
                        help="packets of the real ATT-heavy capture repeated (default 500,000; 0: skip)")
    parser.add_argument("--scale", type=int, default=5_000_000,
                        help="packets of the LE session for btlog's memory check against --le (0: skip)")
    parser.add_argument("--runs", type=int, default=5, help="rounds per file (default 5)")
    parser.add_argument("--work", default=os.path.join(ROOT, ".build", "bench"), help="where captures go")
    parser.add_argument("--out", default=os.path.join(ROOT, "Benchmarks", "RESULTS.md"), help="Markdown results")
    parser.add_argument("--btlog", default=os.path.join(ROOT, ".build", "release", "btlog"))
    parser.add_argument("--fixtures", default=os.path.join(ROOT, ".build", "release", "btlog-fixtures"))
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    compiler = next((c for c in ("cc", "clang", "gcc") if subprocess.run(["which", c], capture_output=True).returncode == 0), None)
    if compiler is None:
        raise SystemExit("bench: no C compiler (cc, clang or gcc) for the record walker")
    walker = os.path.join(args.work, "walk")
    global MEASURE
    MEASURE = os.path.join(args.work, "measure")
    for program, source in ((walker, "walk.c"), (MEASURE, "measure.c")):
        subprocess.run([compiler, "-O2", "-o", program, os.path.join(ROOT, "Scripts", "bench", source)], check=True)

    def generate(le, audio):
        subprocess.run([args.fixtures, "bench", args.work, "--le", str(le), "--audio", str(audio)],
                       check=True, stdout=subprocess.DEVNULL)

    files = []
    for session, count in (("le", args.le), ("audio", args.audio)):
        if count > 0:
            for extension in ("btsnoop", "pklg"):
                files.append((session, count, os.path.join(args.work, f"{session}-{count}.{extension}")))
    print(f"bench: generating {', '.join(os.path.basename(f) for _, _, f in files)}", file=sys.stderr)
    generate(args.le, args.audio)
    if args.real > 0:
        real = os.path.join(args.work, f"real-revcar-{args.real}.btsnoop")
        repeat_btsnoop(REAL_CAPTURE, args.real, real)
        files.append(("real", args.real, real))

    results = []  # (file, packets, size, medians, failures)
    for session, packets, path in files:
        table = commands(args.btlog, walker, path, session)
        failures = {}
        for name, command in table.items():
            if command is None:
                continue
            problem = verify(name, command, packets)
            if problem:
                failures[name] = problem
                table[name] = None
                print(f"bench: {name} does not read all of {os.path.basename(path)}: {problem}", file=sys.stderr)
        # The search pipes btmon's text into grep: where btmon cannot read the file, neither can it.
        if "btmon -r" in failures and table.get("btmon | grep") is not None:
            failures["btmon | grep"] = failures["btmon -r"]
            table["btmon | grep"] = None
        print(f"bench: {os.path.basename(path)} ({packets:,} packets), {args.runs} rounds", file=sys.stderr)
        medians = measure(path, table, args.runs)
        results.append((path, packets, os.path.getsize(path), medians, failures))

    scale = None
    if args.scale and args.le:
        print(f"bench: memory at {args.scale:,} packets", file=sys.stderr)
        generate(args.scale, 0)
        big = os.path.join(args.work, f"le-{args.scale}.btsnoop")
        small = os.path.join(args.work, f"le-{args.le}.btsnoop")
        rows = []
        for path, count in ((small, args.le), (big, args.scale)):
            for name, command in (("btlog show", [args.btlog, "show", path]),
                                  ("btlog show -V", [args.btlog, "show", "-V", path]),
                                  ("btlog export", [args.btlog, "export", path]),
                                  ("btlog stats", [args.btlog, "stats", path])):
                seconds, rss, status = run(command)
                rows.append((name, count, seconds, rss, status))
        # The baseline every run starts from (the Swift runtime and the decoders' tables).
        seconds, rss, status = run([args.btlog, "--help"])
        rows.append(("btlog --help", 0, seconds, rss, status))
        scale = rows
        for extension in ("btsnoop", "pklg"):
            os.remove(os.path.join(args.work, f"le-{args.scale}.{extension}"))

    report = render(args, results, scale)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    # The browser's section (Scripts/browse-bench.py writes it) is kept as it is.
    kept = ""
    if os.path.exists(args.out):
        previous = open(args.out).read()
        at = previous.find("## btlog browse against termshark")
        if at >= 0:
            kept = "\n" + previous[at:]
    with open(args.out, "w") as handle:
        handle.write(report.rstrip("\n") + "\n" + kept if kept else report)
    print(report)
    print(f"bench: wrote {args.out}", file=sys.stderr)


def render(args, results, scale):
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    revision = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [
        "# btlog benchmark",
        "",
        f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by `Scripts/bench.sh` "
        f"(btlog {revision or '?'}, release build) on {os.cpu_count()} × {cpu}, {platform.system()} {platform.release()}.",
        f"Peers: {tool_version(['tshark', '--version'])}; btmon {tool_version(['btmon', '--version'])}.",
        f"Each command ran {args.runs} times per file in rotating order (reversed every other round); "
        "times are medians of wall-clock seconds with output to /dev/null, RSS the median peak resident memory. "
        "Ratio = peer time / btlog time (above 1: btlog is faster); against the floor (a C loop that steps over "
        "the records, and cat) it is btlog time / floor time. The files are made by `btlog-fixtures bench`.",
        "",
    ]
    for path, packets, size, medians, failures in results:
        name = os.path.basename(path)
        lines += [f"## {name}: {packets:,} packets, {size / 1e6:.1f} MB", ""]
        if name.startswith("real-"):
            lines += [f"Fixtures/third-party/revcar/btsnoop_hci.log (a real Android HCI log of GATT discovery, writes and "
                      f"notifications; MIT) repeated to {packets:,} packets, its timestamps carried on.", ""]
        lines += ["| Task | btlog command | btlog | Peer command | Peer | Ratio | btlog / floor | btlog RSS | Peer RSS |",
                  "|---|---|---:|---|---:|---:|---:|---:|---:|"]
        floor = medians.get("record walker", (0,))[0]
        for task, mine, theirs in COMPARISONS:
            if mine not in medians:
                continue
            if theirs not in medians:
                if theirs in failures:
                    lines.append(f"| {task} | `{mine}` | {medians[mine][0]:.2f} s | `{theirs}` | fails: {failures[theirs]} | | | | |")
                continue
            a, b = medians[mine], medians[theirs]
            # Against the floor the ratio reads the other way: how many times the bare cost.
            ratio = f"{a[0] / b[0]:.0f}x the floor" if task.startswith("Floor") else f"{b[0] / a[0]:.2f}x"
            # Every btlog row against the record walker: how far from only touching the bytes.
            to_floor = f"{a[0] / floor:.0f}x" if floor > 0 else ""
            lines.append(f"| {task} | `{mine}` | {a[0]:.2f} s | `{theirs}` | {b[0]:.3f} s | {ratio} | {to_floor} | "
                         f"{megabytes(a[1])} | {megabytes(b[1])} |")
        rate = packets / medians["btlog show"][0] if "btlog show" in medians else 0
        lines += ["", f"btlog show: {rate:,.0f} packets/s.", ""]
    if scale:
        lines += ["## Memory against capture size (btlog, one run each)", "",
                  "| Command | Packets | Time | Peak RSS |", "|---|---:|---:|---:|"]
        for name, count, seconds, rss, status in scale:
            state = "" if status == 0 else f" (exit {status})"
            packets = f"{count:,}" if count else "none"
            lines.append(f"| `{name}` | {packets} | {seconds:.2f} s{state} | {megabytes(rss)} |")
        lines.append("")
    lines += ["## Targets", "",
              "Issue 5 asks for: summaries 10x tshark and 2x btmon; the tree 10x tshark -V and not slower than btmon; "
              "fields 10x tshark -T fields; peak RSS under 64 MB at any capture size, flat from 1M to 5M packets. "
              "Issue 15 asks for: a filter 10x tshark -Y; btlog grep faster than btmon -r | grep; a filter that "
              "keeps nothing at least 2x faster than printing every packet. "
              "Issue 16 asks for: JSON Lines 10x tshark -T json and 5x tshark -T ek; CSV 10x tshark -T fields -E separator=,; "
              "a 5M-packet export flat under 64 MB. "
              "Issue 17 asks for: btlog stats 10x tshark -q -z conv,bluetooth -z endpoints,bluetooth, with flat memory. "
              "Issue 18 asks for all of these at once: summaries 10x tshark and 5x btmon, the tree 10x tshark -V and 2x btmon, "
              "fields, JSON Lines and a filter 10x tshark, RSS flat under 64 MB at 5M packets, one CPU no slower than one thread. "
              "Issue 55 asks for, on both generated sessions: summaries 10x tshark and 6x btmon; filters 10x tshark -Y; "
              "fields and CSV 12x; the LE tree 12x tshark -V and 5x btmon; and summaries 8x tshark on the real capture "
              "repeated to 500,000 packets; memory flat under 64 MB in every non-interactive view. "
              "The ratios above say which hold on this machine; README.md and the issue note discuss the gaps.", ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
