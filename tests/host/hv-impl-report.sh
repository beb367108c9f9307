#!/usr/bin/env bash
# scripts/hv-impl-report.py (make bench-hv-impl's page) on made-up runs: an
# emulated backend gets counts and correctness only, a real one the cost
# columns; what reached minivmm under KVM's Hyper-V is counted, a missing
# run says so, and a folder without the set is refused.
LABEL="hv-impl report"
. "$(dirname "$0")/report-lib.sh"

# mkruns DIR CPU_MODEL KVM_HYPERV_EXITS: the hv-impl set at 2 vCPUs, one
# timed IPI row each (minivmm's ratio 2.0, KVM's 1.0) and the check runs.
mkruns() {
	mkdir -p "$1"
	python3 - "$1" "$2" "$3" <<'EOF'
import json, os, sys
out, cpu, up = sys.argv[1], sys.argv[2], int(sys.argv[3])

def doc(impl, ratio, calls, exits):
    env = {"backend": "svm", "cpu_model": cpu, "host_kernel": "6.1.0-57-amd64",
           "host_cpus": 2, "vcpus": 2, "hv_impl": impl, "tsc_khz": 2600000}
    rec = {"id": 2, "suite": "ipi", "case": "normal", "variant": "fast", "state": "halted",
           "cpl": 0, "targets": 1, "iters": 900 if impl == "minivmm" else 1700,
           "median": 1000, "baseline": 1, "ratio": ratio, "ratio_lo": ratio, "ratio_hi": ratio}
    base = dict(rec, id=1, variant="x2apic", ratio=None, ratio_lo=None, ratio_hi=None, baseline=0)
    return {"environment": env, "results": [base, rec],
            "vmm": {"hypercalls": calls, "hypercalls_served_by": impl,
                    "vcpus": [{"vcpu": 0, "exits": exits}]}}

mine_calls = [{"call": "SendSyntheticClusterIpi", "encoding": "fast", "count": 10, "success": 10}]
for name, d, log in (
        ("ipi-2", doc("minivmm", 2.0, mine_calls, {"IO": 5}), "2 passed, 0 failed\n"),
        ("kvmhv-ipi-2", doc("kvm", 1.0, [], {"IO": 5, "HYPERV": up}), "2 passed, 0 failed\n"),
        ("check-2", doc("minivmm", None, [], {}),
         "PASS: hv-flush: negative control: x\nSKIP: b (why)\n5 passed, 0 failed\n"),
        ("kvmhv-check-2", doc("kvm", None, [], {}), "PASS: a\n4 passed, 1 failed\n")):
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(d, f)
    with open(os.path.join(out, name + ".log"), "w") as f:
        f.write(log)
    with open(os.path.join(out, name + ".status"), "w") as f:
        f.write("1\n" if "1 failed" in log else "0\n")
EOF
}

report() { python3 "$top/scripts/hv-impl-report.py" --source "$1" --tree-rev test "$2" "$3" 2>"$d/err"; }

mkruns "$d/emu" "QEMU TCG CPU version 2.5+" 0
if report nested-tcg-svm "$d/emu" "$d/emu.md"; then
	want "emulated: said so" "$d/emu.md" "**Emulated backend: no time on this page is a result.**"
	lacks "emulated: no cost column" "$d/emu.md" "minivmm / KVM"
	want "emulated: per-row counts under both" "$d/emu.md" "| 2 | ipi | normal | fast | halted | 1 | 900 | 1700 |"
	want "calls minivmm served" "$d/emu.md" "| 2 | ipi | SendSyntheticClusterIpi | fast | 10 | 10 |"
	want "none reached minivmm under KVM" "$d/emu.md" "| 2 | ipi | (all, under KVM's Hyper-V) | – | 0 | – |"
	want "correctness from each run's own verdict" "$d/emu.md" \
		"| 2 | hv-ipi + hv-flush (delivery and flush checks) | 5 passed, 0 failed, 1 skipped (exit 0); control bit (old page read without a flush) | 4 passed, 1 failed, 0 skipped (exit 1) |"
	want "stamp names the command" "$d/emu.md" 'Written by `make bench-hv-impl`'
else
	bad "emulated runs: exit $? ($(cat "$d/err"))"
fi

# A real CPU from the host: the cost columns, minivmm's ratio over KVM's.
mkruns "$d/real" "AMD EPYC 7B13" 3
if report host "$d/real" "$d/real.md"; then
	lacks "real backend: no emulation note" "$d/real.md" "Emulated backend"
	lacks "a kind that did not run has no row" "$d/real.md" "| 2 | flush"
	want "real backend: minivmm's ratio over KVM's" "$d/real.md" "| 900 | 1700 | 2.000x [2.000–2.000] | 1.000x [1.000–1.000] | 2.00x |"
	want "KVM_EXIT_HYPERV exits count as reaching minivmm" "$d/real.md" "| 2 | ipi | (all, under KVM's Hyper-V) | – | 3 | – |"
else
	bad "real runs: exit $? ($(cat "$d/err"))"
fi

# The host source with a TCG CPU is still an emulator.
if report host "$d/emu" "$d/emu2.md"; then
	want "host source on a TCG CPU: still emulated" "$d/emu2.md" "Emulated backend"
else
	bad "host source on TCG: exit $?"
fi

rm "$d/real/kvmhv-check-2".*
if report host "$d/real" "$d/miss.md"; then
	want "a missing run says so" "$d/miss.md" "| 5 passed, 0 failed, 1 skipped (exit 0); control bit (old page read without a flush) | did not run |"
else
	bad "missing run: exit $?"
fi

mkdir "$d/none"
if report host "$d/none" "$d/none.md"; then
	bad "a folder without the set: exit 0"
else
	want "a folder without the set is refused" "$d/err" "no runs of the hv-impl set in"
fi

finish
