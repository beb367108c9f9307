#!/usr/bin/env bash
# Run the integration cases on this host's /dev/kvm or, where there is
# none, each area in its own throw-away nested VM that has one
# (tests/nested/). A nested VM that dies or stops making progress is an
# infrastructure failure, not a verdict on minivmm (seen: the nested kernel
# itself reporting soft lockups on every CPU, idle ones included, under
# QEMU TCG): that area runs again in a fresh VM, up to three times in all,
# and each retry is said. Only a verdict line counts; three wedges fail.
# MINIVMM_FORCE_NESTED=1 takes the nested path even where /dev/kvm exists
# (to check an SVM KVM from a kvm_pvm host; slow: minutes per area).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cases=$top/tests/integration/cases.sh
asan=$top/build/minivmm-asan
[ -x "$asan" ] || asan=""

if [ -z "${MINIVMM_FORCE_NESTED:-}" ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	echo "integration: using this host's /dev/kvm"
	exec "$cases" "$top/minivmm" "$top/guest.elf" "$asan"
fi

if [ -n "${MINIVMM_FORCE_NESTED:-}" ]; then
	echo "integration: MINIVMM_FORCE_NESTED set; each area runs in a nested KVM VM (QEMU TCG, emulated SVM)"
else
	echo "integration: no usable /dev/kvm here; each area runs in a nested KVM VM (QEMU TCG, emulated SVM)"
fi
limit=${MINIVMM_NESTED_TIMEOUT:-240}	# a healthy area takes < 60 s; room for one 130 s kill
log=$(mktemp)
trap 'rm -f "$log"' EXIT
areas=(core)
for f in "$top"/tests/integration/cases.d/*.sh; do
	a=$(basename "$f" .sh)
	[ "$a" = core ] || areas+=("$a")
done

nested_area() {	# nested_area AREA: 0 ran to its verdict line, 1 infrastructure failure
	local files=(--file "$top/minivmm" --file "$top/guest.elf" --file "$top/tests/integration")
	[ -n "$asan" ] && files+=(--file "$asan")
	[ -x "$top/build/minivmm-sandbox-test" ] && files+=(--file "$top/build/minivmm-sandbox-test")
	"$top/tests/nested/run-nested.sh" --timeout "$limit" "${files[@]}" \
		-- "$cases" "$top/minivmm" "$top/guest.elf" "${asan:-none}" "$1" >"$log" 2>&1
	grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$log"
}

pass=0 fail=0
for a in "${areas[@]}"; do
	try=1
	while ! nested_area "$a" && [ $try -lt 3 ]; do
		sed 's/^/integration:   /' "$log" | tail -n 15
		echo "RETRY: area $a (the nested VM ended without a verdict: see above; trying a fresh VM)"
		try=$((try + 1))
	done
	if ! grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$log"; then
		cat "$log"
		echo "FAIL: area $a (the nested VM ended without a verdict three times)"
		fail=$((fail + 1))
		continue
	fi
	grep -vE '^[0-9]+ passed, [0-9]+ failed$' "$log"
	read -r p f < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$log" | tail -n 1)
	pass=$((pass + p))
	fail=$((fail + f))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
