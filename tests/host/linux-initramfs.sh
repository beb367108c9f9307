#!/usr/bin/env bash
# The Linux test initramfs and its transmit check, without any VM: the cpio
# holds what /init needs (static busybox, /init, tx.awk, the static
# workloads of tests/linux/work/ under /mvm/bin) and nothing else,
# /init parses under busybox sh, the build is reproducible, and check-tx.sh
# accepts a complete transmit and refuses a lost line, a changed byte and a
# missing or wrong summary line.
# Usage: tests/host/linux-initramfs.sh [INITRAMFS.cpio] (default build/linux/initramfs.cpio)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cpio_file=$(realpath -m -- "${1:-$top/build/linux/initramfs.cpio}")
tools=$top/tests/linux
work=$top/build/linux/work	# make builds the workloads here
workloads="membarrier mmaplock shootdown"
pass=0 fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1 ($2)"; }

if ! command -v busybox >/dev/null || ! command -v cpio >/dev/null; then
	echo "SKIP: Linux test initramfs (needs busybox and cpio: scripts/deps.sh linux)"
	echo "0 passed, 0 failed"
	exit 0
fi

c="initramfs: exactly /init, static busybox, tx.awk and the static workloads, owned by root"
want=$(printf '%s\n' bin bin/busybox dev init mvm mvm/bin mvm/bin/membarrier mvm/bin/mmaplock mvm/bin/shootdown mvm/tx.awk proc sys tmp)
if [ ! -f "$cpio_file" ]; then
	bad "$c" "no $cpio_file (make build/linux/initramfs.cpio)"
else
	got=$(cpio -it --quiet <"$cpio_file" 2>/dev/null | sort)
	owners=$(cpio -itv --quiet <"$cpio_file" 2>/dev/null | awk '$3 != "root" || $4 != "root"' | head -n 1)
	mkdir "$t/x"
	(cd "$t/x" && cpio -id --quiet <"$cpio_file" 2>/dev/null)
	if [ "$got" != "$want" ]; then
		bad "$c" "contents: $(echo "$got" | tr '\n' ' ')"
	elif [ -n "$owners" ]; then
		bad "$c" "not root's: $owners"
	elif [ ! -x "$t/x/init" ] || ! head -n 1 "$t/x/init" | grep -qx '#!/bin/busybox sh'; then
		bad "$c" "/init is not an executable busybox script"
	elif readelf -l "$t/x/bin/busybox" 2>/dev/null | grep -q 'program interpreter'; then
		bad "$c" "busybox is dynamically linked"
	elif ! cmp -s "$t/x/init" "$tools/init" || ! cmp -s "$t/x/mvm/tx.awk" "$tools/tx.awk"; then
		bad "$c" "/init or tx.awk differ from tests/linux/ (stale build?)"
	elif dyn=$(for w in $workloads; do readelf -l "$t/x/mvm/bin/$w" 2>/dev/null |
		grep -q 'program interpreter' && echo "$w"; done) && [ -n "$dyn" ]; then
		bad "$c" "dynamically linked workloads: $dyn"
	else
		ok "$c"
	fi
fi

c="initramfs: /init parses under busybox sh"
if err=$(busybox sh -n "$tools/init" 2>&1); then ok "$c"; else bad "$c" "$err"; fi

c="initramfs: two builds give the same bytes"
wbins=""
for w in $workloads; do wbins="$wbins $work/$w"; done
# shellcheck disable=SC2086  # the list is words
if "$tools/mkinitramfs.sh" "$t/a.cpio" $wbins && "$tools/mkinitramfs.sh" "$t/b.cpio" $wbins &&
	cmp -s "$t/a.cpio" "$t/b.cpio"; then
	ok "$c"
else
	bad "$c" "the two builds differ"
fi

c="initramfs: a dynamically linked workload is refused"
if ! "$tools/mkinitramfs.sh" "$t/dyn.cpio" "$(command -v cpio)" 2>"$t/dyn.err" &&
	grep -q 'dynamically linked' "$t/dyn.err"; then
	ok "$c"
else
	bad "$c" "mkinitramfs.sh took $(command -v cpio): $(cat "$t/dyn.err")"
fi

# What /init prints for mvm.tx=N (the lines, then its summary), with CRs as a
# console with opost would add them.
sample() {	# sample BYTES > FILE
	local lines=$((($1 + 63) / 64)) sum
	busybox awk -v lines="$lines" -f "$tools/tx.awk" >"$t/tx"
	sum=$(busybox md5sum <"$t/tx")
	echo "mvm-init: cpus: 1 online, as expected"
	sed 's/$/\r/' "$t/tx"
	echo "mvm-init: tx: $lines lines, $((lines * 64)) bytes, md5 ${sum%% *}"
}
# tx_case NAME WANT(0|1) FILE BYTES: check-tx.sh, under busybox sh, says WANT.
tx_case() {
	local out rc
	out=$(busybox sh "$tools/check-tx.sh" "$3" "$4")
	rc=$?
	if [ "$rc" -eq "$2" ]; then ok "$1: $out"; else bad "$1" "check-tx.sh exit $rc: $out"; fi
}
sample 65536 >"$t/good"
tx_case "check-tx: 64 KiB, all of it" 0 "$t/good" 65536
sed '700d' "$t/good" >"$t/lost"
tx_case "check-tx: one line lost" 1 "$t/lost" 65536
sed '900s/ABC/AXC/' "$t/good" >"$t/flip"
tx_case "check-tx: one byte changed" 1 "$t/flip" 65536
grep -v 'mvm-init: tx:' "$t/good" >"$t/nosum"
tx_case "check-tx: no summary line" 1 "$t/nosum" 65536
tx_case "check-tx: a summary for another size" 1 "$t/good" 4096
sample 100 >"$t/small"
tx_case "check-tx: 100 bytes round up to 2 lines" 0 "$t/small" 100

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
