# A guest repeating one mistake 10,000 times (guest/tests/flood.c) gets a few
# lines per kind on stderr, then one exact count each at exit, and the same
# counts in --json (docs/robustness.md, "Guest-provoked messages").
FLOOD_N=10000
FLOOD_BURST=5		# RATELIMIT_BURST, vmm/ratelimit.h
# 3 kinds x (5 lines + 1 "further ... counted" note) + 3 summaries + exit line
FLOOD_LINES=22
# The bus remembers 64 unclaimed addresses and reports the first one past
# them too: 65 messages asked for, 5 printed.
FLOOD_UNCLAIMED=60

# flood_count NAME PATTERN N: PATTERN is on exactly N lines of stderr.
flood_count() {
	fc_n=$(grep -cF -- "$2" "$T/err")
	[ "$fc_n" -eq "$3" ] && return 0
	bad "$1" "stderr has '$2' $fc_n times, expected $3"
	return 1
}

flood_output_ok() {
	fl=$(wc -l <"$T/err")
	if [ "$fl" -ne "$FLOOD_LINES" ]; then
		bad "$1" "stderr has $fl lines, expected $FLOOD_LINES"
		return 1
	fi
	flood_count "$1" "rejected: the GPA must be written with a 32-bit out" "$FLOOD_BURST" &&
		flood_count "$1" "control request at GPA 0xfffffff8 is outside RAM" "$FLOOD_BURST" &&
		flood_count "$1" "write of unclaimed port 0x" "$FLOOD_BURST" &&
		has "$1" err "minivmm: warning: $((FLOOD_N - FLOOD_BURST)) more 'result record rejected' messages suppressed" &&
		has "$1" err "minivmm: warning: $((FLOOD_N - FLOOD_BURST)) more 'control request outside RAM' messages suppressed" &&
		has "$1" err "minivmm: warning: $FLOOD_UNCLAIMED more 'unclaimed port/MMIO address' messages suppressed" &&
		has "$1" err "minivmm: $FLOOD_N result record(s) were rejected; exiting 1" &&
		has "$1" flood.json "\"record_rejected\": $((FLOOD_N - FLOOD_BURST))" &&
		has "$1" flood.json "\"ctrl_outside_ram\": $((FLOOD_N - FLOOD_BURST))" &&
		has "$1" flood.json "\"unclaimed_access\": $FLOOD_UNCLAIMED" &&
		has "$1" flood.json "\"unclaimed_accesses\": $FLOOD_N"
}

# flood_run NAME: the flood suite; the rejected records make minivmm exit 1.
flood_run() {
	run "$1" 1 -- --timeout 60 --json "$T/flood.json" "$ELF" -- flood "$FLOOD_N" &&
		has "$1" out "PASS: flood: VMM still answers after the flood" &&
		has "$1" out " passed, 0 failed" && flood_output_ok "$1" && ok "$1"
}

flood_run "flood: 10000 of each guest mistake, 5 lines each, exact counts at exit"

# Under ASan+UBSan+LSan a report would add lines to stderr and fail the case.
if [ -n "$VMM_ASAN" ] && [ -x "$VMM_ASAN" ]; then
	export ASAN_OPTIONS=detect_leaks=1:exitcode=66
	export UBSAN_OPTIONS=halt_on_error=1:exitcode=67
	FLOOD_VMM=$VMM
	VMM=$VMM_ASAN
	flood_run "flood against minivmm under ASan+UBSan+LSan"
	VMM=$FLOOD_VMM
	unset ASAN_OPTIONS UBSAN_OPTIONS
else
	skip "flood under sanitizers" "no sanitizer build of minivmm given"
fi
