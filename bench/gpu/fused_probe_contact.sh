#!/usr/bin/env bash
# H200: probes 4 (no collision response) and 5 (nor the acceleration record; WEFT_FUSED_PROBE builds: bench/gpu/probes.cmake) against the real kernel; batches around one wave.
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
L=${OUT:-/tmp}/logs; mkdir -p $L
g() { grep -E 'gpu ms' "$1" | head -1 | awk '{print $4}'; }
for round in 1 2; do
for grid in 8x8 60x60; do
  line="probe r$round $grid: real 1 4 5:"
  for b in build build-probe1 build-probe4 build-probe5; do
    WEFT_VK_DEVICE=H200 WEFT_VK_FUSED=1 $b/apps/cli/weft bench --preset xpbd --grid $grid --substeps 64 --iterations 1 --backend vulkan --frames 500 > $L/p.log 2>&1
    line="$line $(g $L/p.log)"
  done
  echo "$line"
done
done
for n in 1 132 133 264 265 528; do
  python3 bench/gpu/batch.py $n /tmp/bn.json
  WEFT_VK_DEVICE=H200 WEFT_VK_FUSED=1 build/apps/cli/weft bench --scene /tmp/bn.json --backend vulkan --frames 100 > $L/bn.log 2>&1
  echo "batch $n cloths: $(g $L/bn.log) ms"
done
