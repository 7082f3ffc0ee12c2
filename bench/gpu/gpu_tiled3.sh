#!/usr/bin/env bash
# H200: Jacobi and springs in tiles (jacobi_tiled.comp, springs_tiled.comp) against a dispatch per
# stage, GPU-timestamp medians (dispatches in parentheses): B = the build before tiles, J = tiles
# for both; then the tiles' tests on the H200.
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=build-base
g() { grep -E 'gpu ms|dispatches/frame' "$1" | sed -n 's/.*gpu ms *median \([0-9.]*\).*/\1/p; s/.*, \([0-9]*\) dispatches\/frame.*/(\1)/p' | tr '\n' ' '; }
for round in 1 2; do
  for c in "spring-mesh 56x56" "spring-mesh 128x128" "spring-mesh 1024x1024" "compute-cloth 60x60"; do
    set -- $c
    line="$1 $2:"
    for b in B J; do
      WEFT_VK_DEVICE=H200 $B/weft-$b bench --preset $1 --grid $2 --backend vulkan --frames 300 > /tmp/x.log 2>&1
      line="$line $b $(g /tmp/x.log)"
    done
    echo "$line"
  done
done
export WEFT_TEST_BACKEND=vulkan WEFT_VK_DEVICE=H200
for t in $(build/tests/weft_tests --list | grep tiled); do
  build/tests/weft_tests $t 2>&1 | grep -E "tiles against|OK|FAIL"
done
