#!/usr/bin/env python3
"""Mutated captures through every verb that reads one: no trap, no runaway allocation, no hang.

    Scripts/mutate-captures.py [--count N] [--seed S] [--btlog PATH] [--timeout SECONDS] [FILE...]

Each mutation takes one capture (every fixture and third-party capture by default) and changes
it as a damaged or hostile file would be: random bytes anywhere, or, in pcap, pcapng and btsnoop
files, a record header's timestamp or length (the fields a byte flip rarely reaches in a large
file). Each mutant goes through show, show -V, stats, stats --throughput, stats --svg, diagnose,
export --format jsonl, gatt and grep. A run fails when btlog dies of a signal or a Swift runtime
trap ("Fatal error"), asks for more memory than --memory allows, runs past --timeout, or (a
btlog built with -sanitize=address or thread) its sanitizer reports an error or a race; exit
statuses 0, 1 and 2 are all answers. Failing inputs are kept in --keep (default
.build/mutations) with the command that failed; the summary is one line per verb.
"""
import argparse
import os
import random
import resource
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

VERBS = [
    ["show"],
    ["show", "-V"],
    ["stats"],
    ["stats", "--throughput"],
    ["stats", "--throughput", "--svg", "{svg}"],
    ["diagnose"],
    ["export", "--format", "jsonl"],
    ["gatt"],
    ["grep", "-c", "ATT|SMP|LL_"],
]


def default_inputs():
    found = []
    third = os.path.join(ROOT, "Fixtures", "third-party")
    folders = ["Fixtures"] + [os.path.join("Fixtures", "third-party", name) for name in sorted(os.listdir(third))]
    for folder in folders:
        path = os.path.join(ROOT, folder)
        for name in sorted(os.listdir(path)):
            if name.endswith((".btsnoop", ".pklg", ".pcap", ".pcapng", ".gz", ".zip", ".log")):
                found.append(os.path.join(path, name))
    return found


def record_headers(data):
    """(offset, kind) of each record header's timestamp and length fields we know how to find."""
    fields = []
    if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4"):
        offset = 24
        endian = "<" if data[:4] == b"\xd4\xc3\xb2\xa1" else ">"
        while offset + 16 <= len(data):
            caplen = struct.unpack(endian + "I", data[offset + 8:offset + 12])[0]
            fields.append((offset, "pcap-seconds"))
            fields.append((offset + 4, "pcap-micros"))
            fields.append((offset + 8, "pcap-length"))
            offset += 16 + caplen
    elif data[:8] == b"btsnoop\x00":
        offset = 16
        while offset + 24 <= len(data):
            length = struct.unpack(">I", data[offset + 4:offset + 8])[0]
            fields.append((offset + 16, "btsnoop-time"))
            fields.append((offset + 4, "btsnoop-length"))
            offset += 24 + length
    elif data[:4] == b"\x0a\x0d\x0d\x0a":
        offset = 0
        while offset + 12 <= len(data):
            block_type, block_length = struct.unpack("<II", data[offset:offset + 8])
            if block_length < 12:
                break
            if block_type == 6 and offset + 20 <= len(data):
                fields.append((offset + 12, "pcapng-time-high"))
                fields.append((offset + 16, "pcapng-time-low"))
            offset += block_length
    return fields


def mutate(data, rng):
    data = bytearray(data)
    headers = record_headers(bytes(data))
    if headers and rng.random() < 0.5:
        offset, kind = rng.choice(headers)
        if kind.endswith("length"):
            value = rng.choice([0, 1, 0xFFFF, 0xFFFFFFFF, rng.randrange(0, 1 << 32)])
            data[offset:offset + 4] = struct.pack("<I", value)
        else:
            # A timestamp years away, at a type's end, or a few bytes changed.
            choice = rng.random()
            if choice < 0.3:
                data[offset:offset + 4] = bytes(rng.randrange(256) for _ in range(4))
            elif choice < 0.6:
                data[offset:offset + 4] = rng.choice([b"\xff\xff\xff\xff", b"\x7f\xff\xff\xff", b"\x80\x00\x00\x00", b"\x00\x00\x00\x00"])
            else:
                data[offset + rng.randrange(4)] ^= 1 << rng.randrange(8)
    else:
        for _ in range(rng.randint(1, 8)):
            if not data:
                break
            data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


# What a sanitizer prints when it finds something: AddressSanitizer exits 1 after its report,
# which would otherwise pass for btlog's own "no such packet" answer.
SANITIZER_REPORTS = ("ERROR: AddressSanitizer", "WARNING: ThreadSanitizer", "ERROR: LeakSanitizer")


# Under AddressSanitizer, no leak check at exit: what btlog keeps for the life of the process
# (field definitions, layer kinds: made once, never freed by design) is not a leak, and the
# runaway allocation a leak check would catch is caught by --memory and the fuzz runs' RSS limit.
ENVIRONMENT = dict(os.environ, SWIFT_BACKTRACE="enable=no",
                   ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "detect_leaks=0"))


def limit_memory(megabytes):
    def apply():
        if megabytes <= 0:
            return  # a sanitizer's shadow memory reserves far more address space than any limit
        size = megabytes << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    return apply


def run_one(args, index, source, mutant, folder):
    failures = []
    suffix = os.path.splitext(source)[1]
    path = os.path.join(folder, "mutant-%d%s" % (index, suffix))
    with open(path, "wb") as handle:
        handle.write(mutant)
    for verb in VERBS:
        command = [args.btlog] + [part.replace("{svg}", path + ".svg") for part in verb] + [path]
        try:
            result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=args.timeout,
                                    preexec_fn=limit_memory(args.memory), env=ENVIRONMENT)
            text = result.stderr.decode("utf-8", "replace")
            report = next((line for line in text.splitlines() if any(mark in line for mark in SANITIZER_REPORTS)), None)
            if report:
                failures.append((verb, "status %d: %s" % (result.returncode, report.strip())))
            elif result.returncode < 0 or result.returncode > 2 or "Fatal error" in text or "failed to allocate" in text:
                failures.append((verb, "status %d: %s" % (result.returncode, text.strip().splitlines()[-1:] if text.strip() else "")))
        except subprocess.TimeoutExpired:
            failures.append((verb, "ran past %d s" % args.timeout))
    if failures:
        keep = os.path.join(args.keep, "mutant-%d-%s%s" % (index, os.path.basename(source).split(".")[0], suffix))
        os.makedirs(args.keep, exist_ok=True)
        with open(keep, "wb") as handle:
            handle.write(mutant)
        failures = [(verb, why, keep) for verb, why in failures]
    for leftover in (path, path + ".svg"):
        if os.path.exists(leftover):
            os.unlink(leftover)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--btlog", default=os.path.join(ROOT, ".build/release/btlog"))
    parser.add_argument("--timeout", type=int, default=20)
    parser.add_argument("--memory", type=int, default=2048,
                        help="address space limit per run, MiB (0: none, for a sanitizer's build)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--keep", default=os.path.join(ROOT, ".build/mutations"))
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    inputs = args.files or default_inputs()
    rng = random.Random(args.seed)
    originals = {path: open(path, "rb").read() for path in inputs}
    plan = []
    for index in range(args.count):
        source = inputs[index % len(inputs)]
        plan.append((index, source, mutate(originals[source], rng)))
    failures = []
    with tempfile.TemporaryDirectory(prefix="btlog-mutate-") as folder:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for found in pool.map(lambda item: run_one(args, item[0], item[1], item[2], folder), plan):
                failures.extend(found)
    runs = args.count * len(VERBS)
    for verb, why, keep in failures:
        print("FAIL btlog %s %s: %s" % (" ".join(verb), keep, why))
    print("%d mutated captures from %d files, %d runs through %d verbs: %d failed" % (args.count, len(inputs), runs, len(VERBS), len(failures)))
    print("%d passed, %d failed" % (runs - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
