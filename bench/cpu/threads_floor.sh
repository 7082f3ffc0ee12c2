#!/bin/sh
# What a many-core machine allows the threaded CPU solver, side by side with it: xpbd at GRID,
# 10 substeps x 1 iteration. Per round: one 1-thread run alone; THREADS threads; the same with the
# threads bound to cores (OMP_PROC_BIND=close, OMP_PLACES=cores); and THREADS 1-thread runs at once
# (each the whole cloth, no sharing), whose median shows what each core does while all are busy
# (clock and memory under full load): the speed-up THREADS x alone / together is the floor's.
#   bench/cpu/threads_floor.sh WEFT [THREADS] [GRID] [ROUNDS]
#   bench/cpu/threads_floor.sh build/apps/cli/weft 16 256x256 3
set -eu
weft=$1
threads=${2:-16}
grid=${3:-256x256}
rounds=${4:-3}
median() { "$weft" bench --preset xpbd --grid "$grid" --substeps 10 --iterations 1 --backend cpu --threads "$1" \
	--frames "$2" --warmup "$3" | awk '/ms\/frame/ { print $3 }'; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
r=1
while [ "$r" -le "$rounds" ]; do
	alone=$(median 1 60 5)
	many=$(median "$threads" 300 20)
	bound=$(OMP_PROC_BIND=close OMP_PLACES=cores median "$threads" 300 20)
	k=0
	while [ "$k" -lt "$threads" ]; do
		median 1 60 5 > "$tmp/$k" &
		k=$((k + 1))
	done
	wait
	together=$(cat "$tmp"/* | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	echo "round $r: 1 thread alone $alone ms; $threads threads $many ms ($(awk -v a="$alone" -v b="$many" 'BEGIN { printf "%.2f", a / b }')x), bound to cores $bound ms ($(awk -v a="$alone" -v b="$bound" 'BEGIN { printf "%.2f", a / b }')x); $threads 1-thread runs at once: median $together ms each, floor $(awk -v a="$alone" -v b="$together" -v n="$threads" 'BEGIN { printf "%.2f", n * a / b }')x"
	r=$((r + 1))
done
