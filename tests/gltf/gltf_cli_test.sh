#!/usr/bin/env bash
# `weft run --gltf` and what can go wrong: bad paths, full disks, interruption. One check per call:
#   gltf_cli_test.sh WEFT paths|disk_full|interrupted
set -u

weft=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cli/harness.sh
. "$here/../cli/harness.sh"

# Nothing half-written: no temporaries (".NAME.weft-PID.tmp"), no scratch files, no such .glb.
expect_nothing_left() { # [GLB ...]
	local left f
	left=$(find "$tmp" \( -name '*.tmp' -o -name '.weft-gltf-scratch-*' \) | head -5)
	[ -z "$left" ] || fail "temporary files left behind: $left"
	for f in "$@"; do
		[ ! -e "$f" ] || fail "$f was written"
	done
}

# The GLB header's length and the JSON chunk's length.
glb_lengths() { # FILE
	od -A n -t u4 -j 8 -N 8 "$1"
}

test_paths() {
	mkdir -p "$tmp/d.glb"
	run run --preset xpbd --grid 8x8 --frames 2 --gltf "$tmp/d.glb"
	expect_code 2
	expect_stderr "weft run: --gltf: '$tmp/d.glb' is a folder, not a file name"
	run run --preset xpbd --grid 8x8 --frames 2 --gltf "$tmp/d.glb/"
	expect_code 2
	expect_stderr "--gltf: '$tmp/d.glb/' does not end in .glb"
	[ -z "$(ls -A "$tmp/d.glb")" ] || fail "files written into the folder"
	run run --preset xpbd --grid 8x8 --frames 2 --gltf "$tmp/x.gltf"
	expect_code 2
	expect_stderr "weft run: --gltf: '$tmp/x.gltf' does not end in .glb (allowed: a .glb file path (binary glTF 2.0))"
	run run --preset xpbd --grid 8x8 --frames 2 --gltf "$tmp/x.obj"
	expect_code 2
	expect_stderr "--gltf: '$tmp/x.obj' does not end in .glb"
	run run --preset xpbd --grid 8x8 --frames 2 --gltf
	expect_code 2
	expect_stderr "--gltf: '' is missing"
	# A folder that is a file, a folder nobody may write into (/proc, even as root).
	echo "a file" >"$tmp/file"
	run run --preset xpbd --grid 8x8 --frames 2 --gltf "$tmp/file/x.glb"
	expect_code 2
	expect_stderr "--gltf: '$tmp/file' is not a folder"
	if [ -d /proc/self ]; then
		run run --preset xpbd --grid 8x8 --frames 2 --gltf /proc/weft-test.glb
		expect_code 2
		expect_stderr "--gltf: folder '/proc' is not writable"
	fi
	mkdir "$tmp/ro"
	chmod 555 "$tmp/ro"
	if ! touch "$tmp/ro/probe" 2>/dev/null; then
		run run --preset xpbd --grid 8x8 --frames 2 --gltf "$tmp/ro/x.glb"
		expect_code 2
		expect_stderr "--gltf: folder '$tmp/ro' is not writable"
	else
		rm -f "$tmp/ro/probe"
		echo "read-only folder part skipped: this user can write into a read-only folder"
	fi
	chmod 755 "$tmp/ro"
	# Each output a file of its own; the scene is never overwritten.
	run run --preset xpbd --grid 8x8 --frames 2 --stats "$tmp/s.glb" --gltf "$tmp/./s.glb"
	expect_code 2
	expect_stderr "--gltf: '$tmp/./s.glb' is also the --stats file ('$tmp/s.glb'): each output needs a file of its own"
	cp "$here/../cli/good/two_cloths.json" "$tmp/scene.glb"
	run run --scene "$tmp/scene.glb" --frames 2 --gltf "$tmp/scene.glb"
	expect_code 2
	expect_stderr "--gltf: '$tmp/scene.glb' is the --scene file ('$tmp/scene.glb'), an input: it would be overwritten"
	cmp -s "$here/../cli/good/two_cloths.json" "$tmp/scene.glb" || fail "the scene was changed"
	# A run that would pass the 4 GiB a GLB can hold is refused before the first step; an existing
	# file of that name stays as it was.
	echo "the user's" >"$tmp/big.glb"
	run run --preset xpbd --frames 100000 --gltf "$tmp/big.glb"
	expect_code 2
	expect_stderr "--gltf: $tmp/big.glb: 100000 frames of these cloths make a GLB of about"
	expect_stderr "more than the 4 GiB its 32-bit length can hold"
	grep -q "the user's" "$tmp/big.glb" || fail "the existing file was changed"
	rm "$tmp/big.glb"
	expect_nothing_left "$tmp/x.gltf" "$tmp/x.obj" "$tmp/ro/x.glb" "$tmp/s.glb" "$tmp/big.glb"
	# A device is written in place (the scratch file then lives in the temporary folder).
	run run --preset xpbd --grid 8x8 --frames 3 --gltf /dev/null --quiet
	expect_code 0
	[ -c /dev/null ] || fail "/dev/null was replaced"
	# A good run: the file and the summary.
	run run --preset xpbd --grid 8x8 --frames 3 --gltf "$tmp/out/good.glb"
	expect_code 0
	grep -q "Wrote glTF to $tmp/out/good.glb" "$tmp/stdout" || fail "the summary does not name the glTF"
	[ "$(head -c 4 "$tmp/out/good.glb")" = "glTF" ] || fail "good.glb does not start with glTF"
	read -r total _ < <(glb_lengths "$tmp/out/good.glb")
	[ "$total" -eq "$(stat -c %s "$tmp/out/good.glb")" ] || fail "the header's length $total is not the file's"
	expect_nothing_left
}

# A full disk (ulimit -f: writes past the limit fail with EFBIG) while the frames stream into the
# scratch file, and at the very end (the scratch fits, the GLB does not): exit 1, a message naming
# --gltf and the file, an earlier file of that name left as it was, nothing half-written.
test_disk_full() {
	run run --preset xpbd --frames 20 --gltf "$tmp/g.glb" --quiet
	expect_code 0
	cp "$tmp/g.glb" "$tmp/good.glb"
	local size json
	size=$(stat -c %s "$tmp/g.glb")
	read -r _ json < <(glb_lengths "$tmp/g.glb")
	[ "$json" -gt 4096 ] || fail "the JSON chunk ($json bytes) is too small for the test"
	run_with_file_limit 300 run --preset xpbd --frames 20 --gltf "$tmp/g.glb" --quiet
	expect_code 1
	expect_stderr "weft run: --gltf: $tmp/g.glb: frame "
	expect_stderr ": cannot write the frames' scratch file: File too large"
	cmp -s "$tmp/g.glb" "$tmp/good.glb" || fail "the earlier file was replaced"
	# The frames fit; the GLB (the frames and the JSON) does not.
	local limit=$(((size - json / 2) / 1024))
	run_with_file_limit "$limit" run --preset xpbd --frames 20 --gltf "$tmp/g.glb" --quiet
	expect_code 1
	expect_stderr "weft run: --gltf: $tmp/g.glb: cannot write: File too large"
	cmp -s "$tmp/g.glb" "$tmp/good.glb" || fail "the earlier file was replaced"
	# A new name: nothing is left under it.
	run_with_file_limit 300 run --preset xpbd --frames 20 --gltf "$tmp/new.glb" --quiet
	expect_code 1
	expect_nothing_left "$tmp/new.glb"
}

# SIGTERM (like Ctrl-C) keeps the frames finished so far: the GLB holds one morph target per frame.
test_interrupted() {
	"$weft" run --preset xpbd --grid 8x8 --frames 100000 --gltf "$tmp/i.glb" --obj "$tmp/f" >"$tmp/stdout" 2>"$tmp/stderr" &
	local pid=$! n
	wait_for_frame "$tmp/f" 3 "$pid" || fail "no frames appeared"
	kill -TERM "$pid"
	wait_for_exit "$pid" "weft run (SIGTERM)"
	wait "$pid"
	code=$?
	expect_code 130
	n=$(sed -n 's/.*interrupted after \([0-9]*\) frame.*/\1/p' "$tmp/stderr")
	[ -n "$n" ] && [ "$n" -ge 3 ] || fail "the message does not say how many frames were finished"
	expect_stderr "glTF of $n frames in $tmp/i.glb ("
	[ "$(head -c 4 "$tmp/i.glb")" = "glTF" ] || fail "i.glb does not start with glTF"
	if command -v python3 >/dev/null; then
		local targets
		targets=$(python3 -c '
import json, struct, sys
data = open(sys.argv[1], "rb").read()
doc = json.loads(data[20:20 + struct.unpack_from("<I", data, 12)[0]])
print(sum(len(m["primitives"][0].get("targets", [])) for m in doc["meshes"]))' "$tmp/i.glb")
		[ "$targets" -eq "$n" ] || fail "the GLB has $targets morph targets for $n frames"
	fi
	expect_nothing_left
}

"test_$2"
