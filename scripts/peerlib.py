"""peerlib.py - what scripts/peer.py (make peer) and scripts/peer-linux.py
(make peer-linux) share: running one VMM with its serial console on a pipe
and timing lines on the host clock from the launch, the facts about the host
a report states, and the median/spread arithmetic.
"""
import os
import platform
import re
import signal
import statistics
import subprocess
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed_run(cmd, marks, limit_s, on_line=None):
    """Run one VMM, its stdout a pipe, until it exits.

    marks: {name: predicate(line)}; the result's times[name] is the seconds
    from the launch to the first stdout line the predicate accepts (absent
    when none did). on_line(pid, line), if given, sees every line while the
    process still runs (e.g. to sample /proc/PID). Returns (times, lines,
    exit status, seconds from the launch to the exit); a run still going
    after limit_s seconds is killed (status -9).
    """
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL, text=True, errors="replace", bufsize=1,
                         start_new_session=True)
    # A VMM that hangs without closing stdout (QEMU has no --timeout) is
    # killed, with whatever it started (its own process group).
    watchdog = threading.Timer(limit_s, _kill_group, (p.pid,))
    watchdog.start()
    times, lines = {}, []
    try:
        for line in p.stdout:
            now = time.monotonic() - t0
            line = line.rstrip("\r\n")
            for name, pred in marks.items():
                if name not in times and pred(line):
                    times[name] = now
            if on_line:
                on_line(p.pid, line)
            lines.append(line)
        status = p.wait()
    finally:  # also on ^C: no VMM outlives us in its own session
        watchdog.cancel()
        if p.poll() is None:
            _kill_group(p.pid)
            p.wait()
    return times, lines, status, time.monotonic() - t0


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _first_line(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()
    except OSError:
        return ""
    return out[0].strip() if out else ""


def host_facts(banner, qemu, rev=None):
    """Host, KVM backend (from minivmm's banner), CPU, kernel, TSC, QEMU, minivmm."""
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    m = re.search(r"kvm backend (\S+),", banner)
    t = re.search(r"TSC ([0-9.]+) MHz", banner)
    return {"host": platform.node(), "backend": m.group(1) if m else "unknown",
            "cpu": cpu, "kernel": platform.release(),
            "tsc": t.group(1) + " MHz" if t else "unknown",
            "host_cpus": os.cpu_count(), "qemu": _first_line([qemu, "--version"]) or "unknown",
            "rev": rev or _first_line(["git", "-C", TOP, "describe", "--always", "--dirty"])
            or "unknown"}


def summary(values):
    """(median, min, max)."""
    return statistics.median(values), min(values), max(values)


def verdict(ok):
    return "**met**" if ok else "**not met**"
