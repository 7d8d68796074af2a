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
     (each function's own instructions, the smaller size's subtracted from the larger's).

Writes a Markdown table (Benchmarks/INSTRUCTIONS.md by default), so that each step of the work
is measured against the one before it, on the same captures.
"""
import argparse
import datetime
import os
import subprocess
import sys

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
}


def environment():
    env = dict(os.environ)
    env["BTLOG_THREADS"] = "1"
    return env


def instructions(command, out_file="/dev/null"):
    return callgrind.instructions(command, environment(), out_file, who="instructions")


def functions(command, work):
    """Each function's own instructions in one run, by name."""
    out = os.path.join(work, "callgrind.out")
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


def profile(small_command, large_command, packets, work, top):
    """What one packet costs, function by function: each function's instructions at the larger
    size less those at the smaller, over the packets more (start-up cancelled), as
    (instructions a packet, share of the packet, name), the costliest first."""
    small, large = functions(small_command, work), functions(large_command, work)
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
    parser.add_argument("--top", type=int, default=25, help="functions to list per profile")
    parser.add_argument("--btlog", default=os.path.join(ROOT, ".build", "release", "btlog"))
    parser.add_argument("--fixtures", default=os.path.join(ROOT, ".build", "release", "btlog-fixtures"))
    parser.add_argument("--work", default=os.path.join(ROOT, ".build", "instructions"))
    parser.add_argument("--out", default=os.path.join(ROOT, "Benchmarks", "INSTRUCTIONS.md"))
    parser.add_argument("--label", default="", help="what this build is (a commit, a step of the work)")
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    args.btlog = callgrind.runnable_copy(args.btlog, args.work)
    paths = {}
    for count in (args.small, args.large):
        subprocess.run([args.fixtures, "bench", args.work, "--le", str(count), "--audio", "0"],
                       check=True, stdout=subprocess.DEVNULL)
        paths[count] = os.path.join(args.work, f"le-{count}.btsnoop")
    views = [v.strip() for v in args.views.split(",") if v.strip()]
    unknown = [v for v in views + args.profile if v not in VIEWS]
    if unknown:
        raise SystemExit(f"instructions: no view {', '.join(unknown)} (views: {', '.join(VIEWS)})")

    rows = []
    for view in views:
        small = instructions(VIEWS[view](args.btlog, paths[args.small]))
        large = instructions(VIEWS[view](args.btlog, paths[args.large]))
        per_packet = (large - small) / (args.large - args.small)
        rows.append((view, per_packet, small, large))
        print(f"instructions: {view}: {per_packet:,.0f} a packet", file=sys.stderr)

    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [f"# Instructions per packet ({datetime.date.today()}, {commit}{', ' + args.label if args.label else ''})", "",
             f"callgrind, one thread, the benchmark's LE session: ({args.large:,} packets - {args.small:,}) "
             "over the difference in instructions (`Scripts/instructions.py`).", "",
             "| View | Instructions a packet | At the smaller | At the larger |", "|---|---:|---:|---:|"]
    for view, per_packet, small, large in rows:
        lines.append(f"| {view} | {per_packet:,.0f} | {small:,} | {large:,} |")
    for view in args.profile:
        total, costliest = profile(VIEWS[view](args.btlog, paths[args.small]), VIEWS[view](args.btlog, paths[args.large]),
                                   args.large - args.small, args.work, args.top)
        lines += ["", f"## Where a packet of the {view} goes ({total:,.0f} instructions a packet)", "",
                  "Each function's own instructions, at the larger size less the smaller, over the packets more.", "",
                  "| Instructions a packet | Share | Function |", "|---:|---:|---|"]
        for cost, share, name in costliest:
            lines.append(f"| {cost:,.0f} | {share:.1f}% | `{name[:140]}` |")
    report = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as handle:
        handle.write(report)
    print(report)


if __name__ == "__main__":
    main()
