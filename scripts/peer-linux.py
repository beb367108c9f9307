#!/usr/bin/env python3
"""peer-linux.py - what `make peer-linux` runs: Debian's 6.1 vmlinux (PVH)
with the test initramfs under QEMU and under minivmm, alternated over N
rounds in one run, then docs/results/peer-linux.md.

Both VMMs get the same vmlinux, initramfs, kernel command line (minivmm's
default, read from vmm/linux_cmdline.h, and the same arguments after it),
2 vCPUs and 256 MiB; minivmm runs with --pv kvm, so both guests see KVM's
leaves. Per run, on the host clock from the process launch: the first kernel
line on the serial console, /init's first line, the exit; and the VMM's
VmHWM/VmRSS read from /proc when /init says it is ending. One more minivmm
run on the 6.1 bzImage gives the host-side unpack time its banner states.

Usage: scripts/peer-linux.py [--rounds N] [--vmlinux F] [--bzimage F]
         [--initrd F] [--out DIR] [--doc FILE] [--rev REV] [--note TEXT]
         [--not-a-result]   (an emulated host, e.g. the nested VM: no verdicts)
Environment: QEMU (default qemu-system-x86_64), PEER_LINUX_ROUNDS (3).
Without a usable /dev/kvm it says so and exits 2.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

from peerlib import TOP, host_facts, summary, timed_run, verdict

CPUS, MEM_MB, LIMIT_S = 2, 256, 300
GUEST_ARGS = ["mvm.cpus=%d" % CPUS, "mvm.end=exit:0"]
# What each VMM's exit status is when /init wrote 0 to port 0xf4: QEMU's
# isa-debug-exit exits with (code << 1) | 1.
WANT = {"qemu": 1, "minivmm": 0}
MARKS = {
    "kernel": lambda l: l.startswith("[    0.000000]") or l.startswith("Linux version"),
    "init": lambda l: l.startswith("mvm-init: start"),
}
# /init's dmesg excerpt: the guest took KVM's leaves (QEMU -cpu host; minivmm --pv kvm).
KVM_SEEN = "mvm-dmesg: Hypervisor detected: KVM"
PV_LINE = "mvm-dmesg: kvm-guest: "
ROWS = [("kernel", "launch → first kernel line (ms)"), ("init", "launch → `/init` (ms)"),
        ("exit", "launch → exit (ms)")]


def default_cmdline():
    """minivmm's LINUX_CMDLINE_DEFAULT, from its header: the line QEMU must get too."""
    with open(os.path.join(TOP, "vmm", "linux_cmdline.h")) as f:
        m = re.search(r'#define LINUX_CMDLINE_DEFAULT\s*\\\s*"([^"]*)"', f.read())
    if not m:
        sys.exit("peer-linux: no LINUX_CMDLINE_DEFAULT in vmm/linux_cmdline.h")
    return m.group(1)


def qemu_cpu():
    # kvm_pvm needs ARCH_CAPABILITIES hidden, as for make peer (docs/pvm.md).
    return "host,-arch-capabilities" if os.path.isdir("/sys/module/kvm_pvm") else "host"


def qemu_cmd(qemu, kernel, initrd, cmdline):
    return [qemu, "-enable-kvm", "-cpu", qemu_cpu(), "-M", "pc", "-smp", str(CPUS),
            "-m", str(MEM_MB), "-no-reboot", "-nodefaults", "-display", "none",
            "-serial", "stdio", "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
            "-kernel", kernel, "-initrd", initrd, "-append", cmdline]


def minivmm_cmd(kernel, initrd):
    return [os.path.join(TOP, "minivmm"), "--cpus", str(CPUS), "--mem", "%dM" % MEM_MB,
            "--pv", "kvm", "--timeout", str(LIMIT_S), "--initrd", initrd, kernel,
            "--"] + GUEST_ARGS


def guest_ram_rss_kib(pid):
    """Rss of the largest run of adjacent anonymous mappings, if it spans guest RAM."""
    runs, end, head = [], None, re.compile(r"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$")
    anon = False
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            m = head.match(line)
            if m:
                lo, hi = int(m.group(1), 16), int(m.group(2), 16)
                anon = m.group(3) == "0" and m.group(4) == ""
                if anon:
                    if runs and end == lo:
                        runs[-1][0] += hi - lo
                    else:
                        runs.append([hi - lo, 0])
                    end = hi
                continue
            if anon and line.startswith("Rss:"):
                runs[-1][1] += int(line.split()[1])
    size, rss = max(runs, default=[0, 0])
    return rss if size >= MEM_MB << 20 else None


def sample_rss(pid):
    """VmHWM, VmRSS and the guest RAM mapping's Rss of a running VMM, in KiB."""
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k = line.split(":")[0]
                if k in ("VmHWM", "VmRSS"):
                    out[k] = int(line.split()[1])
        ram = guest_ram_rss_kib(pid)
        if ram is not None:
            out["ram"] = ram
    except (OSError, ValueError):
        pass
    return out


def run_problem(name, times, lines, status):
    """Why a run does not count, or None."""
    if status != WANT[name]:
        return "exit %d (expected %d)" % (status, WANT[name])
    for k, what in (("kernel", "no kernel line"), ("init", "no `/init` line")):
        if k not in times:
            return what
    if not any(line.startswith(KVM_SEEN) for line in lines):
        return "no `%s` line" % KVM_SEEN
    return None


def one_run(cmd):
    """times {kernel, init, exit}, the RSS sample, lines, exit status, guest uptime at /init."""
    rss = {}

    def on_line(pid, line):
        if line.startswith("mvm-init: end:") and not rss:
            rss.update(sample_rss(pid))

    times, lines, status, total = timed_run(cmd, MARKS, LIMIT_S, on_line)
    times["exit"] = total
    up = None
    for line in lines:
        m = re.match(r"mvm-init: start \(uptime ([0-9.]+) s\)", line)
        if m:
            up = float(m.group(1))
            break
    return times, rss, lines, status, up


def cell(values, scale=1.0, fmt="%.1f"):
    if not values:
        return "no result"
    med, lo, hi = summary([v * scale for v in values])
    return (fmt + " (" + fmt + ".." + fmt + ")") % (med, lo, hi)


def ratio(q, m):
    if not q or not m or not statistics.median(q):
        return "–"
    return "%.2f" % (statistics.median(m) / statistics.median(q))


def kernel_name(path):
    d = os.path.dirname(path)
    parts = []
    for name in ("package", "version"):
        try:
            with open(os.path.join(d, name)) as f:
                parts.append(f.read().strip())
        except OSError:
            pass
    return " ".join(parts) + (", " if parts else "") + "`%s`" % os.path.basename(path)


def rss_rows(res):
    out = []
    for key, label in (("VmHWM", "VmHWM (MiB)"), ("VmRSS", "VmRSS at `/init`'s end (MiB)")):
        v = {n: [r[key] / 1024 for r in res[n]["rss"] if key in r] for n in res}
        out.append("| %s | %s | %s | %s |" % (label, cell(v["qemu"]), cell(v["minivmm"]),
                                              ratio(v["qemu"], v["minivmm"])))
    v = {n: [(r["VmRSS"] - r["ram"]) / 1024 for r in res[n]["rss"] if "ram" in r and "VmRSS" in r]
         for n in res}
    out.append("| of that VmRSS, outside guest RAM (MiB) | %s | %s | %s |"
               % (cell(v["qemu"]), cell(v["minivmm"]), ratio(v["qemu"], v["minivmm"])))
    return out


def goals(res, bz, judged):
    q, m = res["qemu"]["init"], res["minivmm"]["init"]
    out = [] if judged else ["Not judged: these times come from an emulated host and are "
                             "not a result (see the top of the page).", ""]
    verdict_ = verdict if judged else (lambda ok: "not judged")
    if q and m:
        r = statistics.median(m) / statistics.median(q)
        out.append("- no slower to `/init` than QEMU on the same files: %.2f× (%.0f ms vs %.0f ms) "
                   "— %s" % (r, statistics.median(m) * 1000, statistics.median(q) * 1000,
                             verdict_(r <= 1.0)))
    k = res["minivmm"]["kernel"]
    if k:
        best = min(k) * 1000
        out.append("- minivmm's own time from launch to the first guest instruction ≤ 50 ms "
                   "(unpack excluded): not observable from outside the process. An upper bound is "
                   "launch → first kernel line on the vmlinux, which also holds the kernel's boot "
                   "up to its serial console: %.1f ms at best here — %s" %
                   (best, ("**met** (by the bound)" if best <= 50 else
                           "not shown by this bound (which is mostly the kernel's own time)")
                    if judged else "not judged"))
    if bz.get("unpack_ms") is not None:
        out.append("- the 6.1 bzImage's host-side unpack: %d ms, one run (see above)"
                   % bz["unpack_ms"])
    return out


def bz_lines(bz):
    if bz.get("unpack_ms") is None:
        return ["The extra minivmm run on the 6.1 bzImage did not report an unpack time (%s)."
                % bz.get("why", "no banner line")]
    t = bz["times"]
    return ["One more minivmm run, on the 6.1 **bzImage** (same initramfs, arguments, vCPUs, RAM, "
            "`--pv kvm`): its banner says the payload was **unpacked on the host in %d ms** "
            "(liblzma, before any vCPU exists); launch → first kernel line %s ms, → `/init` %s ms, "
            "→ exit %s ms, exit %d. The vmlinux runs above need no unpack."
            % (bz["unpack_ms"], "%.1f" % (t["kernel"] * 1000) if "kernel" in t else "–",
               "%.1f" % (t["init"] * 1000) if "init" in t else "–", "%.1f" % (t["exit"] * 1000),
               bz["status"])]


def write_report(a, facts, res, bz, cmds, failures):
    rows = []
    for key, label in ROWS:
        q, m = res["qemu"][key], res["minivmm"][key]
        rows.append("| %s | %s | %s | %s |" % (label, cell(q, 1000), cell(m, 1000), ratio(q, m)))
    q, m = res["qemu"]["uptime"], res["minivmm"]["uptime"]
    rows.append("| guest uptime at `/init` (s, the guest's clock) | %s | %s | %s |"
                % (cell(q, 1, "%.2f"), cell(m, 1, "%.2f"), ratio(q, m)))
    rows += rss_rows(res)
    backend = facts["backend"] + (" (kvm_pvm: guest CPL0 code is emulated, docs/pvm.md)"
                                  if facts["backend"] == "pvm" else "")
    doc = ["# minivmm vs QEMU booting Debian's Linux 6.1", "",
           "Written by `make peer-linux` (scripts/peer-linux.py); regenerate rather than edit.", ""]
    if a.note:
        doc += ["**%s**" % a.note, ""]
    doc += ["Same vmlinux (PVH: QEMU boots it through SeaBIOS and its PVH option ROM, minivmm "
            "enters it directly), same initramfs (`build/linux/initramfs.cpio`), same kernel "
            "command line, %d vCPUs, %d MiB, same host; both guests see KVM's CPUID leaves "
            "(QEMU `-cpu %s`, minivmm `--pv kvm`). The two VMMs alternate over %d rounds in one "
            "run (odd rounds QEMU first, even rounds minivmm first). Times are the host's, from "
            "the process launch to the line arriving on the VMM's stdout (the serial console): "
            "the first kernel line (`[    0.000000]` or `Linux version`: the kernel writes "
            "nothing to ttyS0 before its serial console is registered, then its log from the "
            "start), `/init`'s first line "
            "(`mvm-init: start`), and the process exit (`/init` writes 0 to port 0xf4). Cells: "
            "median (min..max). The ratio is minivmm's median over QEMU's."
            % (CPUS, MEM_MB, qemu_cpu(), a.rounds), "",
            "| | QEMU | minivmm | minivmm/QEMU |", "|---|---|---|---|"] + rows + [
            "",
            "Memory: read from `/proc/PID/status` when `/init` prints `mvm-init: end:` (just "
            "before it writes the exit port). VmHWM is the process's peak resident set, VmRSS "
            "the resident set then; both include the guest RAM the guest has touched (an "
            "anonymous mapping of %d MiB in either VMM), the VMM's binary and libraries, heap, "
            "thread stacks and the vCPUs' `kvm_run` pages. \"Outside guest RAM\" subtracts the "
            "Rss of the largest run of adjacent anonymous mappings at least %d MiB long "
            "(`/proc/PID/smaps`), which is the guest RAM block; what remains is the VMM's own "
            "(for QEMU that includes its firmware and whatever copies of the kernel and initrd it "
            "keeps). minivmm reads the kernel file whole to load it and frees it before the "
            "vCPUs run (`vmm/loader.c`): VmHWM keeps that peak, VmRSS does not. Every run "
            "counted above printed `Hypervisor detected: KVM` in its dmesg." % (MEM_MB, MEM_MB),
            "", "What the guest's KVM guest code set up (its `kvm-guest:` dmesg lines, first "
            "counted run): QEMU: %s; minivmm: %s. Where they differ, the two guests do not run "
            "the same paravirtual code (e.g. PV spinlocks need KVM_FEATURE_PV_UNHALT)."
            % tuple("; ".join("`%s`" % x for x in res[n]["pv"]) or "none"
                    for n in ("qemu", "minivmm")), ""]
    doc += bz_lines(bz) + ["", "## Where it ran", "", "| | |", "|---|---|",
                           "| host | %s (%s CPUs) |" % (facts["host"], facts["host_cpus"]),
                           "| KVM backend | %s |" % backend, "| CPU | %s |" % facts["cpu"],
                           "| host kernel | %s |" % facts["kernel"],
                           "| guest kernel | %s |" % kernel_name(a.vmlinux),
                           "| QEMU | %s |" % facts["qemu"], "| minivmm | %s |" % facts["rev"], ""]
    doc += ["Kernel command line, both VMMs: `%s` (QEMU gets it whole through `-append`; "
            "minivmm prepends its default, `vmm/linux_cmdline.h`, to the arguments after "
            "`--`, giving the same string)." % cmds["cmdline"], "",
            "QEMU: `%s`" % " ".join(cmds["qemu"]), "",
            "minivmm: `%s`" % " ".join(cmds["minivmm"]), "",
            "## Goals (issue 22), from this run", ""] + goals(res, bz, not a.not_a_result)
    if failures:
        doc += ["", "## Runs that failed", ""] + ["- " + f for f in failures]
    text = "\n".join(doc) + "\n"
    if a.doc == "-":
        sys.stdout.write(text)
    else:
        with open(a.doc, "w") as f:
            f.write(text)
        print("\n".join(rows))


def kernel_path(kind):
    try:
        return subprocess.run([os.path.join(TOP, "scripts", "linux-kernel.sh"), "--" + kind, "6.1"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except subprocess.CalledProcessError as e:
        sys.exit("peer-linux: scripts/linux-kernel.sh --%s 6.1: %s" % (kind, e.stderr.strip()))


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("PEER_LINUX_ROUNDS", "3")))
    ap.add_argument("--vmlinux")
    ap.add_argument("--bzimage")
    ap.add_argument("--initrd", default=os.path.join(TOP, "build", "linux", "initramfs.cpio"))
    ap.add_argument("--out", default=os.path.join(TOP, "build", "peer-linux"))
    ap.add_argument("--doc", default=os.path.join(TOP, "docs", "results", "peer-linux.md"))
    ap.add_argument("--rev", help="minivmm's version for the report (default: git describe)")
    ap.add_argument("--note", help="a sentence put in bold at the top of the report")
    ap.add_argument("--not-a-result", action="store_true",
                    help="times from an emulated host (the nested VM): no verdicts on the goals")
    return ap.parse_args()


def check_host(a, qemu):
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        print("peer-linux: no usable /dev/kvm on this host: nothing measured "
              "(tests/nested/run-nested.sh gives one, but under QEMU TCG: not a result)",
              file=sys.stderr)
        sys.exit(2)
    for f in (os.path.join(TOP, "minivmm"), a.initrd):
        if not os.path.exists(f):
            sys.exit("peer-linux: %s not found (make all linux-initramfs)" % f)
    if subprocess.run(["sh", "-c", 'command -v "$0" >/dev/null', qemu]).returncode:
        sys.exit("peer-linux: %s not found (scripts/deps.sh peer)" % qemu)


def bz_run(a, out):
    times, _, lines, status, _ = one_run(minivmm_cmd(a.bzimage, a.initrd))
    with open(os.path.join(out, "minivmm-bzimage.log"), "w") as f:
        f.write("\n".join(lines) + "\n")
    m = re.search(r"unpacked on the host in (\d+) ms", "\n".join(lines[:8]))
    print("peer-linux: bzImage minivmm: exit %d, unpack %s ms" %
          (status, m.group(1) if m else "?"), flush=True)
    return {"times": times, "status": status, "unpack_ms": int(m.group(1)) if m else None,
            "why": "exit %d" % status}


def main():
    a = parse_args()
    qemu = os.environ.get("QEMU", "qemu-system-x86_64")
    check_host(a, qemu)
    a.vmlinux = a.vmlinux or kernel_path("vmlinux")
    a.bzimage = a.bzimage or kernel_path("vmlinuz")
    os.makedirs(a.out, exist_ok=True)
    cmdline = " ".join([default_cmdline()] + GUEST_ARGS)
    vmms = {"qemu": qemu_cmd(qemu, a.vmlinux, a.initrd, cmdline),
            "minivmm": minivmm_cmd(a.vmlinux, a.initrd)}
    res = {n: {"kernel": [], "init": [], "exit": [], "uptime": [], "rss": [], "pv": None}
           for n in vmms}
    failures, banner = [], ""
    for r in range(a.rounds):
        for name in (["qemu", "minivmm"] if r % 2 == 0 else ["minivmm", "qemu"]):
            times, rss, lines, status, up = one_run(vmms[name])
            print("peer-linux: round %d %s: exit %d, kernel %s, /init %s, exit after %.1f ms" %
                  (r + 1, name, status, *["%.1f ms" % (times[k] * 1000) if k in times else "never"
                                          for k in ("kernel", "init")], times["exit"] * 1000),
                  flush=True)
            if name == "minivmm":
                banner = banner or "\n".join(lines[:2])
            with open(os.path.join(a.out, "%s-%d.log" % (name, r + 1)), "w") as f:
                f.write("\n".join(lines) + "\n")
            why = run_problem(name, times, lines, status)
            if why:
                failures.append("round %d %s: %s" % (r + 1, name, why))
                continue
            for k in ("kernel", "init", "exit"):
                res[name][k].append(times[k])
            if up is not None:
                res[name]["uptime"].append(up)
            res[name]["rss"].append(rss)
            res[name]["pv"] = res[name]["pv"] or [line[len("mvm-dmesg: "):] for line in lines
                                                  if line.startswith(PV_LINE)]
    if not res["qemu"]["init"] or not res["minivmm"]["init"]:
        sys.exit("peer-linux: no complete run for one of the VMMs: " + "; ".join(failures))
    bz = bz_run(a, a.out)
    cmds = {"cmdline": cmdline,
            "qemu": ["qemu-system-x86_64"] + qemu_cmd(qemu, "VMLINUX", "initramfs.cpio",
                                                      "'%s'" % cmdline)[1:],
            "minivmm": ["./minivmm"] + minivmm_cmd("VMLINUX", "initramfs.cpio")[1:]}
    write_report(a, host_facts(banner, qemu, a.rev), res, bz, cmds, failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
