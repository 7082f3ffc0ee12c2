#!/usr/bin/env bash
# weft sweep benchmarks (docs/PERFORMANCE.md, "Parameter studies"): the median wall time of whole
# sweeps after one warm-up run, each into a fresh folder.
#   bench/sweep/sweep_bench.sh WEFT batch [BACKEND] [VARIANTS] [FRAMES] [ALONE]
#       VARIANTS variants of a 60x60 xpbd cloth, batched (--batch 1024), and ALONE of them
#       (default VARIANTS) one at a time (--batch 1): variants per second and the ratio
#   bench/sweep/sweep_bench.sh WEFT plan [SIZES]
#       planning alone (--list): SIZES (default "5000 20000 100000") variants of distinct worlds (a
#       time step each, the worst case of the grouping), a 2x2 cloth, 1 frame; the median of RUNS
#   bench/sweep/sweep_bench.sh WEFT schedule [NP]
#       scenes/sweeps/unequal-cost.json (substeps 2 to 32) under mpirun -np NP (default 2):
#       static blocks against the rank-0 queue, --batch 1, one thread per rank
set -eu
weft=$(realpath "$1")
what=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-sweep-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
runs=${RUNS:-3}

# Median seconds of $runs runs of "$@" after one warm-up; the output folder is the last argument's
# stand-in OUT, replaced by a fresh one each time.
median() {
	local times=() i
	for ((i = 0; i <= runs; ++i)); do
		local out=$tmp/out$i args=()
		for a in "$@"; do args+=("${a/OUT/$out}"); done
		local t0 t1
		t0=$(date +%s.%N)
		"${args[@]}" >/dev/null
		t1=$(date +%s.%N)
		rm -rf "$out"
		[ $i -gt 0 ] && times+=("$(awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.6f", a - b }')")
	done
	printf '%s\n' "${times[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p"
}

case $what in
batch)
	backend=${3:-cpu}
	variants=${4:-256}
	frames=${5:-60}
	few=${6:-$variants}
	# N bend compliances (log) of one world: batches of up to 1024 cloths.
	for n in $variants $few; do
		cat >"$tmp/sweep$n.json" <<JSON
{"scene": "$(realpath "$here/../../scenes/xpbd.json")", "frames": $frames,
 "axes": {"cloth.cols": [60], "cloth.rows": [60], "cloth.material.bendCompliance": {"log": [1e-6, 1e-1], "n": $n}},
 "record": {"stats": false, "final": true}}
JSON
	done
	batched=$(median "$weft" sweep "$tmp/sweep$variants.json" --out OUT --backend "$backend" --batch 1024 ${THREADS:+--threads $THREADS} --quiet)
	alone=$(median "$weft" sweep "$tmp/sweep$few.json" --out OUT --backend "$backend" --batch 1 ${THREADS:+--threads $THREADS} --quiet)
	rate=$(awk -v a="$variants" -v b="$batched" 'BEGIN { printf "%.6f", a / b }')
	rateAlone=$(awk -v a="$few" -v b="$alone" 'BEGIN { printf "%.6f", a / b }')
	echo "60x60 xpbd, $frames frames, backend $backend: $variants variants batched in $batched s ($(printf '%.1f' "$rate") variants/s), $few one at a time in $alone s ($(printf '%.1f' "$rateAlone") variants/s), ratio $(awk -v a="$rate" -v b="$rateAlone" 'BEGIN { printf "%.2f", a / b }')"
	;;
plan)
	for n in ${3:-5000 20000 100000}; do
		cat >"$tmp/plan$n.json" <<JSON
{"scene": {"world": {"backend": "cpu"}, "cloth": {"cols": 2, "rows": 2}}, "frames": 1,
 "axes": {"world.step.timeStep": {"linear": [0.001, 0.02], "n": $n}}}
JSON
		t=$(median "$weft" sweep "$tmp/plan$n.json" --list)
		echo "plan (--list) of $n variants of distinct worlds: $t s ($(awk -v t="$t" -v n="$n" 'BEGIN { printf "%.1f", 1e6 * t / n }') us per variant)"
	done
	;;
schedule)
	np=${3:-2}
	for schedule in static queue; do
		t=$(median mpiexec --allow-run-as-root --oversubscribe -np "$np" "$weft" sweep "$here/../../scenes/sweeps/unequal-cost.json" \
			--out OUT --backend cpu --threads 1 --batch 1 --schedule $schedule --quiet)
		echo "unequal-cost.json, np $np, $schedule: $t s"
	done
	one=$(median "$weft" sweep "$here/../../scenes/sweeps/unequal-cost.json" --out OUT --backend cpu --threads 1 --batch 1 --quiet)
	echo "unequal-cost.json, one process, 1 thread: $one s"
	;;
*)
	echo "usage: $0 WEFT batch [BACKEND] [VARIANTS] [FRAMES] | plan [SIZES] | schedule [NP]" >&2
	exit 2
	;;
esac
