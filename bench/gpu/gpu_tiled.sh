#!/usr/bin/env bash
# H200: explicit springs in tiles (springs_tiled.comp) against a dispatch per substep, GPU-timestamp
# medians: B = the build before tiles, T16 = tiles of 16 (the kept constants), T8 = tiles of 8
# (WF_VK_TILE 8, WF_VK_TILE_GROUP 512); then the tiles' tests on the H200.
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=build-base
g() { grep -E 'gpu ms|dispatches/frame' "$1" | sed -n 's/.*gpu ms *median \([0-9.]*\).*/\1/p; s/.*, \([0-9]*\) dispatches\/frame.*/(\1)/p' | tr '\n' ' '; }
for round in 1 2; do
  for grid in 60x60 128x128 256x256 512x512; do
    line="compute-cloth $grid:"
    for b in B T16 T8; do
      WEFT_VK_DEVICE=H200 $B/weft-$b bench --preset compute-cloth --grid $grid --backend vulkan --frames 300 > /tmp/x.log 2>&1
      line="$line $b $(g /tmp/x.log)"
    done
    echo "$line"
  done
done
export WEFT_TEST_BACKEND=vulkan WEFT_VK_DEVICE=H200
for t in vk_springs_tiled_compute_cloth vk_springs_tiled_uneven vk_springs_tiled_small vk_springs_tiled_stiff; do
  build/tests/weft_tests $t 2>&1 | grep -E "tiles against|OK|FAIL"
done
