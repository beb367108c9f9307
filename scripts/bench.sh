#!/usr/bin/env bash
# bench.sh - what `make bench` runs: the measurement matrix (vmexit, ipi,
# flush at 1/2/4/8 vCPUs, both --hv-xmm-path values, ipi and flush at 2 under
# KVM's own Hyper-V: --hv-impl kvm, refused where KVM has none), each run's --json
# kept in build/bench/, then docs/results/results.md and docs/results/bench-*.png.
#
# Usage: scripts/bench.sh [--no-nested] [--report-only] [-- MINIVMM-OPTIONS...]
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
out=${BENCH_OUT:-$top/build/bench}
nested_ok=1 report_only=0
while (($#)); do
	case $1 in
	--no-nested) nested_ok=0; shift ;;
	--report-only) report_only=1; shift ;;
	--) shift; break ;;
	*) echo "bench.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
extra=("$@")

banner() {
	local line='!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'
	printf '%s\n' "$line" "!! $1" "!! $2" "$line" >&2
}

run_host() {
	local k

	echo "bench: using this host's /dev/kvm" >&2
	echo host >"$out/source"
	"$top/scripts/bench-matrix.sh" "$top/minivmm" "$top/guest.elf" "$out" "${extra[@]}"
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
	banner "no usable /dev/kvm on this host: measuring inside the nested test VM" \
		"(QEMU TCG, emulated SVM). These numbers are NOT representative."
	echo nested-tcg-svm >"$out/source"
	"$top/tests/nested/run-nested.sh" --timeout "${MINIVMM_NESTED_TIMEOUT:-14400}" \
		--file "$top/minivmm" --file "$top/guest.elf" --file "$top/scripts/bench-matrix.sh" \
		--env "BENCH_QUICK=${BENCH_QUICK:-0}" \
		-- "$top/scripts/bench-matrix.sh" --emit "$top/minivmm" "$top/guest.elf" \
		/tmp/bench "${extra[@]}" |
		awk -v dir="$out" '
			{ sub(/\r$/, "") }
			/^@@bench-file / { f = dir "/" $2; printf "" > f; inside = 1; next }
			/^@@bench-end$/ { close(f); inside = 0; next }
			inside { print > f; next }
			{ print > "/dev/stderr"; fflush("/dev/stderr") }'
	return "${PIPESTATUS[0]}"
}

mkdir -p "$out"
if ((!report_only)); then
	rm -rf "$out"/*.json "$out"/*.log "$out"/*.status "$out"/repeat-* "$out"/sandbox "$out"/sandbox.md
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		run_host
	elif ((nested_ok)); then
		run_nested
	else
		echo "bench.sh: no usable /dev/kvm on this host, and --no-nested: refusing" >&2
		exit 2
	fi
fi
python3 "$top/scripts/bench-report.py" --source "$(cat "$out/source")" \
	--tree-rev "$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)" \
	--plots "$top/scripts/bench-plot.gp" "$out" "$top/docs/results"
if [ "$(cat "$out/source")" != host ]; then
	banner "docs/results/results.md was written from nested TCG-SVM runs:" \
		"use it to see that the suites work, not as performance data."
fi
