#!/usr/bin/env bash
# H200, speed issue: XPBD in the tile order (xpbd_tiled.comp) against the colour order, side by side,
# GPU-timestamp medians of xpbd with 1 substep x 10 iterations:
#  1. builds in build-base named weft-NAME (old = before the tile order; others its variants) at
#     1024 x 1024 as each is left to itself;
#  2. the build weft-ONE with step.order colors against tiles at each grid of GRIDS;
#  3. the CPU at 1024 x 1024 on 16 threads, old against ONE (auto: the colour order on the CPU).
#   bench/gpu/xpbd_tile_order.sh ONE "GRIDS" NAME...
#   bench/gpu/xpbd_tile_order.sh n16 "256x256 384x384 512x512" old t16 n8 n16 n32
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
one=$1; grids=$2; shift 2
g() { grep -E 'gpu ms' "$1" | head -1 | awk '{print $4}'; }
for round in 1 2; do
  line="round $round, xpbd 1024x1024 1x10:"
  for b in "$@"; do
    WEFT_VK_DEVICE=H200 build-base/weft-$b bench --preset xpbd --grid 1024x1024 --substeps 1 --iterations 10 --backend vulkan --frames 300 > /tmp/x.log 2>&1
    line="$line $b $(g /tmp/x.log)"
  done
  echo "$line"
done
echo '{"preset": "xpbd", "world": {"step": {"order": "colors"}}}' > /tmp/colors.json
echo '{"preset": "xpbd", "world": {"step": {"order": "tiles"}}}' > /tmp/tiles.json
for grid in $grids; do
  line="$one xpbd $grid 1x10:"
  for o in colors tiles colors tiles; do
    WEFT_VK_DEVICE=H200 build-base/weft-$one bench --scene /tmp/$o.json --grid $grid --substeps 1 --iterations 10 --backend vulkan --frames 300 > /tmp/x.log 2>&1
    line="$line $o $(g /tmp/x.log)"
  done
  echo "$line"
done
for b in old $one; do
  echo -n "cpu $b 1024x1024 1x10, 16 threads: "
  build-base/weft-$b bench --preset xpbd --grid 1024x1024 --substeps 1 --iterations 10 --backend cpu --threads 16 --frames 30 --warmup 5 2>&1 | grep "ms/frame"
done
