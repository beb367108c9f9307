#!/usr/bin/env bash
# minivmm-compare on committed runs (tests/compare/fixtures/, real minivmm
# --json output of this project's kvm_pvm host, made by realdata.sh):
# specific verdicts, exit statuses and errors. No KVM needed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cmp=$top/scripts/minivmm-compare
fx=$top/tests/compare/fixtures
pass=0 fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { pass=$((pass + 1)); echo "PASS: compare: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: compare: $1"; }
check() {	# check NAME COMMAND...: the command must succeed
	local name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}
# rows NAME FILTER: "suite/case/variant/cplN:verdict;" of rows whose verdict matches
rows() {
	python3 -c 'import json, re, sys
rows = json.load(open(sys.argv[1]))["rows"]
print("".join(sorted("%s/%s/%s/cpl%d:%s;" % (r["suite"], r["case"], r["variant"], r["cpl"],
      r["verdict"]) for r in rows if re.fullmatch(sys.argv[2], r["verdict"]))))' "$@"
}
count() { python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["rows"]))' "$1"; }
slow_rows="vmexit/pio-in null/user/cpl0:slower;vmexit/pio-in null/user/cpl3:slower;"

# The shared reader (scripts/minivmm_json.py) every script uses: ids (the VMM's
# since ABI 5, the 1-based place before), baselines by id, VMM-side rows by name.
check "minivmm_json: ids, baselines and VMM-side rows by name" python3 - "$top/scripts" "$fx" <<'PY'
import glob, json, os, sys, tempfile
sys.path.insert(0, sys.argv[1])
import minivmm_json as m
old = m.load(sorted(glob.glob(os.path.join(sys.argv[2], "vmexit-old1.json")))[0])
recs = m.records(old)
assert [r["id"] for r in recs] == list(range(1, len(recs) + 1))
row = next(r for r in recs if r["baseline"])
assert m.baseline(old, row) is recs[row["baseline"] - 1]
assert m.vmm_side(old, row) is None                     # no names before ABI 5
new = {"environment": {"tsc_khz": 2000000}, "vmm": {"pio-null": {"count": 3},
       "hypercalls": [{"call": "SendSyntheticClusterIpi", "encoding": "fast", "count": 7}]},
       "results": [{"id": 1, "case": "a", "variant": "x", "cpl": 0, "targets": 0, "baseline": 0,
                    "vmm_stat": "pio-null"},
                   {"id": 3, "case": "b", "variant": "fast", "cpl": 0, "targets": 0, "baseline": 1,
                    "vmm_stat": "hypercall", "call": "SendSyntheticClusterIpi", "encoding": "fast"},
                   {"id": 4, "case": "c", "variant": "y", "cpl": 3, "targets": 0, "baseline": 2,
                    "vmm_stat": None}]}
r1, r3, r4 = m.records(new)
assert m.baseline(new, r3) is r1 and m.baseline(new, r4) is None and m.by_id(new, 3) is r3
assert m.vmm_side(new, r1)["count"] == 3 and m.vmm_side(new, r3)["count"] == 7
assert m.vmm_side(new, r4) is None and m.find(new, "c", "y", cpl=3) is r4
assert m.ns(new, 2000) == 1000.0
with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
    f.write("[]")
    f.flush()
    try:
        m.load(f.name)
        raise SystemExit("a list loaded as a document")
    except m.FormatError as e:
        assert "not a minivmm --json file" in str(e)
    assert m.load_or_none(f.name) is None
PY

# The targets' state: its own field since ABI 6; a file from before, where the
# guest packed it into the case ("normal@halted"), reads the same way.
check "minivmm_json: state apart from the case, in old files and new" python3 - "$top/scripts" "$fx" "$t" <<'PY'
import json, os, sys
sys.path.insert(0, sys.argv[1])
import minivmm_json as m
old = m.load(os.path.join(sys.argv[2], "ipi-old1.json"))
halted = m.find(old, "normal", "fast", state="halted")
spin = m.find(old, "normal", "fast", state="spin-cpl3")
assert halted and spin and halted is not spin, (halted, spin)
assert halted["case"] == "normal" and halted["state"] == "halted"
assert m.find(old, "normal@halted", "fast") is None
dry = m.find(old, "dry-run", "x2apic", state=None)
assert dry and dry["state"] is None
assert m.find(old, "dry-run", "x2apic", state="halted") is None
assert not any("@" in r["case"] for r in m.records(old))
new = {"environment": {}, "results": [
    {"case": "list", "state": "preempted", "variant": "regular", "cpl": 0, "targets": 3},
    {"case": "list", "state": "halted", "variant": "regular", "cpl": 0, "targets": 3},
    {"case": "a@b", "state": None, "variant": "x", "cpl": 0, "targets": 0}]}
path = os.path.join(sys.argv[3], "new.json")
json.dump(new, open(path, "w"))
doc = m.load(path)
assert m.find(doc, "list", "regular", state="halted")["state"] == "halted"
assert m.find(doc, "list", "regular")["state"] == "preempted"       # any state: the first
assert m.find(doc, "a@b", "x")["state"] is None                     # ABI 6: never split
PY

# The statistics against values known in closed form.
check "U test, t distribution and Holm give textbook values" python3 - "$cmp" <<'PY'
import importlib.machinery, math, sys
m = importlib.machinery.SourceFileLoader("cmp", sys.argv[1]).load_module()
near = lambda a, b: abs(a - b) < 1e-6
assert near(m.mann_whitney_p([1, 2, 3], [4, 5, 6]), 2 / 20)            # exact: 2 of C(6,3)
assert near(m.mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 2 / 252)
assert near(m.mann_whitney_p([1, 3, 5], [2, 4, 6]), 0.7)                # U = 3 of 9
assert m.mann_whitney_p([5] * 10, [5] * 10) == 1.0                       # all tied
assert abs(m.t_two_sided_p(2.7764451, 4) - 0.05) < 1e-6                  # t(0.975, 4)
assert abs(m.t_two_sided_p(12.7062047, 1) - 0.05) < 1e-6                 # t(0.975, 1)
assert abs(m.t_quantile(0.05, 10) - 2.2281389) < 1e-5
p, (lo, hi) = m.welch_log([100, 110, 90], [200, 220, 180])
assert 0.0005 < p < 0.002 and 1.5 < lo < 2 < hi < 2.6     # log ratio 0.69, sd 0.1
class R:
    def __init__(s, p): s.p, s.beyond, s.significant = p, True, False
rows = [R(0.001), R(0.02), R(0.03), R(0.5)]
m.holm(rows, 0.05)                                 # thresholds 0.0125, 0.0167, 0.025, 0.05
assert [r.significant for r in rows] == [True, False, False, False]
PY

# The same build, five runs a side, alternated: nothing beyond the noise.
"$cmp" --json "$t/same.json" "$fx"/vmexit-old*.json -- "$fx"/vmexit-same*.json >"$t/out"
st=$?
check "same build 5+5 runs: exit 0 (got $st)" test $st -eq 0
check "same build 5+5 runs: 17 rows" test "$(count "$t/same.json")" -eq 17
got=$(rows "$t/same.json" 'slower|faster')
check "same build 5+5 runs: no row flagged (got '${got:-none}')" test -z "$got"
check "same build: the change column shows ~" grep -qE 'cpuid +kvm +0 +1 +0 +[0-9]+ +[0-9]+ +~ ' "$t/out"
check "same host: no environment difference reported" grep -q '^same host: backend pvm' "$t/out"
"$cmp" --fail-above 5 "$fx"/vmexit-old*.json -- "$fx"/vmexit-same*.json >/dev/null
st=$?
check "same build --fail-above 5: exit 0 (got $st)" test $st -eq 0

# The null port 20 us slower (build/minivmm-slow-null): exactly its two rows.
"$cmp" --json "$t/slow.json" "$fx"/vmexit-old*.json -- "$fx"/vmexit-slow*.json >"$t/out"
got=$(rows "$t/slow.json" 'slower|faster')
check "slowed null port 5+5 runs: flagged exactly '$slow_rows' (got '${got:-none}')" \
	test "$got" = "$slow_rows"
check "slowed null port: the change is printed in %" \
	grep -qE 'pio-in null +user +0 +1 +0 +[0-9]+ +[0-9]+ +\+[0-9.]+% ' "$t/out"
"$cmp" --fail-above 50 "$fx"/vmexit-old*.json -- "$fx"/vmexit-slow*.json >"$t/out"
st=$?
check "--fail-above 50: exit 1 (got $st)" test $st -eq 1
check "--fail-above 50: names both slowed rows and nothing else" \
	test "$(grep -c '^FAIL: vmexit pio-in null user [03] 1 0: ' "$t/out")" -eq 2 -a \
	"$(grep -c '^FAIL:' "$t/out")" -eq 2
"$cmp" --fail-above 1000 "$fx"/vmexit-old*.json -- "$fx"/vmexit-slow*.json >/dev/null
st=$?
check "--fail-above 1000: below the threshold, exit 0 (got $st)" test $st -eq 0
"$cmp" --old "$fx"/vmexit-old*.json --new "$fx"/vmexit-slow*.json >"$t/out2"
"$cmp" "$fx"/vmexit-old*.json -- "$fx"/vmexit-slow*.json >"$t/out"
check "--old/--new gives the same table as OLD -- NEW" cmp -s "$t/out" "$t/out2"

# One run a side: the rounds are the samples; the slowed rows stand out.
"$cmp" --json "$t/one.json" "$fx/vmexit-old1.json" -- "$fx/vmexit-slow1.json" >"$t/out"
got=$(rows "$t/one.json" 'slower')
check "1+1 runs: both slowed rows flagged slower (got '${got:-none}')" \
	bash -c "[[ '$got' == *'pio-in null/user/cpl0:slower'* && '$got' == *'pio-in null/user/cpl3:slower'* ]]"
check "1+1 runs: 32 rounds a side are the samples" grep -qE 'pio-in null +user +0 .* 32\+32' "$t/out"
check "1+1 runs: warns that only within-run noise is known" grep -q 'only within-run noise' "$t/out"

# Rows on one side only are listed, not dropped.
"$cmp" --json "$t/only.json" "$fx/vmexit-old1.json" -- "$fx/ipi-old1.json" >"$t/out"
check "vmexit vs ipi: all 17 + 40 rows listed" test "$(count "$t/only.json")" -eq 57
check "vmexit vs ipi: 17 'only old'" test "$(grep -c ' only old$' "$t/out")" -eq 17
check "vmexit vs ipi: 40 'only new'" test "$(grep -c ' only new$' "$t/out")" -eq 40

# Environment differences come first: a real run inside the nested test VM
# (tests/nested/run-nested.sh: SVM KVM under QEMU TCG, --iters 64) against kvm_pvm.
"$cmp" "$fx/vmexit-old1.json" -- "$fx/vmexit-svm-nested.json" >"$t/out"
check "different backend, kernel, CPU and TSC rate are shown before the table" \
	bash -c "sed -n 2,5p '$t/out' | tr '\n' '|' | grep -qx 'DIFFERS: backend: old pvm; new svm|DIFFERS: host_kernel: old 6.18.44-fc-v657; new 6.1.0-57-amd64|DIFFERS: cpu_model: old Intel(R) Xeon(R) Processor; new QEMU TCG CPU version 2.5+|DIFFERS: tsc_khz: old 2100000; new 2097761|'"
check "pvm vs nested svm: every one of the 17 rows is compared" \
	test "$(grep -cE '^vmexit .* 32\+32$' "$t/out")" -eq 17

# A record without per-round values (ABI 3 and older): its median is one sample.
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    del r["round_medians"], r["round_loop_medians"]
json.dump(d, open(sys.argv[2], "w"))' "$fx/vmexit-old1.json" "$t/abi3.json"
"$cmp" --json "$t/abi3.json.rows" "$t/abi3.json" -- "$fx/vmexit-slow1.json" >"$t/out"
st=$?
check "an ABI 3 run: compared (exit $st), no verdict from 1 sample" \
	bash -c "[ $st -eq 0 ] && [ -z \"\$(grep -E '(slower|faster)\"' '$t/abi3.json.rows')\" ] && grep -q 'too few samples (1+32)' '$t/out'"

# Bad input: a clear message and status 2.
bad_input() {	# bad_input NAME NEEDLE ARGS...
	local name=$1 needle=$2 st
	shift 2
	"$cmp" "$@" >"$t/out" 2>"$t/err"
	st=$?
	check "$name: status 2 (got $st) and says '$needle'" \
		bash -c "[ $st -eq 2 ] && grep -qF -- '$needle' '$t/err'"
}
echo '{"results": 3}' >"$t/notours.json"
echo 'not json' >"$t/garbage.json"
bad_input "missing file" "nonexistent.json: No such file" "$fx/vmexit-old1.json" -- "$t/nonexistent.json"
bad_input "not JSON" "garbage.json: not JSON" "$fx/vmexit-old1.json" -- "$t/garbage.json"
bad_input "not a minivmm file" "not a minivmm --json file" "$t/notours.json" -- "$fx/vmexit-old1.json"
bad_input "no separator" "positional files need a" "$fx/vmexit-old1.json" "$fx/vmexit-old2.json"
bad_input "no new side" "need at least one old and one new run" "$fx/vmexit-old1.json" --

if command -v gnuplot >/dev/null; then
	"$cmp" --plot "$t/plot.png" "$fx"/vmexit-old*.json -- "$fx"/vmexit-slow*.json >/dev/null
	check "--plot writes a PNG" bash -c "[ \"\$(head -c 8 '$t/plot.png' | od -An -tx1 | tr -d ' ')\" = 89504e470d0a1a0a ]"
	"$cmp" --plot "$t/only.png" "$fx/vmexit-old1.json" -- "$fx/ipi-old1.json" >/dev/null
	st=$?
	check "--plot draws rows found on one side only too (exit $st)" \
		bash -c "[ $st -eq 0 ] && [ -s '$t/only.png' ]"
else
	bad "--plot: gnuplot missing (scripts/deps.sh check installs gnuplot-nox)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
