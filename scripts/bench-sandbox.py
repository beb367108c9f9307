#!/usr/bin/env python3
"""What the seccomp sandbox costs: the vmexit headline ratio with and without it.

Runs `minivmm [--no-sandbox] --json ... guest.elf -- vmexit` (1 vCPU) in
alternating processes, ROUNDS pairs, the order flipped every round so that
neither mode always runs first, and writes OUT/sandbox.md (the section
bench-report.py puts into docs/results/results.md) and each run's JSON in OUT/sandbox/.

Two answers, kept apart:
- the guest's headline ratio (pio-in null through minivmm / the bare
  re-entry, same CPL; measured inside one process, interleaved blocks) under
  each mode; target <= 1.03x with the sandbox on. Both rows pay the filter
  on their KVM_RUN, so this shows whether minivmm's own path got dearer.
- with --cost, the filter's own cost per call, measured by the host
  (build/sandbox-cost, alternating processes), next to a bare exit's time:
  comparing two processes' exit times here would drown 20 ns in noise.
"""
import datetime
import argparse
import os
import statistics
import subprocess
import sys

import minivmm_json

TARGET = 1.03


def run_one(vmm, elf, path, sandbox):
    cmd = [vmm] + ([] if sandbox else ["--no-sandbox"]) + \
        ["--cpus", "1", "--timeout", "300", "--json", path, elf, "--", "vmexit"]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"bench-sandbox: {' '.join(cmd)}: exit {r.returncode}\n{r.stderr}")
    try:
        doc = minivmm_json.load(path)
    except minivmm_json.FormatError as e:
        sys.exit(f"bench-sandbox: {e}")
    rows = {}
    for rec in minivmm_json.records(doc, "vmexit"):
        if rec["case"] == "pio-in null":
            rows[(rec["variant"], rec["cpl"])] = rec
    for key in (("user", 0), ("user", 3), ("bare", 3)):
        if key not in rows:
            sys.exit(f"bench-sandbox: {path}: no 'pio-in null' {key[0]} CPL{key[1]} row")
    rows["env"] = doc["environment"]
    return rows


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def med(xs):
    return statistics.median(xs)


def spread(xs):
    return f"{min(xs):.3f}–{max(xs):.3f}"


def cost_lines(binary, bare_ns):
    """The filter alone, host-measured: ns per ioctl(fd, KVM_RUN) with and without it."""
    rounds, calls = 40, 20000
    r = subprocess.run([binary, str(rounds), str(calls)], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench-sandbox: {binary}: exit {r.returncode}\n{r.stderr}")
    ns = {0: [], 1: []}
    for line in r.stdout.split("\n"):
        if line:
            k, v = line.split()
            ns[int(k)].append(float(v))
    # A shared host only ever adds time: the minimum and the lower quartile are the estimates.
    lo = {k: min(v) for k, v in ns.items()}
    q1 = {k: sorted(v)[len(v) // 4] for k, v in ns.items()}
    share = sorted({f"{100 * (lo[1] - lo[0]) / bare_ns:.2f}", f"{100 * (q1[1] - q1[0]) / bare_ns:.2f}"},
                   key=float)
    added = sorted({f"{lo[1] - lo[0]:.0f}", f"{q1[1] - q1[0]:.0f}"}, key=float)
    return ["", f"The filter alone (`build/sandbox-cost`, measured by the host, not a guest): "
            f"ioctl(fd, KVM_RUN) on /dev/null, which the kernel refuses at once, in {rounds} "
            f"alternating pairs of processes of {calls} calls each: {lo[0]:.0f} ns without the "
            f"vCPU filter and {lo[1]:.0f} ns with it at best (lower quartiles {q1[0]:.0f} and "
            f"{q1[1]:.0f} ns), so the filter adds about {'–'.join(added)} ns "
            f"per exit: {'–'.join(share)}% "
            f"of a bare exit here ({bare_ns:.0f} ns, the guest's bare CPL3 row without the "
            "sandbox, median over rounds).\n"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cost", help="build/sandbox-cost: also time the filter alone")
    ap.add_argument("vmm")
    ap.add_argument("elf")
    ap.add_argument("out")
    a = ap.parse_args()
    # Not next to the matrix's JSON files, which bench-report.py reads as runs.
    runs_dir = os.path.join(a.out, "sandbox")
    os.makedirs(runs_dir, exist_ok=True)
    got = {True: [], False: []}
    load0 = load_average()
    for i in range(a.rounds):
        for sandbox in ((True, False) if i % 2 == 0 else (False, True)):
            name = "on" if sandbox else "off"
            path = os.path.join(runs_dir, f"{name}-{i + 1}.json")
            got[sandbox].append(run_one(a.vmm, a.elf, path, sandbox))
            print(f"bench-sandbox: round {i + 1}, sandbox {name}: CPL3 ratio "
                  f"{got[sandbox][-1][('user', 3)]['ratio']:.3f}", file=sys.stderr)

    env = got[True][0]["env"]
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    def ratios(sandbox, cpl, field="ratio"):
        return [r[("user", cpl)][field] for r in got[sandbox]]

    lines = ["## What the sandbox costs (suite `vmexit`, 1 vCPU)\n",
             f"Measured {when} on backend **{env['backend']}**, {env['cpu_model']}, host kernel "
             f"{env['host_kernel']}, {env['host_cpus']} host CPUs, minivmm {env['minivmm']}; load "
             f"average {load0} at the start, {load_average()} at the end.\n",
             f"`scripts/bench-sandbox.py`: {a.rounds} rounds, each one process with the seccomp "
             "filters and one with `--no-sandbox`, the order flipped every round. The ratio is the "
             "guest's (minivmm's null-port exit over the bare re-entry, interleaved in one "
             "process); the table gives the median over rounds of each run's median and of its "
             "interquartile bounds, and the range of the medians over rounds. The target counts as "
             "met only when the median upper bound with the sandbox is under it, missed when the "
             "lower bound is over it, and undecided between.\n",
             "| ratio | sandbox on | sandbox off | on: range over rounds | off: range | "
             "on − off, paired by round | target | verdict |", "|---|---|---|---|---|---|---|---|"]
    for cpl in (3, 0):
        on = (med(ratios(True, cpl)), med(ratios(True, cpl, "ratio_lo")),
              med(ratios(True, cpl, "ratio_hi")))
        off = (med(ratios(False, cpl)), med(ratios(False, cpl, "ratio_lo")),
               med(ratios(False, cpl, "ratio_hi")))
        # The same rule as bench-report.py's headline: the IQR decides, and a
        # target inside it is said to be undecided, not missed.
        verdict = ("met" if on[2] <= TARGET else
                   "**not met**" if on[1] > TARGET else "undecided (target inside the IQR)")
        diff = [x - y for x, y in zip(ratios(True, cpl), ratios(False, cpl))]
        lines.append(f"| minivmm null-port exit / bare re-entry, CPL{cpl} | {on[0]:.3f}x "
                     f"[{on[1]:.3f}–{on[2]:.3f}] | {off[0]:.3f}x [{off[1]:.3f}–{off[2]:.3f}] | "
                     f"{spread(ratios(True, cpl))} | {spread(ratios(False, cpl))} | "
                     f"{med(diff):+.3f} ({min(diff):+.3f}…{max(diff):+.3f}) | "
                     f"≤ {TARGET:.2f}x | {verdict} |")
    if a.cost:
        lines += cost_lines(a.cost, med([r[("bare", 3)]["median_ns"] for r in got[False]]))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "sandbox.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
