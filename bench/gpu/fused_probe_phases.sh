#!/usr/bin/env bash
# H200: the fused XPBD kernel stripped phase by phase (WEFT_FUSED_PROBE builds: bench/gpu/probes.cmake), and the CPU at 1..16 threads.
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
L=${OUT:-/tmp}/logs; mkdir -p $L
nproc; vulkaninfo --summary 2>/dev/null | grep -i "deviceName" | head -1
gms() { grep -oE 'gpu[^,]*' "$1" | head -1; }
for round in 1 2; do
for grid in 8x8 32x32 60x60; do
  line="r$round $grid:"
  for b in build build-probe1 build-probe2 build-probe3; do
    WEFT_VK_DEVICE=H200 WEFT_VK_FUSED=1 $b/apps/cli/weft bench --preset xpbd --grid $grid --substeps 64 --iterations 1 --backend vulkan --frames 500 > $L/p_${b}_${grid}_$round.log 2>&1
    line="$line | $(grep -E 'gpu ms' $L/p_${b}_${grid}_$round.log | head -1 | awk '{print $4}')"
  done
  echo "$line"
done
done
for t in 1 2 4 8 16; do
  build/apps/cli/weft bench --preset xpbd --grid 256x256 --substeps 10 --iterations 1 --backend cpu --threads $t --frames 40 > $L/cpu_$t.log 2>&1
  echo "cpu 256^2 10x1 threads $t: $(grep -E 'ms' $L/cpu_$t.log | head -2 | tr -s ' ' | tr '\n' ' ')"
done
build/apps/cli/weft bench --preset xpbd --grid 60x60 --substeps 10 --iterations 1 --backend cpu --threads 1 --frames 300 > $L/cpu60.log 2>&1
echo "cpu 60^2 10x1 1 thread: $(grep -E 'ms' $L/cpu60.log | head -2 | tr -s ' ' | tr '\n' ' ')"
