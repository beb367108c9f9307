#!/bin/sh
# tally.sh - run one minivmm command N times and count how each run ended,
# for the emulator anomalies of docs/robustness.md: lost wake-ups (the
# barrier's and smp_call's backstops), triple faults, IPIs delivered twice.
# POSIX sh: it runs inside the nested VMs (busybox), e.g.
#   tests/nested/run-nested.sh --file tests/nested/tally.sh --file minivmm \
#     --file guest.elf -- tests/nested/tally.sh 50 "$PWD/minivmm" --cpus 2 \
#     --timeout 120 "$PWD/guest.elf" -- smoke
# Usage: tally.sh N MINIVMM ARGS...
# Prints one line per run ("tally: run I: ok", or its status and the lines
# that say why), so a count survives a VM that dies part-way, then one
# summary line:
#   tally: N runs: P passed, F failed (T triple faults, D double deliveries,
#   W timeouts); R runs needed a backstop (B barrier rescues, S smp_call
#   re-sends)
# TALLY_TAIL (default 12): how many of a failed run's last output lines to show.
# Exit status: 0 when every run exited 0, else 1; 2 on bad usage.
set -u
n=${1:-}
case $n in '' | *[!0-9]*) echo "usage: tally.sh N MINIVMM ARGS..." >&2; exit 2 ;; esac
shift
[ $# -ge 1 ] || { echo "usage: tally.sh N MINIVMM ARGS..." >&2; exit 2; }
out=${TMPDIR:-/tmp}/tally.$$
pass=0 fail=0 tf=0 dd=0 wd=0 backed=0 rescues=0 resends=0
i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	"$@" >"$out" 2>&1 </dev/null
	rc=$?
	# "smoke: note: 3 barrier waits were ended ..." / "... 2 smp_call wake-up IPIs were sent again"
	r=$(sed -n 's/^smoke: note: \([0-9]*\) barrier waits were ended.*/\1/p' "$out" | head -n 1)
	s=$(sed -n 's/^smoke: note: \([0-9]*\) smp_call wake-up IPIs were sent again.*/\1/p' "$out" | head -n 1)
	rescues=$((rescues + ${r:-0}))
	resends=$((resends + ${s:-0}))
	[ -n "$r$s" ] && backed=$((backed + 1))
	if [ "$rc" -eq 0 ] && ! grep -q '^FAIL' "$out"; then
		pass=$((pass + 1))
		echo "tally: run $i: ok${r:+ ($r barrier rescues)}${s:+ ($s smp_call re-sends)}"
		continue
	fi
	fail=$((fail + 1))
	grep -qi 'triple fault' "$out" && tf=$((tf + 1))
	grep -qE 'took [0-9]+ IPIs from vCPU [0-9]+, [0-9]+ were sent' "$out" && dd=$((dd + 1))
	grep -q 'timeout' "$out" && wd=$((wd + 1))
	echo "tally: run $i: exit $rc"
	grep -iE '^FAIL|triple fault|timeout|were sent$|error' "$out" | head -n 5 | sed 's/^/tally:   /'
	# The end of its output too (a register dump names where each vCPU was).
	tail -n "${TALLY_TAIL:-12}" "$out" | sed 's/^/tally:   | /'
done
rm -f "$out"
echo "tally: $n runs: $pass passed, $fail failed ($tf triple faults, $dd double deliveries," \
	"$wd timeouts); $backed runs needed a backstop ($rescues barrier rescues, $resends smp_call re-sends)"
[ "$fail" -eq 0 ]
