#!/usr/bin/env python3
"""bench-linux-report.py - docs/results/linux.md: Linux's own paravirtual code under minivmm.

Usage: bench-linux-report.py --source host|nested-tcg-svm [--tree-rev REV] BENCHDIR OUT.md

BENCHDIR holds the boots of bench-matrix.sh's linux set (BENCH_SET=linux),
linux-VARIANT-CPUS-rROUND.{json,log,status}: Debian's kernel running the
test initramfs' workloads (tests/linux/work/) under each paravirtual path.
Every number comes from those files: the workloads' records (guest TSC
cycles, or operations a second) and minivmm's --stats. Runs of different
boots are compared only as medians over rounds that alternated their order
in one run of the set; on an emulated backend the page holds counts and
correctness only.
"""
import datetime
import importlib.util
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
_spec = importlib.util.spec_from_file_location("bench_report", os.path.join(HERE, "bench-report.py"))
bench_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_report)
Run, table = bench_report.Run, bench_report.table

NAME = re.compile(r"linux-([a-z]+)-(\d+)-r(\d+)\.status")
VARIANTS = {
    "hv": "`--pv hyperv`: Hyper-V's flush and IPI hypercalls",
    "native": "`--pv hyperv --hv-hints none`: the native path (IPIs, x2APIC ICR)",
    "kvm": "`--pv kvm`: KVM's PV flush (steal time), native IPIs",
    "told": "`--pv kvm --preempt 1-(N-1):2ms:10ms`: held vCPUs, `preempted` published",
    "hidden": "the same holds with `:hidden`: `preempted` not published",
}
WORKLOADS = ("shootdown", "membarrier", "mmaplock")
HCALL = re.compile(r"^\s*hv (\S+)/(\S+)\s+(\d+)", re.M)


def load(bench_dir):
    """{(variant, cpus): [Run per round, in round order]}"""
    boots = {}
    for f in sorted(os.listdir(bench_dir)):
        m = NAME.fullmatch(f)
        if m:
            key = (m.group(1), int(m.group(2)))
            boots.setdefault(key, []).append((int(m.group(3)), Run(bench_dir, f[:-len(".status")])))
    return {k: [r for _, r in sorted(v, key=lambda p: p[0])] for k, v in boots.items()}


def emulated(runs, source):
    return source != "host" or any(r.env.get("cpu_model", "").startswith("QEMU TCG") for r in runs)


def workload_verdicts(run):
    """'shootdown passed, membarrier passed' from /init's lines, FAIL lines kept whole."""
    out = []
    for w in WORKLOADS:
        if re.search(r"^mvm-work: %s: passed" % w, run.log, re.M):
            out.append(f"{w} passed")
        else:
            m = re.search(r"^mvm-work: FAIL: %s: (.*)$" % w, run.log, re.M)
            if m:
                out.append(f"{w} FAILED: {m.group(1).strip()}")
    return out


def stats_sum(run, field):
    """FIELD=N summed over --stats' 'vCPU i:' lines."""
    return sum(int(m) for m in re.findall(r"^\s*vCPU \d+:.*\b%s=(\d+)" % re.escape(field), run.log, re.M))


def steal(run):
    m = re.search(r"^mvm-work: mmaplock: passed: .* steal (-?\d+) ticks", run.log, re.M)
    return int(m.group(1)) if m else None


def hypercalls(run):
    """{(call, encoding): count} from --stats' hypercall rows."""
    calls = {}
    for call, enc, n in HCALL.findall(run.log):
        calls[(call, enc)] = calls.get((call, enc), 0) + int(n)
    return calls


def boot_line(run):
    parts = [f"exit {run.status}"] + workload_verdicts(run)
    paths = {}
    for x in run.records:
        paths[(x["suite"], x["variant"])] = paths.get((x["suite"], x["variant"]), 0) + 1
    if paths:
        parts.append("records: " + ", ".join(f"{su} {va} x{n}" for (su, va), n in sorted(paths.items())))
    calls = hypercalls(run)
    parts.append("hypercalls: " + (", ".join(f"{c}/{e} {n}" for (c, e), n in sorted(calls.items()))
                                   if calls else "none"))
    held = stats_sum(run, "preempted-episodes")
    if "minivmm: preempt:" in run.log or held:
        parts.append(f"holds with `preempted` set {held}, flushes left to KVM "
                     f"{stats_sum(run, 'pv-flush-deferred')}")
    st = steal(run)
    if st is not None:
        parts.append(f"steal {st} ticks")
    return "; ".join(parts)


def section_where(boots, source, rev, emu):
    runs = [r for rs in boots.values() for r in rs if r.doc]
    env = runs[0].env if runs else {}
    rounds = max((len(rs) for rs in boots.values()), default=0)
    out = ["# Linux's own paravirtual code under minivmm\n",
           f"Written by `make bench-linux` (scripts/bench.sh --linux) on "
           f"{datetime.date.today().isoformat()} from minivmm {rev}; never edited by hand. "
           "Debian's kernel boots with the test initramfs and runs its workloads "
           "(docs/linux-work.md) under each paravirtual path; each row is one boot.\n",
           f"- Where: {'this host' if source == 'host' else bench_report.SOURCES[source]}.",
           f"- KVM: backend `{env.get('backend', '?')}`, host kernel `{env.get('host_kernel', '?')}`, "
           f"CPU `{env.get('cpu_model', '?')}`, {env.get('host_cpus', '?')} host CPUs; "
           f"{rounds} round(s), each running the variants in the opposite order to the one before.\n",
           "Variants: " + "; ".join(f"**{k}**: {v}" for k, v in VARIANTS.items()) + ".\n"]
    if emu:
        out.append("**Emulated backend: no time on this page is a result.** It holds counts and "
                   "correctness only. Where Linux boots on a real VMX or SVM host, "
                   "`make bench-linux` runs the same set there and this page gains the costs: "
                   "native against PV for the shootdown and membarrier, and mmaplock's "
                   "throughput with and without `preempted`.\n")
    return out


def section_boots(boots):
    rows = []
    for (v, n), rs in sorted(boots.items(), key=lambda p: (p[0][1], list(VARIANTS).index(p[0][0])
                                                            if p[0][0] in VARIANTS else 99)):
        for i, r in enumerate(rs, 1):
            rows.append([n, v, i, boot_line(r)])
    return ["## Every boot\n",
            "Its exit status (0: /init powered off after every workload passed), each workload's "
            "own verdict (shootdown: no reader saw a page's old contents after the call that "
            "replaced it returned; membarrier: every call returned 0), the records it handed "
            "minivmm with the path Linux said it took (hv-hypercall, kvm-pv or native; mmaplock: "
            "the hypervisor it detected), the hypercalls minivmm served, the vCPU holds and the "
            "flushes Linux left to KVM, and the steal time `/proc/stat` counted.\n",
            table(["vCPUs", "variant", "round", "what it showed"], rows)]


def median_of(runs, suite, case, targets):
    """Median over rounds of each boot's own median for that row, or None."""
    vals = []
    for r in runs:
        rec = next((x for x in r.records if x["suite"] == suite and x["case"] == case
                    and x["targets"] == targets), None)
        if rec:
            vals.append(rec["median"])
    return (statistics.median(vals), min(vals), max(vals)) if vals else None


def cell(m, unit):
    if not m:
        return "–"
    return f"{m[0]:,.0f} ({m[1]:,.0f}..{m[2]:,.0f}) {unit}"


def section_costs(boots):
    rows = []
    for n in sorted({n for _, n in boots}):
        hv, native, kvm = (boots.get((v, n), []) for v in ("hv", "native", "kvm"))
        keys = sorted({(x["suite"], x["case"], x["targets"]) for r in native + hv + kvm
                       for x in r.records if x["suite"] in ("linux-tlb", "linux-ipi")})
        for suite, case, t in keys:
            a, b, c = (median_of(rs, suite, case, t) for rs in (native, hv, kvm))
            rows.append([n, case, t, cell(a, "cyc"), cell(b, "cyc"), cell(c, "cyc"),
                         f"{b[0] / a[0]:.2f}" if a and b and a[0] else "–",
                         f"{c[0] / a[0]:.2f}" if a and c and a[0] else "–"])
        told, hidden = boots.get(("told", n), []), boots.get(("hidden", n), [])
        x, y = (median_of(rs, "linux-mmap", "mmap+munmap per thread", 2 * n) for rs in (told, hidden))
        if x or y:
            rows.append([n, "mmap+munmap per thread (told / hidden)", 2 * n, cell(y, "/s"),
                         cell(x, "/s"), "–", f"{x[0] / y[0]:.2f}" if x and y and y[0] else "–", "–"])
    return ["## Costs\n",
            "Guest TSC cycles per operation at CPL3 (mmaplock: operations a second per thread), "
            "median over rounds of each boot's median (min..max over rounds); the ratios are "
            "medians over the native one (mmaplock: told over hidden).\n",
            table(["vCPUs", "case", "targets", "native (hidden)", "Hyper-V PV (told)", "KVM PV",
                   "PV / native", "KVM / native"], rows)]


def main():
    a = bench_report.page_args(__doc__)
    boots = load(a.bench_dir)
    if not boots:
        sys.exit(f"bench-linux-report.py: no boots of the linux set in {a.bench_dir}")
    emu = emulated([r for rs in boots.values() for r in rs if r.doc], a.source)
    parts = section_where(boots, a.source, a.tree_rev, emu) + section_boots(boots)
    if not emu:
        parts += section_costs(boots)
    bench_report.write_page(a.out, parts, "bench-linux-report.py")


if __name__ == "__main__":
    main()
