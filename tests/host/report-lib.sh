# Sourced by the host tests of the report scripts (hv-impl-report.sh,
# bench-linux-report.sh): a scratch folder $d removed on exit, the tallies,
# and the checks. Set LABEL (the name each PASS/FAIL line carries) first.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
ok() { echo "PASS: $LABEL: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $LABEL: $1"; fail=$((fail + 1)); }
# want NAME FILE TEXT: FILE has the line fragment TEXT (else show FILE).
want() { if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1 (no '$3' in $2)"; sed 's/^/    /' "$2"; fi; }
# lacks NAME FILE TEXT: FILE does not have it.
lacks() { if grep -qF -- "$3" "$2"; then bad "$1 ('$3' in $2)"; else ok "$1"; fi; }
# finish: the tally line, and the status.
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }
