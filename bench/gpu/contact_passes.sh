#!/usr/bin/env bash
# H200: the character (scenes/character/character.json, ~20 000 particles, self-collision on) plain
# and with both continuous passes (selfCollision.pointTriangle and edgeEdge), each binary given side
# by side (an older one first: before the edge partners were precomputed, issue 28), ROUNDS rounds;
# GPU timestamps, medians of FRAMES frames after 20 warm-up frames, and the stages of the last
# round's runs with the passes (they are timed in the solve stage).
#   bench/gpu/contact_passes.sh "OLD NEW ..." [ROUNDS] [FRAMES]
# (SCENE=FILE.json, WARMUP=N and WEFT_VK_DEVICE=NAME change the scene, the warm-up frames and the
# device, for a quick try elsewhere.)
# e.g. bench/gpu/contact_passes.sh "build-old/weft build/apps/cli/weft" 2 100
set -u
. "$(dirname "$0")/device_env.sh" # the loader, libraries and device
bins=$1 rounds=${2:-2} frames=${3:-100}
L=${OUT:-/tmp}/logs; mkdir -p "$L"
S=${SCENE:-scenes/character/character.json} W=${WARMUP:-20}
P="--set world.selfCollision.pointTriangle=on --set world.selfCollision.edgeEdge=on"
g() { grep -E 'gpu ms' "$1" | head -1 | awk '{print $4}'; }
for r in $(seq "$rounds"); do
	k=0
	for b in $bins; do
		k=$((k + 1))
		$b bench --scene "$S" --backend vulkan --frames "$frames" --warmup "$W" > "$L/plain$k.log" 2>&1
		# shellcheck disable=SC2086 # P is several options
		$b bench --scene "$S" --backend vulkan --frames "$frames" --warmup "$W" --stages $P > "$L/passes$k.log" 2>&1
		echo "r$r $b: gpu ms plain $(g "$L/plain$k.log") | both passes $(g "$L/passes$k.log")"
	done
done
k=0
for b in $bins; do
	k=$((k + 1))
	echo "$b, both passes: $(grep -E 'stages ms' "$L/passes$k.log" | head -1)"
done
