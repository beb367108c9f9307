#!/usr/bin/env bash
# The generated docs live apart from the hand-written ones: docs/results/
# holds only what make bench and make peer write (each page says which
# command wrote it, near its top), docs/ itself holds no such page, and every
# relative link in either resolves to a file that exists (a page moved
# without its links is a page that lies).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }

# The stamp every generator writes in its first lines.
stamp='(Written|Generated) by `(make [a-z-]+|scripts/[a-z-]+\.py)`'

unstamped=()
for f in "$top"/docs/results/*.md; do
	[ -e "$f" ] || continue
	head -n 10 "$f" | grep -qE "$stamp" || unstamped+=("${f#"$top"/}")
done
if [ ${#unstamped[@]} -eq 0 ]; then
	ok "every page in docs/results/ names the command that wrote it"
else
	bad "docs/results/ pages without a 'Written by make ...' stamp: ${unstamped[*]}"
fi

stray=()
for f in "$top"/docs/*.md "$top"/README.md; do
	head -n 10 "$f" | grep -qE "$stamp" && stray+=("${f#"$top"/}")
done
if [ ${#stray[@]} -eq 0 ]; then
	ok "no generated page outside docs/results/"
else
	bad "generated pages among the hand-written ones: ${stray[*]}"
fi

others=$(find "$top/docs/results" -type f ! -name '*.md' ! -name '*.png' -printf '%f ')
if [ -z "$others" ]; then
	ok "docs/results/ holds only pages and plots"
else
	bad "docs/results/ holds other files: $others"
fi

# Relative links: ](name.md), ](dir/name.png), ](../name.md#anchor).
broken=()
for f in "$top"/README.md "$top"/docs/*.md "$top"/docs/results/*.md; do
	dir=$(dirname "$f")
	while read -r target; do
		target=${target%%#*}
		[ -n "$target" ] || continue
		[ -e "$dir/$target" ] || broken+=("${f#"$top"/} -> $target")
	done < <(grep -oE '\]\([^):/ ]+(/[^): ]+)*\)' "$f" | sed -E 's/^\]\((.*)\)$/\1/')
done
if [ ${#broken[@]} -eq 0 ]; then
	ok "every relative link in README.md, docs/ and docs/results/ resolves"
else
	bad "${#broken[@]} broken relative links:"
	printf '  %s\n' "${broken[@]}"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
