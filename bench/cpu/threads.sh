#!/bin/sh
# The CPU solver's thread scaling, side by side: xpbd at GRID, 10 substeps x 1 iteration, 1 thread
# against THREADS threads, alternating for ROUNDS rounds; prints each pair's medians and ratio.
#   bench/cpu/threads.sh WEFT [THREADS] [GRID] [ROUNDS]
#   bench/cpu/threads.sh build/apps/cli/weft 16 256x256 5
set -eu
weft=$1
threads=${2:-2}
grid=${3:-256x256}
rounds=${4:-3}
median() { "$weft" bench --preset xpbd --grid "$grid" --substeps 10 --iterations 1 --backend cpu --threads "$1" \
	--frames "$2" --warmup "$3" | awk '/ms\/frame/ { print $3 }'; }
r=1
while [ "$r" -le "$rounds" ]; do
	one=$(median 1 40 5)
	many=$(median "$threads" 200 20)
	echo "round $r: 1 thread $one ms, $threads threads $many ms, speed-up $(awk -v a="$one" -v b="$many" 'BEGIN { printf "%.2f", a / b }')x"
	r=$((r + 1))
done
