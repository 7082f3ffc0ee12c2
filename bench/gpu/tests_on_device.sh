#!/usr/bin/env bash
# H200: the Vulkan, physics and new-feature tests on the hardware device, 6 at a time.
set -u
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/build-base/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
L=${OUT:-/tmp}/logs; mkdir -p $L
export L WEFT_TEST_BACKEND=vulkan WEFT_VK_DEVICE=H200
T=build/tests/weft_tests
$T --list 2>/dev/null | grep -E '^(vk_|far_|spring_mesh|xpbd_damping|default_defs|jacobi_two|warning_|mesh_|aero_|tether_|free_fall|small_steps_|xpbd_pendulum|momentum|presets_no|snapshot|tear_|cloth_against|tunnelling_|energy_rule_|intersections_)' | grep -v soa > $L/names.txt
one() { if timeout 150 build/tests/weft_tests $1 > $L/test_$1.log 2>&1; then echo "PASS $1"; else echo "FAIL $1"; fi; }
export -f one
xargs -P 6 -I{} bash -c 'one {}' < $L/names.txt > $L/results.txt
echo "H200 tests: $(grep -c ^PASS $L/results.txt) passed, $(grep -c ^FAIL $L/results.txt) failed"
for n in vk_self_folded_heap vk_self_large_cloth_scan vk_cloth_against_cloth_hammock vk_self_set_live tear_cpu_and_vulkan_agree; do grep -hE "closest|difference|tears|changed" $L/test_$n.log | head -2 | sed "s/^/$n: /"; done
for n in $(grep ^FAIL $L/results.txt | cut -d' ' -f2); do echo "== $n"; grep -E "FAILED|Error|error" $L/test_$n.log | head -4; tail -3 $L/test_$n.log; done
