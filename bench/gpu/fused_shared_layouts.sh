#!/usr/bin/env bash
# H200: the fused XPBD kernel of four builds side by side (old = before the
# shared-memory layout change; A = xy pairs and z apart; B = A + the ends' free bits in registers;
# C = B + predict and finish load every owned position before computing), GPU-timestamp medians;
# then one CPU thread at 60x60 on the host, old against A (the padded column classes), alternating.
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=build-base
python3 bench/gpu/batch.py 1024 /tmp/b1024.json
g() { grep -E 'gpu ms' "$1" | head -1 | awk '{print $4}'; }
run() {
  local label=$1; shift
  local line="$label:"
  for b in old A B C; do
    WEFT_VK_DEVICE=H200 WEFT_VK_FUSED=1 $B/weft-$b bench "$@" > /tmp/x.log 2>&1
    line="$line $b $(g /tmp/x.log)"
  done
  echo "$line"
}
run "xpbd 8x8 64x1" --preset xpbd --grid 8x8 --substeps 64 --iterations 1 --backend vulkan --frames 500
run "xpbd 60x60 64x1" --preset xpbd --grid 60x60 --substeps 64 --iterations 1 --backend vulkan --frames 500
run "xpbd 60x60 16x4" --preset xpbd --grid 60x60 --substeps 16 --iterations 4 --backend vulkan --frames 500
run "1024 cloths xpbd" --scene /tmp/b1024.json --backend vulkan --frames 60
for round in 1 2 3; do
  for b in old A; do
    echo -n "$b cpu 60x60 10x1, 1 thread: "
    $B/weft-$b bench --preset xpbd --grid 60x60 --substeps 10 --iterations 1 --backend cpu --threads 1 --frames 400 --warmup 20 2>&1 | grep "ms/frame"
  done
done
