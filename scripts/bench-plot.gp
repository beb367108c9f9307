# bench-plot.gp - the PNG plots of docs/results/results.md, from the .dat files that
# scripts/bench-report.py writes. Called as:
#   gnuplot -e "dat='DIR'; out='DOCS'; src='...'; ipirun='...'; flushrun='...';
#               bigrun='...'; nvar='N'" scripts/bench-plot.gp
# A missing .dat file skips its plot.

file_exists(f) = system("[ -f '" . f . "' ] && echo 1 || echo 0") eq "1"

set terminal pngcairo size 1200,700 font ",10" noenhanced
set datafile missing "?"
set key autotitle columnheader
set grid ytics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set xtics rotate by -35 left

if (file_exists(dat . "/exits.dat")) {
	set output out . "/bench-exits.png"
	set title "Exit cost by kind: guest-observed round trip vs minivmm's own time (vmexit-1; " . src . ")"
	set ylabel "median ns"
	set logscale y
	set bmargin 12
	set rmargin 12
	plot dat . "/exits.dat" using 2:xtic(1) title "guest-observed round trip", \
		"" using 3 title "minivmm's own time (VMM side)"
	set bmargin
	set rmargin
	unset logscale y
}

if (file_exists(dat . "/ipi-paths.dat")) {
	set output out . "/bench-ipi-paths.png"
	set title "IPI cost per send path (" . ipirun . "; " . src . ")"
	set ylabel "median µs (log)"
	set logscale y
	plot for [c=2:6] dat . "/ipi-paths.dat" using c:xtic(1) title columnheader(c)
	unset logscale y
}

set style data linespoints
set xtics norotate
unset xtics
set xtics

if (file_exists(dat . "/ipi-targets.dat")) {
	set output out . "/bench-ipi-targets.png"
	set title "Broadcast IPI vs number of targets (runs ipi-2/4/8; " . src . ")"
	set xlabel "targets (other vCPUs)"
	set ylabel "median µs (log)"
	set logscale y
	set key outside right
	set xtics 1
	plot for [c=2:6] dat . "/ipi-targets.dat" using 1:c title columnheader(c) lw 2, \
		for [c=7:11] "" using 1:c title columnheader(c) dt 2
	unset logscale y
	set key default
	unset xlabel
}

if (file_exists(dat . "/flush-enc.dat")) {
	set style data histograms
	set xtics rotate by -35 left
	set output out . "/bench-flush-encodings.png"
	set title "Remote TLB flush per call and encoding (" . flushrun . "; " . src . ")"
	set ylabel "median µs (log)"
	set logscale y
	plot for [c=2:4] dat . "/flush-enc.dat" using c:xtic(1) title columnheader(c)
	unset logscale y
	set style data linespoints
	set xtics norotate
}

if (file_exists(dat . "/flush-targets-halted.dat")) {
	set output out . "/bench-flush-targets.png"
	set terminal pngcairo size 1500,600 font ",10" noenhanced
	set multiplot layout 1,3 title "Remote TLB flush vs number of targets (" . bigrun . "; " . src . ")"
	set xlabel "targets"
	set xtics 1
	set ylabel "median µs (log)"
	set logscale y
	set key top left font ",8"
	do for [s in "halted running preempted"] {
		set title "targets " . s
		f = dat . "/flush-targets-" . s . ".dat"
		if (file_exists(f)) {
			plot for [c=2:(nvar + 1)] f using 1:c title columnheader(c)
		}
	}
	unset multiplot
}
