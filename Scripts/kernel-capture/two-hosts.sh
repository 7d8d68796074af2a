# Sourced by init when the harness runs the two-hosts scenario: BlueZ's btvirt makes two
# controllers on one virtual air, and the kernel's own L2CAP connects them, BR/EDR and LE, so
# the monitor sees both ends of each link on one clock. Tests split the capture by
# controller and merge the halves back (btlog merge).
# Two emulators: a BR/EDR pair (hci0, hci1) and an LE-only pair (hci2, hci3), since the kernel
# turns LE on by itself only for an LE-only controller (bluetoothd is not running).
btvirt -l2 >/tmp/btvirt.log 2>&1 &
BTVIRT=$!
wait_for hci1
btvirt -L -l2 >/tmp/btvirt-le.log 2>&1 &
BTVIRT_LE=$!
wait_for hci3
say "btvirt controllers: $(ls /sys/class/bluetooth | tr '\n' ' ')"
for index in 0 1 2 3; do hciconfig hci$index up; done
hciconfig hci1 piscan
address() { hciconfig "$1" | sed -n 's/.*BD Address: \([0-9A-F:]*\).*/\1/p'; }
A0=$(address hci0); A1=$(address hci1); A3=$(address hci3)
say "hci0 $A0, hci1 $A1, hci3 $A3"
# BR/EDR: a connection-oriented channel carrying data; then, while the LE pair works, an echo
# request every second for 4 minutes (both directions, over the span a clock's drift needs).
l2test -i hci1 -r -P 0x1001 >/tmp/l2test-bredr-server.log 2>&1 &
BREDR_SERVER=$!
sleep 0.5
timeout 30 l2test -i hci0 -s -P 0x1001 -b 200 -N 30 -D 20 "$A1" >/tmp/l2test-bredr.log 2>&1; say "l2test bredr exit $?"
# A silent channel holds the link (the kernel drops an ACL link with no channel after 2 s,
# and echo requests are no channel).
timeout 260 l2test -i hci0 -n -P 0x1001 "$A1" >/tmp/l2test-hold.log 2>&1 &
HOLD=$!
sleep 0.5
l2ping -i hci0 -c 240 -s 44 "$A1" >/tmp/l2ping.log 2>&1 &
PING=$!
# LE: hci3 advertises, hci2 connects on an LE credit-based channel and sends data both ways.
hciconfig hci3 leadv 0
l2test -i hci3 -x -V le_public -P 0x0080 -b 60 -N 10 >/tmp/l2test-le-server.log 2>&1 &
LE_SERVER=$!
sleep 0.5
# A frame every 2 s for 4 minutes (a clock's drift shows over minutes, not seconds); -y then
# dumps what arrives until it is stopped: 143 (stopped by timeout's SIGTERM) is its normal end.
timeout 245 l2test -i hci2 -y -V le_public -P 0x0080 -b 80 -N 120 -D 2000 "$A3" >/tmp/l2test-le.log 2>&1; say "l2test le exit $?"
sleep 1; kill $LE_SERVER 2>/dev/null
wait $PING; say "l2ping exit $?"
kill $HOLD 2>/dev/null; sleep 0.5; kill $BREDR_SERVER 2>/dev/null
kill $BTVIRT $BTVIRT_LE 2>/dev/null
