# tx.awk - the transmit test's text: `awk -v lines=N -f tx.awk` prints N lines
# of exactly 64 bytes, "mvm-tx NNNNN " and 50 characters that differ from
# line to line, then a newline. /init writes it through /dev/ttyS0; the host
# side (tests/integration/cases.d/linux.sh) prints it again and compares
# every byte. POSIX awk: the same output from busybox, mawk and gawk.
BEGIN {
	a = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	a = a a
	for (i = 0; i < lines; i++)
		printf "mvm-tx %05d %s\n", i, substr(a, i % 62 + 1, 50)
}
