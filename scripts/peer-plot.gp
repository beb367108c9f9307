# peer-plot.gp - docs/results/peer.png from build/peer/peer.dat (scripts/peer.py).
# Called as: gnuplot -e "dat='DIR'; out='DOCS'" scripts/peer-plot.gp
set terminal pngcairo size 1000,560 font ",10" noenhanced
set output out . "/peer.png"
set title "kvm-unit-tests vmexit.flat: median guest cycles per iteration (lower is better)"
set ylabel "TSC cycles per iteration"
set key autotitle columnheader top left
set grid ytics
set logscale y
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
plot dat . "/peer.dat" using 2:xtic(1), "" using 3
