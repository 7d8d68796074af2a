"""Counting instructions with callgrind, shared by the scripts that measure btlog's cost
(instructions.py, described-cost.py)."""

import os
import subprocess


def runnable_copy(btlog, work):
    """A copy of the btlog binary valgrind can run. Valgrind cannot read a Swift release build's
    debug information (DWARF 5); the copy drops it but keeps the symbol table, so a profile still
    names functions."""
    copy = os.path.join(work, "btlog-nodebug")
    subprocess.run(["strip", "--strip-debug", "-o", copy, btlog], check=True)
    return copy


def instructions(command, env, out_file="/dev/null", who="callgrind"):
    """Instructions callgrind counts for one run of the command."""
    result = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}"] + command,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{who}: {' '.join(command)} failed:\n{result.stderr[-2000:]}")
    for line in result.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip())
    raise SystemExit(f"{who}: callgrind printed no instruction count")
