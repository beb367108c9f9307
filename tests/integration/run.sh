#!/usr/bin/env bash
# Run the integration cases on this host's /dev/kvm, or, where there is
# none, inside a throw-away nested VM that has one (tests/nested/).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cases=$top/tests/integration/cases.sh

if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	echo "integration: using this host's /dev/kvm"
	exec "$cases" "$top/minivmm" "$top/guest.elf" "$top/build/minivmm-asan"
fi
echo "integration: no usable /dev/kvm here; running the cases in a nested KVM VM (QEMU TCG, emulated SVM)"
exec "$top/tests/nested/run-nested.sh" --timeout "${MINIVMM_NESTED_TIMEOUT:-900}" \
	--file "$top/minivmm" --file "$top/guest.elf" --file "$top/tests/integration" \
	--file "$top/build/minivmm-asan" \
	-- "$cases" "$top/minivmm" "$top/guest.elf" "$top/build/minivmm-asan"
