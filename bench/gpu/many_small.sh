#!/usr/bin/env bash
# H200: many small self-colliding cloths (issue 30, item 4; bench/gpu/many_small.py: N cloths of
# 30 x 30, 5 ms a step, 8 substeps x 1, self-collision within each): the fused kernel with the
# cloth's hash grid in shared memory (fused_self.glsl) at each N, and the per-range path
# (world.fusedPath "never") at the N of PER_RANGE, each binary given side by side; GPU timestamps,
# medians of FRAMES frames after 20 warm-up frames, cloth-steps/s on the GPU clock.
#   bench/gpu/many_small.sh "BINARY..." ["N..."] [ROUNDS] [FRAMES]
# e.g. bench/gpu/many_small.sh build/apps/cli/weft "256 1024 4096" 2 100
set -u
. "$(dirname "$0")/device_env.sh" # the loader, libraries and device
bins=$1 counts=${2:-"256 1024 4096"} rounds=${3:-2} frames=${4:-100} perRange=${PER_RANGE:-256}
L=${OUT:-/tmp}/logs; mkdir -p "$L"
g() { grep -E 'gpu ms' "$1" | head -1 | awk '{print $4}'; }
s() { grep -oE '[0-9.e+]+ cloth-steps/s on the gpu' "$1" | head -1 | awk '{print $1}'; }
d() { grep -oE '[0-9]+ dispatches/frame' "$1" | head -1 | awk '{print $1}'; }
for n in $counts $perRange; do
	[ -f "$L/ms$n.json" ] || python3 bench/gpu/many_small.py "$n" "$L/ms$n.json"
done
for r in $(seq "$rounds"); do
	k=0
	for b in $bins; do
		k=$((k + 1))
		for n in $counts; do
			$b bench --scene "$L/ms$n.json" --backend vulkan --frames "$frames" --warmup 20 > "$L/f$k-$n.log" 2>&1
			echo "r$r $b, $n cloths, fused: gpu ms $(g "$L/f$k-$n.log"), $(d "$L/f$k-$n.log") dispatches, $(s "$L/f$k-$n.log") cloth-steps/s"
		done
		for n in $perRange; do
			$b bench --scene "$L/ms$n.json" --backend vulkan --frames 20 --warmup 5 --set world.fusedPath=never > "$L/p$k-$n.log" 2>&1
			echo "r$r $b, $n cloths, per-range: gpu ms $(g "$L/p$k-$n.log"), $(d "$L/p$k-$n.log") dispatches, $(s "$L/p$k-$n.log") cloth-steps/s"
		done
	done
done
