#!/bin/sh
# Integration cases: boot the real guest.elf on /dev/kvm and check what
# minivmm says and how it exits. MINIVMM_ASAN, if given, is minivmm built
# with ASan+UBSan+LSan: cases.d/leaks.sh runs it on every exit path. Helpers for cases.d/*.sh: run, has, ok, bad,
# skip; $VMM, $ELF, $T (scratch directory). POSIX sh, so it also runs under busybox
# inside the nested test VM. Usage: cases.sh MINIVMM GUEST_ELF
set -u
VMM=${1:?usage: cases.sh MINIVMM GUEST_ELF}
ELF=${2:?usage: cases.sh MINIVMM GUEST_ELF [MINIVMM_ASAN]}
VMM_ASAN=${3:-}
T=${TMPDIR:-/tmp}/minivmm-it.$$
mkdir -p "$T"
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "PASS: $1"; }
skip() { echo "SKIP: $1 ($2)"; }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $1 ($2)"
	echo "---- stdout"; tail -n 30 "$T/out"
	echo "---- stderr"; tail -n 30 "$T/err"
	echo "----"
}

# run NAME EXPECTED_STATUS -- ARGS...: run minivmm, keep out/err, check status.
run() {
	name=$1 want=$2
	shift 3
	"$VMM" "$@" >"$T/out" 2>"$T/err" </dev/null
	got=$?
	if [ "$got" -ne "$want" ]; then
		bad "$name" "exit status $got, expected $want"
		return 1
	fi
	return 0
}

# has NAME FILE PATTERN: the output must contain the fixed string.
has() {
	if grep -qF -- "$3" "$T/$2"; then return 0; fi
	bad "$1" "$2 lacks '$3'"
	return 1
}

for n in 1 2 4; do
	c="smoke with $n vCPU(s)"
	run "$c" 0 -- --cpus "$n" --timeout 60 "$ELF" &&
		has "$c" out "minivmm: $n vCPU" && has "$c" out "PASS: " &&
		has "$c" out " passed, 0 failed" && ok "$c"
done

c="overcommitted smoke (8 vCPUs)"
run "$c" 0 -- --cpus 8 --timeout 120 "$ELF" && has "$c" out "(overcommitted)" && ok "$c"

c="triple fault gives exit 3 and a register dump"
run "$c" 3 -- --timeout 30 "$ELF" -- triple-fault &&
	has "$c" err "triple fault" && has "$c" err "RIP=" && has "$c" err "CR0=" &&
	has "$c" err "CS=" && has "$c" err "EFER=" && ok "$c"

c="--timeout ends a spinning guest with RIPs"
run "$c" 3 -- --cpus 2 --timeout 2 "$ELF" -- spin &&
	has "$c" err "timeout" && has "$c" err "vCPU 0: RIP=" && has "$c" err "vCPU 1: RIP=" && ok "$c"

c="unclaimed port and MMIO read ones and are reported once"
run "$c" 0 -- --timeout 30 "$ELF" -- unclaimed &&
	has "$c" err "unclaimed port 0x2f8" && has "$c" err "unclaimed MMIO address 0xd0000000" &&
	if [ "$(grep -c 'unclaimed port 0x2f8' "$T/err")" -eq 1 ]; then ok "$c"
	else bad "$c" "port 0x2f8 reported more than once"; fi

c="vmcall raises #UD (quirk disabled)"
if "$VMM" --timeout 10 "$ELF" -- vmcall >"$T/out" 2>"$T/err" </dev/null; then
	ok "$c"
elif grep -qF "vmcall quirk NOT disabled" "$T/out"; then
	echo "SKIP: $c (KVM cannot disable KVM_X86_QUIRK_FIX_HYPERCALL_INSN here)"
else
	bad "$c" "guest reported failure"
fi

c="--stats prints exit counts"
run "$c" 0 -- --stats --timeout 60 "$ELF" && has "$c" out "exits per vCPU:" &&
	has "$c" out "vCPU 0:" && has "$c" out "IO=" && ok "$c"

c="--json writes a document"
run "$c" 0 -- --json "$T/r.json" --timeout 60 "$ELF" &&
	if grep -q '"environment"' "$T/r.json" && grep -q '"results"' "$T/r.json"; then ok "$c"
	else bad "$c" "JSON lacks environment or results"; fi

c="SIGTERM stops all vCPUs cleanly"
"$VMM" --cpus 2 "$ELF" -- spin >"$T/out" 2>"$T/err" </dev/null &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
got=$?
if [ "$got" -eq 143 ] && grep -qF "terminated" "$T/err"; then ok "$c"; else bad "$c" "status $got"; fi

c="missing payload file"
run "$c" 2 -- /nonexistent/guest.elf && has "$c" err "/nonexistent/guest.elf: No such file or directory" && ok "$c"

c="directory instead of a payload"
run "$c" 2 -- / && has "$c" err "/: is a directory" && ok "$c"

c="not an ELF payload"
run "$c" 2 -- "$0" && has "$c" err "not an ELF file" && ok "$c"

c="0 vCPUs"
run "$c" 2 -- --cpus 0 "$ELF" && has "$c" err "--cpus '0'" && ok "$c"

c="nonsense memory size"
run "$c" 2 -- --mem 12Q "$ELF" && has "$c" err "--mem '12Q': not a size" && ok "$c"

c="missing KVM device"
run "$c" 2 -- --kvm /nonexistent/kvm "$ELF" && has "$c" err "does not exist" && ok "$c"

c="KVM device that is not KVM"
run "$c" 2 -- --kvm /dev/null "$ELF" && has "$c" err "/dev/null" && ok "$c"

# Each area adds its cases in cases.d/NAME.sh (same helpers, same counters).
for f in "$(dirname "$0")"/cases.d/*.sh; do
	[ -e "$f" ] || continue
	echo "# $(basename "$f")"
	. "$f"
done

rm -rf "$T"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
