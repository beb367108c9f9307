#!/usr/bin/env bash
# bochs-build.sh - build (once per machine) the Bochs that run-nested.sh --vmx
# boots, and print the directory holding it.
#
# Source: ../shared/vmx-bochs/bochs-2.7-src.tar.xz (upstream REL_2_7_FINAL)
# plus two patches, applied in this order:
#   vmx-intr-mask.patch  VM entry computes the interrupt mask before it is in
#                        VMX guest mode, so an L2 guest with IF=0 masks the
#                        emulated host's interrupts for good (external-
#                        interrupt exiting ignored);
#   svm-intr-mask.patch  the same twice over in SVM: VMRUN computes the mask
#                        before in_svm_guest, and with V_INTR_MASKING and guest
#                        IF=0 host interrupts are never unmasked again.
# and five patches of the project's own, next to this script:
#   bochs-svm-shutdown.patch  a triple fault in an SVM guest takes the
#                        SHUTDOWN intercept's #VMEXIT (Bochs 2.7 only knew
#                        VMX's triple-fault exit: it panicked the whole
#                        emulated CPU instead);
#   bochs-svm-sstep.patch  a #VMEXIT drops the single-step trap scheduled
#                        for the intercepted instruction (it was taken by
#                        the host after the exit, as Bochs' VMX exit never
#                        lets it);
#   bochs-lm-tr.patch    turning on long mode no longer needs a TR other
#                        than a 16-bit TSS (KVM's SVM reset state has one
#                        in every AP, and kvm-unit-tests' APs triple-faulted);
#   bochs-svm-cr2.patch  VMRUN loads the guest's CR2 from the VMCB (the guest
#                        ran with the host's: Linux's early page-fault
#                        handler read an L1 address and halted);
#   bochs-dr7-flush.patch  a MOV to DR7 flushes the TLB only when it enables,
#                        or had enabled, a breakpoint (every write flushed:
#                        KVM's won't-exit DR mode let vmexit.flat's mov_dr
#                        loop crawl so slowly the L1 looked wedged).
# Debian's bochs package has the VMX bug, so it is not used. The SVM patches
# make AMD SVM under Bochs (run-nested.sh --bochs-svm) a usable test bed.
#
# Built with nogui (no display, no TCP port) and without the debugger, then
# cached in $MINIVMM_BOCHS_CACHE (default /var/cache/minivmm when writable,
# else ${XDG_CACHE_HOME:-~/.cache}/minivmm-nested) under a key made of the
# source, the patches and this script's configure line, so a changed input
# rebuilds and an unchanged one never does. Concurrent callers wait on a lock.
# Without the source folder, a build already cached on this machine is used
# (and said); with neither, the message says what is missing.
#
# Usage: tests/nested/bochs-build.sh        -> stdout: DIR (DIR/bin/bochs,
#        DIR/share/BIOS-bochs-latest, DIR/share/VGABIOS-lgpl-latest)
# Environment: MINIVMM_VMX_SRC (folder with the tarball and the patches,
#        default: ../shared/vmx-bochs next to the checkout).
# Exit status: 0 with DIR printed; 125 when it cannot be built (message says why).
set -euo pipefail

prog=bochs-build
die() { echo "$prog: error: $*" >&2; exit 125; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
src_dir=${MINIVMM_VMX_SRC:-$top/../shared/vmx-bochs}
tarball=$src_dir/bochs-2.7-src.tar.xz
patches=("$src_dir/vmx-intr-mask.patch" "$src_dir/svm-intr-mask.patch"
	"$here/bochs-svm-shutdown.patch" "$here/bochs-svm-sstep.patch" "$here/bochs-lm-tr.patch"
	"$here/bochs-svm-cr2.patch" "$here/bochs-dr7-flush.patch")
# What the emulated test bed needs: SMP, x86-64, VMX with EPT (vmx=2), no GUI.
configure_args=(--enable-x86-64 --enable-smp --enable-cpu-level=6 --enable-vmx=2 --enable-svm
	--enable-avx --enable-evex --enable-all-optimizations --enable-pci --with-nogui
	--disable-debugger --disable-docbook)

if [[ -n ${MINIVMM_BOCHS_CACHE:-} ]]; then
	cache=$MINIVMM_BOCHS_CACHE
elif mkdir -p /var/cache/minivmm 2>/dev/null && [[ -w /var/cache/minivmm ]]; then
	cache=/var/cache/minivmm
else
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/minivmm-nested
fi
have_src=1
for f in "$tarball" "${patches[@]}"; do [[ -f $f ]] || have_src=0; done
if ((!have_src)); then
	# A fresh clone elsewhere on a machine that built it once: use that
	# build, if it has every patch (an older one lacks the SVM fixes).
	for d in "$cache"/bochs-2.7-vmx-*/; do
		[[ -x $d/bin/bochs && -f $d/.ready ]] || continue
		grep -q 'bochs-dr7-flush.patch' "$d/SOURCES" 2>/dev/null && found=${d%/}
	done
	if [[ -n ${found:-} ]]; then
		echo "$prog: $src_dir not found; using the build cached in $found" >&2
		echo "$found"
		exit 0
	fi
	die "the patched Bochs source is not here: need $tarball, ${patches[*]}
(the folder ../shared/vmx-bochs next to this checkout, or set MINIVMM_VMX_SRC).
Without it no VMX test bed can be built: Debian's bochs package hangs on L2 guests
with IF=0 (see docs/backends.md)."
fi
key=$( { sha256sum <"$tarball"; for f in "${patches[@]}"; do sha256sum <"$f"; done
	echo "${configure_args[*]}"; } |
	sha256sum | cut -c1-16)
dir=$cache/bochs-2.7-vmx-$key
if [[ -x $dir/bin/bochs && -f $dir/.ready ]]; then echo "$dir"; exit 0; fi

# Build tools: the project installs its own dependencies with apt-get.
need=()
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v patch >/dev/null || need+=(patch)
command -v xz >/dev/null || need+=(xz-utils)
if ((${#need[@]})); then
	[[ $(id -u) == 0 ]] || die "missing packages: ${need[*]} (run as root or apt-get install them)"
	echo "$prog: installing ${need[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 -qq update >/dev/null || true
	apt-get -o DPkg::Lock::Timeout=600 -y -qq install --no-install-recommends "${need[@]}" \
		>/dev/null || die "apt-get install ${need[*]} failed"
fi

mkdir -p "$cache" || die "cannot create $cache"
exec 9>"$cache/.bochs-build.lock"
flock -w 1800 9 || die "timed out waiting for another Bochs build ($cache/.bochs-build.lock)"
if [[ -x $dir/bin/bochs && -f $dir/.ready ]]; then echo "$dir"; exit 0; fi

rm -rf "$cache"/.bochs-tmp.*   # left by an interrupted build (we hold the lock)
tmp=$(mktemp -d "$cache/.bochs-tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log=$tmp/build.log
echo "$prog: building patched Bochs 2.7 (one-time, a few minutes; cached in $dir)" >&2
start=$(date +%s)
tar -C "$tmp" -xJf "$tarball" || die "cannot unpack $tarball"
for f in "${patches[@]}"; do
	(cd "$tmp/bochs-2.7" && patch -p1 <"$f" >>"$log" 2>&1) || die "$f does not apply"
done
jobs=$(nproc 2>/dev/null || echo 2)
if ! (cd "$tmp/bochs-2.7" && ./configure --prefix="$dir" "${configure_args[@]}" &&
	nice -n 5 make -j"$jobs") >>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "building Bochs failed (log above)"
fi
mkdir -p "$tmp/out/bin" "$tmp/out/share"
cp "$tmp/bochs-2.7/bochs" "$tmp/out/bin/bochs"
cp "$tmp/bochs-2.7/bios/BIOS-bochs-latest" "$tmp/bochs-2.7/bios/VGABIOS-lgpl-latest" "$tmp/out/share/"
sha256sum "$tarball" "${patches[@]}" >"$tmp/out/SOURCES"
printf '%s\n' "${configure_args[*]}" >"$tmp/out/CONFIGURE"
touch "$tmp/out/.ready"
rm -rf "$dir"
mv "$tmp/out" "$dir"
echo "$prog: built in $(($(date +%s) - start)) s" >&2
echo "$dir"
