#!/usr/bin/env python3
"""Instructions per packet of btlog's views, counted by callgrind (issue 55's yardstick).

Wall time on a shared two-core machine moves by tens of percent from run to run; instruction
counts do not. For each view this script:
  1. generates the benchmark's LE session (btlog-fixtures bench) at two sizes;
  2. counts the instructions of one run on each under callgrind, on one thread (callgrind
     serialises threads anyway, and the sink's own thread would only move work around);
  3. prints (instructions at the larger size - at the smaller) / (packets more): the cost of one
     packet, start-up and the decoders' tables cancelled;
  4. with --profile VIEW, prints the functions that cost the most of one packet in that view
     (each function's own instructions, the smaller size's subtracted from the larger's);
  5. with --census VIEW, counts that view's reference counting (retains and releases) a packet
     by the function that calls it: what a decoding core without per-packet reference counting
     has left to remove.

Writes a Markdown table (Benchmarks/INSTRUCTIONS.md by default), so that each step of the work
is measured against the one before it, on the same captures.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

import bench
import callgrind

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The views the issue names, each a btlog command line on a capture.
VIEWS = {
    "table": lambda btlog, path: [btlog, "show", path],
    "tree": lambda btlog, path: [btlog, "show", "-V", path],
    "filter": lambda btlog, path: [btlog, "show", path, "-f", "att.opcode == 0x1b"],
    "filter keeping none": lambda btlog, path: [btlog, "show", path, "-f", "hci.opcode == 0xfc00"],
    "JSON Lines": lambda btlog, path: [btlog, "export", path],
    "fields": lambda btlog, path: [btlog, "show", path, "--fields", "number,att.opcode,att.handle"],
    # The table on the real ATT capture the benchmark repeats (bench.py --real), at the same sizes:
    # the same server discovered again every 149 packets, far more often than in the generated session.
    "real table": lambda btlog, path: [btlog, "show", path],
}
# Views read from the real capture rather than the generated LE session.
REAL_VIEWS = {"real table"}
REAL_CAPTURE = os.path.join(ROOT, "Fixtures", "third-party", "revcar", "btsnoop_hci.log")


def environment():
    env = dict(os.environ)
    env["BTLOG_THREADS"] = "1"
    # Swift seeds its hashing per process: dictionaries probe differently from run to run, and
    # the counts move by tens of instructions a packet. Seeded the same, they repeat exactly.
    env["SWIFT_DETERMINISTIC_HASHING"] = "1"
    return env


def instructions(command, out_file="/dev/null"):
    return callgrind.instructions(command, environment(), out_file, who="instructions")


def functions(command, work, name="callgrind.out"):
    """Each function's own instructions in one run, by name (the run's callgrind output is kept
    in `work` under `name`, for `census`)."""
    out = os.path.join(work, name)
    instructions(command, out)
    text = subprocess.run(["callgrind_annotate", "--threshold=100", out], capture_output=True, text=True, check=True).stdout
    counts = {}
    for line in text.splitlines():
        parts = line.strip().split(None, 2)
        if len(parts) < 2 or not parts[0].replace(",", "").isdigit():
            continue
        name = parts[-1]
        if "PROGRAM TOTALS" in name:
            continue
        # callgrind_annotate prints "N (p%)  file:function [object]"; keep the function.
        if ":" in name.split(" [")[0]:
            name = name.split(":", 1)[1]
        name = name.split(" [")[0].strip()
        counts[name] = counts.get(name, 0) + int(parts[0].replace(",", ""))
    return counts


STEPS_HEADING = "## Steps"

REFERENCE_COUNTING = ("swift_retain", "swift_release", "swift_bridgeObjectRetain", "swift_bridgeObjectRelease")


def calls_by_caller(out_file):
    """How often each function called each reference-counting entry point in one run, as
    {(entry point, caller): calls}, from callgrind's call graph."""
    text = subprocess.run(["callgrind_annotate", "--tree=caller", "--threshold=100", out_file],
                          capture_output=True, text=True, check=True).stdout
    calls, block = {}, []
    for line in text.splitlines():
        if not line.strip():
            block = []
            continue
        # A block lists a function's callers ("N (p%)  < file:caller (Mx) [object]"), then the
        # function itself ("N (p%)  *  file:function [object]").
        caller = re.match(r"\s*[\d,]+ \(.*?\)\s+< \S*?:(.*) \(([\d,]+)x\) \[", line)
        if caller:
            block.append((caller.group(1), int(caller.group(2).replace(",", ""))))
            continue
        callee = re.match(r"\s*[\d,]+ \(.*?\)\s+\*\s+\S*?:(\S+) \[", line)
        if callee and callee.group(1) in REFERENCE_COUNTING:
            for name, count in block:
                calls[(callee.group(1), name)] = calls.get((callee.group(1), name), 0) + count
        block = []
    return calls


def census(work, packets, top):
    """Reference counting a packet by caller, from the two runs `profile` kept: the calls at the
    larger size less the smaller, over the packets more. Returns the calls a packet of each
    entry point and the callers that make the most, as (calls a packet, caller, by entry point)."""
    small, large = (calls_by_caller(os.path.join(work, name)) for name in ("callgrind.small.out", "callgrind.large.out"))
    per_call = {key: (large.get(key, 0) - small.get(key, 0)) / packets for key in set(small) | set(large)}
    totals = {entry: sum(v for (e, _), v in per_call.items() if e == entry) for entry in REFERENCE_COUNTING}
    by_caller = {}
    for (entry, caller), calls in per_call.items():
        if caller in REFERENCE_COUNTING:
            continue  # a bridge object's retain calls the plain one: counted once, at the bridge
        by_caller.setdefault(caller, {})[entry] = calls
    rows = sorted(((sum(v.values()), caller, v) for caller, v in by_caller.items() if sum(v.values()) >= 0.05),
                  key=lambda row: -row[0])[:top]
    names = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(r[1] for r in rows),
                           capture_output=True, text=True)
    if names.returncode == 0 and len(names.stdout.splitlines()) == len(rows):
        rows = [(calls, name, v) for (calls, _, v), name in zip(rows, names.stdout.splitlines())]
    return totals, rows


def profile(small_command, large_command, packets, work, top):
    """What one packet costs, function by function: each function's instructions at the larger
    size less those at the smaller, over the packets more (start-up cancelled), as
    (instructions a packet, share of the packet, name), the costliest first."""
    small, large = functions(small_command, work, "callgrind.small.out"), functions(large_command, work, "callgrind.large.out")
    per_packet = {name: (large.get(name, 0) - small.get(name, 0)) / packets for name in set(small) | set(large)}
    total = sum(per_packet.values())
    rows = sorted(((cost, cost / total * 100, name) for name, cost in per_packet.items() if cost > 0), reverse=True)[:top]
    # Swift's names, demangled and shortened.
    names = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(r[2] for r in rows),
                           capture_output=True, text=True)
    if names.returncode == 0 and len(names.stdout.splitlines()) == len(rows):
        rows = [(cost, share, name) for (cost, share, _), name in zip(rows, names.stdout.splitlines())]
    return total, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", type=int, default=20_000, help="LE packets in the smaller capture")
    parser.add_argument("--large", type=int, default=100_000, help="LE packets in the larger capture")
    parser.add_argument("--views", default=",".join(VIEWS), help="comma-separated views (default: all)")
    parser.add_argument("--profile", action="append", default=[], help="a view to profile (repeatable)")
    parser.add_argument("--census", action="append", default=[],
                        help="a profiled view whose reference counting to count by caller (repeatable)")
    parser.add_argument("--top", type=int, default=25, help="functions to list per profile")
    parser.add_argument("--btlog", default=os.path.join(ROOT, ".build", "release", "btlog"))
    parser.add_argument("--fixtures", default=os.path.join(ROOT, ".build", "release", "btlog-fixtures"))
    parser.add_argument("--work", default=os.path.join(ROOT, ".build", "instructions"))
    parser.add_argument("--out", default=os.path.join(ROOT, "Benchmarks", "INSTRUCTIONS.md"))
    parser.add_argument("--label", default="", help="what this build is (a commit, a step of the work)")
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    args.btlog = callgrind.runnable_copy(args.btlog, args.work)
    views = [v.strip() for v in args.views.split(",") if v.strip()]
    generated, real = {}, {}
    for count in (args.small, args.large):
        subprocess.run([args.fixtures, "bench", args.work, "--le", str(count), "--audio", "0"],
                       check=True, stdout=subprocess.DEVNULL)
        generated[count] = os.path.join(args.work, f"le-{count}.btsnoop")
        if any(view in REAL_VIEWS for view in views + args.profile + args.census):
            real[count] = os.path.join(args.work, f"real-{count}.btsnoop")
            bench.repeat_btsnoop(REAL_CAPTURE, count, real[count])

    def command(view, count):
        return VIEWS[view](args.btlog, (real if view in REAL_VIEWS else generated)[count])

    unknown = [v for v in views + args.profile + args.census if v not in VIEWS]
    args.profile += [v for v in args.census if v not in args.profile]
    if unknown:
        raise SystemExit(f"instructions: no view {', '.join(unknown)} (views: {', '.join(VIEWS)})")

    rows = []
    for view in views:
        small = instructions(command(view, args.small))
        large = instructions(command(view, args.large))
        per_packet = (large - small) / (args.large - args.small)
        rows.append((view, per_packet, small, large))
        print(f"instructions: {view}: {per_packet:,.0f} a packet", file=sys.stderr)

    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [f"# Instructions per packet ({datetime.date.today()}, {commit}{', ' + args.label if args.label else ''})", "",
             f"callgrind, one thread, the benchmark's LE session: ({args.large:,} packets - {args.small:,}) "
             "over the difference in instructions (`Scripts/instructions.py`). The real table: the "
             "third-party capture Fixtures/third-party/revcar repeated to the same sizes, as `bench.py --real` does.", "",
             "| View | Instructions a packet | At the smaller | At the larger |", "|---|---:|---:|---:|"]
    for view, per_packet, small, large in rows:
        lines.append(f"| {view} | {per_packet:,.0f} | {small:,} | {large:,} |")
    for view in args.profile:
        total, costliest = profile(command(view, args.small), command(view, args.large),
                                   args.large - args.small, args.work, args.top)
        lines += ["", f"## Where a packet of the {view} goes ({total:,.0f} instructions a packet)", "",
                  "Each function's own instructions, at the larger size less the smaller, over the packets more.", "",
                  "| Instructions a packet | Share | Function |", "|---:|---:|---|"]
        for cost, share, name in costliest:
            lines.append(f"| {cost:,.0f} | {share:.1f}% | `{name[:140]}` |")
        if view in args.census:
            totals, callers = census(args.work, args.large - args.small, args.top)
            lines += ["", f"### Reference counting in a packet of the {view}", "",
                      "Calls a packet: " + ", ".join(f"`{entry}` {calls:.1f}" for entry, calls in totals.items())
                      + " (a bridge object's retain or release, a String's, also calls the plain one).", "",
                      "| Calls a packet | Retain | Release | Caller |", "|---:|---:|---:|---|"]
            for calls, name, by_entry in callers:
                retains = by_entry.get("swift_retain", 0) + by_entry.get("swift_bridgeObjectRetain", 0)
                releases = by_entry.get("swift_release", 0) + by_entry.get("swift_bridgeObjectRelease", 0)
                lines.append(f"| {calls:.2f} | {retains:.2f} | {releases:.2f} | `{name[:140]}` |")
    report = "\n".join(lines) + "\n"
    # The record of earlier steps, kept by hand below the measurement, survives a new one.
    if os.path.exists(args.out):
        with open(args.out) as handle:
            previous = handle.read()
        if STEPS_HEADING in previous:
            report += "\n" + previous[previous.index(STEPS_HEADING):]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as handle:
        handle.write(report)
    print(report)


if __name__ == "__main__":
    main()
