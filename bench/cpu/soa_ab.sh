#!/bin/sh
# The SoA kernel's in-process A/B: builds build/weft-soa-ab from bench/cpu/soa_ab.c, the cpu_soa.c
# of BASE (default main) and the working tree's, against build/libweft.a, and runs it for the xpbd
# preset (48 x 48) and a 256 x 256 grid at 16 (where AVX-512 is) and 8 lanes. Under valgrind
# --tool=callgrind the two frames' instruction counts (old_wfCpuSoaFrame, new_wfCpuSoaFrame) are
# the noise-free check (valgrind runs no AVX-512: 8 lanes only).
#   bench/cpu/soa_ab.sh [BASE]
set -e
cd "$(git rev-parse --show-toplevel)"
base=${1:-main}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
git show "$base:src/cpu/cpu_soa.c" >"$dir/old_cpu_soa.c"
flags="-DWEFT_BUILD -Iinclude -Isrc -Isrc/cpu -O3 -DNDEBUG -ffp-contract=off -fopenmp -std=c11"
cc $flags -c "$dir/old_cpu_soa.c" -o "$dir/old.o"
cc $flags -c src/cpu/cpu_soa.c -o "$dir/new.o"
for p in old new; do
	args=""
	for s in wfCpuSoaSupported wfCpuSoaWidest wfCpuSoaCreate wfCpuSoaFree wfCpuSoaThreads wfCpuSoaFrame wfCpuSoaGetTeam; do
		args="$args --redefine-sym $s=${p}_$s"
	done
	objcopy $args "$dir/$p.o" "$dir/${p}_renamed.o"
done
cc $flags bench/cpu/soa_ab.c "$dir/old_renamed.o" "$dir/new_renamed.o" build/libweft.a -lm -lcjson -ldl -lpthread -o build/weft-soa-ab
for lanes in 16 8; do
	if [ "$lanes" = 16 ] && ! grep -q avx512f /proc/cpuinfo; then
		continue
	fi
	build/weft-soa-ab "$lanes" 48 41 20
	build/weft-soa-ab "$lanes" 256 15 3
done
