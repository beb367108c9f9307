# minivmm under ASan+UBSan+LeakSanitizer on each way a run can end: any
# leak, overrun or undefined behaviour makes it print a report and fail.
if [ -z "$VMM_ASAN" ] || [ ! -x "$VMM_ASAN" ]; then
	skip "leak checks" "no sanitizer build of minivmm given"
else
	export ASAN_OPTIONS=detect_leaks=1:exitcode=66
	export UBSAN_OPTIONS=halt_on_error=1:exitcode=67
	# leak_run NAME STATUS -- ARGS: like run, plus no sanitizer report.
	leak_run() {
		n=$1 w=$2
		shift 3
		VMM_SAVED=$VMM
		VMM=$VMM_ASAN
		run "$n" "$w" -- "$@" && ! grep -q 'Sanitizer' "$T/err" && ok "$n" ||
			{ grep -q 'Sanitizer' "$T/err" && bad "$n" "sanitizer report"; }
		VMM=$VMM_SAVED
	}
	leak_run "no leaks: clean guest exit" 0 -- --cpus 2 --stats --json "$T/l.json" --timeout 60 "$ELF"
	leak_run "no leaks: triple fault" 3 -- --timeout 30 "$ELF" -- triple-fault
	leak_run "no leaks: watchdog" 3 -- --cpus 2 --timeout 2 "$ELF" -- spin
	leak_run "no leaks: unclaimed accesses" 0 -- --timeout 30 "$ELF" -- unclaimed
	leak_run "no leaks: bad payload" 2 -- /
	leak_run "no leaks: bad option" 2 -- --mem 1K "$ELF"
	leak_run "no leaks: missing KVM" 2 -- --kvm /nonexistent "$ELF"
	unset ASAN_OPTIONS UBSAN_OPTIONS
fi
