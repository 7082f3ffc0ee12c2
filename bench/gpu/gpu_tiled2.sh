#!/usr/bin/env bash
# H200: tile and halo sizes of springs_tiled.comp side by side (GPU-timestamp medians, dispatches in
# parentheses): T8 = tile 8, halo 7, every region particle every substep; S87 = the same computing
# only the rings still exact (ring > k at substep k); S85, S65 = tile 8 / 6, halo 5 with that;
# N85 = tile 8, halo 5 without it.
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=build-base
g() { grep -E 'gpu ms|dispatches/frame' "$1" | sed -n 's/.*gpu ms *median \([0-9.]*\).*/\1/p; s/.*, \([0-9]*\) dispatches\/frame.*/(\1)/p' | tr '\n' ' '; }
for round in 1 2; do
  for grid in 60x60 128x128; do
    line="compute-cloth $grid:"
    for b in T8 S87 S85 S65 N85; do
      WEFT_VK_DEVICE=H200 $B/weft-$b bench --preset compute-cloth --grid $grid --backend vulkan --frames 300 > /tmp/x.log 2>&1
      line="$line $b $(g /tmp/x.log)"
    done
    echo "$line"
  done
done
