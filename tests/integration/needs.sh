# needs.sh - sourced by tests/integration/run.sh and bochs.sh: what an area
# needs beyond minivmm and guest.elf, as its executable cases.d/AREA.needs
# prints it (the line forms are listed at the top of run.sh). Expects $top.
# area_needs AREA: fill needs_files, needs_envs, needs_timeout, needs_idle
# and needs_nested from cases.d/AREA.needs; 1 (its output shown) when it failed.
area_needs() {
	local n=$top/tests/integration/cases.d/$1.needs out line
	needs_files=() needs_envs=() needs_timeout='' needs_idle='' needs_nested=' ' needs_cpu='' needs_kvm_params=''
	[ -x "$n" ] || return 0
	if ! out=$("$n" 2>&1); then
		while IFS= read -r line; do echo "${needs_prefix:-integration}: $1.needs: $line"; done <<<"$out"
		return 1
	fi
	while IFS= read -r line; do
		case $line in
		"file "*) needs_files+=(--file "${line#file }") ;;
		"env "*=*) needs_envs+=("${line#env }") ;;
		"timeout "*) needs_timeout=${line#timeout } ;;
		"idle "*) needs_idle=${line#idle } ;;
		"nested "*) needs_nested+="${line#nested } " ;;
		"nested-cpu "*) needs_cpu=${line#nested-cpu } ;;
		"nested-kvm-params "*) needs_kvm_params=${line#nested-kvm-params } ;;
		esac
	done <<<"$out"
}
