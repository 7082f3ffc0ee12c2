#!/usr/bin/env bash
# H200: self-collision on and off, the tear scene, the CPU at 1 and 16 threads, and
# the documents' GPU cases in an older binary (build-old) and this one.
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export WEFT_VK_DEVICE=H200
L=${OUT:-/tmp}/logs; mkdir -p $L
W=build/apps/cli/weft
g() { grep -E 'gpu ms' "$1" | head -1 | awk '{print $4}'; }
c() { grep -E 'ms/frame' "$1" | head -1 | awk '{print $3}'; }
python3 bench/self/make_scenes.py /tmp/self > /dev/null
for r in 1 2; do
  $W bench --scene /tmp/self/heap-60.json --backend vulkan --frames 500 --warmup 40 > $L/a.log 2>&1; a=$(g $L/a.log)
  $W bench --scene /tmp/self/heap-60-off.json --backend vulkan --frames 500 --warmup 40 > $L/b.log 2>&1; b=$(g $L/b.log)
  WEFT_VK_FUSED=0 $W bench --scene /tmp/self/heap-60-off.json --backend vulkan --frames 500 --warmup 40 > $L/c.log 2>&1; cc=$(g $L/c.log)
  $W bench --scene /tmp/self/heap-256.json --backend vulkan --frames 200 --warmup 40 > $L/d.log 2>&1; d=$(g $L/d.log)
  $W bench --scene /tmp/self/heap-256-off.json --backend vulkan --frames 200 --warmup 40 > $L/e.log 2>&1; e=$(g $L/e.log)
  echo "self r$r gpu ms: 60 on $a | 60 off fused $b | 60 off per-range $cc | 256 on $d | 256 off $e"
  grep -E "dispatches|floor" $L/a.log $L/d.log | head -4
done
$W bench --scene /tmp/self/heap-60.json --backend cpu --threads 1 --frames 100 --warmup 20 > $L/f.log 2>&1
$W bench --scene /tmp/self/heap-60-off.json --backend cpu --threads 1 --frames 100 --warmup 20 > $L/h.log 2>&1
$W bench --scene /tmp/self/heap-256.json --backend cpu --threads 1 --frames 10 --warmup 5 > $L/i.log 2>&1
$W bench --scene /tmp/self/heap-256-off.json --backend cpu --threads 1 --frames 10 --warmup 5 > $L/j.log 2>&1
$W bench --scene /tmp/self/heap-256.json --backend cpu --threads 16 --frames 20 --warmup 5 > $L/k.log 2>&1
echo "self cpu ms: 60 on $(c $L/f.log) off $(c $L/h.log) | 256 on $(c $L/i.log) off $(c $L/j.log) | 256 on 16 threads $(c $L/k.log)"
$W bench --scene scenes/tear.json --backend vulkan --frames 100 --warmup 0 > $L/t.log 2>&1
$W bench --scene scenes/tear.json --backend cpu --threads 1 --frames 100 --warmup 0 > $L/t2.log 2>&1
echo "tear scene: vulkan $(grep -E 'ms/frame' $L/t.log | head -1 | tr -s ' ') | cpu 1 thread $(grep -E 'ms/frame' $L/t2.log | head -1 | tr -s ' ')"
for r in 1 2 3; do
  $W bench --preset xpbd --grid 256x256 --substeps 10 --iterations 1 --backend cpu --threads 1 --frames 40 --warmup 5 > $L/c1.log 2>&1
  OMP_PROC_BIND=close OMP_PLACES=cores $W bench --preset xpbd --grid 256x256 --substeps 10 --iterations 1 --backend cpu --threads 16 --frames 200 --warmup 20 > $L/c16.log 2>&1
  build-old/weft bench --preset xpbd --grid 256x256 --substeps 10 --iterations 1 --backend cpu --threads 1 --frames 40 --warmup 5 > $L/o1.log 2>&1
  OMP_PROC_BIND=close OMP_PLACES=cores build-old/weft bench --preset xpbd --grid 256x256 --substeps 10 --iterations 1 --backend cpu --threads 16 --frames 200 --warmup 20 > $L/o16.log 2>&1
  echo "cpu 256^2 10x1 r$r: new 1 thread $(c $L/c1.log) 16 threads $(c $L/c16.log) | old 1 thread $(c $L/o1.log) 16 threads $(c $L/o16.log)"
  $W bench --preset xpbd --grid 60x60 --substeps 10 --iterations 1 --backend cpu --threads 1 --frames 300 > $L/s1.log 2>&1
  build-old/weft bench --preset xpbd --grid 60x60 --substeps 10 --iterations 1 --backend cpu --threads 1 --frames 300 > $L/s2.log 2>&1
  echo "cpu 60^2 10x1 1 thread r$r: new $(c $L/s1.log) old $(c $L/s2.log)"
done
for r in 1 2; do
  for b in build-old/weft $W; do
    $b bench --preset xpbd --grid 60x60 --substeps 64 --iterations 1 --backend vulkan --frames 500 > $L/g1.log 2>&1
    $b bench --preset compute-cloth --backend vulkan --frames 500 > $L/g2.log 2>&1
    $b bench --preset spring-mesh --backend vulkan --frames 500 > $L/g3.log 2>&1
    $b bench --preset xpbd --grid 1024x1024 --substeps 1 --iterations 10 --backend vulkan --frames 200 > $L/g4.log 2>&1
    echo "gpu r$r $b: xpbd60 $(g $L/g1.log) compute-cloth $(g $L/g2.log) spring-mesh $(g $L/g3.log) xpbd1024 $(g $L/g4.log)"
  done
done
