# ABI 4: every record the harness makes carries one block median per round
# for the row and for the empty loop (docs/abi.md), and --json writes them,
# so minivmm-compare has its samples. Behaviour only: no timing is judged.

# rounds_json_check FILE: "N records, M rounds each" or why not.
rounds_json_check() {
	awk '
		function num(line) { sub(/.*": /, "", line); sub(/,$/, "", line); return line + 0 }
		/"rounds": / { rd = num($0) }
		/"round_medians": \[\]/ || /"round_loop_medians": \[\]/ { next }
		/"round_medians": \[/ { arr = "row"; next }
		/"round_loop_medians": \[/ { arr = "loop"; next }
		arr != "" && /\]/ { arr = ""; next }
		arr == "row" { nrow++; if ($0 + 0 <= 0) why = why " row value " $0 }
		arr == "loop" { nloop++ }
		/"suite": "/ { s = 1 }
		/^ *},?$/ {
			if (s) {
				n++
				if (rd == 0 || nrow != rd || nloop != rd)
					why = why " record " n ": rounds " rd ", " nrow "/" nloop " values"
				all[rd]++
			}
			s = 0; rd = 0; nrow = 0; nloop = 0
		}
		END {
			if (!n) why = " no records"
			if (why != "") { print substr(why, 2); exit 1 }
			for (r in all) printf "%d records with %d rounds ", all[r], r
			print ""
		}' "$1"
}

c="--json carries each record's per-round block medians (vmexit, --iters 64)"
run "$c" 0 -- --iters 64 --timeout 120 --json "$T/rounds.json" "$ELF" -- vmexit &&
	if why=$(rounds_json_check "$T/rounds.json"); then ok "$c ($why)"
	else bad "$c" "JSON: $why"; fi
