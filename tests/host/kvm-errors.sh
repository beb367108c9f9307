#!/usr/bin/env bash
# /dev/kvm error paths that need no KVM at all: a device node without a
# driver behind it, and one the user may not open. Run as root (to make the
# nodes); the permission case drops to uid 65534 with setpriv.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
vmm=$top/minivmm elf=$top/guest.elf
pass=0 fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

check() {	# check NAME WANT_STATUS NEEDLE -- CMD...
	local name=$1 want=$2 needle=$3 got
	shift 4
	"$@" >"$t/out" 2>"$t/err" </dev/null
	got=$?
	if [ "$got" -eq "$want" ] && grep -qF -- "$needle" "$t/err"; then
		pass=$((pass + 1))
		echo "PASS: $name"
	else
		fail=$((fail + 1))
		echo "FAIL: $name (status $got, want $want; stderr: $(head -c 300 "$t/err"))"
	fi
}

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	echo "SKIP: KVM device error paths (need root and setpriv to make device nodes)"
	echo "0 passed, 0 failed"
	exit 0
fi
# 10:232 is the KVM misc device; on a host without KVM nothing answers it.
mknod "$t/kvm-nodriver" c 10 232
chmod 666 "$t/kvm-nodriver"
if [ -e /dev/kvm ]; then
	echo "SKIP: KVM device without a driver (this host has KVM)"
else
	check "KVM device node without a driver" 2 "no KVM driver behind the device node" -- \
		"$vmm" --kvm "$t/kvm-nodriver" "$elf"
fi
mknod "$t/kvm-noperm" c 10 232
chmod 600 "$t/kvm-noperm"
cp "$elf" "$t/guest.elf"
chmod 755 "$t"
chmod 644 "$t/guest.elf"
check "KVM device without permission" 2 "permission denied: minivmm needs read-write access, not root (join group 'kvm'" -- \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$vmm" --kvm "$t/kvm-noperm" "$t/guest.elf"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
