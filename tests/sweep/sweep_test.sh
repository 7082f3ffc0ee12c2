#!/usr/bin/env bash
# Tests of `weft sweep`, one check per call (each is its own ctest):
#   sweep_test.sh WEFT MPIEXEC CHECK
# MPIEXEC is mpiexec's path, or "none" when the build has no MPI.
set -u

weft=$1
mpiexec=$2
check=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cli/harness.sh
. "$here/../cli/harness.sh"

rows() { # the data rows of a CSV
	echo $(($(wc -l <"$1") - 1))
}

# A sweep file in the scratch folder (the base scene path relative to it).
sweep_file() { # NAME TEXT
	printf '%s\n' "$2" >"$tmp/$1"
}

# numpy from Debian's python3 (a pyenv or venv python3 on PATH may lack it).
python_numpy() {
	for py in /usr/bin/python3 python3; do
		if "$py" -c 'import numpy' 2>/dev/null; then
			echo "$py"
			return
		fi
	done
	fail "no python3 with numpy (Debian: python3-numpy)"
}

# ---------------------------------------------------------------- expansion

# The variant count and each axis kind's values, through --list (nothing runs).
test_expand() {
	sweep_file list.json '{
  "scene": {"world": {"backend": "cpu"}, "cloths": [{"cols": 4, "rows": 4}, {"cols": 5, "rows": 3}]},
  "frames": 3,
  "axes": {
    "world.step.substeps": [8, 16, 32],
    "cloth.material.damping": {"linear": [0, 0.01], "n": 5},
    "cloths[1].material.bendCompliance": {"log": [1e-6, 1e-2], "n": 3},
    "world.step.iterations": {"random": [1, 4], "n": 2, "seed": 11, "integer": true}
  }
}'
	run sweep "$tmp/list.json" --list --batch 1024
	expect_code 0 sweep --list
	local out=$tmp/stdout
	[ "$(rows "$out")" -eq 90 ] || fail "3 x 5 x 3 x 2 axes gave $(rows "$out") variants, expected 90"
	head -1 "$out" | grep -qx 'variant,world.step.substeps,cloth.material.damping,cloths\[1\].material.bendCompliance,world.step.iterations,batch,frames,cloths,particles' ||
		fail "the header is not the axes in order: $(head -1 "$out")"
	# Each axis's distinct values.
	[ "$(cut -d, -f2 "$out" | tail -n +2 | sort -un | tr '\n' ' ')" = "8 16 32 " ] || fail "list axis: $(cut -d, -f2 "$out" | sort -u | tr '\n' ' ')"
	[ "$(cut -d, -f3 "$out" | tail -n +2 | sort -u | tr '\n' ' ')" = "0 0.0025 0.005 0.0075 0.01 " ] || fail "linear axis: $(cut -d, -f3 "$out" | tail -n +2 | sort -u | tr '\n' ' ')"
	[ "$(cut -d, -f4 "$out" | tail -n +2 | sort -u | tr '\n' ' ')" = "0.0001 0.01 1e-06 " ] || fail "log axis: $(cut -d, -f4 "$out" | tail -n +2 | sort -u | tr '\n' ' ')"
	local random
	random=$(cut -d, -f5 "$out" | tail -n +2 | sort -u | tr '\n' ' ')
	[ "$(echo $random | wc -w)" -le 2 ] || fail "random axis of n 2 gave values $random"
	for v in $random; do
		[ "$v" -ge 1 ] && [ "$v" -le 4 ] || fail "random integer axis [1, 4] gave $v"
	done
	# The last axis varies fastest: variant 1 differs from variant 0 in the iterations only.
	grep -q '^0,8,0,1e-06,' "$out" && grep -q '^1,8,0,1e-06,' "$out" && grep -q '^2,8,0,0.0001,' "$out" || fail "variant order (the first axis slowest)"
	# Two cloths per variant, one batch per world (3 substeps x the distinct iteration values); 1024
	# cloths hold all the variants of a world.
	local worlds=$((3 * $(echo $random | wc -w)))
	[ "$(cut -d, -f6 "$out" | tail -n +2 | sort -u | wc -l)" -eq $worlds ] || fail "expected $worlds batches (worlds), got $(cut -d, -f6 "$out" | tail -n +2 | sort -u | wc -l)"
	grep -q '^0,.*,3,2,31$' "$out" || fail "variant 0: 3 frames, 2 cloths, 31 particles"
	# The same seed, the same samples; another seed, others.
	run sweep "$tmp/list.json" --list
	cp "$tmp/stdout" "$tmp/again"
	cmp -s "$tmp/again" "$out" || true
	sed 's/"seed": 11/"seed": 12/' "$tmp/list.json" >"$tmp/list2.json"
	"$weft" sweep "$tmp/list2.json" --list >"$tmp/list2.out" || fail "seed 12"
	# Random floats (no rounding) to see the seed change the values.
	sed 's/"world.step.iterations": {"random": \[1, 4\], "n": 2, "seed": 11, "integer": true}/"cloth.material.mass": {"random": [0.5, 2], "n": 4, "seed": 5}/' \
		"$tmp/list.json" >"$tmp/mass5.json"
	sed 's/"seed": 5/"seed": 6/' "$tmp/mass5.json" >"$tmp/mass6.json"
	"$weft" sweep "$tmp/mass5.json" --list >"$tmp/m5" || fail "mass seed 5"
	"$weft" sweep "$tmp/mass5.json" --list >"$tmp/m5b" || fail "mass seed 5 again"
	"$weft" sweep "$tmp/mass6.json" --list >"$tmp/m6" || fail "mass seed 6"
	cmp -s "$tmp/m5" "$tmp/m5b" || fail "the same seed gave other samples"
	cmp -s "$tmp/m5" "$tmp/m6" && fail "seeds 5 and 6 gave the same samples"
	[ "$(cut -d, -f5 "$tmp/m5" | tail -n +2 | sort -u | wc -l)" -eq 4 ] || fail "4 random samples expected"
	for v in $(cut -d, -f5 "$tmp/m5" | tail -n +2 | sort -u); do
		awk -v v="$v" 'BEGIN { exit !(v >= 0.5 && v <= 2) }' || fail "random sample $v outside [0.5, 2]"
	done
	# Explicit variants times an axis; "cloth." on a scene with "cloths" sets every cloth.
	sweep_file explicit.json '{
  "scene": {"world": {"backend": "cpu"}, "cloths": [{"cols": 4, "rows": 4}, {"cols": 4, "rows": 4}]},
  "axes": {"cloth.cols": [6, 7]},
  "variants": [{"world.gravity": [0, -1, 0]}, {"world.gravity": [0, -2, 0], "frames": 5}, {"preset": "spring-mesh"}]
}'
	run sweep "$tmp/explicit.json" --list
	expect_code 0 sweep explicit --list
	[ "$(rows "$tmp/stdout")" -eq 6 ] || fail "3 explicit variants x 2 gave $(rows "$tmp/stdout") variants, expected 6"
	grep -q '^3,7,"\[0,-2,0\]",5,,[0-9]*,5,2,56$' "$tmp/stdout" || fail "variant 3: cols 7 on both cloths (2 x 7 x 4 = 56 particles), 5 frames"
	grep -q '^4,6,,,spring-mesh,[0-9]*,120,2,48$' "$tmp/stdout" || fail "variant 4: the preset, the default 120 frames"
}

# The example sweep files expand (scenes/sweeps): their variant counts.
test_examples() {
	local expect="bend-compliance.json:40 fabrics.json:12 hanging.json:22 unequal-cost.json:20" e
	for e in $expect; do
		run sweep "$here/../../scenes/sweeps/${e%%:*}" --list
		expect_code 0 sweep "${e%%:*}" --list
		[ "$(rows "$tmp/stdout")" -eq "${e##*:}" ] || fail "${e%%:*}: $(rows "$tmp/stdout") variants, expected ${e##*:}"
	done
	[ "$(ls "$here/../../scenes/sweeps/"*.json | wc -l)" -eq 4 ] || fail "a sweep file in scenes/sweeps/ without a count here"
}

# ---------------------------------------------------------------- bad sweep files

# Each is refused with exit code 2 before anything is written, naming the file, the path and what is allowed.
bad() { # NAME TEXT EXPECTED...
	local name=$1 text=$2
	shift 2
	sweep_file "$name.json" "$text"
	run sweep "$tmp/$name.json" --out "$tmp/out-$name"
	expect_code 2 sweep "$name"
	for want in "$@"; do
		expect_stderr "$want"
	done
	[ ! -e "$tmp/out-$name" ] || fail "$name: the output folder was created"
}

test_bad_files() {
	local base='"scene": {"world": {"backend": "cpu"}}'
	bad unknown_path "{$base, \"axes\": {\"world.step.substepz\": [8]}}" \
		"unknown_path.json: variant 0 (world.step.substepz = 8): world.step.substepz: unknown key" "known: solver, timeStep, substeps, iterations"
	bad unknown_nested "{$base, \"axes\": {\"cloth.materal.mass\": [1]}}" "cloth.materal: unknown key" "known: cols, rows"
	bad out_of_range "{$base, \"axes\": {\"world.step.substeps\": [8, 0]}}" \
		"variant 1 (world.step.substeps = 0): world.step.substeps: 0 is out of range [1, 4096]"
	bad not_integer "{$base, \"axes\": {\"world.step.substeps\": {\"linear\": [1, 2], \"n\": 3}}}" \
		"variant 1 (world.step.substeps = 1.5): world.step.substeps: expected an integer, got 1.5"
	bad empty_axis "{$base, \"axes\": {\"world.step.substeps\": []}}" "empty_axis.json: axes.world.step.substeps: an empty list" "at least one value"
	bad log_range "{$base, \"axes\": {\"cloth.material.bendCompliance\": {\"log\": [0, 1], \"n\": 4}}}" \
		"axes.cloth.material.bendCompliance: \"log\": [0, 1] has a bound <= 0" "0 < low <= high"
	bad reversed_range "{$base, \"axes\": {\"cloth.material.damping\": {\"linear\": [1, 0], \"n\": 4}}}" \
		"\"linear\": [1, 0] is not a range" "low <= high"
	bad bad_count "{$base, \"axes\": {\"cloth.material.damping\": {\"linear\": [0, 1], \"n\": 0}}}" "axes.cloth.material.damping: \"n\": 0 is out of range (allowed: an integer in [1, 1000000])"
	bad two_kinds "{$base, \"axes\": {\"cloth.material.damping\": {\"linear\": [0, 1], \"log\": [1, 2], \"n\": 2}}}" "both \"linear\" and \"log\""
	bad unknown_range_key "{$base, \"axes\": {\"cloth.material.damping\": {\"linear\": [0, 1], \"count\": 2}}}" "unknown key \"count\"" "known: linear, log, random"
	bad bad_path "{$base, \"axes\": {\"world..step\": [1]}}" "\"world..step\" is not a scene-file path" "world.step.substeps"
	bad index_range "{\"scene\": {\"cloths\": [{}, {}]}, \"axes\": {\"cloths[2].cols\": [4]}}" "cloths[2].cols: index 2 is out of range" "allowed [0, 1]"
	bad unknown_top "{$base, \"axis\": {}}" "unknown_top.json: (top level): unknown key \"axis\"" "known: description, scene, frames, axes, variants, record"
	bad both_axis_and_variant "{$base, \"axes\": {\"frames\": [1]}, \"variants\": [{\"frames\": 2}]}" "variants[0]: \"frames\" is also an axis"
	bad record_every "{$base, \"record\": {\"every\": -1}}" "record.every: expected an integer in [0, 1000000]"
	bad base_value '{"scene": {"world": {"step": {"substeps": 0}}}}' "base_value.json: scene: world.step.substeps: 0 is out of range [1, 4096]"
	bad no_scene '{"axes": {"frames": [1]}}' "no_scene.json: scene: expected a scene object or the path of a scene file"
	bad missing_scene '{"scene": "nowhere.json"}' "nowhere.json: cannot open"
	printf '{\n  "scene": {},\n  "axes": {\n    "frames": [1, 2,]\n  }\n}\n' >"$tmp/syntax.json"
	run sweep "$tmp/syntax.json" --out "$tmp/out-syntax"
	expect_code 2 sweep syntax
	expect_stderr "syntax.json: line 4, column 21: JSON syntax error"
	[ ! -e "$tmp/out-syntax" ] || fail "syntax: the output folder was created"
	# A bad base scene file: its own line.
	printf '{\n  "world": {\n    "step": {"substeps": 4,}\n  }\n}\n' >"$tmp/base.json"
	bad bad_base '{"scene": "base.json"}' "base.json: line 3, column 29: JSON syntax error"
	# Options.
	run sweep "$tmp/syntax.json"
	expect_code 2 sweep without --out
	expect_stderr "--out DIR is required"
	run sweep "$tmp/syntax.json" --out "$tmp/o" --batch 0
	expect_code 2 sweep --batch 0
	expect_stderr "--batch: '0' is not an integer in [1, 1024]"
	run sweep "$tmp/syntax.json" --out "$tmp/o" --schedule random
	expect_code 2 sweep --schedule random
	expect_stderr "allowed: one of static, queue"
}

# A folder that holds another sweep's results is refused, naming the line that differs.
test_other_sweep() {
	sweep_file a.json '{"scene": {"world": {"backend": "cpu"}, "cloth": {"cols": 4, "rows": 4}}, "frames": 2, "axes": {"world.step.substeps": [2, 3]}}'
	sweep_file b.json '{"scene": {"world": {"backend": "cpu"}, "cloth": {"cols": 4, "rows": 4}}, "frames": 2, "axes": {"world.step.substeps": [2, 4]}}'
	run sweep "$tmp/a.json" --out "$tmp/out" --quiet
	expect_code 0 sweep a
	run sweep "$tmp/b.json" --out "$tmp/out" --quiet
	expect_code 2 sweep b into a\'s folder
	expect_stderr "holds the results of another sweep (its plan.txt differs from this one's at line 6"
	[ "$(rows "$tmp/out/summary.csv")" -eq 2 ] || fail "a's summary was touched"
}

# ---------------------------------------------------------------- results

reference() { # the 24-variant sweep in one batch, into $tmp/ref
	run sweep "$here/grid.json" --out "$tmp/ref" --backend cpu --batch 1024 --quiet
	expect_code 0 sweep grid.json
}

# 24 variants batched into one world per world def, against each variant alone (--batch 1): the
# same files, byte for byte; and each variant's statistics CSV against a plain `weft run` of its
# scene file: byte for byte.
test_batched_equals_alone() {
	reference
	[ "$(rows "$tmp/ref/summary.csv")" -eq 24 ] || fail "summary has $(rows "$tmp/ref/summary.csv") rows, expected 24"
	grep -q ',blown_up,' "$tmp/ref/summary.csv" && fail "a variant blew up"
	# 4 worlds (2 substeps x 2 gravities), 6 cloths each.
	run sweep "$here/grid.json" --list --batch 1024
	[ "$(awk -F, 'NR > 1 { print $(NF - 3) }' "$tmp/stdout" | sort -u | wc -l)" -eq 4 ] || fail "expected 4 batches"
	# Without --batch the CPU takes one variant per world (batching is no faster there).
	run sweep "$here/grid.json" --list --backend cpu
	[ "$(awk -F, 'NR > 1 { print $(NF - 3) }' "$tmp/stdout" | sort -u | wc -l)" -eq 24 ] || fail "expected 24 batches on the CPU by default"
	run sweep "$here/grid.json" --out "$tmp/alone" --backend cpu --batch 1 --quiet
	expect_code 0 sweep --batch 1
	diff -r "$tmp/ref" "$tmp/alone" >"$tmp/diff" || fail "batched and alone differ: $(head -5 "$tmp/diff")"
	[ "$(ls "$tmp/ref/variants" | grep -c 'final.npy$')" -eq 24 ] || fail "24 final.npy expected"
	for v in $(seq -f '%06g' 0 23); do
		run run --scene "$tmp/ref/variants/v$v.scene.json" --backend cpu --stats "$tmp/run$v.csv" --quiet
		expect_code 0 run variant $v
		cmp -s "$tmp/run$v.csv" "$tmp/ref/variants/v$v.stats.csv" || fail "variant $v: weft run's statistics differ from the sweep's"
	done
	# The axes reach the simulation: 16 distinct final energies. Under the weaker gravity the cloth
	# is still falling flat at frame 24, clear of the sphere, so its bend compliance changes nothing
	# (3 compliances x 4 give 8 duplicates).
	[ "$(awk -F, 'NR > 1 { print $(NF - 9) }' "$tmp/ref/summary.csv" | sort -u | wc -l)" -eq 16 ] || fail "expected 16 distinct final energies"
}

# The .npy files read back by numpy: shapes, dtype, the last recorded frame equal to the final positions.
test_npy() {
	reference
	local py
	py=$(python_numpy)
	"$py" - "$tmp/ref" <<'PY' || fail "numpy check"
import csv, sys
import numpy as np
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/summary.csv")))
assert len(rows) == 24, len(rows)
for row in rows:
    v = int(row["variant"])
    final = np.load(f"{out}/variants/v{v:06d}.final.npy")
    frames = np.load(f"{out}/variants/v{v:06d}.frames.npy")
    assert final.dtype == np.float32 and final.shape == (48 * 48, 3), (final.dtype, final.shape)
    assert frames.dtype == np.float32 and frames.shape == (4, 48 * 48, 3), (frames.dtype, frames.shape)
    assert np.array_equal(frames[-1], final), v
    assert np.isfinite(final).all(), v
    # The summary's sag: the mean drop of the particles from the first recorded frame's scene start.
    assert float(row["sag"]) > 0.0, row["sag"]
print("24 variants: final (2304, 3) float32, frames (4, 2304, 3) float32")
PY
}

# A variant that blows up is recorded as such and the sweep goes on; its batch mates are unaffected.
test_blowup() {
	run sweep "$here/blowup.json" --out "$tmp/b" --batch 1024 --quiet
	expect_code 0 sweep blowup.json
	grep -q '^1,1000000,blown_up,30,.*,0,0,29,30$' "$tmp/b/summary.csv" || fail "variant 1: blown up, 29 unstable frames, 30 time step warnings: $(sed -n 3p "$tmp/b/summary.csv")"
	grep -q '^0,100,ok,.*,0,0,0,0$' "$tmp/b/summary.csv" || fail "variant 0: no warnings"
	grep -q '^2,300,ok,.*,0,0,0,30$' "$tmp/b/summary.csv" || fail "variant 2: 30 time step warnings, not blown up"
	run sweep "$here/blowup.json" --out "$tmp/b1" --batch 1 --quiet
	diff -r "$tmp/b" "$tmp/b1" >"$tmp/diff" || fail "blow-up batch and alone differ: $(head -5 "$tmp/diff")"
}

# Runs the sweep $tmp/slow.json into DIR in the background and sends SIG once 3 variants are
# finished; sets code to the sweep's exit status. Fails (returns 1) when the sweep finished every
# variant before the signal reached it: this machine is too fast for the frame count.
interrupt_sweep() { # SIG DIR
	local sig=$1 dir=$2 pid waited=0
	# Job control on: the background job gets its own process group and does not ignore SIGINT.
	set -m
	"$weft" sweep "$tmp/slow.json" --out "$dir" --batch 1 --threads 1 --quiet >"$tmp/stdout" 2>"$tmp/stderr" &
	pid=$!
	set +m
	while [ "$(ls "$dir/variants" 2>/dev/null | grep -c '\.row$')" -lt 3 ] && [ $waited -lt 6000 ]; do
		sleep 0.01
		waited=$((waited + 1))
	done
	kill "-$sig" $pid 2>/dev/null
	wait $pid
	code=$?
	[ "$code" -ne 0 ] || [ "$(ls "$dir/variants" 2>/dev/null | grep -c '\.row$')" -lt 12 ]
}

# SIGINT halfway: the finished variants are kept, the run started again does only the rest, and
# the files equal an uninterrupted run's. The frame count grows until the signal arrives with
# variants left (a variant of 120 frames takes 0.08 s on the 2-core VM).
test_resume() {
	local frames code kept
	for frames in 120 480 1920 7680; do
		sweep_file slow.json '{
  "scene": {"world": {"backend": "cpu", "step": {"substeps": 16}}, "cloth": {"cols": 40, "rows": 40, "pinMode": "top-corners"}},
  "frames": '$frames',
  "axes": {"cloth.material.bendCompliance": {"log": [1e-6, 1e-1], "n": 12}},
  "record": {"every": 40}
}'
		rm -rf "$tmp/full" "$tmp/part" "$tmp/killed"
		"$weft" sweep "$tmp/slow.json" --out "$tmp/full" --batch 1 --threads 1 --quiet || fail "uninterrupted sweep"
		interrupt_sweep INT "$tmp/part" && break
		echo "$frames frames: the sweep finished before SIGINT; trying 4 times as many"
	done
	[ "$code" -eq 130 ] || fail "interrupted sweep: exit code $code, expected 130"
	kept=$(rows "$tmp/part/summary.csv")
	[ "$kept" -ge 3 ] && [ "$kept" -lt 12 ] || fail "after SIGINT the summary has $kept rows (expected 3 to 11)"
	expect_stderr "interrupted: $kept of 12 variants finished"
	[ -z "$(find "$tmp/part" -name '*.tmp')" ] || fail "temporaries left"
	run sweep "$tmp/slow.json" --out "$tmp/part" --batch 1 --threads 1
	expect_code 0 resumed sweep
	grep -qF "12 variants ($((12 - kept)) run now in $((12 - kept)) batches by 1 process, $kept finished before)" "$tmp/stdout" ||
		fail "the resumed run did not run only the other $((12 - kept)): $(cat "$tmp/stdout")"
	diff -r "$tmp/full" "$tmp/part" >"$tmp/diff" || fail "resumed and uninterrupted differ: $(head -5 "$tmp/diff")"
	# SIGKILL (a killed rank, a lost node): no summary, perhaps a temporary; the next run removes
	# the temporary, runs the rest and gives the same files.
	interrupt_sweep KILL "$tmp/killed" || fail "the sweep finished before SIGKILL at $frames frames"
	kept=$(ls "$tmp/killed/variants" | grep -c '\.row$')
	[ "$kept" -ge 3 ] && [ "$kept" -lt 12 ] || fail "after SIGKILL $kept variants are finished (expected 3 to 11)"
	run sweep "$tmp/slow.json" --out "$tmp/killed" --batch 1 --threads 1
	expect_code 0 sweep after SIGKILL
	grep -qF "$kept finished before" "$tmp/stdout" || fail "after SIGKILL: $(cat "$tmp/stdout")"
	diff -r "$tmp/full" "$tmp/killed" >"$tmp/diff" || fail "after SIGKILL, resumed and uninterrupted differ: $(head -5 "$tmp/diff")"
}

# On Vulkan (the test device, lavapipe, validation on): 8 variants of two grid sizes in one world
# give the files of the 8 run alone, bit for bit, with no validation message.
test_vulkan() {
	sweep_file vk.json '{
  "scene": {"world": {"backend": "vulkan"}, "cloth": {"cols": 16, "rows": 16, "pinMode": "top-corners"}},
  "frames": 10,
  "axes": {"cloth.material.bendCompliance": {"log": [1e-6, 1e-1], "n": 4}, "cloth.cols": [16, 70]}
}'
	run sweep "$tmp/vk.json" --out "$tmp/batched" --batch 1024
	expect_code 0 sweep on Vulkan, batched
	grep -qF "8 variants (8 run now in 1 batch by 1 process" "$tmp/stdout" || fail "expected one batch: $(cat "$tmp/stdout")"
	grep -q "validation" "$tmp/stderr" && fail "a validation message"
	run sweep "$tmp/vk.json" --out "$tmp/alone" --batch 1
	expect_code 0 sweep on Vulkan, alone
	grep -q "validation" "$tmp/stderr" && fail "a validation message"
	diff -r "$tmp/batched" "$tmp/alone" >"$tmp/diff" || fail "on Vulkan, batched and alone differ: $(head -5 "$tmp/diff")"
	# A device by its place in the list ("#N", for several GPUs of one model): #0 is the test
	# device when it is the only one; one past the last is refused with the range.
	run sweep "$tmp/vk.json" --out "$tmp/bad-device" --devices '#99'
	expect_code 1 sweep --devices '#99'
	expect_stderr 'no Vulkan device "#99" (allowed: #0 to #'
}

# ---------------------------------------------------------------- MPI

mpi() { # NP OUT ARGS...
	local np=$1 out=$2
	shift 2
	# OpenMPI as root needs these two; --oversubscribe: more ranks than this machine's cores.
	"$mpiexec" --allow-run-as-root --oversubscribe -np "$np" "$weft" sweep "$here/grid.json" --out "$out" --backend cpu \
		--threads 1 --quiet "$@" >"$tmp/stdout" 2>"$tmp/stderr" || fail "mpiexec -np $np weft sweep $*: exit code $?"
}

test_mpi() {
	[ "$mpiexec" != none ] || { echo "this build has no MPI"; exit 77; }
	# Shared-memory copies through ptrace fail in some containers; the plain copy always works.
	export OMPI_MCA_btl_vader_single_copy_mechanism=none LSAN_OPTIONS=detect_leaks=0
	reference
	mpi 2 "$tmp/np2" --batch 4
	diff -r "$tmp/ref" "$tmp/np2" >"$tmp/diff" || fail "np 2 (static) differs from one process: $(head -5 "$tmp/diff")"
	mpi 3 "$tmp/np3" --batch 3 --schedule queue
	diff -r "$tmp/ref" "$tmp/np3" >"$tmp/diff" || fail "np 3 (queue) differs from one process: $(head -5 "$tmp/diff")"
	# --list under mpiexec: rank 0 prints it, once.
	"$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$weft" sweep "$here/grid.json" --list >"$tmp/list" || fail "--list under mpiexec"
	[ "$(rows "$tmp/list")" -eq 24 ] || fail "--list under mpiexec -np 2: $(rows "$tmp/list") rows, expected 24"
}

"test_$check"
