#!/usr/bin/env bash
# minivmm-compare on real runs of this host (make compare-check; docs/compare.md):
# the same build against itself must flag no row, and a build whose null
# port is SLOW_NULL_NS slower (build/minivmm-slow-null) exactly the two
# rows that use it (vmexit "pio-in null user" at CPL0 and CPL3). Runs are
# alternated (same, same, slow, ...) so a drift of the host hits all sides.
# Usage: realdata.sh [OUTDIR]   Environment: RUNS (default 5 a side).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build/compare}
runs=${RUNS:-5}
cmp=$top/scripts/minivmm-compare
vmm=$top/minivmm slow=$top/build/minivmm-slow-null elf=$top/guest.elf
common=(--hv-xmm-path ioctl --timeout 300)	# no calibration: the same XMM path every run
mkdir -p "$out"
rm -f "$out"/*.json
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS: compare-check: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: compare-check: $1"; }

one() {	# one BINARY NAME SUITE CPUS
	if ! "$1" "${common[@]}" --cpus "$4" --json "$out/$2.json" "$elf" -- "$3" >"$out/$2.log" 2>&1; then
		bad "$2: minivmm exited $? (see $out/$2.log)"
	fi
}

for i in $(seq 1 "$runs"); do
	echo "compare-check: round $i of $runs"
	one "$vmm" "vmexit-old$i" vmexit 1
	one "$vmm" "vmexit-same$i" vmexit 1
	one "$slow" "vmexit-slow$i" vmexit 1
	one "$vmm" "ipi-old$i" ipi 2
	one "$vmm" "ipi-same$i" ipi 2
done

flagged() {	# the rows beyond the noise: "suite/case/variant/cplN/NvM;" sorted
	python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
print("".join(sorted("%s/%s/%s/cpl%d/%s:%s;" % (r["suite"], r["case"], r["variant"], r["cpl"],
      r["vcpus"], r["verdict"]) for r in rows if r["verdict"] in ("slower", "faster"))))' "$1"
}
side() { ls "$out"/"$1"[0-9]*.json; }
verdict() {	# verdict NAME WANT_FLAGGED_ROWS OLD NEW
	local name=$1 want=$2 got
	"$cmp" --plot "$out/$name.png" --json "$out/$name.rows.json" $(side "$3") -- $(side "$4") \
		>"$out/$name.txt"
	got=$(flagged "$out/$name.rows.json")
	cat "$out/$name.txt"
	if [ "$got" = "$want" ]; then ok "$name: flagged rows: ${got:-none}"; else
		bad "$name: flagged rows '${got:-none}', want '${want:-none}'"; fi
}
verdict vmexit-same "" vmexit-old vmexit-same
verdict ipi-same "" ipi-old ipi-same
verdict vmexit-slow "vmexit/pio-in null/user/cpl0/1:slower;vmexit/pio-in null/user/cpl3/1:slower;" \
	vmexit-old vmexit-slow
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
