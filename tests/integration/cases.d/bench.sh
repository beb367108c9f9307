# The measurement suites (vmexit, ipi, flush) run, pass their own checks and
# hand the VMM well-formed records: each suite present in the JSON, every
# record with iters as asked and min <= median <= p90 <= p99, and every
# ratio with its interquartile range lo <= ratio <= hi. Behaviour only:
# --iters 20 keeps this short, and no timing is judged. (The VMM itself
# rejects malformed records and then exits 1.)

# bench_json_check FILE ITERS SUITE...: the records per suite, or why not.
bench_json_check() {
	# Prefixed names: this file is sourced, and cases.sh loops with $f.
	bj_file=$1 bj_iters=$2
	shift 2
	awk -v want="$bj_iters" -v suites="$*" '
		function num(line) { sub(/.*": /, "", line); sub(/,$/, "", line); return line + 0 }
		/"suite": "/ { s = $0; sub(/.*"suite": "/, "", s); sub(/".*/, "", s) }
		/"iters": / { it = num($0) }
		/"min": / { mn = num($0) }
		/"median": / { md = num($0) }
		/"p90": / { p90 = num($0) }
		/"p99": / { p99 = num($0) }
		/"cpl": / { cpl = num($0) }
		/"ratio": / { r = $0; sub(/.*": /, "", r); sub(/,$/, "", r) }
		/"ratio_lo": / { lo = num($0) }
		/"ratio_hi": / { hi = $0; sub(/.*": /, "", hi); sub(/,$/, "", hi) }
		/^ *},?$/ {
			if (s != "") {
				if (r != "null" && r != "\"inf\"" && hi != "\"inf\"" &&
				    !(lo <= r + 0 && r + 0 <= hi + 0))
					why = why " " s ": ratio " lo "/" r "/" hi
				if (r != "null") nr[s]++
				n[s]++
				if (it != want) why = why " " s ": iters " it
				if (!(mn <= md && md <= p90 && p90 <= p99))
					why = why " " s ": min/median/p90/p99 " mn "/" md "/" p90 "/" p99
				if (cpl != 0 && cpl != 3) why = why " " s ": cpl " cpl
			}
			s = ""; r = "null"
		}
		END {
			k = split(suites, want_suites, " ")
			for (i = 1; i <= k; i++)
				if (!n[want_suites[i]]) why = why " no " want_suites[i] " records"
			if (why != "") { print substr(why, 2); exit 1 }
			for (i = 1; i <= k; i++)
				printf "%s=%d (%d ratios) ", want_suites[i], n[want_suites[i]],
				       nr[want_suites[i]]
			print ""
		}' "$bj_file"
}

c="measurement suites run and submit well-formed records (2 vCPUs, --iters 20)"
if run "$c" 0 -- --cpus 2 --iters 20 --timeout 240 --json "$T/bench.json" "$ELF" -- vmexit ipi flush &&
	has "$c" out "PASS: vmexit: exit costs: 17 cases measured (0 skipped)" &&
	has "$c" out "PASS: ipi: receivers halted (IF=1): 25 cases measured" &&
	has "$c" out "PASS: ipi: receivers spinning at CPL3 (IF=1): 15 cases measured" &&
	has "$c" out "PASS: flush: 1 target halted: 9 cases measured" &&
	has "$c" out "PASS: flush: 1 target running: 9 cases measured" &&
	has "$c" out "PASS: flush: 1 target preempted: 10 cases measured" &&
	has "$c" out "flush: 1 target preempted: " &&
	has "$c" out " calls began with every target held" &&
	has "$c" out " passed, 0 failed"; then
	if why=$(bench_json_check "$T/bench.json" 20 vmexit ipi flush); then ok "$c ($why)"
	else bad "$c" "JSON: $why"; fi
fi

c="ipi and flush skip with one vCPU, and say why"
run "$c" 0 -- --cpus 1 --iters 20 --timeout 60 "$ELF" -- ipi flush &&
	has "$c" out "SKIP: ipi: IPI round trips (needs at least 2 vCPUs" &&
	has "$c" out "SKIP: flush: remote TLB flush (needs at least 2 vCPUs" && ok "$c"

c="vmexit without Hyper-V skips only the Hyper-V rows"
run "$c" 0 -- --no-hyperv --iters 20 --timeout 60 --json "$T/nohv.json" "$ELF" -- vmexit &&
	has "$c" out "SKIP: vmexit: exit costs (rdmsr HV_VP_INDEX user:" &&
	has "$c" out "PASS: vmexit: exit costs: 11 cases measured (6 skipped)" &&
	if why=$(bench_json_check "$T/nohv.json" 20 vmexit); then ok "$c ($why)"
	else bad "$c" "JSON: $why"; fi

c="vmexit with the XMM spill path; the bare null port is never dispatched"
if run "$c" 0 -- --hv-xmm-path spill --iters 20 --stats --timeout 60 "$ELF" -- vmexit &&
	has "$c" out "PASS: vmexit: exit costs: 17 cases measured (0 skipped)" &&
	has "$c" out "vmexit     pio-in null                  bare "; then
	# No device claims 0xef: had minivmm dispatched it, it would count as unclaimed.
	if grep -q "unclaimed port/MMIO accesses: 0" "$T/out"; then ok "$c"
	else bad "$c" "the bare port reached the bus"; fi
fi
