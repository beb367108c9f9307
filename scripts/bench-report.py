#!/usr/bin/env python3
"""bench-report.py - docs/results/results.md and docs/results/bench-*.png from the matrix.

Usage: bench-report.py --source host|nested-tcg-svm [--plots GP] BENCHDIR DOCSDIR

BENCHDIR holds NAME.json / NAME.log / NAME.status per run of
scripts/bench-matrix.sh. Every number in the report comes from those files:
guest records (TSC cycles, converted with the run's tsc_khz) and the VMM's
own statistics. Nothing is measured or estimated here.
"""
import argparse
import datetime
import json
import math
import os
import subprocess
import sys

import minivmm_json
from benchfit import loglog_slope

IPI_PATHS = ("x2apic", "regular", "fast", "ex-regular", "ex-xmm-fast")
FLUSH_STATES = ("halted", "running", "preempted")

SOURCES = {
    "host": "this host's /dev/kvm (see the environment table for the backend)",
    "nested-tcg-svm": "the nested test VM (tests/nested/run-nested.sh): QEMU TCG "
                      "software emulation with an emulated AMD SVM CPU and kvm_amd. "
                      "Real KVM, but every number is 50-100x slower and distorted "
                      "by emulation: they show that the suites work, they are "
                      "**not** benchmarks of minivmm",
}


class Run:
    """One minivmm process of the matrix."""

    def __init__(self, bench_dir, name):
        self.name = name
        self.doc = None
        self.status = None
        self.log = ""
        path = os.path.join(bench_dir, name)
        self.doc = minivmm_json.load_or_none(path + ".json")
        try:
            with open(path + ".status") as f:
                self.status = int(f.read().strip() or "-1")
        except (OSError, ValueError):
            pass
        try:
            with open(path + ".log", errors="replace") as f:
                self.log = f.read()
        except OSError:
            pass

    @property
    def env(self):
        return self.doc["environment"] if self.doc else {}

    @property
    def records(self):
        return minivmm_json.records(self.doc)

    def ns(self, cycles):
        return minivmm_json.ns(self.doc, cycles)

    def find(self, case, variant, cpl=None, targets=None, state=minivmm_json.ANY):
        return minivmm_json.find(self.doc, case, variant, cpl, targets, state=state)

    def median_ns(self, rec):
        return self.ns(rec["median"]) if rec else None

    def vmm_side(self, rec):
        """The VMM's own statistic for the record's exit kind (a dict), or None."""
        return minivmm_json.vmm_side(self.doc, rec)

    def baseline(self, rec):
        return minivmm_json.baseline(self.doc, rec)


def fmt(v, digits=0):
    if v is None:
        return "–"
    return f"{v:,.{digits}f}"


def fmt_ratio(v):
    """A guest ratio from the JSON: a number, "inf", or None."""
    if v is None:
        return "–"
    return "∞" if v == "inf" else f"{v:.3f}"


def ratio_cell(rec, with_base=None):
    """The guest's ratio to its baseline with its interquartile range, as measured."""
    if not rec:
        return "–"
    if rec.get("in_noise"):
        return "in the loop's noise"
    if rec.get("ratio") is None:
        return "–"
    cell = (f"{fmt_ratio(rec['ratio'])}x [{fmt_ratio(rec['ratio_lo'])}–"
            f"{fmt_ratio(rec['ratio_hi'])}]")
    if with_base:
        cell += f" {with_base['case']} {with_base['variant']}"
    return cell


def body_cell(run, rec):
    if rec.get("in_noise"):
        return "in noise"
    return fmt(run.ns(rec["body"])) if rec.get("body") is not None else "–"


def ratio(a, b):
    """Only for two VMM-side medians of one run, or plot scaling; never for guest rows."""
    return a / b if a is not None and b else None


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def page_args(doc):
    """The command line every one-page report shares: --source, --tree-rev, BENCHDIR, OUT.md."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--source", required=True, choices=sorted(SOURCES))
    ap.add_argument("--tree-rev", default="?", help="git describe of the source tree now")
    ap.add_argument("bench_dir")
    ap.add_argument("out")
    return ap.parse_args()


def write_page(path, parts, who):
    with open(path, "w") as f:
        f.write("\n".join(parts).rstrip("\n") + "\n")
    print(f"{who}: wrote {path}", file=sys.stderr)


# ------------------------------------------------------------------ sections

def section_environment(runs):
    rows = []
    for r in runs.values():
        e = r.env
        if not e:
            rows.append([r.name] + ["(no JSON)"] * 9 + ["?" if r.status is None else r.status])
            continue
        rows.append([r.name, e["backend"], e["host_kernel"], e["cpu_model"], e["tsc_khz"],
                     e["vcpus"], e["host_cpus"],
                     "**yes**" if e["overcommitted"] else "no", e.get("xmm_path", ""),
                     e.get("minivmm", "?"), "?" if r.status is None else r.status])
    return "## Environment\n\n" + table(
        ["run", "backend", "host kernel", "CPU model", "TSC kHz", "vCPUs", "host CPUs",
         "overcommitted", "XMM path", "minivmm", "exit"], rows)


def verdict(value, limit, lower=None):
    if value is None:
        return "not measured"
    ok = value <= limit and (lower is None or value >= lower)
    return "met" if ok else "**not met**"


def spread_verdict(rec, limit):
    """Met only if the whole interquartile range is at or under the target."""
    if not rec or rec.get("ratio") is None:
        return "not measured"
    lo, hi = rec["ratio_lo"], rec["ratio_hi"]
    if hi != "inf" and hi <= limit:
        return "met"
    if lo != "inf" and lo > limit:
        return "**not met**"
    return "undecided (target inside the IQR)"


# Headline ratios: (label, run, case, targets' state or None, variant, CPL, target or None). Each is
# one guest record's own ratio to its baseline, from interleaved rounds.
HEADLINES = (
    ("minivmm null-port exit / bare re-entry (MVM_PORT_NULL_BARE), CPL3",
     "vmexit-1", "pio-in null", None, "user", 3, 1.03),
    ("minivmm null-port exit / bare re-entry, CPL0 (kvm_pvm: with emulation)",
     "vmexit-1", "pio-in null", None, "user", 0, 1.03),
    ("bare user-space exit / in-KVM exit (port 0x21), CPL3",
     "vmexit-1", "pio-in null", None, "bare", 3, None),
    ("fast hypercall / null-port exit (CPL0)",
     "vmexit-1", "hcall SendIpi(empty)", None, "fast", 0, 1.10),
    ("SendIpi regular / fast (guest round trip)",
     "vmexit-1", "hcall SendIpi(empty)", None, "regular", 0, None),
    ("SendIpiEx xmm-fast / SendIpi fast (guest round trip)",
     "vmexit-1", "hcall SendIpiEx(empty)", None, "xmm-fast", 0, None),
    ("IPI to a halted vCPU: SendSyntheticClusterIpi fast / x2APIC ICR",
     "ipi-2", "normal", "halted", "fast", 0, None),
    ("flush 1 halted vCPU: FlushVirtualAddressList regular / IPI + INVLPG",
     "flush-2", "list", "halted", "regular", 0, None),
)


def headline_values(runs):
    """{label: record or None} for the headline ratios of one matrix."""
    out = {}
    for label, name, case, state, variant, cpl, _ in HEADLINES:
        run = runs.get(name)
        out[label] = run.find(case, variant, cpl, state=state) if run else None
    return out


def section_ratios(runs):
    rows = []
    values = headline_values(runs)
    for label, name, case, state, variant, cpl, target in HEADLINES:
        rec = values[label]
        rows.append([label, ratio_cell(rec), rec["rounds"] if rec else "–",
                     f"≤ {target:.2f}x" if target else "–",
                     spread_verdict(rec, target) if target else "informational",
                     f"{name}: {case}{' ' + state if state else ''} {variant} CPL{cpl}"])
    out = ["## Headline ratios\n",
           "Each ratio is measured by the guest in one run: the row and its baseline run in "
           "alternating blocks (32 rounds), each round's ratio is (row − loop) / (baseline − "
           "loop) from neighbouring blocks, and the table shows the median over rounds with "
           "the interquartile range in brackets. A target counts as met only when the whole "
           "range is under it. Ratios are not comparable across runs' absolute times, and "
           "none here is computed from two medians.\n",
           table(["ratio", "value [IQR]", "rounds", "target", "verdict", "from"], rows)]
    return "\n".join(out) + "\n" + section_vmm_ratios(runs)


def section_vmm_ratios(runs):
    base = runs.get("vmexit-1")

    def vmm(case, variant, cpl=0):
        h = base.vmm_side(base.find(case, variant, cpl)) if base else None
        return h["median_ns"] if h else None

    rows = []
    v = vmm("hcall SendIpi(empty)", "fast")
    rows.append(["VMM-side decode+dispatch of a fast hypercall (SendIpi, empty set)",
                 fmt(v) + " ns", "≤ 300 ns", verdict(v, 300)])
    vfast = vmm("hcall SendIpi(empty)", "fast")
    for case, variant in (("hcall SendIpi(empty)", "regular"),
                          ("hcall SendIpiEx(empty)", "regular"),
                          ("hcall SendIpiEx(empty)", "xmm-fast")):
        v = ratio(vmm(case, variant), vfast)
        rows.append([f"VMM side: {case} {variant} / SendIpi fast", fmt(v, 3) + "x",
                     "≤ 1.05x", verdict(v, 1.05)])
    return ("### minivmm's own side (vmexit-1)\n\n"
            "minivmm's own time per exit, from its whole-run histograms (16 log-linear buckets "
            "per power of two, so medians are resolved to about 4.4%): no spread, and not "
            "interleaved, so these are secondary to the guest ratios above. The XMM path "
            "(spill vs ioctl) is not compared here: its two runs are separate processes, and "
            "ratios across runs are not reported.\n\n" +
            table(["quantity", "value", "target", "verdict"], rows))


def section_stability(runs, repeats):
    """Each headline ratio in every repeated run, and how far it moved from its median."""
    if not repeats:
        return ""
    matrices = [runs] + repeats
    rows = []
    for label, *_ in HEADLINES:
        vals = []
        for m in matrices:
            rec = headline_values(m)[label]
            r = rec.get("ratio") if rec else None
            vals.append(r if isinstance(r, (int, float)) else None)
        got = sorted(v for v in vals if v is not None)
        med = got[len(got) // 2] if len(got) % 2 else \
            (got[len(got) // 2 - 1] + got[len(got) // 2]) / 2 if got else None
        dev = max(abs(v / med - 1) for v in got) if got and med else None
        rows.append([label] + [fmt_ratio(v) for v in vals] +
                     [fmt_ratio(med), f"±{dev * 100:.1f}%" if dev is not None else "–",
                      verdict(dev, 0.10) if dev is not None else "not measured"])
    head = ["ratio"] + [f"run {i + 1}" for i in range(len(matrices))] + \
        ["median", "largest move", "within ±10%"]
    return ("## Reproducibility across runs\n\n"
            f"The same matrix run {len(matrices)} times in a row (`BENCH_REPEAT`); each cell "
            "is that run's guest-measured median ratio. Largest move = the largest distance "
            "of a run's ratio from the median over runs.\n\n" + table(head, rows))


def vmexit_rows(run):
    rows = []
    for rec in run.records:
        h = run.vmm_side(rec)
        rows.append([rec["case"], rec["variant"], rec["cpl"], rec["iters"],
                     fmt(run.median_ns(rec)), fmt(run.ns(rec["p99"])),
                     fmt(run.ns(rec["overhead"])), body_cell(run, rec),
                     fmt(h["median_ns"]) if h else "–",
                     ratio_cell(rec, run.baseline(rec))])
    return rows


def section_vmexit(runs):
    out = ["## Exit costs (suite `vmexit`)\n"]
    run = runs.get("vmexit-1")
    if run and run.records:
        out.append("Run vmexit-1. Times are per iteration of the timed loop, **loop included**; "
                   "`loop` is the empty loop's median at the same CPL in blocks interleaved "
                   "with the row's, `body` the median over rounds of row minus loop, or *in "
                   "noise* when a quarter or more of the rounds showed the row no slower than "
                   "the loop. On kvm_pvm a CPL0 row is the emulation of the body's "
                   "instructions plus the exit (docs/measuring.md). VMM side = minivmm's own median "
                   "for that exit kind.\n")
        out.append(table(["case", "variant", "CPL", "iters", "median ns", "p99 ns", "loop ns",
                          "body ns", "VMM-side median ns", "ratio [IQR] vs baseline"],
                         vmexit_rows(run)))
        out.append("![exit cost by kind](bench-exits.png)\n")
    cols = [n for n in ("vmexit-1", "vmexit-2", "vmexit-4", "vmexit-8",
                        "xmm-ioctl-vmexit-1", "xmm-spill-vmexit-1") if n in runs]
    if run and len(cols) > 1:
        rows = []
        for rec in run.records:
            rows.append([rec["case"], rec["variant"], rec["cpl"]] +
                        [ratio_cell(runs[c].find(rec["case"], rec["variant"], rec["cpl"]))
                         for c in cols])
        out.append("Each run's own ratio to the baseline, per vCPU count and XMM path "
                   "(absolute times are not compared across runs):\n")
        out.append(table(["case", "variant", "CPL"] + cols, rows))
    return "\n".join(out)


def ipi_pivot(run):
    kinds = []
    for rec in run.records:
        if (rec["case"], rec["state"]) not in kinds:
            kinds.append((rec["case"], rec["state"]))
    rows = []
    for k, st in kinds:
        base = run.find(k, "x2apic", state=st)
        row = [k, st or "–", base["cpl"] if base else 0, base["targets"] if base else ""]
        for p in IPI_PATHS:
            rec = run.find(k, p, state=st)
            cell = fmt(ratio(run.median_ns(rec), 1000), 1)
            if rec and base and p != "x2apic":
                cell += f" ({ratio_cell(rec)})"
            row.append(cell)
        rows.append(row)
    return table(["kind", "receivers", "sender CPL", "targets"] +
                 [f"{p} µs" for p in IPI_PATHS], rows)


def section_ipi(runs):
    out = ["## IPIs (suite `ipi`)\n",
           "Median round trip in µs per send path (loop included); in brackets the guest's "
           "ratio to the x2APIC ICR row from interleaved blocks, with its interquartile range. "
           "`regular`/`fast` = SendSyntheticClusterIpi, `ex-*` = "
           "SendSyntheticClusterIpiEx. Receivers halted with IF=1, or spinning at CPL3 with "
           "IF=1. Not run with 1 vCPU (the suite needs 2).\n"]
    for name in ("ipi-2", "ipi-4", "ipi-8", "xmm-ioctl-ipi-2", "xmm-spill-ipi-2"):
        run = runs.get(name)
        if run and run.records:
            e = run.env
            out.append(f"### {name}: {e['vcpus']} vCPUs on {e['host_cpus']} host CPUs"
                       f"{' (overcommitted)' if e['overcommitted'] else ''}, "
                       f"XMM path {e.get('xmm_path')}\n")
            out.append(ipi_pivot(run))
    out.append("![IPI cost per send path](bench-ipi-paths.png)\n")
    out.append("![IPI broadcast cost vs number of targets](bench-ipi-targets.png)\n")
    return "\n".join(out)


def flush_variants(run):
    seen = []
    for rec in run.records:
        call = rec["case"]
        if (call, rec["variant"]) not in seen:
            seen.append((call, rec["variant"]))
    return seen


def flush_pivot(run, state):
    targets = sorted({r["targets"] for r in run.records})
    rows = []
    for call, variant in flush_variants(run):
        row = [call, variant]
        for t in targets:
            rec = run.find(call, variant, targets=t, state=state)
            base = run.baseline(rec) if rec else None
            cell = fmt(ratio(run.median_ns(rec), 1000), 1)
            if base:
                cell += f" ({ratio_cell(rec)})"
            row.append(cell)
        rows.append(row)
    return table(["call", "encoding"] + [f"{t} target{'s' if t > 1 else ''} µs"
                                         for t in targets], rows)


def section_flush(runs):
    out = ["## Remote TLB flush (suite `flush`)\n",
           "Initiator-observed median per call in µs (sender at CPL0, loop included); in "
           "brackets the guest's ratio [IQR] to the native row (x2APIC IPI to each target, INVLPG in its handler, acknowledged). "
           "Targets halted (IF=1), running (spinning at CPL3), or preempted (running, held out "
           "of guest mode for 1 ms by MVM_CTRL_PAUSE_VCPU before each call). None of the four "
           "calls has a plain fast form (the input does not fit RDX:R8), so the encodings are "
           "regular and XMM-fast.\n"]
    for name in ("flush-2", "flush-4", "flush-8", "xmm-ioctl-flush-2", "xmm-spill-flush-2"):
        run = runs.get(name)
        if not (run and run.records):
            continue
        e = run.env
        out.append(f"### {name}: {e['vcpus']} vCPUs on {e['host_cpus']} host CPUs"
                   f"{' (overcommitted)' if e['overcommitted'] else ''}, "
                   f"XMM path {e.get('xmm_path')}\n")
        for state in FLUSH_STATES:
            if any(r["state"] == state for r in run.records):
                out.append(f"Targets {state}:\n")
                out.append(flush_pivot(run, state))
    out.append("![flush cost per call and encoding](bench-flush-encodings.png)\n")
    out.append("![flush cost vs number of targets](bench-flush-targets.png)\n")
    return "\n".join(out)


def pv_rows(run):
    rows = []
    for rec in run.records:
        b = run.baseline(rec)
        if rec["unit"] == "per_second":
            value = f"{fmt(rec['median'])} /s"
        else:
            value = f"{fmt(run.median_ns(rec))} ns"
        rows.append([rec["case"], rec["variant"], rec["cpl"], rec["iters"], value,
                     ratio_cell(rec, b) if b else ""])
    return rows


def section_pvlocks(runs):
    """Suites preempt-call and locks: one table per run, rows as the guest sent them."""
    names = [n for n in runs if n.startswith(("preempt-call-", "locks-"))]
    if not names:
        return ""
    out = ["## vcpu_is_preempted() and PV locks (suites `preempt-call`, `locks`)\n",
           "Costs are per operation (ns, median); throughput rows are acquisitions per second "
           "(median over vCPUs). More vCPUs than host CPUs is the overcommit these rows are "
           "about; see docs/pvtime.md for what each variant does.\n"]
    for n in names:
        run = runs[n]
        if not run.records:
            continue
        out.append(f"Run {n}:\n")
        out.append(table(["case", "variant", "CPL", "iters", "median", "vs baseline"],
                         pv_rows(run)))
    return "\n".join(out)


# ------------------------------------------------------------ the answer

def path_lines(run):
    """The guest's `path:` lines: CPL0 cost per instruction, instructions per hypercall row."""
    cost, insns = None, {}
    for line in run.log.splitlines():
        if not line.startswith("path: "):
            continue
        words = line.split()
        if "instruction cost in this run:" in line:
            cost = float(words[words.index("run:") + 1])
        elif "guest" in words and "insns" in words:
            i = words.index("guest")
            insns[(" ".join(words[1:i - 2]), words[i - 2])] = int(words[i - 1])
    return cost, insns


def quotient(a, b):
    """Two guest ratios to the same baseline, from one run: a's cost over b's."""
    if not a or not b or a.get("ratio") in (None, "inf") or b.get("ratio") in (None, "inf"):
        return None
    return a["ratio"] / b["ratio"] if b["ratio"] else None


def verdict_word(q):
    if q is None:
        return "not measured"
    pct = abs(q - 1) * 100
    if pct < 5:
        return f"the same within 5% ({q:.2f}x)"
    return f"{'cheaper' if q < 1 else 'dearer'} by {pct:.0f}% ({q:.2f}x)"


def answer_ipi(run):
    case = "hcall SendIpiEx(empty)"
    reg, xmm = run.find(case, "regular", cpl=0), run.find(case, "xmm-fast", cpl=0)
    q = quotient(xmm, reg)
    cost, insns = path_lines(run)
    vr, vx = run.vmm_side(reg), run.vmm_side(xmm)
    out = [f"- **IPI** (SendSyntheticClusterIpiEx, one bank, `{run.name}`): XMM-fast is "
           f"{verdict_word(q)} than the memory block, from their guest ratios to the same "
           "SendIpi fast row in one run."]
    ni, nr = insns.get((case, "xmm-fast")), insns.get((case, "regular"))
    if cost and ni is not None and nr is not None:
        out.append(f"  Guest path: {ni} vs {nr} CPL0 instructions (single-stepped) at "
                   f"{cost:,.0f} cycles each here = {(ni - nr) * cost:+,.0f} cycles for XMM-fast.")
    if vr and vx:
        d = vx["median_ns"] - vr["median_ns"]
        out.append(f"  VMM side: {vx['median_ns']:,.0f} ns vs {vr['median_ns']:,.0f} ns median "
                   f"({d:+,.0f} ns for XMM-fast; XMM path `{run.env.get('xmm_path')}`).")
        if cost and ni is not None and nr is not None:
            guest_ns = run.ns((ni - nr) * cost) or 0
            part = "the guest's instructions" if abs(guest_ns) > abs(d) else \
                "the VMM's fetch of the input"
            out.append(f"  What decides it: {part} ({guest_ns:+,.0f} ns guest vs {d:+,.0f} ns VMM).")
    return out


def answer_flush(run):
    qs = {}
    for rec in run.records:
        call = rec["case"]
        if rec["variant"] != "xmm-fast":
            continue
        reg = run.find(rec["case"], "regular", targets=rec["targets"], state=rec["state"])
        q = quotient(rec, reg)
        if q:
            qs.setdefault(call, []).append(q)
    out = []
    for call, v in qs.items():
        v.sort()
        out.append(f"- **Flush** {call} (`{run.name}`, {len(v)} target/state cells): XMM-fast "
                   f"over memory block median {v[len(v) // 2]:.2f}x (range {v[0]:.2f}–{v[-1]:.2f}),"
                   f" i.e. {verdict_word(v[len(v) // 2])}; both rows are ratios to the same native "
                   "IPI+INVLPG row of that cell. The flush itself (kicks, waits, the targets' "
                   "re-entry) is the same work in both encodings, so the difference is the path "
                   "to the VMM alone.")
    return out


def section_answer(runs):
    out = ["## XMM-fast or memory block? The answer on this backend\n"]
    vm1 = runs.get("vmexit-1")
    backend = vm1.env.get("backend", "?") if vm1 and vm1.env else "?"
    out.append(f"Derived only from the tables above (backend **{backend}**). Real users' VMX/SVM "
               "hosts run CPL0 natively, so there the guest instructions cost a few cycles and "
               "the VMM's fetch (KVM_GET_FPU or the page walk) decides; re-run `make bench` "
               "there.\n")
    if vm1 and vm1.records:
        out += answer_ipi(vm1)
        why = (vm1.env.get("xmm_path_choice") or {}).get("why")
        if why:
            out.append(f"- **XMM path** chosen at start: `{vm1.env.get('xmm_path')}` ({why}).")
    fl = runs.get("flush-2")
    if fl and fl.records:
        out += answer_flush(fl)
    return "\n".join(out) + "\n"


# minivmm's layer and KVM's own Hyper-V (--hv-impl kvm), the same suite and vCPUs.
HV_IMPL_PAIRS = (("ipi-2", "kvmhv-ipi-2"), ("flush-2", "kvmhv-flush-2"))


def kvm_hv_absent(run):
    """A --hv-impl kvm row that minivmm refused because this KVM has no Hyper-V."""
    return run is not None and run.status == 2 and "lacks KVM_CAP_HYPERV" in run.log


def hv_impl_rows(mine, kvm):
    rows = []
    for rec in mine.records:
        if rec["variant"] in ("x2apic", "native") or rec.get("ratio") is None:
            continue
        other = kvm.find(rec["case"], rec["variant"], rec["cpl"], rec["targets"],
                         state=rec["state"])
        q = quotient(rec, other)
        rows.append([rec["case"], rec["variant"], rec["state"] or "–", rec["targets"],
                     ratio_cell(rec), ratio_cell(other),
                     "–" if q is None else f"{q:.2f}x"])
    return rows


def section_hv_impl(runs):
    out = ["## minivmm's Hyper-V layer against KVM's own (`--hv-impl kvm`)\n",
           "The same suite on the same vCPUs, once served by minivmm's layer (every hypercall "
           "an exit to user space), once by KVM's in-kernel Hyper-V. Each cell is that run's "
           "own guest ratio to its native row (x2APIC ICR, or IPI + INVLPG); the last column "
           "is minivmm's ratio over KVM's: above 1, the user-space exit costs that much more. "
           "No absolute time is compared across the two runs.\n"]
    for mine_name, kvm_name in HV_IMPL_PAIRS:
        mine, kvm = runs.get(mine_name), runs.get(kvm_name)
        if kvm_hv_absent(kvm):
            out.append(f"- `{kvm_name}`: not measurable here: this KVM has no in-kernel "
                       "Hyper-V (KVM_CAP_HYPERV; kvm_pvm has none), and minivmm refused it.\n")
            continue
        if not (mine and mine.records and kvm and kvm.records):
            out.append(f"- `{mine_name}` / `{kvm_name}`: not both ran (see Runs).\n")
            continue
        out.append(f"### {mine_name} against {kvm_name}\n")
        out.append(table(["case", "encoding", "targets state", "targets", "minivmm's layer",
                          "KVM's Hyper-V", "minivmm / KVM"], hv_impl_rows(mine, kvm)))
    return "\n".join(out)


def section_failures(runs):
    bad = [r for r in runs.values()
           if (r.status != 0 or not r.doc or r.doc.get("rejected_records", 0)) and
           not kvm_hv_absent(r)]
    if not bad:
        return "## Runs\n\nEvery run exited 0 and the VMM accepted every record.\n"
    out = ["## Runs that failed or had records rejected\n"]
    for r in bad:
        tail = "\n".join(r.log.strip().splitlines()[-8:])
        rej = r.doc.get("rejected_records", "?") if r.doc else "no JSON"
        out.append(f"- **{r.name}**: exit {r.status}, rejected records {rej}\n\n"
                   f"```\n{tail}\n```\n")
    return "\n".join(out)


# ------------------------------------------------------------------- plots

def write_dat(path, head, rows):
    with open(path, "w") as f:
        f.write(" ".join(f'"{h}"' for h in head) + "\n")   # gnuplot: columnheader
        for row in rows:
            f.write(" ".join("?" if c is None else
                             (f'"{c}"' if isinstance(c, str) else f"{c:.3f}") for c in row) + "\n")


def plot_run(runs, prefix):
    """The largest run of a suite that is not overcommitted (else the smallest)."""
    cands = sorted((r for n, r in runs.items() if n.startswith(prefix) and r.records),
                   key=lambda r: r.env["vcpus"])
    fit = [r for r in cands if not r.env["overcommitted"]]
    return (fit or cands or [None])[-1 if fit else 0]


def plot_data(runs, dat):
    os.makedirs(dat, exist_ok=True)
    run = runs.get("vmexit-1")
    if run:
        write_dat(os.path.join(dat, "exits.dat"), ["label", "guest_ns", "vmm_ns"],
                  [[f"{r['case']} {r['variant']} CPL{r['cpl']}", run.median_ns(r),
                    (run.vmm_side(r) or {}).get("median_ns")] for r in run.records])
    run = plot_run(runs, "ipi-")
    if run:
        kinds = []
        for r in run.records:
            if (r["case"], r["state"]) not in kinds:
                kinds.append((r["case"], r["state"]))
        write_dat(os.path.join(dat, "ipi-paths.dat"), ["kind"] + list(IPI_PATHS),
                  [[f"{k} {st}" if st else k] +
                   [ratio(run.median_ns(run.find(k, p, state=st)), 1000) for p in IPI_PATHS]
                   for k, st in kinds])
    rows = []
    for name in ("ipi-2", "ipi-4", "ipi-8"):
        r = runs.get(name)
        if r and r.records:
            rec = r.find("broadcast", "x2apic", state="halted")
            rows.append([rec["targets"] if rec else None] +
                        [ratio(r.median_ns(r.find("broadcast", p, state=st)), 1000)
                         for st in ("halted", "spin-cpl3") for p in IPI_PATHS])
    write_dat(os.path.join(dat, "ipi-targets.dat"), ["targets"] + [
        f"{k}:{p}" for k in ("halted", "spin") for p in IPI_PATHS], rows)
    run = plot_run(runs, "flush-")
    if run:
        tmax = max(r["targets"] for r in run.records)
        write_dat(os.path.join(dat, "flush-enc.dat"), ["variant"] + list(FLUSH_STATES),
                  [[f"{c} {v}"] + [ratio(run.median_ns(run.find(c, v, targets=tmax, state=s)),
                                         1000) for s in FLUSH_STATES]
                   for c, v in flush_variants(run)])
    big = max((r for n, r in runs.items() if n.startswith("flush-") and r.records),
              key=lambda r: r.env["vcpus"], default=None)
    if big:
        variants = flush_variants(big)
        targets = sorted({r["targets"] for r in big.records})
        for s in FLUSH_STATES:
            write_dat(os.path.join(dat, f"flush-targets-{s}.dat"),
                      ["targets"] + [f"{c}:{v}" for c, v in variants],
                      [[t] + [ratio(big.median_ns(big.find(c, v, targets=t, state=s)), 1000)
                              for c, v in variants] for t in targets])
    return (plot_run(runs, "ipi-"), plot_run(runs, "flush-"), big)


def make_plots(gp, runs, dat, docs, title):
    ipi, flush, big = plot_data(runs, dat)
    if not gp:
        return
    args = {
        "dat": dat, "out": docs, "src": title,
        "ipirun": ipi.name if ipi else "-",
        "flushrun": f"{flush.name}, {max(r['targets'] for r in flush.records)} target(s)"
        if flush else "-",
        "bigrun": big.name if big else "-",
        "nvar": str(len(flush_variants(big))) if big else "0",
    }
    expr = "; ".join(f"{k}='{v}'" for k, v in args.items())
    try:
        subprocess.run(["gnuplot", "-e", expr, gp], check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"bench-report: plots not made: {e}", file=sys.stderr)


# -------------------------------------------------------------------- main

ORDER = ["vmexit-1", "vmexit-2", "vmexit-4", "vmexit-8", "ipi-2", "ipi-4", "ipi-8",
         "flush-2", "flush-4", "flush-8"]


def load_matrix(bench_dir):
    names = sorted({f.rsplit(".", 1)[0] for f in os.listdir(bench_dir)
                    if f.endswith((".json", ".status"))})
    names.sort(key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))
    return {n: Run(bench_dir, n) for n in names}


def repeat_number(d):
    tail = d.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def machine_line(runs):
    """Backend, CPU, kernel and TSC of the headline run, for the report's head."""
    run = runs.get("vmexit-1") or next((r for r in runs.values() if r.env), None)
    if not run or not run.env:
        return "machine unknown (no run wrote its environment)"
    e = run.env
    return (f"backend **{e['backend']}**, CPU {e['cpu_model']}, host kernel "
            f"{e['host_kernel']}, TSC {e['tsc_khz'] / 1000:.3f} MHz, {e['host_cpus']} host CPUs "
            f"(run {run.name})")


def load_summary(path):
    """A summary.json that bench-scale.py or bench-targets.py wrote, or None."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_points(path):
    """Rows of numbers from a .dat file bench-scale.py wrote (N value ...)."""
    rows = []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2:
                    rows.append(tuple(float(x) for x in parts))
    except (OSError, ValueError):
        return []
    return rows


def not_measured(out_dir, script):
    return (f"Not measured: no {os.path.relpath(os.path.join(out_dir, 'summary.json'))} "
            f"(scripts/{script} writes it; `make bench` runs it first).\n")


# Rules for the verdicts below, stated in the report itself.
LINEAR_SLOPE_MAX = 1.15     # launch: log-log slope over N >= 64 at most this is "at most linear"
FLAT_SLOPE_MAX = 0.15       # preempted flush: log-log slope at most this is "flat"


def scale_targets_rows(sc, launch):
    rows = []
    dec = sc.get("decode_1024_median_ns")
    lim = sc.get("decode_target_ns", 1000)
    rows.append(["decode of a full 1024-VP sparse set (host, build/bench-vpset)",
                 f"≤ {lim / 1000:g} µs",
                 "–" if dec is None else f"{dec:.1f} ns (median)",
                 "–" if dec is None else ("met" if dec <= lim else "not met")])
    rss = sc.get("rss_kib_per_vcpu")
    rlim = sc.get("rss_target_kib", 16)
    rows.append([f"resident memory per extra vCPU (minivmm's RSS, guest RAM included; "
                 f"least squares over N ≥ {sc.get('fit_from', 16)})",
                 f"≤ {rlim} KiB",
                 "–" if rss is None else f"{rss:.1f} KiB",
                 "–" if rss is None else ("met" if rss <= rlim else "not met")])
    kern = sc.get("kernel_kib_per_vcpu")
    rng = sc.get("kernel_kib_range")
    rows.append(["KVM's kernel side per extra vCPU (not a target; method below)", "–",
                 ("not read" if kern is None else f"{kern:.1f} KiB"
                  + (f" (range {rng[0]:.0f}–{rng[1]:.0f})" if rng else "")), "–"])
    big = [(n, t) for n, t in launch if n >= 64]
    ls = loglog_slope(big)
    per = sc.get("launch_ms_per_vcpu")
    rows.append(["launch to all vCPUs online (smoke)", "grows at most linearly",
                 ("–" if per is None else f"{per:.2f} ms a vCPU (least squares); ")
                 + ("log-log slope –" if ls is None else
                    f"log-log slope {ls:.2f} over N = {int(big[0][0])}..{int(big[-1][0])}"),
                 "–" if ls is None else ("met" if ls <= LINEAR_SLOPE_MAX else "not met")])
    return rows


def section_scale_targets(sc, scale_dir):
    out = ["### Performance targets\n"]
    if not sc:
        return out + [not_measured(scale_dir, "bench-scale.py")]
    launch = [(r[0], r[1]) for r in read_points(os.path.join(scale_dir, "launch-time.dat"))]
    out.append(f"From scripts/bench-scale.py at tree {sc.get('tree', '?')}, 1 to "
               f"{sc.get('max_cpus', '?')} vCPUs; details, the stress storms and plots in "
               f"[scale.md](scale.md). Launch counts as at most linear when the log-log slope of "
               f"time over vCPUs from 64 up is at most {LINEAR_SLOPE_MAX}.\n")
    out.append(table(["what", "target", "measured", "verdict"], scale_targets_rows(sc, launch)))
    brk = sc.get("rss_breakdown_kib") or {}
    if brk:
        parts = ", ".join(f"{k} {v:.1f}" for k, v in brk.items())
        out.append(f"Where a vCPU's resident memory goes, KiB a vCPU: {parts}.\n")
    if sc.get("kernel_method"):
        fields = sc.get("kernel_kib_fields") or {}
        slabs = sc.get("kernel_slab_kib") or {}
        detail = ", ".join(f"{k} {v:.1f}" for k, v in fields.items() if v)
        sl = ", ".join(f"{k} {v:.1f}" for k, v in slabs.items())
        out.append("KVM's kernel side: " + sc["kernel_method"]
                   + (f" KiB a vCPU by field: {detail}." if detail else "")
                   + (f" Largest slab caches, KiB a vCPU: {sl}." if sl else "") + "\n")
    return out


def is_component(r):
    """A row that times part of a call (the guest building its input), not a send path."""
    return r["row"].startswith("build ")


def targets_table(t):
    lo = min(int(k) for r in t["rows"] for k in r["points"])
    rows = []
    for r in t["rows"]:
        p = {int(k): v for k, v in r["points"].items()}
        if not p:
            continue
        hi = max(p)
        s = r.get("slope")
        grow = p[hi] / p[lo] if p.get(lo) and hi != lo else None
        rows.append([r["row"], fmt(p.get(lo), 1), hi, fmt(p[hi], 1),
                     "–" if grow is None else f"{grow:.1f}x",
                     "–" if s is None else f"{s:.2f}",
                     "baseline" if r["row"] == t.get("baseline") else
                     "(part of a call)" if is_component(r) else
                     (str(r["crossover"]) if r.get("crossover") is not None else "never")])
    head = ["row", f"{lo} target µs", "most targets", "µs there", f"there / {lo}",
            "slope", f"cheaper than {t.get('baseline', 'native')} from"]
    return table(head, rows)


def preempted_verdict(t):
    ks = sorted({int(k) for r in t["rows"] for k in r["points"]})
    span_ratio = ks[-1] / ks[0] if ks[-1] > ks[0] else 2
    flat, grows = [], []
    for r in t["rows"]:
        if r["row"] == t.get("baseline") or is_component(r) or r.get("slope") is None:
            continue
        (flat if r["slope"] <= FLAT_SLOPE_MAX else grows).append(f"`{r['row']}` {r['slope']:.3f}")
    base = next((r for r in t["rows"] if r["row"] == t.get("baseline")), None)
    out = ("Preempted targets, by the rule that a row is flat when its log-log slope is at most "
           f"{FLAT_SLOPE_MAX} (a doubling over {ks[0]}..{ks[-1]} targets would be "
           f"{math.log(2) / math.log(span_ratio):.2f}): flat " + (", ".join(flat) or "none")
           + "; growing " + (", ".join(grows) or "none"))
    if base and base.get("slope") is not None:
        out += f"; the native `{base['row']}` row {base['slope']:.2f}"
    comp = [r for r in t["rows"] if is_component(r)]
    if comp:
        out += (". Rows named `build ...` time the guest building the call's input alone, "
                "outside the timed call")
    return out + ".\n"


def fanout_line(f):
    """minivmm's own share of a flush to N targets not in guest mode, timed on the host."""
    if not f or not f.get("cold_points_ns"):
        return ""
    cold = {int(k): v for k, v in f["cold_points_ns"].items()}
    warm = {int(k): v for k, v in (f.get("warm_points_ns") or {}).items()}
    hi = max(cold)
    w = f", {warm[hi] / 1000:.1f} µs with warm caches" if hi in warm else ""
    return (f"What minivmm itself does per target (build/bench-fanout, host-timed: asking each "
            f"target of the set to flush, none of them in guest mode): {cold[hi] / 1000:.1f} µs "
            f"for {hi} targets with cold caches{w}, against {cold[min(cold)] / 1000:.2f} µs for "
            f"{min(cold)}; that much of the preempted rows' growth is the VMM's walk over the "
            "set; the rest of it is not explained by these runs.\n")


def section_scale_curves(tg, targets_dir):
    out = ["### Cost against target count\n"]
    if not tg:
        return out + [not_measured(targets_dir, "bench-targets.py")]
    out.append(f"From scripts/bench-targets.py at tree {tg.get('tree', '?')} with "
               f"{tg.get('cpus', '?')} vCPUs; full tables per count and the log-log plots in "
               "[targets.md](targets.md). µs per call above the empty loop; slope is the "
               "least-squares slope of log(cost) over log(targets) (1 = linear, 0 = flat); "
               "the crossover is the smallest count from which the row is cheaper than the "
               "native row at every larger count measured.\n")
    for t in tg.get("tables", []):
        if not t.get("rows"):
            continue
        out.append(f"#### {t['suite']}: {t['state']}\n")
        out.append(targets_table(t))
        if t["suite"] == "flush" and t["state"] == "preempted":
            out.append(preempted_verdict(t))
            out.append(fanout_line(tg.get("vmm_fanout")))
    return out


def section_scale(bench_dir):
    """Past 64 vCPUs: bench-scale.py's and bench-targets.py's summaries from the same make bench."""
    scale_dir = os.path.join(bench_dir, "scale")
    targets_dir = os.path.join(bench_dir, "targets")
    sc = load_summary(os.path.join(scale_dir, "summary.json"))
    tg = load_summary(os.path.join(targets_dir, "summary.json"))
    out = ["## Scale: past 64 vCPUs\n",
           "`make bench` runs scripts/bench-scale.py and scripts/bench-targets.py before this "
           "report, and the numbers here are read from their summaries. The ipi and flush "
           "tables above stop at 8 vCPUs; the curves below go past 64.\n"]
    out += section_scale_targets(sc, scale_dir)
    out += section_scale_curves(tg, targets_dir)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, choices=sorted(SOURCES))
    ap.add_argument("--plots", help="gnuplot script (omit: no PNGs)")
    ap.add_argument("--tree-rev", default="?", help="git describe of the source tree now")
    ap.add_argument("bench_dir")
    ap.add_argument("docs_dir")
    a = ap.parse_args()

    runs = load_matrix(a.bench_dir)
    if not runs:
        sys.exit(f"bench-report: no runs in {a.bench_dir}")
    repeats = [load_matrix(os.path.join(a.bench_dir, d))
               for d in sorted(os.listdir(a.bench_dir), key=repeat_number)
               if d.startswith("repeat-") and os.path.isdir(os.path.join(a.bench_dir, d))]

    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    nested = a.source != "host"
    title = "nested TCG-SVM: NOT representative" if nested else "host KVM"
    make_plots(a.plots, runs, os.path.join(a.bench_dir, "plots"), a.docs_dir, title)
    rev = sorted({r.env.get("minivmm", "?") for r in runs.values() if r.env})
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = ["# minivmm measurement results\n"]
    if nested:
        head.append("> **WARNING: these numbers come from nested emulation and are NOT "
                    "representative of minivmm's performance.**\n>")
    head.append(f"> Where the numbers come from: {SOURCES[a.source]}.\n>\n"
                f"> Measured on: {machine_line(runs)}.\n>\n"
                f"> Generated by `make bench` (scripts/bench.sh) on {when} from "
                f"`{os.path.relpath(a.bench_dir, top)}/*.json`; minivmm revision "
                f"{', '.join(rev)} (as the binaries report it; source tree {a.tree_rev} when "
                "this report was written). Cycles are guest TSC cycles converted with each run's "
                "TSC rate; every guest time is a median per iteration of the timed loop, the "
                "loop's own cost included and shown next to it; every ratio is the guest's, "
                "from interleaved blocks, with its interquartile range. How the numbers are "
                "made and how to read them: [measuring.md](../measuring.md).\n")
    body = [section_environment(runs), section_ratios(runs),
            section_stability(runs, repeats), section_vmexit(runs),
            section_ipi(runs), section_flush(runs), section_hv_impl(runs),
            section_pvlocks(runs), section_failures(runs), section_answer(runs), section_scale(a.bench_dir)]
    # scripts/bench-sandbox.py's section, when make bench ran it (host only).
    sandbox_md = os.path.join(a.bench_dir, "sandbox.md")
    if os.path.exists(sandbox_md):
        with open(sandbox_md) as f:
            body.insert(3, f.read())
    with open(os.path.join(a.docs_dir, "results.md"), "w") as f:
        f.write(("\n".join(head) + "\n" + "\n".join(body)).rstrip("\n") + "\n")
    print(f"bench-report: wrote {os.path.join(a.docs_dir, 'results.md')}", file=sys.stderr)


if __name__ == "__main__":
    main()
