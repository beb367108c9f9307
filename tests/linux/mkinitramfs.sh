#!/usr/bin/env bash
# mkinitramfs.sh - the initramfs minivmm's Linux tests boot: an uncompressed
# cpio (newc) holding static busybox (Debian's busybox-static), /init
# (tests/linux/init), /mvm/tx.awk and the workloads given (static programs
# from tests/linux/work/, as /mvm/bin/NAME). The same inputs give the same
# bytes (sorted names, fixed owner and times, cpio --reproducible).
#
# Usage: tests/linux/mkinitramfs.sh OUT.cpio [WORKLOAD...]
# Environment: BUSYBOX (default: busybox on PATH; must be statically linked).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: mkinitramfs.sh OUT.cpio [WORKLOAD...]}
shift
bb=${BUSYBOX:-$(command -v busybox || true)}
die() { echo "mkinitramfs: $*" >&2; exit 1; }
[[ -n $bb && -x $bb ]] || die "no busybox (apt-get install busybox-static)"
command -v cpio >/dev/null || die "no cpio (apt-get install cpio)"
# A dynamic busybox would find no C library in the initramfs.
if LC_ALL=C readelf -l "$bb" 2>/dev/null | grep -q 'Requesting program interpreter'; then
	die "$bb is dynamically linked (apt-get install busybox-static)"
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/mkinitramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp,mvm}
chmod 1777 "$root/tmp"
cp "$bb" "$root/bin/busybox"
cp "$here/init" "$root/init"
cp "$here/tx.awk" "$root/mvm/tx.awk"
chmod 755 "$root/bin/busybox" "$root/init"
chmod 644 "$root/mvm/tx.awk"
for w in "$@"; do
	[[ -f $w && -x $w ]] || die "workload $w: not an executable file (make builds them)"
	if LC_ALL=C readelf -l "$w" 2>/dev/null | grep -q 'Requesting program interpreter'; then
		die "workload $w is dynamically linked: the initramfs has no C library"
	fi
	mkdir -p "$root/mvm/bin"
	cp "$w" "$root/mvm/bin/$(basename "$w")"
	chmod 755 "$root/mvm/bin/$(basename "$w")"
done
find "$root" -exec touch -h -d @0 {} +
mkdir -p "$(dirname "$out")"
(cd "$root" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --reproducible --quiet) >"$out.part"
mv "$out.part" "$out"
