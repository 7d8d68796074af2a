#!/usr/bin/env python3
"""btlog browse against termshark, side by side in tmux, on the same captures (issue 32).

    python3 Scripts/browse-bench.py [--packets 100000,500000] [--runs 3] [--out Benchmarks/RESULTS.md]

For each capture (the LE benchmark session of `btlog-fixtures bench`, as Scripts/bench.py makes
it) and each tool, in rotating order, a tmux pane of 160x50 runs the browser and the script
reads the screen back (capture-pane) every 10 ms:

  first screen   launch until the list shows packet 1
  last listed    launch until End (pressed every 250 ms) shows the last packet's row
  filter         Enter on a filter until End shows the last matching packet (btlog: and its
                 status says the scan is done); the filter is the same in both tools' languages
  key while      (btlog) a key pressed right after the filter's Enter: until the screen shows
  filtering      what it does (the go-to field), while the scan still runs
  memory         resident memory of the tool's whole process tree (termshark runs tshark
                 processes) once the capture is loaded and the filter applied

Medians of the runs are reported, with the ratio termshark / btlog. termshark is Debian's
package (2.4); the script says so when it is missing and measures btlog alone.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDTH, HEIGHT = 160, 50
# The same question in both languages: ATT Read Requests.
BTLOG_FILTER = "att.opcode == read_request"
TSHARK_FILTER = "btatt.opcode == 0x0a"


class Pane:
    def __init__(self, command):
        self.socket = f"browse-bench-{os.getpid()}"
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], stderr=subprocess.DEVNULL)
        environment = dict(os.environ, LANG="C.UTF-8", TERM="xterm-256color")
        environment.pop("NO_COLOR", None)
        self.started = time.monotonic()
        subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", "new-session", "-d", "-s", "bench",
                        "-x", str(WIDTH), "-y", str(HEIGHT), command],
                       check=True, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

    def screen(self):
        return subprocess.run(["tmux", "-L", self.socket, "capture-pane", "-p", "-t", "bench"],
                              capture_output=True, text=True).stdout

    def keys(self, *keys, literal=False):
        subprocess.run(["tmux", "-L", self.socket, "send-keys", "-t", "bench"] + (["-l"] if literal else []) + list(keys))

    def wait(self, condition, timeout, every=None, press=()):
        """Seconds until condition(screen) holds, pressing `press` every `every` seconds; None on timeout."""
        start = time.monotonic()
        last_press = 0.0
        while time.monotonic() - start < timeout:
            if every and time.monotonic() - last_press >= every:
                self.keys(*press)
                last_press = time.monotonic()
            if condition(self.screen()):
                return time.monotonic()
            time.sleep(0.01)
        return None

    def pid(self):
        out = subprocess.run(["tmux", "-L", self.socket, "list-panes", "-t", "bench", "-F", "#{pane_pid}"],
                             capture_output=True, text=True).stdout.strip()
        return int(out) if out else None

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], stderr=subprocess.DEVNULL)


def tree_rss_mb(pid):
    """Resident memory of a process and all its descendants, in MB."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo += children.get(current, [])
        try:
            with open(f"/proc/{current}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def row(number):
    pattern = re.compile(rf"^\s*{number}\s+\S", re.M)
    return lambda screen: pattern.search(screen) is not None


def measure(tool, path, packets, last_match, btlog):
    if tool == "btlog":
        pane = Pane(f"'{btlog}' browse '{path}'")
    else:
        pane = Pane(f"termshark -r '{path}'")
    result = {}
    try:
        first = pane.wait(row(1), 60)
        result["first"] = first - pane.started if first else None
        # termshark starts with the focus in the list as btlog does: End reaches the last row.
        last = pane.wait(row(packets), 300, every=0.25, press=("End",))
        result["last"] = last - pane.started if last else None
        if tool == "btlog":
            pane.wait(lambda s: "loading" not in s, 120)
            pane.keys("f")
            pane.keys(BTLOG_FILTER, literal=True)
            start = time.monotonic()
            pane.keys("Enter", ":")
            shown = pane.wait(lambda s: "Go to packet:" in s, 30)
            result["key"] = shown - start if shown else None
            pane.keys("Escape")
            done = pane.wait(lambda s: row(last_match)(s) and "filtering" not in s, 300, every=0.25, press=("End",))
        else:
            time.sleep(1)  # the list's loader settles
            pane.keys("/")
            time.sleep(0.3)
            pane.keys(TSHARK_FILTER, literal=True)
            start = time.monotonic()
            pane.keys("Enter", "Tab")
            done = pane.wait(row(last_match), 300, every=0.25, press=("End",))
        result["filter"] = done - start if done else None
        pid = pane.pid()
        result["rss"] = tree_rss_mb(pid) if pid else None
    finally:
        pane.close()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--packets", default="100000,500000", help="sizes of the LE capture (comma-separated)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", default=os.path.join(ROOT, ".build", "browse-bench"))
    parser.add_argument("--out", default=os.path.join(ROOT, "Benchmarks", "RESULTS.md"),
                        help="the results file whose 'btlog browse' section is replaced")
    parser.add_argument("--btlog", default=os.path.join(ROOT, ".build", "release", "btlog"))
    parser.add_argument("--fixtures", default=os.path.join(ROOT, ".build", "release", "btlog-fixtures"))
    args = parser.parse_args()
    if not shutil.which("tmux"):
        raise SystemExit("browse-bench: tmux is not installed")
    tools = ["btlog"] + (["termshark"] if shutil.which("termshark") else [])
    if len(tools) == 1:
        print("browse-bench: termshark is not installed (apt-get install termshark): btlog alone", file=sys.stderr)
    os.makedirs(args.work, exist_ok=True)
    sizes = [int(n) for n in args.packets.split(",")]
    rows = []
    for packets in sizes:
        path = os.path.join(args.work, f"le-{packets}.btsnoop")
        if not os.path.exists(path):
            subprocess.run([args.fixtures, "bench", args.work, "--le", str(packets), "--audio", "0"], check=True,
                           stdout=subprocess.DEVNULL)
        numbers = subprocess.run([args.btlog, "show", "-f", BTLOG_FILTER, "--fields", "frame.number", path],
                                 capture_output=True, text=True, check=True).stdout.split()
        last_match = int(numbers[-1])
        runs = {tool: [] for tool in tools}
        for run in range(args.runs):
            order = tools[run % len(tools):] + tools[:run % len(tools)]
            for tool in order:
                result = measure(tool, path, packets, last_match, args.btlog)
                print(f"browse-bench: {packets} packets, {tool}, run {run + 1}: {result}", file=sys.stderr)
                runs[tool].append(result)
        rows.append((packets, os.path.getsize(path), len(numbers), runs))
    write(args.out, rows, tools, args.runs)


def median(results, key):
    values = [r[key] for r in results if r.get(key) is not None]
    return statistics.median(values) if values else None


def write(out, rows, tools, runs):
    lines = ["## btlog browse against termshark (Scripts/browse-bench.py)", "",
             f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, tmux {WIDTH}x{HEIGHT}, medians of {runs} runs in rotating order. "
             "The LE benchmark session (`btlog-fixtures bench`). Times from launch: the first screen (packet 1 listed) and the "
             "last packet listed (End pressed every 250 ms until its row shows); the filter from Enter until End shows the last "
             f"matching packet (`{BTLOG_FILTER}` / `{TSHARK_FILTER}`); a key pressed while the filter runs (btlog); resident "
             "memory of the whole process tree (termshark's tshark processes included).", "",
             "| Packets | File | Tool | First screen | Last listed | Filter | Key while filtering | Memory |",
             "|---:|---:|---|---:|---:|---:|---:|---:|"]
    fmt = lambda v, unit: "n/a" if v is None else (f"{v:.2f} s" if unit == "s" else f"{v * 1000:.0f} ms" if unit == "ms" else f"{v:.0f} MB")
    for packets, size, matches, results in rows:
        for tool in tools:
            r = results[tool]
            lines.append(f"| {packets:,} | {size / 1e6:.1f} MB | {tool} | {fmt(median(r, 'first'), 's')} | {fmt(median(r, 'last'), 's')} | "
                         f"{fmt(median(r, 'filter'), 's')} | {fmt(median(r, 'key'), 'ms')} | {fmt(median(r, 'rss'), 'mb')} |")
        if "termshark" in tools:
            ratios = []
            for key, name in (("first", "first screen"), ("last", "last listed"), ("filter", "filter"), ("rss", "memory")):
                a, b = median(results["termshark"], key), median(results["btlog"], key)
                if a and b:
                    ratios.append(f"{name} {a / b:.1f}x")
            lines.append(f"| | | termshark / btlog | {' · '.join(ratios)} | | | | |")
    section = "\n".join(lines) + "\n"
    text = open(out).read() if os.path.exists(out) else ""
    start = text.find("## btlog browse against termshark")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    with open(out, "w") as f:
        f.write(text)
    print(section)


if __name__ == "__main__":
    main()
