#!/usr/bin/env bash
# H200: the fused kernels of several builds side by side (GPU-timestamp medians, two rounds).
# Usage: bench/gpu/fused_variants.sh BINARY... (e.g. build-old/weft build-var/apps/cli/weft build/apps/cli/weft);
# this session's runs: the substep-record prefetch and paired loads (gpu_fused), then packed records
# and slot offsets from the read-only view (gpu_regs).
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
L=${OUT:-/tmp}/logs; mkdir -p $L
python3 bench/gpu/batch.py 64 /tmp/b64.json; python3 bench/gpu/batch.py 1024 /tmp/b1024.json
g() { grep -E 'gpu ms' "$1" | head -1 | awk '{print $4}'; }
run() {
  local label=$1; shift
  local line="$label:"
  for b in "${BINS[@]}"; do
    WEFT_VK_DEVICE=H200 WEFT_VK_FUSED=1 $b bench "$@" > $L/x.log 2>&1
    line="$line $(g $L/x.log)"
  done
  echo "$line"
}
BINS=("$@")
for round in 1 2; do
  echo "== round $round: $*"
  for grid in 8x8 32x32 60x60; do run "xpbd $grid 64x1" --preset xpbd --grid $grid --substeps 64 --iterations 1 --backend vulkan --frames 500; done
  run "xpbd 60x60 16x4" --preset xpbd --grid 60x60 --substeps 16 --iterations 4 --backend vulkan --frames 500
  run "compute-cloth fused" --preset compute-cloth --backend vulkan --frames 500
  run "spring-mesh fused" --preset spring-mesh --backend vulkan --frames 500
  run "64 cloths xpbd" --scene /tmp/b64.json --backend vulkan --frames 200
  run "1024 cloths xpbd" --scene /tmp/b1024.json --backend vulkan --frames 60
done
