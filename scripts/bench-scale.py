#!/usr/bin/env python3
"""bench-scale.py - make bench's scale part (issue 14): docs/results/scale.md and
docs/bench-scale-*.png from runs on this host.

  launch   `minivmm --cpus N guest.elf -- smoke` for N = 1, 2, 4 ... up to
           --max-cpus: wall time from spawn to the guest's banner (printed
           once every vCPU is online) and minivmm's peak RSS (VmHWM from
           /proc, read after every line it prints, so guest RAM the vCPUs
           touched is included; getrusage of the child would count the
           forked Python before exec). Slopes are least-squares fits over
           the runs with N >= 16.
  stress   `stress` at 256 and 1024 vCPUs (as far as --max-cpus goes):
           exact-count verdicts and minivmm's RSS sampled every 0.25 s from
           /proc/PID/status while the storm runs.
  decode   build/bench-vpset: the Hyper-V layer decoding a full 1024-VP
           sparse set, alone and in a whole SendSyntheticClusterIpiEx.
  memory   `smoke` at --max-cpus/4 and --max-cpus, three runs each, stopped
           for /proc/PID/smaps and pagemap snapshots: resident KiB a vCPU by
           mapping, guest RAM by page of the stack block; KVM's and the
           threads' kernel memory from /proc/meminfo and /proc/slabinfo.
           OUT/summary.json has the numbers docs/results/results.md reads.

Every number is measured in this run; nothing is copied from elsewhere.
"""
import argparse
import collections
import json
import os
import re
import signal
import statistics
import struct
import subprocess
import sys
import threading
import time


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def rss_kib(pid):
    return status_kib(pid, "VmRSS")


def run_launch(vmm, elf, n, timeout):
    """Seconds to the banner, peak RSS KiB, exit status."""
    t0 = time.monotonic()
    p = subprocess.Popen([vmm, "--cpus", str(n), "--timeout", str(timeout), elf, "--", "smoke"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    banner = None
    peak = 0
    for line in p.stdout:
        if banner is None and line.startswith("guest: ") and " vCPUs, backend" in line:
            banner = time.monotonic() - t0
        peak = max(peak, status_kib(p.pid, "VmHWM") or 0)
    p.wait()
    return banner, peak, p.returncode


# --- Where the resident memory goes (smaps, pagemap) and what KVM's kernel side holds ---

PAGE = 4096
BREAKDOWN_REPEATS = 3
SLAB_NOTES = {
    "kvm_vcpu": "kvm_vcpu is KVM's per-vCPU structure with the backend's state in it.",
    "kvm_mmu_page_header": "kvm_mmu_page_header heads KVM's shadow or TDP page-table pages.",
    "x86_emulator": "x86_emulator is KVM's per-vCPU instruction emulator context.",
    "task_struct": "task_struct is the vCPU thread's (as is KernelStack).",
    "debugfs_inode_cache": "debugfs_inode_cache holds KVM's per-vCPU debugfs directory.",
}
KERNEL_METHOD = ("System-wide /proc/meminfo (KernelStack, PageTables, SecPageTables, SUnreclaim, "
                 "Percpu, VmallocUsed) read while smoke ran, stopped once every vCPU was online, "
                 "minus the same a second after it exited, at two vCPU counts; the difference "
                 "over the count's difference. Other jobs on the host move these fields too, so "
                 "the range over the pairings is the noise. (The memory cgroup here is cgroup v1 "
                 "and belongs to the session that runs this machine, so no child cgroup was made "
                 "in it.)")


def smaps_regions(pid):
    """[(lo, hi, perms, path, rss KiB, VmFlags)] from /proc/PID/smaps."""
    regs = []
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$", line)
            if m:
                regs.append([int(m[1], 16), int(m[2], 16), m[3], m[4], 0, []])
            elif line.startswith("Rss:") and regs:
                regs[-1][4] = int(line.split()[1])
            elif line.startswith("VmFlags:") and regs:
                regs[-1][5] = line.split()[1:]
    return regs


def region_kind(r):
    """Which part of minivmm a mapping is, from what smaps shows of it."""
    lo, hi, perms, path, _, flags = r
    if "kvm-vcpu" in path:
        return "kvm_run"
    if path == "[heap]":
        return "malloc heap and arenas"
    if path == "[stack]":
        return "main thread stack"
    if path.startswith("anon_inode") or path.startswith("["):
        return "other"
    if path:
        return "binary and libraries"
    # mem.c maps guest RAM MAP_NORESERVE and advises THP on it (hg/nh);
    # glibc's arenas are MAP_NORESERVE without advice; thread stacks are 8 MiB.
    if "nr" in flags and ("hg" in flags or "nh" in flags):
        return "guest RAM"
    if "nr" in flags:
        return "malloc heap and arenas"
    if hi - lo == 8 << 20 and perms.startswith("rw"):
        return "vCPU thread stacks"
    return "struct vcpu array (mmap'd malloc)"


def present_pages(pid, lo, hi):
    """Page indexes (from lo) mapped and exclusively this process's (pagemap bits 63, 56)."""
    with open(f"/proc/{pid}/pagemap", "rb") as f:
        f.seek((lo // PAGE) * 8)
        data = f.read((hi - lo) // PAGE * 8)
    return [i for i, (e,) in enumerate(struct.iter_unpack("<Q", data)) if e >> 63 & 1 and e >> 56 & 1]


def guest_symbols(elf):
    try:
        out = subprocess.run(["nm", elf], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3:
            syms[f[2]] = int(f[0], 16)
    return syms


def guest_detail(pid, regs, syms, n):
    """Guest RAM pages present: per page of the stack blocks, and the rest."""
    ram = [r for r in regs if region_kind(r) == "guest RAM"]
    if not ram or "stack_blocks" not in syms or "pool_next" not in syms:
        return None
    lo, hi = min(r[0] for r in ram), max(r[1] for r in ram)
    with open(f"/proc/{pid}/mem", "rb") as m:
        m.seek(lo + syms["stack_blocks"])
        blocks = struct.unpack("<Q", m.read(8))[0]
        m.seek(lo + syms["pool_next"])
        pool_next = struct.unpack("<Q", m.read(8))[0]
    if not blocks or pool_next <= blocks:
        return None
    block = 0x8000      # STACK_BLOCK_SIZE in guest/lib/layout.h
    end = blocks + n * block
    by_page = collections.Counter()
    after = before = 0
    for i in present_pages(pid, lo, hi):
        gpa = i * PAGE
        if blocks <= gpa < end:
            by_page[(gpa - blocks) % block // PAGE] += 1
        elif end <= gpa < pool_next:
            after += 1
        else:
            before += 1
    return {"block_pages": dict(by_page), "after_blocks": after, "image_and_rest": before}


def read_meminfo():
    """Kernel-side fields of /proc/meminfo, KiB."""
    want = ("KernelStack", "PageTables", "SecPageTables", "SUnreclaim", "Percpu", "VmallocUsed")
    got = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                k, v = line.split(":", 1)
                if k in want:
                    got[k] = int(v.split()[0])
    except OSError:
        pass
    return got


def read_slabinfo():
    """{cache: bytes in active objects} from /proc/slabinfo (root only)."""
    got = {}
    try:
        with open("/proc/slabinfo") as f:
            for line in f.read().splitlines()[2:]:
                fl = line.split()
                got[fl[0]] = int(fl[1]) * int(fl[3])
    except (OSError, ValueError, IndexError):
        return {}
    return got


def snapshot(pid, syms, n):
    regs = smaps_regions(pid)
    kinds = collections.Counter()
    for r in regs:
        kinds[region_kind(r)] += r[4]
    stacks = [len(present_pages(pid, r[0], r[1])) for r in regs if region_kind(r) == "vCPU thread stacks"]
    runs = [len(present_pages(pid, r[0], r[1])) for r in regs if region_kind(r) == "kvm_run"]
    return {"total": sum(kinds.values()), "kinds": dict(kinds), "guest": guest_detail(pid, regs, syms, n),
            "stack_pages": stacks, "run_pages": runs}


def run_breakdown(vmm, elf, n, syms, timeout):
    """smoke at n vCPUs, stopped (SIGSTOP) for a snapshot whenever its RSS grew
    by 64 KiB once every vCPU is online; the largest snapshot, the last VmHWM
    seen, and the kernel's meminfo fields while it ran minus after it exited."""
    p = subprocess.Popen([vmm, "--cpus", str(n), "--timeout", str(timeout), elf, "--", "smoke"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    online = threading.Event()

    def reader():
        for line in p.stdout:
            if b" vCPUs, backend" in line:
                online.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    best, hwm, last, stops, kernel_during, slab_during = None, 0, 0, 0, None, {}
    while p.poll() is None:
        rss = status_kib(p.pid, "VmRSS")
        if not online.is_set() or rss is None or rss < last + 64:
            time.sleep(0.0005)
            continue
        try:
            os.kill(p.pid, signal.SIGSTOP)
        except OSError:
            break
        try:
            stops += 1
            snap = snapshot(p.pid, syms, n)
            hwm = status_kib(p.pid, "VmHWM") or hwm
            last = snap["total"]
            if best is None or snap["total"] >= best["total"]:
                best = snap
            if kernel_during is None:
                kernel_during = read_meminfo()
                slab_during = read_slabinfo()
        except (OSError, ValueError, struct.error):
            pass
        finally:
            try:
                os.kill(p.pid, signal.SIGCONT)
            except OSError:
                pass
    p.wait()
    t.join()
    time.sleep(1.0)     # let RCU and the slab caches give back what the VM freed
    kernel_after = read_meminfo()
    slab_after = read_slabinfo()
    kernel = None
    if kernel_during and kernel_after:
        kernel = {k: kernel_during[k] - kernel_after.get(k, 0) for k in kernel_during}
    slab = {k: v - slab_after[k] for k, v in slab_during.items() if k in slab_after}
    if best is not None:
        best.update({"n": n, "status": p.returncode, "hwm": hwm, "stops": stops, "kernel": kernel,
                     "slab": slab})
    return best


def breakdown_per_vcpu(small, big):
    """KiB a vCPU for each region: the difference between the two runs over the vCPU count's."""
    dn = big["n"] - small["n"]
    names = sorted(set(small["kinds"]) | set(big["kinds"]))
    per = {k: (big["kinds"].get(k, 0) - small["kinds"].get(k, 0)) / dn for k in names}
    return {k: round(v, 2) for k, v in sorted(per.items(), key=lambda kv: -kv[1])}


def describe_breakdown(small, big, per):
    """The docs paragraph, from the two snapshots."""
    dn = big["n"] - small["n"]
    out = [f"Where a vCPU's RSS goes, measured: `smoke` at {small['n']} and at {big['n']} vCPUs, "
           "each stopped (SIGSTOP) for a snapshot of /proc/PID/smaps and /proc/PID/pagemap whenever "
           "its RSS had grown by 64 KiB once every vCPU was online; the largest snapshot counts "
           f"({small['total'] / 1024:.1f} and {big['total'] / 1024:.1f} MiB, against a VmHWM of "
           f"{small['hwm'] / 1024:.1f} and {big['hwm'] / 1024:.1f} MiB: what the snapshots miss is "
           f"{((big['hwm'] - big['total']) - (small['hwm'] - small['total'])) / dn:.2f} KiB a vCPU). "
           "Per extra vCPU, by mapping:\n"]
    out.append("| region | KiB a vCPU |")
    out.append("|---|---:|")
    for k, v in per.items():
        if abs(v) >= 0.01:
            out.append(f"| {k} | {v:.2f} |")
    out.append(f"| **sum** | **{sum(per.values()):.2f}** |")
    out.append("")
    notes = []
    g = big.get("guest")
    if g:
        pages = ", ".join(f"page {k}: {v / big['n']:.2f}" for k, v in sorted(g["block_pages"].items()))
        notes.append(f"In guest RAM at {big['n']} vCPUs, pages present per vCPU by page of its 32 KiB "
                     f"stack block ({pages}; page 7 holds struct percpu and the kernel stack's top, "
                     "pages 0-6 the deeper stacks and are present only where a transparent huge "
                     "page covers the block), plus "
                     f"{g['after_blocks']} pages of boot memory after the blocks (the TSS groups, 32 "
                     f"vCPUs a page) and {g['image_and_rest']} of image, page tables and the rest, "
                     "which do not grow with the count.")
    st = big.get("stack_pages") or []
    if st:
        notes.append(f"Each vCPU thread's stack had {statistics.median(st):.0f} pages present (median of "
                     f"{len(st)}; max {max(st)}): the top one is glibc's thread control block and static TLS, "
                     "the next the frames of the KVM_RUN loop and its exit handlers.")
    ru = big.get("run_pages") or []
    if ru:
        notes.append(f"Each kvm_run mapping ({len(ru)} of them) had {statistics.median(ru):.0f} page(s) "
                     "present: KVM's own page, shared with the kernel, which counts in RSS once "
                     "minivmm reads an exit from it; the PIO data page after it only where a vCPU "
                     "did port I/O with data.")
    out.append(" ".join(notes) + "\n")
    return "\n".join(out)


def slab_per_vcpu(small, big, top=6):
    """The slab caches that grew most with the vCPU count, KiB a vCPU."""
    dn = big["n"] - small["n"]
    per = {k: (v - small.get("slab", {}).get(k, 0)) / dn / 1024 for k, v in big.get("slab", {}).items()}
    return {k: round(v, 2) for k, v in sorted(per.items(), key=lambda kv: -kv[1])[:top]}


def kernel_per_vcpu(small, big):
    """KiB a vCPU of KVM's and the threads' kernel memory, or None."""
    ks, kb = small.get("kernel"), big.get("kernel")
    if not ks or not kb:
        return None, {}
    dn = big["n"] - small["n"]
    per = {k: round((kb[k] - ks.get(k, 0)) / dn, 2) for k in kb}
    return round(sum(per.values()), 2), per


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def run_stress(vmm, elf, n, timeout):
    """Verdict lines, RSS samples [(s, KiB)], wall seconds, exit status."""
    t0 = time.monotonic()
    p = subprocess.Popen([vmm, "--cpus", str(n), "--timeout", str(timeout), elf, "--", "stress"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    samples = []
    lines = []
    os.set_blocking(p.stdout.fileno(), False)
    buf = ""
    while p.poll() is None:
        r = rss_kib(p.pid)
        if r is not None:
            samples.append((time.monotonic() - t0, r))
        try:
            chunk = p.stdout.read()
        except (BlockingIOError, TypeError):
            chunk = None
        if chunk:
            buf += chunk
        time.sleep(0.25)
    rest = p.stdout.read()
    if rest:
        buf += rest
    lines = [l for l in buf.splitlines() if re.match(r"^(PASS|FAIL|SKIP): stress|^stress: \d+ IPIs", l)]
    lines.append(f"(host load average at the end of the run: {loadavg()})")
    return lines, samples, time.monotonic() - t0, p.returncode


def fit(xs, ys):
    """Least-squares slope and intercept."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if not sxx:
        return 0.0, my
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return slope, my - slope * mx


def plot(gp_data, out_png, title, ylabel, logy):
    script = f"""
set terminal pngcairo size 800,500
set output '{out_png}'
set title '{title}'
set xlabel 'vCPUs'
set ylabel '{ylabel}'
set logscale x 2
{'set logscale y' if logy else ''}
set grid
set key left top
plot '{gp_data}' using 1:2 with linespoints title 'measured'
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        return True
    except (OSError, subprocess.CalledProcessError):
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vmm", required=True)
    ap.add_argument("--elf", required=True)
    ap.add_argument("--decode", required=True, help="build/bench-vpset")
    ap.add_argument("--out", required=True, help="build/bench/scale")
    ap.add_argument("--docs", required=True)
    ap.add_argument("--max-cpus", type=int, default=1024)
    ap.add_argument("--tree-rev", default="unknown")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    counts = [n for n in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024) if n <= a.max_cpus]
    launch = []
    for n in counts:
        secs, rss, st = run_launch(a.vmm, a.elf, n, 300)
        print(f"bench-scale: launch {n} vCPUs: {secs} s to online, {rss} KiB peak RSS, "
              f"status {st}", file=sys.stderr)
        launch.append((n, secs, rss, st))
    with open(os.path.join(a.out, "launch.dat"), "w") as f:
        for n, secs, rss, st in launch:
            if secs is not None:
                f.write(f"{n} {secs:.4f} {rss}\n")

    stress = []
    for n in (256, 1024):
        if n > a.max_cpus:
            continue
        lines, samples, wall, st = run_stress(a.vmm, a.elf, n, 900)
        print(f"bench-scale: stress {n}: status {st}, {wall:.1f} s", file=sys.stderr)
        stress.append((n, lines, samples, wall, st))
        with open(os.path.join(a.out, f"stress-{n}-rss.dat"), "w") as f:
            for t, r in samples:
                f.write(f"{t:.2f} {r}\n")

    dec = subprocess.run([a.decode], capture_output=True, text=True)
    decode_rows = dec.stdout.strip().splitlines()

    # The breakdown: two counts, each run BREAKDOWN_REPEATS times, medians kept.
    syms = guest_symbols(a.elf)
    pair = (a.max_cpus // 4, a.max_cpus) if a.max_cpus >= 64 else None
    snaps = {}
    for n in (pair or ()):
        got = [b for b in (run_breakdown(a.vmm, a.elf, n, syms, 300) for _ in range(BREAKDOWN_REPEATS))
               if b is not None and b["status"] == 0]
        print(f"bench-scale: breakdown {n} vCPUs: {len(got)} good runs, snapshots "
              f"{[b['total'] for b in got]} KiB, VmHWM {[b['hwm'] for b in got]} KiB", file=sys.stderr)
        if got:
            snaps[n] = got

    ok = [(n, s, r) for n, s, r, st in launch if s is not None and st == 0]
    big = [(n, s, r) for n, s, r in ok if n >= 16]
    t_slope, t_icpt = fit([n for n, _, _ in big], [s for _, s, _ in big]) if len(big) > 1 else (0, 0)
    r_slope, r_icpt = fit([n for n, _, _ in big], [r for _, _, r in big]) if len(big) > 1 else (0, 0)

    with open(os.path.join(a.out, "launch-time.dat"), "w") as f:
        for n, s, _ in ok:
            f.write(f"{n} {s:.4f}\n")
    with open(os.path.join(a.out, "launch-rss.dat"), "w") as f:
        for n, _, r in ok:
            f.write(f"{n} {r / 1024:.2f}\n")
    p1 = plot(os.path.join(a.out, "launch-time.dat"), os.path.join(a.docs, "bench-scale-launch.png"),
              "launch to all vCPUs online (smoke)", "seconds", True)
    p2 = plot(os.path.join(a.out, "launch-rss.dat"), os.path.join(a.docs, "bench-scale-rss.png"),
              "minivmm peak RSS (smoke)", "MiB", True)

    md = []
    md.append("# Scale: vCPU count, launch time, memory, VP-set decode\n")
    md.append(f"Written by `make bench` (scripts/bench-scale.py) at tree {a.tree_rev}, on this host's "
              "/dev/kvm. Every number below was measured in that run; the host is shared, so "
              "absolute times are noisy and only the shapes and ratios within the run mean much.\n")
    md.append("## Launch to all vCPUs online, and resident memory\n")
    md.append("`minivmm --cpus N guest.elf -- smoke`: seconds from spawn to the guest's banner "
              "(printed once every vCPU is online), and the process's peak RSS (guest RAM the "
              "vCPUs touched included).\n")
    md.append("| vCPUs | to online (s) | peak RSS (MiB) | status |")
    md.append("|---:|---:|---:|---:|")
    for n, s, r, st in launch:
        md.append(f"| {n} | {'-' if s is None else f'{s:.3f}'} | {r / 1024:.1f} | {st} |")
    md.append("")
    if len(big) > 1:
        md.append(f"Least-squares over N >= 16: launch time grows by {t_slope * 1e3:.2f} ms a vCPU "
                  f"(intercept {t_icpt:.2f} s); peak RSS by {r_slope:.1f} KiB a vCPU "
                  f"(intercept {r_icpt / 1024:.1f} MiB).\n")
    per_region, kernel_kib, kernel_fields, kernel_spread, slabs = {}, None, {}, None, {}
    if pair and all(n in snaps for n in pair):
        # The run whose snapshot is the median of its count's, for the region table.
        small, big = (sorted(snaps[n], key=lambda b: b["total"])[len(snaps[n]) // 2] for n in pair)
        per_region = breakdown_per_vcpu(small, big)
        md.append(describe_breakdown(small, big, per_region))
        kernels = [kernel_per_vcpu(s_, b_) for s_ in snaps[pair[0]] for b_ in snaps[pair[1]]]
        kernels = [k for k in kernels if k[0] is not None]
        if kernels:
            kernels.sort(key=lambda k: k[0])
            kernel_kib, kernel_fields = kernels[len(kernels) // 2]
            kernel_spread = (kernels[0][0], kernels[-1][0])
            fields = ", ".join(f"{k} {v:.2f}" for k, v in kernel_fields.items())
            # Per cache, the median over the same pairings: other VMs on the host move these too.
            pairs = [slab_per_vcpu(s_, b_, top=None) for s_ in snaps[pair[0]] for b_ in snaps[pair[1]]]
            slabs = {k: round(statistics.median(p_.get(k, 0.0) for p_ in pairs), 2)
                     for k in set().union(*pairs)}
            slabs = dict(sorted(((k, v) for k, v in slabs.items() if v >= 0.5),
                                key=lambda kv: -kv[1])[:6])
            md.append(f"KVM's and the threads' kernel memory, per extra vCPU: **{kernel_kib:.1f} KiB** "
                      f"({fields}; median of {len(kernels)} pairings of the runs above, range "
                      f"{kernel_spread[0]:.1f} to {kernel_spread[1]:.1f}). {KERNEL_METHOD} Not in it: "
                      "plain pages KVM allocates per vCPU outside the slab (the kvm_run page, already "
                      "counted in RSS above, and the in-kernel LAPIC's register page).")
            md.append("")
            if slabs:
                md.append("The slab caches that grew most with the count, from /proc/slabinfo at the "
                          "same moments (active objects times object size, KiB a vCPU; median "
                          "over the same pairings): " +
                          ", ".join(f"{k} {v:.1f}" for k, v in slabs.items()) +
                          "." + "".join(f" {SLAB_NOTES[k]}" for k in slabs if k in SLAB_NOTES) +
                          " The others may be anyone's on this shared host.\n")
        else:
            md.append(f"KVM's kernel memory per vCPU: not read ({KERNEL_METHOD} /proc/meminfo "
                      "was not readable here).\n")
    else:
        md.append("Where a vCPU's RSS goes: not measured in this run (it needs two good `smoke` runs "
                  f"at {a.max_cpus // 4} and {a.max_cpus} vCPUs; --max-cpus {a.max_cpus}).\n")
    if p1 and p2:
        md.append("![launch time](bench-scale-launch.png) ![peak RSS](bench-scale-rss.png)\n")
    md.append("## stress at scale\n")
    for n, lines, samples, wall, st in stress:
        md.append(f"### {n} vCPUs (exit status {st}, {wall:.0f} s wall)\n")
        for l in lines:
            md.append(f"    {l}")
        # Samples before exec are the forked Python's; from 1 MiB on they are minivmm's.
        rs = [(t, r) for t, r in samples if r >= 1024]
        if rs:
            marks = []
            for q in (0.25, 0.5, 0.75, 1.0):
                t, r = rs[min(len(rs) - 1, int(q * (len(rs) - 1)))]
                marks.append(f"{r / 1024:.1f} MiB at {t:.0f} s")
            md.append("")
            md.append(f"minivmm RSS, {len(rs)} samples 0.25 s apart: peak {max(r for _, r in rs) / 1024:.1f} MiB; "
                      f"at a quarter, half, three quarters and the end of the run: "
                      f"{', '.join(marks)}. Steady means no climb once every vCPU has run its "
                      "rounds: the peak is reached while the storm runs and RSS does not grow "
                      "after it.\n")
    md.append("## Decoding a full 1024-VP sparse set\n")
    md.append("build/bench-vpset (tests/bench/vpset_decode.c), per call, median of 31 batches of "
              "20000 (the issue's target: at most 1 us):\n")
    for row in decode_rows:
        md.append(f"    {row}")
    md.append("")
    with open(os.path.join(a.docs, "scale.md"), "w") as f:
        f.write("\n".join(md))
    print(f"bench-scale: wrote {os.path.join(a.docs, 'scale.md')}", file=sys.stderr)

    # For docs/results/results.md (the coordinator's report code reads these keys).
    decode_ns = None
    for row in decode_rows:
        m = re.match(r"^vpset-decode-1024 median_ns=([0-9.]+)", row)
        if m:
            decode_ns = float(m[1])
    summary = {
        "tree": a.tree_rev,
        "max_cpus": a.max_cpus,
        "fit_from": 16,
        "launch_ms_per_vcpu": round(t_slope * 1e3, 3) if len(big) > 1 else None,
        "launch_intercept_s": round(t_icpt, 3) if len(big) > 1 else None,
        "rss_kib_per_vcpu": round(r_slope, 2) if len(big) > 1 else None,
        "rss_intercept_mib": round(r_icpt / 1024, 2) if len(big) > 1 else None,
        "rss_target_kib": 16,
        "rss_breakdown_kib": per_region,
        "rss_breakdown_counts": list(pair) if per_region else None,
        "kernel_kib_per_vcpu": kernel_kib,
        "kernel_kib_fields": kernel_fields,
        "kernel_kib_range": list(kernel_spread) if kernel_spread else None,
        "kernel_slab_kib": slabs,
        "kernel_method": KERNEL_METHOD,
        "decode_1024_median_ns": decode_ns,
        "decode_target_ns": 1000,
    }
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    print(f"bench-scale: wrote {os.path.join(a.out, 'summary.json')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
