#!/usr/bin/env bash
# The benchmark in one command from a clean clone: installs what it compares with (tshark,
# bluez's btmon) if missing, builds btlog in release mode, then runs Scripts/bench.py with the
# arguments given (see --help) and writes Benchmarks/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v tshark >/dev/null || missing+=(tshark)
command -v btmon >/dev/null || missing+=(bluez)
command -v python3 >/dev/null || missing+=(python3)
command -v cc >/dev/null || command -v clang >/dev/null || missing+=(gcc)
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq libpcap-dev libpcre2-dev zlib1g-dev "${missing[@]}" >/dev/null
fi
swift build -c release
exec python3 Scripts/bench.py "$@"
