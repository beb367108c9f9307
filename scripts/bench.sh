#!/usr/bin/env bash
# bench.sh - what `make bench` runs: the measurement matrix (vmexit, ipi,
# flush at 1/2/4/8 vCPUs, both --hv-xmm-path values, ipi and flush at 2 under
# KVM's own Hyper-V: --hv-impl kvm, refused where KVM has none), each run's --json
# kept in build/bench/, then docs/results/results.md and docs/results/bench-*.png.
#
# Usage: scripts/bench.sh [--hv-impl|--linux] [--no-nested] [--report-only] [-- MINIVMM-OPTIONS...]
#   --hv-impl      minivmm's Hyper-V layer against KVM's own instead
#                  (make bench-hv-impl): the matrix's hv-impl set, run on
#                  this host only where its KVM has KVM_CAP_HYPERV (else in
#                  the nested VM), reported by scripts/hv-impl-report.py in
#                  docs/results/hv-impl.md; output in build/bench-hv-impl.
#                  BENCH_HV_IMPL_CPUS: the timed suites' vCPU counts
#                  (default 2 4 on the host, 2 in the nested VM)
#   --linux        Linux's own paravirtual code instead (make bench-linux):
#                  the matrix's linux set, Debian's 6.1 bzImage with the
#                  test initramfs' workloads, run on this host only where
#                  Linux boots (not kvm_pvm: docs/linux.md), else in the
#                  nested VM; reported by scripts/bench-linux-report.py in
#                  docs/results/linux.md; output in build/bench-linux.
#                  BENCH_LINUX_CPUS, _ROUNDS, _OPS: see bench-matrix.sh
#   --no-nested    refuse (exit 2) when this host has no usable /dev/kvm,
#                  instead of measuring inside the nested test VM
#   --report-only  regenerate the report from build/bench/ without running
#   MINIVMM-OPTIONS go to every run, e.g. -- --iters 200
# Environment: BENCH_OUT (default build/bench), MINIVMM_NESTED_TIMEOUT,
#   BENCH_QUICK=1   the reduced matrix (vmexit-1, ipi-2, flush-2; ~30 s here)
#   BENCH_REPEAT=N  run the matrix N times (default 1): the first run makes
#                   the report, runs 2..N go to OUT/repeat-K/, and the report
#                   gains a table of every headline ratio per run and how far
#                   each moved from its median. Host /dev/kvm only.
#   BENCH_SANDBOX_ROUNDS=N  sandbox on/off process pairs for the sandbox's
#                   cost (scripts/bench-sandbox.py, default 6; host only)
#   BENCH_REPEAT_QUICK=1  runs 2..N use the reduced matrix while run 1 stays
#                   the full one: the headline ratios all come from the
#                   reduced matrix's runs, so the full report gains the
#                   reproducibility table in a few more minutes, not N x 5.
#
# Without /dev/kvm the matrix runs inside tests/nested/run-nested.sh: QEMU
# TCG with an emulated AMD SVM CPU. That is real KVM, but every number is
# 50-100x slower and distorted by emulation: fine for checking that the
# suites work, NOT a benchmark. The report says where its numbers came from.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
nested_ok=1 report_only=0 hv_impl=0 linux=0
while (($#)); do
	case $1 in
	--hv-impl) hv_impl=1; shift ;;
	--linux) linux=1; shift ;;
	--no-nested) nested_ok=0; shift ;;
	--report-only) report_only=1; shift ;;
	--) shift; break ;;
	*) echo "bench.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
extra=("$@")
elf=$top/guest.elf
if ((hv_impl && linux)); then
	echo "bench.sh: --hv-impl and --linux are two sets: one at a time" >&2
	exit 2
elif ((hv_impl)); then
	out=${BENCH_OUT:-$top/build/bench-hv-impl}
	export BENCH_SET=hv-impl
elif ((linux)); then
	out=${BENCH_OUT:-$top/build/bench-linux}
	export BENCH_SET=linux
	initrd=$top/build/linux/initramfs.cpio
	[ -f "$initrd" ] || { echo "bench.sh: no $initrd (make build/linux/initramfs.cpio)" >&2; exit 2; }
	elf=$("$top/scripts/linux-kernel.sh" --vmlinuz 6.1) ||
		{ echo "bench.sh: Debian's 6.1 kernel cannot be had here (scripts/linux-kernel.sh)" >&2; exit 2; }
	extra=(--initrd "$initrd" --mem 256M --stats "${extra[@]}")
else
	out=${BENCH_OUT:-$top/build/bench}
fi

banner() {
	local line='!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'
	printf '%s\n' "$line" "!! $1" "!! $2" "$line" >&2
}

run_host() {
	local k

	echo "bench: using this host's /dev/kvm" >&2
	echo host >"$out/source"
	"$top/scripts/bench-matrix.sh" "$top/minivmm" "$elf" "$out" "${extra[@]}"
	((!hv_impl && !linux)) || return 0
	# The seccomp sandbox's cost: the headline ratio with and without it, alternated.
	python3 "$top/scripts/bench-sandbox.py" --rounds "${BENCH_SANDBOX_ROUNDS:-6}" \
		--cost "$top/build/sandbox-cost" \
		"$top/minivmm" "$top/guest.elf" "$out" >/dev/null
	for ((k = 2; k <= ${BENCH_REPEAT:-1}; k++)); do
		echo "bench: repeat $k of $BENCH_REPEAT" >&2
		BENCH_QUICK=${BENCH_REPEAT_QUICK:-${BENCH_QUICK:-0}} \
			"$top/scripts/bench-matrix.sh" "$top/minivmm" "$top/guest.elf" \
			"$out/repeat-$k" "${extra[@]}"
	done
}

# The matrix inside the nested VM; its files come back on stdout (--emit).
run_nested() {
	local files=(--file "$top/minivmm" --file "$elf" --file "$top/scripts/bench-matrix.sh")

	banner "$nested_why: measuring inside the nested test VM" \
		"(QEMU TCG, emulated SVM). These numbers are NOT representative."
	echo nested-tcg-svm >"$out/source"
	# Linux as the linux area boots it there (tests/integration/cases.d/linux.needs).
	if ((linux)); then
		files+=(--file "$initrd")
		export MINIVMM_NESTED_CPU=${MINIVMM_NESTED_CPU:-max,-xsave}
		export MINIVMM_NESTED_KVM_PARAMS=${MINIVMM_NESTED_KVM_PARAMS-npt=0}
	fi
	"$top/tests/nested/run-nested.sh" --timeout "${MINIVMM_NESTED_TIMEOUT:-14400}" "${files[@]}" \
		--env "BENCH_QUICK=${BENCH_QUICK:-0}" --env "BENCH_SET=${BENCH_SET:-full}" \
		--env "BENCH_HV_IMPL_CPUS=${BENCH_HV_IMPL_CPUS:-2}" \
		--env "BENCH_LINUX_CPUS=${BENCH_LINUX_CPUS:-2 4}" \
		--env "BENCH_LINUX_ROUNDS=${BENCH_LINUX_ROUNDS:-1}" \
		--env "BENCH_LINUX_OPS=${BENCH_LINUX_OPS:-100}" \
		-- "$top/scripts/bench-matrix.sh" --emit "$top/minivmm" "$elf" \
		/tmp/bench "${extra[@]}" |
		awk -v dir="$out" '
			{ sub(/\r$/, "") }
			/^@@bench-file / { f = dir "/" $2; printf "" > f; inside = 1; next }
			/^@@bench-end$/ { close(f); inside = 0; next }
			inside { print > f; next }
			{ print > "/dev/stderr"; fflush("/dev/stderr") }'
	return "${PIPESTATUS[0]}"
}

# Whether this host's KVM can serve --hv-impl kvm: minivmm refuses it (exit 2,
# naming KVM_CAP_HYPERV) before the guest runs where it cannot.
host_has_kvm_hyperv() {
	local why
	why=$("$top/minivmm" --hv-impl kvm --timeout 120 "$top/guest.elf" -- smoke 2>&1 >/dev/null)
	case $? in
	0) return 0 ;;
	2) echo "bench.sh: $(echo "$why" | grep -m1 KVM_CAP_HYPERV || echo "$why" | head -n 1)" >&2 ;;
	*) echo "bench.sh: probe run under --hv-impl kvm failed: $(echo "$why" | tail -n 1)" >&2 ;;
	esac
	return 1
}

# Host /dev/kvm when it can run the set, else the nested VM (unless --no-nested).
run_matrix() {
	local host_ok=0
	nested_why="no usable /dev/kvm on this host"
	[ -r /dev/kvm ] && [ -w /dev/kvm ] && host_ok=1
	if ((host_ok && hv_impl)) && ! host_has_kvm_hyperv; then
		nested_why="this host's KVM has no in-kernel Hyper-V"
		host_ok=0
	fi
	if ((host_ok && linux)) && [ -d /sys/module/kvm_pvm ]; then
		nested_why="kvm_pvm cannot boot Linux (cmpxchg16b and int3 emulation: docs/linux.md)"
		host_ok=0
	fi
	if ((host_ok)); then
		run_host
	elif ((nested_ok)); then
		run_nested
	else
		echo "bench.sh: no usable /dev/kvm on this host, and --no-nested: refusing" >&2
		exit 2
	fi
}

mkdir -p "$out"
if ((!report_only)); then
	rm -rf "$out"/*.json "$out"/*.log "$out"/*.status "$out"/repeat-* "$out"/sandbox "$out"/sandbox.md
	run_matrix
fi
if ((linux)); then
	python3 "$top/scripts/bench-linux-report.py" --source "$(cat "$out/source")" \
		--tree-rev "$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)" \
		"$out" "$top/docs/results/linux.md"
	exit
fi
if ((hv_impl)); then
	python3 "$top/scripts/hv-impl-report.py" --source "$(cat "$out/source")" \
		--tree-rev "$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)" \
		"$out" "$top/docs/results/hv-impl.md"
	exit
fi
python3 "$top/scripts/bench-report.py" --source "$(cat "$out/source")" \
	--tree-rev "$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)" \
	--plots "$top/scripts/bench-plot.gp" "$out" "$top/docs/results"
if [ "$(cat "$out/source")" != host ]; then
	banner "docs/results/results.md was written from nested TCG-SVM runs:" \
		"use it to see that the suites work, not as performance data."
fi
