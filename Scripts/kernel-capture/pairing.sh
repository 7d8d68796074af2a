# Sourced by init when the harness runs the pairing scenario: two kernel hosts on btvirt's LE
# pair bond through the kernel's own SMP, driven over mgmt as bluetoothd would drive it, and
# then reconnect on the key they exchanged. The monitor sees both ends of the pairing on one
# clock: the short-term key in one host's LE Long Term Key Request Reply, the keys each host
# distributes (LTK with EDIV/Rand, the central's IRK and identity address, CSRK) as plaintext
# SMP in both logs, the central's resolvable private address in the peripheral's LE
# Connection Complete, and the reconnection encrypted with the distributed LTK.
# The central (hci0) has privacy on, so it connects from a resolvable private address; the
# peripheral (hci1) advertises its public address. Both have NoInputNoOutput: Just Works, LE
# legacy pairing (Secure Connections stays off, so the LTK is distributed, not derived).
btvirt -L -l2 >/tmp/btvirt.log 2>&1 &
BTVIRT=$!
wait_for hci1
say "btvirt controllers: $(ls /sys/class/bluetooth | tr '\n' ' ')"
mgmt() { index=$1; shift; timeout 20 btmgmt --index "$index" "$@" </dev/null >>/tmp/btmgmt.log 2>&1 || say "btmgmt $index $* failed"; }
for index in 0 1; do
    mgmt $index power off
    mgmt $index le on
    mgmt $index bondable on
    mgmt $index io-cap 3
done
mgmt 0 privacy on
# Loading IRKs (none) is what makes a host resolve private addresses, and so ask its peer for
# an identity key when they pair (bluetoothd loads its stored ones at start).
for index in 0 1; do mgmt $index irks; done
for index in 0 1; do mgmt $index power on; done
address() { hciconfig "$1" | sed -n 's/.*BD Address: \([0-9A-F:]*\).*/\1/p'; }
A1=$(address hci1)
say "hci1 $A1"
mgmt 1 connectable on
mgmt 1 advertising on
sleep 1
# The kernel asks user space to accept even Just Works (mgmt User Confirmation Request), on
# both sides: an interactive btmgmt per host answers "yes" to its prompt, as an agent would.
agent() {   # INDEX [COMMAND]: btmgmt reading COMMAND, then "yes" twice a second for 20 s
    { sleep 0.5; [ -n "$2" ] && echo "$2"; i=0; while [ $i -lt 40 ]; do sleep 0.5; echo yes; i=$((i + 1)); done; echo quit; } \
        | timeout 30 btmgmt --index "$1" >"/tmp/agent$1.log" 2>&1
}
agent 1 &
RESPONDER=$!
# Pairing: mgmt's Pair Device connects, pairs and bonds; the link goes once it is idle.
agent 0 "pair -c 3 -t 1 $A1"
wait $RESPONDER
say "pairing: $(grep -aE 'Paired|failed|Accept' /tmp/agent0.log | tr '\n' ' ' | cut -c1-200)"
# Reconnection: an LE credit-based channel at security level medium; the kernel encrypts the
# link with the LTK the peripheral distributed (EDIV/Rand in LE Enable Encryption, the key in
# the peripheral's LTK Request Reply) before the channel opens. A frame a second for 20 s.
l2test -i hci1 -r -E -V le_public -P 0x0080 >/tmp/l2test-le-server.log 2>&1 &
LE_SERVER=$!
sleep 0.5
timeout 30 l2test -i hci0 -y -E -V le_public -P 0x0080 -b 40 -N 20 -D 1000 "$A1" >/tmp/l2test-le.log 2>&1; say "l2test le exit $?"
sleep 1; kill $LE_SERVER 2>/dev/null
sleep 3
mgmt 0 unpair -t 1 "$A1"
kill $BTVIRT 2>/dev/null
