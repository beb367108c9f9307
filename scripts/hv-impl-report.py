#!/usr/bin/env python3
"""hv-impl-report.py - docs/results/hv-impl.md: minivmm's Hyper-V layer against KVM's own.

Usage: hv-impl-report.py --source host|nested-tcg-svm [--tree-rev REV] BENCHDIR OUT.md

BENCHDIR holds the runs of bench-matrix.sh's hv-impl set (BENCH_SET=hv-impl):
NAME under minivmm's layer, kvmhv-NAME under KVM's in-kernel Hyper-V
(--hv-impl kvm), for NAME in ipi-N, flush-N (timed suites) and check-N (the
correctness suites hv-ipi + hv-flush). Every number comes from those files.
On an emulated backend the page holds counts and correctness only: no
timing taken under an emulator is a result.
"""
import datetime
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
_spec = importlib.util.spec_from_file_location("bench_report", os.path.join(HERE, "bench-report.py"))
bench_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_report)
Run, table, ratio_cell, quotient = (bench_report.Run, bench_report.table,
                                    bench_report.ratio_cell, bench_report.quotient)

KVM_PREFIX = "kvmhv-"
WHERE = {"host": "this host's /dev/kvm"}
TIMED = ("ipi", "flush")
CHECK = "check"
VERDICT = re.compile(r"^(\d+) passed, (\d+) failed", re.M)
LINE = re.compile(r"^(PASS|FAIL|SKIP): ", re.M)


def vcpu_counts(bench_dir):
    """The vCPU counts the set ran, from the NAME-N.status files present."""
    counts = set()
    for f in os.listdir(bench_dir):
        m = re.fullmatch(r"(?:%s)?(?:%s)-(\d+)\.status" % (KVM_PREFIX, "|".join(TIMED + (CHECK,))), f)
        if m:
            counts.add(int(m.group(1)))
    return sorted(counts)


def load_pairs(bench_dir):
    """{(kind, vcpus): (minivmm's run, KVM's run)}"""
    pairs = {}
    for n in vcpu_counts(bench_dir):
        for kind in TIMED + (CHECK,):
            name = f"{kind}-{n}"
            mine, kvm = Run(bench_dir, name), Run(bench_dir, KVM_PREFIX + name)
            if mine.status is not None or kvm.status is not None:
                pairs[(kind, n)] = (mine, kvm)
    return pairs


def emulated(runs, source):
    return source != "host" or any(r.env.get("cpu_model", "").startswith("QEMU TCG") for r in runs)


def outcome(run):
    """'12 passed, 0 failed, 3 skipped (exit 0)' from the run's own log, or why there is none."""
    if run.status is None:
        return "did not run"
    if bench_report.kvm_hv_absent(run):
        return "refused: this KVM has no KVM_CAP_HYPERV (exit 2)"
    m = VERDICT.search(run.log)
    skips = sum(1 for k in LINE.findall(run.log) if k == "SKIP")
    if not m:
        return f"no verdict line (exit {run.status})"
    return f"{m.group(1)} passed, {m.group(2)} failed, {skips} skipped (exit {run.status})"


def control(run):
    """What hv-flush's negative control (no flush: must read the old page) showed."""
    for kind in ("PASS", "SKIP", "FAIL"):
        if re.search(r"^%s: hv-flush: negative control" % kind, run.log, re.M):
            return {"PASS": "; control bit (old page read without a flush)",
                    "SKIP": "; control SKIPPED (stale reads not seen here)",
                    "FAIL": "; control FAILED"}[kind]
    return "; no negative control line" if run.status == 0 else ""


def reached_minivmm(run):
    """Hypercalls minivmm served or saw come up (KVM_EXIT_HYPERV), or None without JSON."""
    if not run.doc:
        return None
    served = sum(h["count"] for h in run.doc["vmm"].get("hypercalls", []))
    up = sum(v["exits"].get("HYPERV", 0) for v in run.doc["vmm"].get("vcpus", []))
    return served + up


def section_where(pairs, source, rev, emu):
    runs = [r for p in pairs.values() for r in p if r.doc]
    env = runs[0].env if runs else {}
    out = ["# minivmm's Hyper-V layer against KVM's own (`--hv-impl kvm`)\n",
           f"Written by `make bench-hv-impl` (scripts/bench.sh --hv-impl) on "
           f"{datetime.date.today().isoformat()} from minivmm {rev}; never edited by hand. "
           "The same guest.elf suites on the same KVM, once served by minivmm's layer in user "
           "space, once by KVM's in-kernel Hyper-V.\n",
           f"- Where: {WHERE.get(source, bench_report.SOURCES[source])}.",
           f"- KVM: backend `{env.get('backend', '?')}`, host kernel "
           f"`{env.get('host_kernel', '?')}`, CPU `{env.get('cpu_model', '?')}`, "
           f"{env.get('host_cpus', '?')} host CPUs.\n"]
    if emu:
        out.append("**Emulated backend: no time on this page is a result.** It holds counts and "
                   "correctness only. On a VMX or SVM host whose KVM has KVM_CAP_HYPERV, "
                   "`make bench-hv-impl` runs the same set there and this page gains each row's "
                   "cost under both implementations.\n")
    return out


def section_correctness(pairs):
    rows = []
    for (kind, n), (mine, kvm) in sorted(pairs.items(), key=lambda p: (p[0][1], p[0][0])):
        what = "hv-ipi + hv-flush (delivery and flush checks)" if kind == CHECK else \
            f"{kind} (every timed call returned SUCCESS)"
        cells = [outcome(r) + (control(r) if kind == CHECK and r.doc else "") for r in (mine, kvm)]
        rows.append([n, what] + cells)
    return ["## Correctness\n",
            "Each suite's own verdict. hv-ipi checks that every IPI reaches exactly its targets, "
            "once; hv-flush that no target reads a page's old contents after the flush, with a "
            "negative control (no flush: the old page is read) proving the check bites.\n",
            table(["vCPUs", "suites", "minivmm's layer", "KVM's Hyper-V"], rows)]


def section_calls(pairs):
    rows = []
    for (kind, n), (mine, kvm) in sorted(pairs.items(), key=lambda p: (p[0][1], p[0][0])):
        if kind == CHECK or not mine.doc:
            continue
        for h in mine.doc["vmm"].get("hypercalls", []):
            rows.append([n, kind, h["call"], h["encoding"], h["count"], h["success"]])
        k = reached_minivmm(kvm)
        rows.append([n, kind, "(all, under KVM's Hyper-V)", "–", "–" if k is None else k, "–"])
    return ["## Hypercalls that reached minivmm\n",
            "Per call and encoding, what minivmm's layer served in the timed run, and under "
            "KVM's Hyper-V what came up to minivmm at all (hypercalls it served plus "
            "KVM_EXIT_HYPERV exits): 0 means KVM served every call in the kernel.\n",
            table(["vCPUs", "suite", "call", "encoding", "calls", "HV_STATUS_SUCCESS"], rows)]


def row_pairs(mine, kvm):
    for rec in mine.records:
        if rec.get("ratio") is None:
            continue
        yield rec, kvm.find(rec["case"], rec["variant"], rec["cpl"], rec["targets"],
                            state=rec["state"])


def section_rows(pairs, emu):
    head = ["vCPUs", "suite", "case", "encoding", "state", "targets",
            "iterations, minivmm", "iterations, KVM"]
    if not emu:
        head += ["ratio to native, minivmm", "ratio to native, KVM", "minivmm / KVM"]
    rows = []
    for (kind, n), (mine, kvm) in sorted(pairs.items(), key=lambda p: (p[0][1], p[0][0])):
        if kind == CHECK or not (mine.doc and kvm.doc):
            continue
        for rec, other in row_pairs(mine, kvm):
            row = [n, kind, rec["case"], rec["variant"], rec["state"] or "–", rec["targets"],
                   rec["iters"], other["iters"] if other else "missing"]
            if not emu:
                q = quotient(rec, other)
                row += [ratio_cell(rec), ratio_cell(other), "–" if q is None else f"{q:.2f}x"]
            rows.append(row)
    intro = ("Each timed row under both implementations: call and encoding as the guest names "
             "them (regular: memory block; fast: RDX:R8; xmm-fast: XMM registers), targets 0 "
             "(empty set) to N-1. A row's iterations are paced by time (as many as fit in "
             "about 0.2 s: docs/measuring.md), so they count samples, not work. ")
    intro += ("Counts only: the cost columns are left out on an emulated backend.\n" if emu else
              "Each ratio is that run's own guest median over its native row (x2APIC ICR, or "
              "IPI + INVLPG) in the same run; the last column is minivmm's ratio over KVM's: "
              "above 1, the exit to user space costs that much more. No absolute time is "
              "compared across runs.\n")
    return ["## Every row\n", intro, table(head, rows)]


def main():
    a = bench_report.page_args(__doc__)
    pairs = load_pairs(a.bench_dir)
    if not pairs:
        sys.exit(f"hv-impl-report.py: no runs of the hv-impl set in {a.bench_dir}")
    emu = emulated([r for p in pairs.values() for r in p if r.doc], a.source)
    parts = (section_where(pairs, a.source, a.tree_rev, emu) + section_correctness(pairs) +
             section_calls(pairs) + section_rows(pairs, emu))
    bench_report.write_page(a.out, parts, "hv-impl-report.py")


if __name__ == "__main__":
    main()
