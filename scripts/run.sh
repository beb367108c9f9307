#!/usr/bin/env bash
# `make run`: boot guest.elf on this host's /dev/kvm or, where there is
# none, inside the nested test VM (QEMU TCG with an emulated SVM CPU), and
# say which. Options and suites: make run ARGS="--cpus 4" SUITES="hv ipi".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC2206 # words on purpose
cmd=("$top/minivmm" ${ARGS:-} "$top/guest.elf")
# shellcheck disable=SC2206
[ -n "${SUITES:-}" ] && cmd+=(-- ${SUITES})
if [ -e /dev/kvm ]; then
	exec "${cmd[@]}"
fi
echo "run: this host has no /dev/kvm; booting inside the nested test VM (QEMU TCG, emulated SVM):" \
	"slow, and its timings are not benchmarks" >&2
exec "$top/tests/nested/run-nested.sh" --timeout 300 --file "$top/minivmm" \
	--file "$top/guest.elf" -- "${cmd[@]}"
