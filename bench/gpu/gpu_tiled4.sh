#!/usr/bin/env bash
# H200: Jacobi tiles' halo and where they stop winning, GPU-timestamp medians (dispatches in
# parentheses): B = before tiles, J = halo 12 (32 x 32 regions), J8 = halo 8 (24 x 24).
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=build-base
g() { grep -E 'gpu ms|dispatches/frame' "$1" | sed -n 's/.*gpu ms *median \([0-9.]*\).*/\1/p; s/.*, \([0-9]*\) dispatches\/frame.*/(\1)/p' | tr '\n' ' '; }
for grid in 56x56 64x64 96x96 128x128; do
  line="spring-mesh $grid:"
  for b in B J J8; do
    WEFT_VK_DEVICE=H200 $B/weft-$b bench --preset spring-mesh --grid $grid --backend vulkan --frames 300 > /tmp/x.log 2>&1
    line="$line $b $(g /tmp/x.log)"
  done
  echo "$line"
done
