#!/usr/bin/env bash
# The frame check's motion tests (tunnelling, the energy rule; issue 26, items 6 and 7) against the
# binary before them: the documents' GPU cases (xpbd 60x60 64x1 fused, compute-cloth, spring-mesh,
# xpbd 1024^2 1x10; GPU timestamps, medians of 500 / 200 frames) and the CPU (the xpbd,
# compute-cloth and spring-mesh presets and xpbd 256^2 10x1 on each thread count of CPU_THREADS),
# OLD and NEW interleaved, ROUNDS rounds; then each case's median over the rounds, NEW / OLD.
#   bench/gpu/frame_check_cost.sh OLD NEW [ROUNDS]      (CPU_THREADS="1 16" by default; GPU=0 skips the GPU)
set -u
old=$1 new=$2 rounds=${3:-3}
threads=${CPU_THREADS:-1 16} gpu=${GPU:-1}
L=${OUT:-/tmp}/check_cost; mkdir -p "$L"
res="$L/results.txt"; : > "$res"
g() { grep -E 'gpu ms' "$1" | head -1 | awk '{print $4}'; }
c() { grep -E 'ms/frame' "$1" | head -1 | awk '{print $3}'; }
one() { # name binary kind args...
	local name=$1 bin=$2 kind=$3; shift 3
	"$bin" bench "$@" > "$L/run.log" 2>&1
	local v; if [ "$kind" = gpu ]; then v=$(g "$L/run.log"); else v=$(c "$L/run.log"); fi
	echo "$name $([ "$bin" = "$old" ] && echo old || echo new) ${v:-nan}" | tee -a "$res"
}
for r in $(seq "$rounds"); do
	for b in "$old" "$new"; do
		if [ "$gpu" = 1 ]; then
			export WEFT_VK_DEVICE=${WEFT_VK_DEVICE:-H200}
			one gpu-xpbd60-fused "$b" gpu --preset xpbd --grid 60x60 --substeps 64 --iterations 1 --backend vulkan --frames 500
			one gpu-compute-cloth "$b" gpu --preset compute-cloth --backend vulkan --frames 500
			one gpu-spring-mesh "$b" gpu --preset spring-mesh --backend vulkan --frames 500
			one gpu-xpbd1024 "$b" gpu --preset xpbd --grid 1024x1024 --substeps 1 --iterations 10 --backend vulkan --frames 200
		fi
		for t in $threads; do
			for p in xpbd compute-cloth spring-mesh; do
				OMP_PROC_BIND=close OMP_PLACES=cores one "cpu-$p-${t}t" "$b" cpu --preset "$p" --backend cpu --threads "$t" --frames 300
			done
			OMP_PROC_BIND=close OMP_PLACES=cores one "cpu-xpbd256-${t}t" "$b" cpu --preset xpbd --grid 256x256 --substeps 10 --iterations 1 \
				--backend cpu --threads "$t" --frames 100 --warmup 10
		done
	done
done
# Medians over the rounds (ms per frame) and new / old.
awk '{v[$1" "$2]=v[$1" "$2]" "$3; names[$1]=1}
END {for (n in names) {
	for (k = 0; k < 2; ++k) { which = k ? "new" : "old"; m = split(substr(v[n" "which], 2), a, " ");
		for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		med[k] = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
	printf "%-22s old %8.4f  new %8.4f  new/old %.3f\n", n, med[0], med[1], med[1] / med[0] }}' "$res" | sort
