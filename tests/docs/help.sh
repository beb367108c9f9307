#!/usr/bin/env bash
# The README's option reference must be exactly what `minivmm --help` says.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
want=$("$top/minivmm" --help | grep -E '^(usage|  )')
have=$(sed -n '/^    usage: minivmm/,/--version/p' "$top/README.md" | sed 's/^    //')
if [ "$want" != "$have" ]; then
	echo "FAIL: README.md option reference differs from minivmm --help:"
	diff <(echo "$want") <(echo "$have") || true
	echo "0 passed, 1 failed"
	exit 1
fi
echo "PASS: README.md option reference matches minivmm --help"
echo "1 passed, 0 failed"
