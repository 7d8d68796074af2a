#!/usr/bin/env bash
# Captures real kernel Bluetooth traffic with btlog and btmon side by side, in a qemu VM.
#
# Boots Debian's kernel (bluetooth.ko, hci_vhci.ko) under software emulation with an initramfs
# holding busybox, BlueZ's emulator testers (virtual controllers through /dev/vhci driving
# pairing, L2CAP, RFCOMM, SCO, ISO and BNEP through the real kernel stack), btmon and btlog.
# Inside, `btlog capture -w` and `btmon -w` record the same HCI monitor stream; the files come
# out through a 9p share into OUTDIR (btlog.btsnoop, btmon.btsnoop, btlog-sigterm.btsnoop and
# the logs). Compare them with Scripts/compare-captures.py.
#
# Usage: Scripts/kernel-capture.sh [--btlog PATH] [--testers "l2cap-tester smp-tester:PREFIX ..."]
#                                  [--scenario two-hosts|pairing] OUTDIR
# A scenario (Scripts/kernel-capture/NAME.sh) runs after the testers, with BlueZ's command-line
# tools (btvirt, btmgmt, hciconfig, l2ping, l2test) in the VM.
# Exit status 0 on a finished run, 77 when qemu cannot run here (the caller skips), else 1.
set -euo pipefail
cd "$(dirname "$0")/.."
BTLOG=.build/release/btlog
TESTERS="l2cap-tester smp-tester rfcomm-tester sco-tester bnep-tester iso-tester"
SIGTERM_AFTER=l2cap-tester
SCENARIO=""
while [ $# -gt 1 ]; do
    case "$1" in
        --btlog) BTLOG=$2; shift 2 ;;
        --testers) TESTERS=$2; shift 2 ;;
        --scenario) SCENARIO=$2; shift 2 ;;
        *) break ;;
    esac
done
OUT=$(realpath -m "${1:?usage: $0 [--btlog PATH] [--testers LIST] OUTDIR}")
WORK=$(realpath -m .build/kernel-capture-work)
mkdir -p "$OUT" "$WORK"
rm -f "$OUT"/*.btsnoop "$OUT"/*.log

need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
[ -x /bin/busybox ] && /bin/busybox --list | grep -qx insmod || need+=(busybox-static)
command -v btmon >/dev/null || need+=(bluez)
command -v l2cap-tester >/dev/null || need+=(bluez-test-tools)
command -v depmod >/dev/null || need+=(kmod)
command -v cpio >/dev/null || need+=(cpio)
if [ ${#need[@]} -gt 0 ]; then
    SUDO=""; [ "$(id -u)" != 0 ] && SUDO=sudo
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v qemu-system-x86_64 >/dev/null || { echo "kernel-capture: qemu-system-x86_64 is not available; skipped"; exit 77; }

# The kernel: unpacked, not installed (no initramfs hooks, no bootloader).
KVER_PACKAGE=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/ {print $2; exit}')
KVER=${KVER_PACKAGE#linux-image-}
if [ ! -f "$WORK/kernel/boot/vmlinuz-$KVER" ]; then
    rm -rf "$WORK/kernel" && mkdir -p "$WORK/kernel"
    (cd "$WORK" && apt-get download -qq "$KVER_PACKAGE" 2>/dev/null && dpkg-deb -x "$KVER_PACKAGE"_*.deb kernel && rm -f "$KVER_PACKAGE"_*.deb)
    depmod -b "$WORK/kernel" "$KVER"
fi
MODDIR="$WORK/kernel/lib/modules/$KVER"

ROOT="$WORK/initramfs"
rm -rf "$ROOT" && mkdir -p "$ROOT"/{bin,usr/bin,usr/sbin,modules,proc,sys,dev,tmp,out,etc}
cp /bin/busybox "$ROOT/bin/busybox"
echo "root:x:0:0:root:/:/bin/sh" > "$ROOT/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/sh" >> "$ROOT/etc/passwd"
echo "root:x:0:" > "$ROOT/etc/group"

# Modules with their dependencies, in load order (dependencies first, the DRBG before ECDH).
WANTED="sha3_generic jitterentropy_rng drbg af_alg algif_hash algif_skcipher cmac ecb ecdh_generic bluetooth hci_vhci rfcomm bnep virtio_pci 9pnet_virtio 9p"
: > "$ROOT/modules.order"
add_module() {
    local rel
    rel=$(awk -v m="$1" -F: '{n=$1; sub(/.*\//, "", n); sub(/\.ko.*$/, "", n); gsub(/-/, "_", n); if (n == m) {print $1; exit}}' "$MODDIR/modules.dep")
    [ -n "$rel" ] || return 0  # built into this kernel
    local base; base=$(basename "$rel")
    grep -qx "$base" "$ROOT/modules.order" && return 0
    for dep in $(awk -v r="$rel" -F': *' '$1 == r {print $2}' "$MODDIR/modules.dep"); do
        local dname; dname=$(basename "$dep"); dname=${dname%%.ko*}; add_module "${dname//-/_}"
    done
    case "$rel" in
        *.ko.xz) xz -dc "$MODDIR/$rel" > "$ROOT/modules/${base%.xz}"; base=${base%.xz} ;;
        *.ko.zst) zstd -qdc "$MODDIR/$rel" > "$ROOT/modules/${base%.zst}"; base=${base%.zst} ;;
        *) cp "$MODDIR/$rel" "$ROOT/modules/$base" ;;
    esac
    grep -qx "$base" "$ROOT/modules.order" || echo "$base" >> "$ROOT/modules.order"
}
for module in $WANTED; do add_module "$module"; done
echo "bluetooth.ko enable_ecred=1" > "$ROOT/modules.params"

# Programs and the shared libraries they load.
copy_with_libraries() {
    local program=$1 target=$2
    cp "$program" "$ROOT$target"
    ldd "$program" | awk '/=>/ {print $3} /^\t\/lib/ {print $1}' | while read -r lib; do
        [ -n "$lib" ] && [ -f "$lib" ] || continue
        mkdir -p "$ROOT$(dirname "$lib")"
        cp -L "$lib" "$ROOT$lib"
    done
}
for tester in $TESTERS; do copy_with_libraries "$(command -v "${tester%%:*}")" "/usr/bin/${tester%%:*}"; done
copy_with_libraries "$(command -v btmon)" /usr/bin/btmon
strip -o "$WORK/btlog" "$BTLOG"
copy_with_libraries "$WORK/btlog" /usr/bin/btlog
mkdir -p "$ROOT/lib64" && cp -L /lib64/ld-linux-x86-64.so.2 "$ROOT/lib64/"
if [ -n "$SCENARIO" ]; then
    for tool in btvirt btmgmt hciconfig l2ping l2test; do copy_with_libraries "$(command -v $tool)" "/usr/bin/$tool"; done
    cp "Scripts/kernel-capture/$SCENARIO.sh" "$ROOT/$SCENARIO.sh"
fi
cp Scripts/kernel-capture/init "$ROOT/init"
chmod +x "$ROOT/init"
{
    echo "TESTERS=\"$TESTERS\""
    echo "TESTER_TIMEOUT=${TESTER_TIMEOUT:-240}"
    echo "SIGTERM_AFTER=$SIGTERM_AFTER"
    echo "SCENARIO=$SCENARIO"
} > "$ROOT/harness.conf"
(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) > "$WORK/initramfs.cpio.gz"

echo "kernel-capture: booting $KVER with: $TESTERS"
set +e
timeout "${VM_TIMEOUT:-1500}" qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 1536 -nographic -no-reboot \
    -kernel "$WORK/kernel/boot/vmlinuz-$KVER" -initrd "$WORK/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3" \
    -virtfs "local,path=$OUT,mount_tag=out,security_model=none,id=out" \
    </dev/null > "$OUT/console.log" 2>&1
status=$?
set -e
grep "HARNESS:" "$OUT/console.log" | sed 's/^/kernel-capture: /' || true
if ! grep -q "HARNESS: done" "$OUT/console.log"; then
    echo "kernel-capture: the VM did not finish (qemu status $status); console: $OUT/console.log"
    tail -20 "$OUT/console.log"
    exit 1
fi
ls -la "$OUT"
