#!/usr/bin/env bash
# tests/nested/tally.sh on fake runs: each way a run can end is counted in
# its own column, a failed run shows its lines, and the status says whether
# every run passed. No KVM needed: the "minivmm" here is a shell script.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tally=$top/tests/nested/tally.sh
pass=0 fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# A fake run: FAKE_KIND picks what it prints, run by run, from a list.
cat >"$t/fake" <<'FAKE'
#!/bin/sh
n=$(cat "$FAKE_STATE" 2>/dev/null || echo 0)
n=$((n + 1)); echo "$n" >"$FAKE_STATE"
kind=$(echo "$FAKE_KINDS" | cut -d' ' -f"$n")
case $kind in
ok) echo "18 passed, 0 failed" ;;
rescue) echo "smoke: note: 3 barrier waits were ended by the backstop timer, the wake-up IPI still missing 1 ms after the opening"
	echo "smoke: note: 2 smp_call wake-up IPIs were sent again, the item still untaken a backstop period later"
	echo "18 passed, 0 failed" ;;
triple) echo "minivmm: vCPU 3: guest shut down (triple fault)" >&2; exit 3 ;;
twice) echo "FAIL: stress: no deadlock, no lost or extra IPI (seen by vCPU 5: vCPU 7 took 16 IPIs from vCPU 5, 15 were sent)"; exit 1 ;;
wd) echo "minivmm: timeout: no exit after 2 s; stopping, RIPs follow" >&2; echo "vCPU 0: RIP=0x1234" >&2; exit 3 ;;
esac
FAKE
chmod +x "$t/fake"

check() {	# check NAME WANT_STATUS KINDS NEEDLE...
	local name=$1 want=$2 kinds=$3 got n ok=1
	shift 3
	rm -f "$t/state"
	n=$(echo "$kinds" | wc -w)
	FAKE_STATE=$t/state FAKE_KINDS=$kinds "$tally" "$n" "$t/fake" --cpus 2 >"$t/out" 2>&1
	got=$?
	[ "$got" -eq "$want" ] || ok=0
	for needle in "$@"; do grep -qF -- "$needle" "$t/out" || ok=0; done
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "PASS: tally: $name"
	else
		fail=$((fail + 1)); echo "FAIL: tally: $name (status $got, want $want)"; sed 's/^/  /' "$t/out"
	fi
}

check "all passing" 0 "ok ok ok" \
	"tally: 3 runs: 3 passed, 0 failed (0 triple faults, 0 double deliveries, 0 timeouts); 0 runs needed a backstop (0 barrier rescues, 0 smp_call re-sends)" \
	"tally: run 3: ok"
check "backstops counted on passing runs" 0 "rescue ok rescue" \
	"tally: 3 runs: 3 passed, 0 failed" "2 runs needed a backstop (6 barrier rescues, 4 smp_call re-sends)" \
	"tally: run 1: ok (3 barrier rescues) (2 smp_call re-sends)"
check "each ending in its column, failures shown" 1 "ok triple twice wd" \
	"tally: 4 runs: 1 passed, 3 failed (1 triple faults, 1 double deliveries, 1 timeouts)" \
	"tally: run 2: exit 3" "tally:   minivmm: vCPU 3: guest shut down (triple fault)" \
	"tally: run 3: exit 1" "tally:   | vCPU 0: RIP=0x1234"
"$tally" x true >"$t/out" 2>&1
if [ $? -eq 2 ] && grep -qF "usage: tally.sh N MINIVMM ARGS..." "$t/out"; then
	pass=$((pass + 1)); echo "PASS: tally: bad usage is exit 2"
else
	fail=$((fail + 1)); echo "FAIL: tally: bad usage is exit 2"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
