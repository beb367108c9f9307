#!/bin/sh
# Integration cases: boot the real guest.elf on /dev/kvm and check what
# minivmm says and how it exits. The cases live in cases.d/AREA.sh; this
# file gives them their helpers (run, has, ok, bad, skip, step; $VMM, $ELF,
# $VMM_ASAN, $T) and runs the areas named (default: all of them).
# MINIVMM_ASAN is minivmm built with ASan+UBSan+LSan (cases.d/leaks.sh).
# POSIX sh, so it also runs under busybox inside the nested test VM.
# Usage: cases.sh MINIVMM GUEST_ELF [MINIVMM_ASAN [AREA...]] (AREA: a name in cases.d or a path)
set -u
VMM=${1:?usage: cases.sh MINIVMM GUEST_ELF}
ELF=${2:?usage: cases.sh MINIVMM GUEST_ELF [MINIVMM_ASAN]}
VMM_ASAN=${3:-}
shift 2
[ $# -gt 0 ] && shift
# Every minivmm run is bounded here too: a VMM that ignored its own
# --timeout must fail its case, not hang the suite.
RUN_LIMIT=${MINIVMM_CASE_LIMIT:-130}
T=${TMPDIR:-/tmp}/minivmm-it.$$
mkdir -p "$T"
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "PASS: $1"; }
skip() { echo "SKIP: $1 ($2)"; }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $1 ($2)"
	# minivmm's own account first: a report shown cut keeps its head.
	echo "---- stderr"; tail -n 30 "$T/err"
	echo "---- stdout"; tail -n 30 "$T/out"
	echo "----"
}

# run NAME EXPECTED_STATUS -- ARGS...: run minivmm, keep out/err, check status.
run() {
	name=$1 want=$2
	shift 3
	timeout "$RUN_LIMIT" "$VMM" "$@" >"$T/out" 2>"$T/err" </dev/null
	got=$?
	if [ "$got" -ne "$want" ] && { [ "$got" -eq 124 ] || [ "$got" -eq 143 ]; }; then
		bad "$name" "minivmm still running after $RUN_LIMIT s: killed"
		return 1
	fi
	if [ "$got" -ne "$want" ]; then
		bad "$name" "exit status $got, expected $want"
		return 1
	fi
	return 0
}

# on_backend NAME BACKEND: minivmm's banner says it ran on BACKEND (vmx, svm,
# pvm), not on something else (the Bochs beds check what they emulate).
on_backend() {
	grep -qF "kvm backend $2" "$T/out" && return 0
	bad "$1" "banner does not say 'kvm backend $2': $(grep -m1 'kvm backend' "$T/out")"
	return 1
}

# step CMD [ARG...]: one resumable step of an area (a boot and its checks).
# A nested VM that ends without a verdict is replaced by a fresh one
# (tests/integration/run.sh), told in MINIVMM_RESUME_AFTER how many steps
# the VMs before it decided: those are not run again. After each step a
# STEP-DONE line carries this run's totals, which run.sh adds up.
step_n=0
step() {
	step_n=$((step_n + 1))
	[ "$step_n" -le "${MINIVMM_RESUME_AFTER:-0}" ] && return 0
	"$@"
	echo "STEP-DONE: $step_n ($pass passed, $fail failed)"
}

# has NAME FILE PATTERN: the output must contain the fixed string.
has() {
	if grep -qF -- "$3" "$T/$2"; then return 0; fi
	bad "$1" "$2 lacks '$3'"
	return 1
}

# guest_tsc_mhz: the rate of the guest's TSC, in whole MHz, as minivmm's
# banner gives it (a short run of the payload); empty if it said none.
guest_tsc_mhz() {
	"$VMM" --cpus 1 --timeout 30 "$ELF" -- exit 0 2>/dev/null </dev/null |
		sed -n 's/.*, TSC \([0-9]*\)\.[0-9]* MHz.*/\1/p' | head -n 1
}

# kvm-unit-tests' vmexit repeats each test, doubling its count, until one
# pass takes 2^30 TSC cycles: up to 2^32 cycles a test. At a GHz that is
# seconds, but Bochs' AMD model runs its TSC at 50 MHz (86 s a test; its
# Intel model says 3.5 GHz), so a fixed bound is wrong there.
# kut_vmexit_bound N MHZ: seconds for N such tests, boot included; 100 at least.
kut_vmexit_bound() {
	[ -n "$2" ] && [ "$2" -gt 0 ] || { echo 100; return; }
	kb=$((60 + $1 * 4294 / $2))
	[ "$kb" -lt 100 ] && kb=100
	echo "$kb"
}

# The hv suite's flush part (areas hv, hvkvm) either ran, its negative
# control seeing stale reads, or skipped saying why.
hv_flush_ran_or_skipped() {
	grep -qF "PASS: hv: negative control: without a flush" "$T/out" ||
		grep -qF "SKIP: hv: flush cases (stale translations not observable here" "$T/out" ||
		{ bad "$1" "neither the flush control's PASS nor its SKIP"; return 1; }
}

dir=$(dirname "$0")/cases.d
if [ $# -eq 0 ]; then
	set -- core
	for f in "$dir"/*.sh; do
		a=$(basename "$f" .sh)
		[ "$a" = core ] || set -- "$@" "$a"
	done
fi
for a in "$@"; do
	# An AREA with a slash is a file outside cases.d (e.g. tests/integration/vmx/).
	case $a in */*) af=$a ;; *) af=$dir/$a.sh ;; esac
	if [ ! -f "$af" ]; then
		bad "area $a" "no file $af"
		continue
	fi
	echo "# $a"
	. "$af"
done

rm -rf "$T"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
