#!/usr/bin/env bash
# H200: builds of the tiled springs and Jacobi kernels side by side, GPU-timestamp medians with the
# dispatches per frame in parentheses; with TESTS=1 also the tiles' tests from build/.
# Usage: bench/gpu/tiles_springs_jacobi.sh PRESET "GRID..." NAME...   (NAME: build-base/weft-NAME; ROUNDS, default 2)
# The builds of this session's runs (round three: git show acbf72f:docs/PERFORMANCE.md): B = before tiles;
# springs (WF_GPU_TILE / WF_GPU_TILE_HALO / WF_GPU_TILE_GROUP in kernel_abi.h) T16 = 16 / 7 / 928,
# T8 = 8 / 7 / 512, S87, S85, S65 = 8 / 7, 8 / 5, 6 / 5 computing only the rings still exact,
# N85 = 8 / 5 without that; Jacobi (WF_GPU_TILE_JACOBI_HALO / _GROUP) J = 12 / 1024, J8 = 8 / 576.
#   bench/gpu/tiles_springs_jacobi.sh compute-cloth "60x60 128x128 256x256 512x512" B T16 T8
#   bench/gpu/tiles_springs_jacobi.sh compute-cloth "60x60 128x128" T8 S87 S85 S65 N85
#   TESTS=1 bench/gpu/tiles_springs_jacobi.sh spring-mesh "56x56 128x128 1024x1024" B J
#   ROUNDS=1 bench/gpu/tiles_springs_jacobi.sh spring-mesh "56x56 64x64 96x96 128x128" B J J8
# Round six (git show acbf72f:docs/PERFORMANCE.md): B = 103c376, N = Jacobi with two copies and its
# constants in registers, Q = N + the springs' substep records in shared memory, Q9 / Q11 = Q with
# WF_GPU_TILE_HALO 9 / 11, F = Q with fma sums, QP = Q with two springs copies, QPF = both, QF / BF the
# WEFT_TILE_PROBE builds of Q / B (bench/gpu/probes.cmake):
#   ROUNDS=3 bench/gpu/tiles_springs_jacobi.sh compute-cloth "60x60 96x96 128x128" B Q Q9 Q11 F QP QPF QF
#   ROUNDS=3 TESTS=1 bench/gpu/tiles_springs_jacobi.sh spring-mesh "56x56 64x64 96x96" B N Q QF BF
# then J3 / J4 / J6 = Jacobi loading its neighbours 3 / 4 / 6 at a time (kBatch in jacobi_tiled.comp;
# J6 kept), G8 / G4 = springs 8 / 4 and Jacobi 12 / 6 at a time:
#   ROUNDS=2 bench/gpu/tiles_springs_jacobi.sh compute-cloth "60x60 96x96 128x128" B Q G8 G4
#   ROUNDS=3 TESTS=1 bench/gpu/tiles_springs_jacobi.sh spring-mesh "56x56 64x64 96x96" B Q J3 J4 J6
# and K = f677ad3, T6 / T7 = WF_GPU_TILE 6 / 7, T6H5 = tile 6 with WF_GPU_TILE_HALO 5:
#   ROUNDS=2 bench/gpu/tiles_springs_jacobi.sh compute-cloth "60x60 64x64 96x96 128x128" K T6 T7 T6H5
#   ROUNDS=2 bench/gpu/tiles_springs_jacobi.sh spring-mesh "56x56 64x64 96x96" K T6 T7
set -u
preset=$1 grids=$2
shift 2
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
g() { sed -n 's/.*gpu ms *median \([0-9.]*\).*/\1/p; s/.*, \([0-9]*\) dispatches\/frame.*/(\1)/p' "$1" | tr '\n' ' '; }
for round in $(seq ${ROUNDS:-2}); do
  for grid in $grids; do
    line="$preset $grid:"
    for b in "$@"; do
      WEFT_VK_DEVICE=H200 build-base/weft-$b bench --preset $preset --grid $grid --backend vulkan --frames 300 > /tmp/x.log 2>&1
      line="$line $b $(g /tmp/x.log)"
    done
    echo "$line"
  done
done
if [ "${TESTS:-0}" = 1 ]; then
  export WEFT_TEST_BACKEND=vulkan WEFT_VK_DEVICE=H200
  for t in $(build/tests/weft_tests --list | grep -E 'tiled|tiles_'); do
    build/tests/weft_tests $t 2>&1 | grep -E "tiles against|OK|FAIL"
  done
fi
