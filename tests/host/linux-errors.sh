#!/usr/bin/env bash
# Linux images minivmm must refuse, before it opens /dev/kvm (so this needs
# no KVM): each gives exit 2 and one precise line on stderr, and nothing
# boots. Inputs are made from Debian's 6.1 kernel (scripts/linux-kernel.sh):
# a bzImage cut short, one whose xz payload is damaged, an initrd larger
# than --mem, a command line longer than the kernel's 2047 bytes, and
# Hyper-V hints asked for where the guest is shown no Hyper-V, and --preempt
# naming a vCPU the guest does not have; --hv-vp-base where it cannot be
# (no Hyper-V, past VP 4095, the payload).
# SKIPs, saying why, when minivmm has no --initrd (no Linux loader yet) or
# the kernel cannot be fetched.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
vmm=${MINIVMM:-$top/minivmm}	# MINIVMM: another build to check
pass=0 fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# shellcheck source=scripts/debian-kernel.sh
. "$top/scripts/debian-kernel.sh"

# refused NAME PATTERN -- MINIVMM-ARGS...: exit 2, one stderr line matching
# the extended regular expression PATTERN (case-insensitive), no boot banner.
refused() {
	local name=$1 pattern=$2 got lines
	shift 3
	timeout 60 "$vmm" "$@" >"$t/out" 2>"$t/err" </dev/null
	got=$?
	lines=$(wc -l <"$t/err")
	if [ "$got" -ne 2 ]; then
		fail=$((fail + 1))
		echo "FAIL: $name (exit status $got, expected 2; stderr: $(head -c 300 "$t/err"))"
	elif [ "$lines" -ne 1 ] || ! grep -qiE -- "$pattern" "$t/err"; then
		fail=$((fail + 1))
		echo "FAIL: $name (want one stderr line matching '$pattern', got $lines: $(head -c 300 "$t/err"))"
	elif grep -q 'vCPU' "$t/out"; then
		fail=$((fail + 1))
		echo "FAIL: $name (it booted: $(head -n 1 "$t/out"))"
	else
		pass=$((pass + 1))
		echo "PASS: $name: $(cat "$t/err")"
	fi
}

if ! "$vmm" --help 2>/dev/null | grep -q -- '--initrd'; then
	echo "SKIP: Linux image errors (this minivmm has no --initrd: no Linux loader yet)"
	echo "0 passed, 0 failed"
	exit 0
fi
if ! bz=$("$top/scripts/linux-kernel.sh" --vmlinuz 6.1 2>"$t/why"); then
	echo "SKIP: Linux image errors (no kernel to make them from: $(tail -n 1 "$t/why"))"
	echo "0 passed, 0 failed"
	exit 0
fi
initrd=$top/build/linux/initramfs.cpio
[ -f "$initrd" ] || initrd=$bz	# any file: the image is refused first

head -c 65536 "$bz" >"$t/cut.bzImage"
refused "bzImage cut at 64 KiB (payload past the end)" "cut.bzImage.*(truncated|outside|past|short|end of)" \
	-- --initrd "$initrd" "$t/cut.bzImage"

# 4 KiB of zeros 1 MiB into the xz stream: its LZMA data and CRC no longer hold.
setup=$(dk_le "$bz" $((0x1f1)) 1)
payload=$(((${setup:-4} + 1) * 512 + $(dk_le "$bz" $((0x248)) 4)))
cp "$bz" "$t/bad.bzImage"
dd if=/dev/zero of="$t/bad.bzImage" bs=4096 count=1 seek=$((payload + 1048576)) \
	oflag=seek_bytes conv=notrunc status=none
refused "bzImage with a damaged xz payload" "xz.*(corrupt|damaged|error|invalid|decompress)|(corrupt|damaged|error|invalid|decompress).*xz" \
	-- --initrd "$initrd" "$t/bad.bzImage"

truncate -s 256M "$t/big.initrd"	# sparse: no disk used
refused "initrd (256 MiB) larger than --mem 128M" "initrd.*(mem|RAM|fit)" \
	-- --mem 128M --initrd "$t/big.initrd" "$bz"

long=$(printf 'x%.0s' $(seq 2100))
refused "command line past the kernel's 2047 bytes" "command line.*2047" \
	-- --initrd "$initrd" "$bz" -- "mvm.pad=$long"

refused "--hv-hints with no Hyper-V shown (--pv kvm)" "hv-hints.*no Hyper-V.*--pv kvm" \
	-- --pv kvm --hv-hints ipi --initrd "$initrd" "$bz"

refused "--hv-vp-base with no Hyper-V shown (--pv none)" "hv-vp-base: the guest is shown no Hyper-V \(--pv none\)" \
	-- --pv none --hv-vp-base 64 --initrd "$initrd" "$bz"

refused "--hv-vp-base 4032 with 65 vCPUs: VP indexes past 4095" "hv-vp-base 4032 with 65 vCPUs: the last VP index would be 4096, past 4095" \
	-- --cpus 65 --hv-vp-base 4032 --initrd "$initrd" "$bz"

refused "--hv-vp-base with minivmm's payload" "hv-vp-base 64: .*payload, whose Hyper-V suites name VP i as vCPU i" \
	-- --hv-vp-base 64 "$top/guest.elf"

refused "--hv-impl kvm with no Hyper-V shown (--pv kvm)" "hv-impl kvm: the guest is shown no Hyper-V \(--pv kvm\)" \
	-- --pv kvm --hv-impl kvm --initrd "$initrd" "$bz"

refused "--hv-impl kvm with minivmm's hypercall page path" "hv-xmm-path spill: with --hv-impl kvm, KVM writes the hypercall page" \
	-- --hv-impl kvm --hv-xmm-path spill "$top/guest.elf"

refused "--preempt naming a vCPU past --cpus" "preempt: vCPU 5 does not exist \(--cpus 2" \
	-- --cpus 2 --pv kvm --preempt 1,5:1ms:5ms --initrd "$initrd" "$bz"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
