#!/usr/bin/env bash
# scripts/bench-linux-report.py (make bench-linux's page) on made-up boots:
# each boot's verdicts and counts from its log, the cost table only off an
# emulator, medians over rounds and ratios over the native boots, and a
# folder without the set refused.
LABEL="linux bench report"
. "$(dirname "$0")/report-lib.sh"

# mkboots DIR CPU_MODEL: two rounds of hv, native and told/hidden at 2 vCPUs.
mkboots() {
	mkdir -p "$1"
	python3 - "$1" "$2" <<'EOF'
import json, os, sys
out, cpu = sys.argv[1], sys.argv[2]
env = {"backend": "svm", "cpu_model": cpu, "host_kernel": "6.1.0-57-amd64", "host_cpus": 2,
       "vcpus": 2, "tsc_khz": 2600000}

def rec(suite, case, variant, targets, median, unit="cycles"):
    return {"suite": suite, "case": case, "variant": variant, "targets": targets, "cpl": 3,
            "median": median, "unit": unit, "iters": 100, "ratio": None, "state": None}

logs = {
    "hv": "mvm-work: shootdown: passed\nmvm-work: membarrier: passed\n"
          "  hv FlushVirtualAddressSpace/regular      12 1 2\n"
          "  hv SendSyntheticClusterIpi/fast          30 1 2\n"
          "  vCPU 0: IO=5 preempted-episodes=0 pv-flush-deferred=0\n",
    "native": "mvm-work: FAIL: shootdown: 7 stale reads of 100\nmvm-work: membarrier: passed\n",
    "told": "minivmm: preempt: vCPU 1 held 2000 us every 10000 us\n"
            "mvm-work: mmaplock: passed: 4 threads on 2 CPUs, 10 mmap+munmap in 1.00 s, steal 9 ticks (/proc/stat, USER_HZ)\n"
            "  vCPU 0: IO=5 preempted-episodes=0 pv-flush-deferred=0\n"
            "  vCPU 1: IO=5 preempted-episodes=40 pv-flush-deferred=3\n",
    "hidden": "mvm-work: mmaplock: passed: 4 threads on 2 CPUs, 10 mmap+munmap in 1.00 s, steal 0 ticks (/proc/stat, USER_HZ)\n",
}
for r in (1, 2):
    for v, log in logs.items():
        if v in ("hv", "native"):
            base = 1000 if v == "native" else 3000
            results = [rec("linux-tlb", "remap 1 page", v, 1, base * r),
                       rec("linux-ipi", "membarrier", v, 1, base)]
        else:
            results = [rec("linux-mmap", "mmap+munmap per thread", v, 4,
                           (200 if v == "told" else 100) * r, "per_sec")]
        name = os.path.join(out, f"linux-{v}-2-r{r}")
        json.dump({"environment": env, "results": results, "vmm": {}}, open(name + ".json", "w"))
        open(name + ".log", "w").write(log)
        open(name + ".status", "w").write("1\n" if v == "native" else "0\n")
EOF
}

report() { python3 "$top/scripts/bench-linux-report.py" --source "$1" --tree-rev test "$2" "$3" 2>"$d/err"; }

mkboots "$d/emu" "QEMU TCG CPU version 2.5+"
if report nested-tcg-svm "$d/emu" "$d/emu.md"; then
	want "emulated: said so" "$d/emu.md" "**Emulated backend: no time on this page is a result.**"
	lacks "emulated: no cost table" "$d/emu.md" "## Costs"
	want "hypercalls from --stats" "$d/emu.md" \
		"| 2 | hv | 1 | exit 0; shootdown passed; membarrier passed; records: linux-ipi hv x1, linux-tlb hv x1; hypercalls: FlushVirtualAddressSpace/regular 12, SendSyntheticClusterIpi/fast 30 |"
	want "a failed workload is shown whole" "$d/emu.md" \
		"| 2 | native | 2 | exit 1; shootdown FAILED: 7 stale reads of 100; membarrier passed; records: linux-ipi native x1, linux-tlb native x1; hypercalls: none |"
	want "holds, deferred flushes and steal" "$d/emu.md" \
		"mmaplock passed; records: linux-mmap told x1; hypercalls: none; holds with \`preempted\` set 40, flushes left to KVM 3; steal 9 ticks |"
	want "stamp names the command" "$d/emu.md" 'Written by `make bench-linux`'
	want "rounds counted" "$d/emu.md" "2 round(s)"
else
	bad "emulated boots: exit $? ($(cat "$d/err"))"
fi

mkboots "$d/real" "AMD EPYC 7B13"
if report host "$d/real" "$d/real.md"; then
	lacks "real backend: no emulation note" "$d/real.md" "Emulated backend"
	# remap: native 1000, 2000 -> median 1500; hv 3000, 6000 -> 4500: 3.00x.
	want "median over rounds, PV over native" "$d/real.md" \
		"| 2 | remap 1 page | 1 | 1,500 (1,000..2,000) cyc | 4,500 (3,000..6,000) cyc | – | 3.00 | – |"
	want "told over hidden" "$d/real.md" \
		"| 2 | mmap+munmap per thread (told / hidden) | 4 | 150 (100..200) /s | 300 (200..400) /s | – | 2.00 | – |"
else
	bad "real boots: exit $? ($(cat "$d/err"))"
fi

mkdir "$d/none"
if report host "$d/none" "$d/none.md"; then
	bad "a folder without the set: exit 0"
else
	want "a folder without the set is refused" "$d/err" "no boots of the linux set in"
fi

finish
