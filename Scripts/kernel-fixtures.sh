#!/usr/bin/env bash
# Regenerates Fixtures/kernel-*.btsnoop: real kernel Bluetooth traffic, captured by
# `btlog capture -w` inside the qemu VM of Scripts/kernel-capture.sh, one set of testers each.
# The fixtures differ from run to run (addresses are fixed by the emulator, keys and times are
# not); the tests check properties of the traffic, not exact bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
for set in "l2cap:l2cap-tester" "smp:smp-tester" "rfcomm-sco:rfcomm-tester sco-tester" "iso:iso-tester"; do
    name=${set%%:*}; testers=${set#*:}
    out=.build/kernel-fixture-$name
    Scripts/kernel-capture.sh --testers "$testers" "$out" >/dev/null
    python3 Scripts/compare-captures.py "$out" | grep -E "^frames|^decoding" || true
    cp "$out/btlog.btsnoop" "Fixtures/kernel-$name.btsnoop"
    echo "Fixtures/kernel-$name.btsnoop: $(stat -c %s "Fixtures/kernel-$name.btsnoop") bytes"
done
# Both ends of a BR/EDR and an LE link, on one clock (btvirt's two controllers per emulator).
out=.build/kernel-fixture-two-hosts
Scripts/kernel-capture.sh --testers "" --scenario two-hosts "$out" >/dev/null
cp "$out/btlog.btsnoop" Fixtures/kernel-two-hosts.btsnoop
echo "Fixtures/kernel-two-hosts.btsnoop: $(stat -c %s Fixtures/kernel-two-hosts.btsnoop) bytes"
# Two kernel hosts bonding over LE (legacy Just Works, the central on a private address) and
# reconnecting on the distributed key.
out=.build/kernel-fixture-pairing
Scripts/kernel-capture.sh --testers "" --scenario pairing "$out" >/dev/null
cp "$out/btlog.btsnoop" Fixtures/kernel-pairing.btsnoop
echo "Fixtures/kernel-pairing.btsnoop: $(stat -c %s Fixtures/kernel-pairing.btsnoop) bytes"
