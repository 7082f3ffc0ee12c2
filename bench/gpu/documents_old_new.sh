#!/usr/bin/env bash
# H200: the documents' GPU cases (xpbd 60x60 64x1, compute-cloth, spring-mesh, xpbd 1024^2 1x10;
# GPU timestamps, medians of 500 / 200 frames) and the CPU (xpbd 60^2 on one thread, 256^2 on 16),
# an older binary OLD against NEW side by side, ROUNDS rounds.
#   bench/gpu/documents_old_new.sh OLD NEW [ROUNDS]
set -u
old=$1 new=$2 rounds=${3:-2}
L=${OUT:-/tmp}/logs; mkdir -p "$L"
g() { grep -E 'gpu ms' "$1" | head -1 | awk '{print $4}'; }
c() { grep -E 'ms/frame' "$1" | head -1 | awk '{print $3}'; }
for r in $(seq "$rounds"); do
	for b in "$old" "$new"; do
		WEFT_VK_DEVICE=${WEFT_VK_DEVICE:-H200} $b bench --preset xpbd --grid 60x60 --substeps 64 --iterations 1 --backend vulkan --frames 500 > "$L/g1.log" 2>&1
		WEFT_VK_DEVICE=${WEFT_VK_DEVICE:-H200} $b bench --preset compute-cloth --backend vulkan --frames 500 > "$L/g2.log" 2>&1
		WEFT_VK_DEVICE=${WEFT_VK_DEVICE:-H200} $b bench --preset spring-mesh --backend vulkan --frames 500 > "$L/g3.log" 2>&1
		WEFT_VK_DEVICE=${WEFT_VK_DEVICE:-H200} $b bench --preset xpbd --grid 1024x1024 --substeps 1 --iterations 10 --backend vulkan --frames 200 > "$L/g4.log" 2>&1
		$b bench --preset xpbd --grid 60x60 --substeps 10 --iterations 1 --backend cpu --threads 1 --frames 300 > "$L/c1.log" 2>&1
		OMP_PROC_BIND=close OMP_PLACES=cores $b bench --preset xpbd --grid 256x256 --substeps 10 --iterations 1 --backend cpu --threads 16 \
			--frames 200 --warmup 20 > "$L/c16.log" 2>&1
		echo "r$r $b: gpu ms xpbd60 $(g "$L/g1.log") compute-cloth $(g "$L/g2.log") spring-mesh $(g "$L/g3.log") xpbd1024 $(g "$L/g4.log")" \
			"| cpu ms xpbd60 1 thread $(c "$L/c1.log") 256^2 16 threads $(c "$L/c16.log")"
	done
done
