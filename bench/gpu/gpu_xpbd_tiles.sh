#!/usr/bin/env bash
# H200, speed issue: XPBD in the tile order (xpbd_tiled.comp) against the colour order, side by side:
# builds in build-base named weft-NAME (old = before the tile order; tN = tile side N), xpbd with
# 1 substep x 10 iterations at each grid, GPU-timestamp medians; then the CPU at 1024 x 1024 on 16
# threads (the tile order takes the scalar colour-range path there, the colour order the SoA kernel).
#   bench/gpu/gpu_xpbd_tiles.sh "GRIDS" NAME...
#   bench/gpu/gpu_xpbd_tiles.sh "512x512 1024x1024" old t8 t16 t32
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
grids=$1; shift
g() { grep -E 'gpu ms' "$1" | head -1 | awk '{print $4}'; }
for round in 1 2; do
  for grid in $grids; do
    line="round $round, xpbd $grid 1x10:"
    for b in "$@"; do
      WEFT_VK_DEVICE=H200 build-base/weft-$b bench --preset xpbd --grid $grid --substeps 1 --iterations 10 --backend vulkan --frames 300 > /tmp/x.log 2>&1
      line="$line $b $(g /tmp/x.log)"
    done
    echo "$line"
  done
done
# One build, the order asked for (step.order): colours against tiles below the auto threshold too.
echo '{"preset": "xpbd", "world": {"step": {"order": "colors"}}}' > /tmp/colors.json
echo '{"preset": "xpbd", "world": {"step": {"order": "tiles"}}}' > /tmp/tiles.json
for grid in 100x100 128x128 256x256 512x512; do
  line="t16 xpbd $grid 1x10:"
  for o in colors tiles colors tiles; do
    WEFT_VK_DEVICE=H200 build-base/weft-t16 bench --scene /tmp/$o.json --grid $grid --substeps 1 --iterations 10 --backend vulkan --frames 300 > /tmp/x.log 2>&1
    line="$line $o $(g /tmp/x.log)"
  done
  echo "$line"
done
for b in "$@"; do
  echo -n "cpu $b 1024x1024 1x10, 16 threads: "
  build-base/weft-$b bench --preset xpbd --grid 1024x1024 --substeps 1 --iterations 10 --backend cpu --threads 16 --frames 30 --warmup 5 2>&1 | grep "ms/frame"
done
