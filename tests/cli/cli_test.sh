#!/usr/bin/env bash
# Tests of the weft command, one case per call (each is its own ctest):
#   cli_test.sh WEFT case NAME     a line of cases.txt: exit code and stderr text
#   cli_test.sh WEFT scene FILE    a scene file loads and runs 2 frames
#   cli_test.sh WEFT NAME          one of the functions test_NAME below
set -u

weft=$1
kind=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cli/harness.sh
. "$here/harness.sh"

# Files left under a temporary name anywhere in the scratch folder.
expect_no_temporaries() {
	local left
	left=$(find "$tmp" -name '*.tmp' | head -5)
	[ -z "$left" ] || fail "temporary files left behind: $left"
}

count_lines() { # PATTERN FILE
	grep -c -- "$1" "$2"
}

# ---------------------------------------------------------------- table cases

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	s=${s%"${s##*[![:space:]]}"}
	printf '%s' "$s"
}

test_case() {
	local name=$1 line
	line=$(grep -E "^$name *\|" "$here/cases.txt") || fail "no case '$name' in cases.txt"
	local f_name f_code f_text f_more f_args
	IFS='|' read -r f_name f_code f_text f_more f_args <<<"$line"
	f_code=$(trim "$f_code")
	f_text=$(trim "$f_text")
	f_more=$(trim "$f_more")
	f_args=$(trim "$f_args")
	local args=() a
	for a in $f_args; do
		a=${a//@bad/$here/bad}
		a=${a//@good/$here/good}
		a=${a//@tmp/$tmp}
		args+=("$a")
	done
	run "${args[@]}"
	expect_code "$f_code" "${args[@]}"
	expect_stderr "$f_text"
	[ "$f_more" = "-" ] || expect_stderr "$f_more"
	expect_no_temporaries
}

# ---------------------------------------------------------------- output files

# The issue's acceptance command: 120 OBJ frames of 60x60 and a CSV of 120 rows.
test_run_outputs() {
	run run --preset compute-cloth --frames 120 --obj "$tmp/frames" --stats "$tmp/stats/run.csv" --threads 1
	expect_code 0
	local n
	n=$(find "$tmp/frames" -name 'frame_*.obj' | wc -l)
	[ "$n" -eq 120 ] || fail "$n OBJ files, expected 120"
	[ -f "$tmp/frames/frame_0001.obj" ] && [ -f "$tmp/frames/frame_0120.obj" ] || fail "frame_0001.obj or frame_0120.obj missing"
	local obj=$tmp/frames/frame_0120.obj
	[ "$(count_lines '^v ' "$obj")" -eq 3600 ] || fail "v lines: $(count_lines '^v ' "$obj"), expected 3600"
	[ "$(count_lines '^vt ' "$obj")" -eq 3600 ] || fail "vt lines: $(count_lines '^vt ' "$obj"), expected 3600"
	[ "$(count_lines '^vn ' "$obj")" -eq 3600 ] || fail "vn lines: $(count_lines '^vn ' "$obj"), expected 3600"
	[ "$(count_lines '^f ' "$obj")" -eq 6962 ] || fail "f lines: $(count_lines '^f ' "$obj"), expected 6962"
	[ "$(count_lines '^o ' "$obj")" -eq 1 ] || fail "expected one object"
	grep -qE '^f [0-9]+/[0-9]+/[0-9]+ [0-9]+/[0-9]+/[0-9]+ [0-9]+/[0-9]+/[0-9]+$' "$obj" || fail "f lines are not v/vt/vn"
	local csv=$tmp/stats/run.csv
	[ "$(wc -l <"$csv")" -eq 121 ] || fail "CSV has $(wc -l <"$csv") lines, expected 121"
	head -1 "$csv" | grep -qx 'frame,time,kinetic_energy,potential_energy,max_strain,mean_strain,sphere_clearance,floor_clearance,momentum_x,momentum_y,momentum_z,non_finite' ||
		fail "CSV header: $(head -1 "$csv")"
	tail -1 "$csv" | grep -q '^120,' || fail "last CSV row is not frame 120"
	grep -q 'weft run: 120 frames' "$tmp/stdout" || fail "no summary"
	expect_no_temporaries
	[ -z "$(find "$tmp" -name '.*' -type f)" ] || fail "hidden files left: $(find "$tmp" -name '.*' -type f)"
}

# An output folder under a regular file cannot exist: fail before stepping, write nothing.
test_unwritable_obj() {
	echo "not a folder" >"$tmp/file"
	run run --preset xpbd --frames 5 --obj "$tmp/file/frames" --stats "$tmp/out/s.csv"
	[ "$code" -ne 0 ] || fail "exit code 0 for an unwritable --obj folder"
	expect_code 2
	expect_stderr "--obj"
	expect_stderr "$tmp/file/frames"
	[ ! -e "$tmp/out/s.csv" ] || fail "statistics written despite the error"
	[ -z "$(find "$tmp" -name '*.obj')" ] || fail "OBJ files written despite the error"
	[ ! -s "$tmp/stdout" ] || fail "a summary was printed"
	expect_no_temporaries
	# Frame 1 (1 117 J from rest) used to pass the check, 29 of 30 discarded; the energy rule
	# discards it too: every frame discarded, no statistics, the run fails.
	run run --scene "$here/good/mostly_discarded.json" --stats "$tmp/m.csv"
	expect_code 1
	expect_stderr "every frame (30 of 30) was discarded"
	expect_stderr "more energy than the world could add"
	[ ! -e "$tmp/m.csv" ] || fail "the statistics of a run with every frame discarded were written"
	expect_no_temporaries
}

test_unwritable_stats() {
	echo "not a folder" >"$tmp/file"
	run run --preset xpbd --frames 5 --obj "$tmp/frames" --stats "$tmp/file/s.csv"
	expect_code 2
	expect_stderr "--stats"
	[ -z "$(find "$tmp" -name '*.obj')" ] || fail "OBJ files written despite the error"
	[ ! -e "$tmp/file/s.csv" ] || fail "statistics written"
	expect_no_temporaries
}

# A folder without write permission (skipped as root, who may write anywhere).
test_readonly_folder() {
	mkdir "$tmp/ro"
	chmod 555 "$tmp/ro"
	if touch "$tmp/ro/probe" 2>/dev/null; then
		rm -f "$tmp/ro/probe"
		chmod 755 "$tmp/ro"
		echo "skipped: this user can write into a read-only folder"
		exit 77 # ctest's SKIP_RETURN_CODE
	fi
	run run --preset xpbd --frames 5 --obj "$tmp/ro"
	chmod 755 "$tmp/ro"
	expect_code 2
	expect_stderr "is not writable"
	[ -z "$(ls -A "$tmp/ro")" ] || fail "files written into the read-only folder"
}

# Missing folders are created, nested.
test_folders_created() {
	run run --preset spring-mesh --grid 8x8 --frames 3 --obj "$tmp/a/b/c" --stats "$tmp/d/e/s.csv" --quiet
	expect_code 0
	[ "$(find "$tmp/a/b/c" -name 'frame_*.obj' | wc -l)" -eq 3 ] || fail "expected 3 OBJ files"
	[ "$(wc -l <"$tmp/d/e/s.csv")" -eq 4 ] || fail "expected 4 CSV lines"
	[ ! -s "$tmp/stdout" ] || fail "--quiet printed: $(cat "$tmp/stdout")"
	expect_no_temporaries
}

# Several cloths: one object each in an OBJ (indices continue), a cloth column in the CSV.
test_multi_cloth() {
	run run --scene "$here/good/two_cloths.json" --obj "$tmp/frames" --stats "$tmp/s.csv"
	expect_code 0
	local obj=$tmp/frames/frame_0003.obj
	[ "$(find "$tmp/frames" -name 'frame_*.obj' | wc -l)" -eq 3 ] || fail "expected 3 frames (the scene's \"frames\")"
	[ "$(count_lines '^o ' "$obj")" -eq 2 ] || fail "expected two objects"
	[ "$(count_lines '^v ' "$obj")" -eq 73 ] || fail "expected 48 + 25 vertices"
	[ "$(count_lines '^f ' "$obj")" -eq 102 ] || fail "expected 70 + 32 faces"
	grep -q '^f 73/73/73 ' "$obj" || grep -q ' 73/73/73' "$obj" || fail "the second object's faces do not reach vertex 73"
	head -1 "$tmp/s.csv" | grep -q '^frame,cloth,time,' || fail "no cloth column: $(head -1 "$tmp/s.csv")"
	[ "$(wc -l <"$tmp/s.csv")" -eq 7 ] || fail "expected 1 + 3 x 2 CSV lines"
	grep -q '^3,1,' "$tmp/s.csv" || fail "no row for frame 3, cloth 1"
}

# SIGTERM (like SIGINT) stops after the frame in progress: exit 130, and the outputs keep the frames
# finished so far: one OBJ file and one CSV row each, the CSV renamed into place, no temporaries.
# (A background job of a script starts with SIGINT ignored, so this test sends SIGTERM.)
test_interrupted() {
	"$weft" run --preset xpbd --grid 4x4 --frames 100000 --stats "$tmp/s.csv" --obj "$tmp/frames" \
		>"$tmp/stdout" 2>"$tmp/stderr" &
	local pid=$!
	wait_for_frame "$tmp/frames" 2 "$pid" || fail "no frames appeared"
	kill -TERM "$pid"
	wait_for_exit "$pid" "weft run (SIGTERM)"
	wait "$pid"
	code=$?
	expect_code 130
	expect_stderr "interrupted after"
	local n
	n=$(sed -n 's/.*interrupted after \([0-9]*\) frame.*/\1/p' "$tmp/stderr")
	[ -n "$n" ] && [ "$n" -ge 2 ] || fail "the message does not say how many frames were finished"
	expect_stderr "kept: $n OBJ files in $tmp/frames, statistics of $n frames in $tmp/s.csv"
	[ "$(find "$tmp/frames" -name 'frame_*.obj' | wc -l)" -eq "$n" ] || fail "OBJ files differ from the $n frames finished"
	[ "$(wc -l <"$tmp/s.csv")" -eq $((n + 1)) ] || fail "CSV has $(wc -l <"$tmp/s.csv") lines, expected $((n + 1))"
	tail -1 "$tmp/s.csv" | grep -q "^$n," || fail "the last CSV row is not frame $n"
	expect_no_temporaries
}

# Ctrl-C (SIGINT) during a run with a video, a CSV and OBJ frames: the video is finished with the
# frames so far (ffprobe counts them), the CSV has a row per finished frame, nothing temporary stays.
test_render_sigint() {
	command -v ffmpeg >/dev/null || { echo "skipped: no ffmpeg"; exit 0; }
	# Job control on: the background job gets its own process group and does not ignore SIGINT.
	set -m
	"$weft" run --preset xpbd --grid 8x8 --frames 100000 --size 32x32 --video "$tmp/v.mp4" --stats "$tmp/s.csv" \
		--obj "$tmp/frames" --backend cpu >"$tmp/stdout" 2>"$tmp/stderr" &
	local pid=$!
	set +m
	wait_for_frame "$tmp/frames" 5 "$pid" || fail "no frames appeared"
	kill -INT "$pid"
	wait_for_exit "$pid" "weft run (SIGINT)"
	wait "$pid"
	code=$?
	expect_code 130
	local n
	n=$(sed -n 's/.*interrupted after \([0-9]*\) frame.*/\1/p' "$tmp/stderr")
	[ -n "$n" ] && [ "$n" -ge 5 ] || fail "the message does not say how many frames were finished"
	expect_stderr "kept: $n OBJ files in $tmp/frames, video of $n frames in $tmp/v.mp4, statistics of $n frames in $tmp/s.csv"
	[ "$(find "$tmp/frames" -name 'frame_*.obj' | wc -l)" -eq "$n" ] || fail "OBJ files differ from the $n frames finished"
	[ "$(wc -l <"$tmp/s.csv")" -eq $((n + 1)) ] || fail "CSV has $(wc -l <"$tmp/s.csv") lines, expected $((n + 1))"
	if command -v ffprobe >/dev/null; then
		local frames
		frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$tmp/v.mp4")
		[ "$frames" = "$n" ] || fail "ffprobe counts '$frames' video frames, expected $n"
	fi
	expect_no_temporaries
}

# Issue 31, item 15: Ctrl-C during the renderer's set-up (the CSV's temporary is open, no frame
# stepped yet) stops the run like one later: exit 130 with the message, no temporary left (it used to
# die by the default action, leaving the CSV's and ffmpeg's temporaries).
test_render_sigint_early() {
	command -v ffmpeg >/dev/null || { echo "skipped: no ffmpeg"; exit 0; }
	set -m
	"$weft" run --preset xpbd --grid 8x8 --frames 100000 --size 32x32 --video "$tmp/v.mp4" --stats "$tmp/s.csv" \
		--png "$tmp/png" --backend cpu >"$tmp/stdout" 2>"$tmp/stderr" &
	local pid=$! i
	set +m
	for i in $(seq 2000); do
		[ -n "$(find "$tmp" -maxdepth 1 -name '.s.csv.*.tmp' | head -1)" ] && break
		kill -0 "$pid" 2>/dev/null || fail "weft ended before its CSV was opened"
		sleep 0.005
	done
	[ -n "$(find "$tmp" -maxdepth 1 -name '.s.csv.*.tmp' | head -1)" ] || fail "the CSV's temporary never appeared"
	local png
	png=$(find "$tmp/png" -name '*.png' 2>/dev/null | wc -l)
	kill -INT "$pid"
	wait_for_exit "$pid" "weft run (early SIGINT)"
	wait "$pid"
	code=$?
	expect_code 130
	expect_stderr "weft run: interrupted after"
	echo "SIGINT after $png PNG frames: $(grep -o 'interrupted after [0-9]* frames*' "$tmp/stderr")"
	expect_no_temporaries
	if grep -q 'interrupted after 0 frames' "$tmp/stderr"; then
		[ ! -e "$tmp/s.csv" ] || fail "a CSV was written for a run that stepped no frame"
		[ ! -e "$tmp/v.mp4" ] || fail "a video was written for a run that stepped no frame"
	fi
}

# SIGKILL leaves temporaries (the CSV's, the video's); the next run into the same places removes them.
test_render_stale_temporaries() {
	command -v ffmpeg >/dev/null || { echo "skipped: no ffmpeg"; exit 0; }
	"$weft" run --preset xpbd --grid 8x8 --frames 100000 --size 32x32 --video "$tmp/v.mp4" --stats "$tmp/s.csv" \
		--obj "$tmp/frames" --backend cpu >"$tmp/stdout" 2>"$tmp/stderr" &
	local pid=$! children
	wait_for_frame "$tmp/frames" 3 "$pid" || fail "no frames appeared"
	children=$(ps -o pid= --ppid "$pid")
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	# ffmpeg sees the end of its input and finishes its temporary file.
	local child
	for child in $children; do wait_for_exit "$child" "ffmpeg after its parent was killed"; done
	[ -n "$(find "$tmp" -name '*.tmp')" ] || fail "SIGKILL left no temporary (the test proves nothing)"
	run run --preset xpbd --grid 8x8 --frames 3 --size 32x32 --video "$tmp/v.mp4" --stats "$tmp/s.csv" \
		--obj "$tmp/frames" --overwrite --backend cpu --quiet
	expect_code 0
	expect_no_temporaries
	[ "$(find "$tmp/frames" -name 'frame_*.obj' | wc -l)" -eq 3 ] || fail "expected the 3 new OBJ files only"
}

# Issue 31, item 6: the stale-temporary cleanup removes only names weft makes (".NAME.weft-PID.tmp"
# of a process that is gone), never a user's file that happens to look like one (".thesis.2023.tmp",
# or ".s.csv.PID.tmp" without the marker), in the --obj folder or beside --stats.
test_stale_user_files() {
	local dead
	dead=$(sh -c 'echo $$') # a process that has ended: its PID is free
	mkdir -p "$tmp/o"
	local f
	for f in "$tmp/o/.thesis.2023.tmp" "$tmp/o/.notes.$dead.tmp" "$tmp/.s.csv.$dead.tmp" "$tmp/.thesis.2023.tmp"; do
		echo "the user's" >"$f"
	done
	echo "weft's" >"$tmp/o/.frame_0001.obj.weft-$dead.tmp"
	echo "weft's" >"$tmp/.s.csv.weft-$dead.tmp"
	run run --preset xpbd --grid 4x4 --frames 2 --obj "$tmp/o" --stats "$tmp/s.csv" --quiet
	expect_code 0
	for f in "$tmp/o/.thesis.2023.tmp" "$tmp/o/.notes.$dead.tmp" "$tmp/.s.csv.$dead.tmp" "$tmp/.thesis.2023.tmp"; do
		[ -f "$f" ] && grep -q "the user's" "$f" || fail "the user's file $f was removed"
	done
	[ ! -e "$tmp/o/.frame_0001.obj.weft-$dead.tmp" ] || fail "weft's stale temporary in the --obj folder was kept"
	[ ! -e "$tmp/.s.csv.weft-$dead.tmp" ] || fail "weft's stale temporary beside --stats was kept"
	[ "$(wc -l <"$tmp/s.csv")" -eq 3 ] || fail "statistics not written"
}

# Issue 31, item 8: an output that is an input (--stats naming the scene overwrote it) or another
# output (--stats X --video X garbled X) is refused before anything is written, however the path
# is spelt; two outputs to one character device stay allowed.
test_outputs_distinct() {
	cp "$here/good/two_cloths.json" "$tmp/scene.json"
	mkdir -p "$tmp/d"
	run run --scene "$tmp/scene.json" --frames 1 --stats "$tmp/scene.json"
	expect_code 2
	expect_stderr "--stats: '$tmp/scene.json' is the --scene file ('$tmp/scene.json'), an input: it would be overwritten"
	run run --scene "$tmp/scene.json" --frames 1 --stats "$tmp/d/../scene.json"
	expect_code 2
	expect_stderr "is the --scene file"
	ln -s "$tmp/scene.json" "$tmp/link.json"
	run run --scene "$tmp/link.json" --frames 1 --stats "$tmp/scene.json"
	expect_code 2
	expect_stderr "is the --scene file"
	cmp -s "$here/good/two_cloths.json" "$tmp/scene.json" || fail "the scene was changed"
	run run --preset xpbd --grid 4x4 --frames 1 --stats "$tmp/x.mp4" --video "$tmp/./x.mp4" --size 32x32
	expect_code 2
	expect_stderr "--video: '$tmp/./x.mp4' is also the --stats file ('$tmp/x.mp4'): each output needs a file of its own"
	[ ! -e "$tmp/x.mp4" ] || fail "a file was written despite the refusal"
	echo "the user's" >"$tmp/old.mp4"
	run run --preset xpbd --grid 4x4 --frames 1 --stats "$tmp/old.mp4" --video "$tmp/old.mp4" --size 32x32
	expect_code 2
	grep -q "the user's" "$tmp/old.mp4" || fail "the existing file was changed"
	run run --preset xpbd --grid 4x4 --frames 1 --stats /dev/null --obj "$tmp/o" --quiet
	expect_code 0
	expect_no_temporaries
}

# Issue 31, item 14: a scene whose "mesh" names a FIFO blocked forever in the open; only a regular
# file is read now (the FIFO lives in the test's folder, nothing writes to it).
test_mesh_fifo() {
	mkfifo "$tmp/m.obj" || fail "mkfifo failed"
	printf '{ "cloth": { "mesh": "m.obj" } }\n' >"$tmp/scene.json"
	timeout 20 "$weft" run --scene "$tmp/scene.json" --frames 1 >"$tmp/stdout" 2>"$tmp/stderr"
	code=$?
	[ "$code" -ne 124 ] || fail "weft blocked on the FIFO (killed after 20 s)"
	expect_code 2
	expect_stderr "m.obj: cannot read: not a regular file (a FIFO; allowed: a regular OBJ file)"
	[ -p "$tmp/m.obj" ] || fail "the FIFO was replaced"
}

# A run in which every frame was discarded (explicit springs far past their stability limit)
# fails with the reason and writes no statistics.
test_all_discarded() {
	run run --scene "$here/good/explodes.json" --stats "$tmp/s.csv"
	expect_code 1
	expect_stderr "every frame (4 of 4) was discarded"
	expect_stderr "non-finite values"
	[ ! -e "$tmp/s.csv" ] || fail "statistics written for a run that simulated nothing"
	[ ! -s "$tmp/stdout" ] || fail "a summary was printed"
	expect_no_temporaries
}

# Statistics are read when asked for (--stats) and once for the summary: a run without --stats
# spends its wall time stepping. At 1 substep x 1 on 128^2 the old per-frame read made a frame
# 2.0-2.3x its stepping time; now 1.01 (the best of three runs, against noise). With --stats the
# summary's final state is the same, and the CSV has every frame.
test_stats_when_asked() {
	local args="--preset xpbd --frames 60 --threads 1 --backend cpu --substeps 1 --iterations 1 --grid 128x128" best=9
	for _ in 1 2 3; do
		run run $args
		expect_code 0
		ratio=$(sed -n 's/.* \([0-9.]*\) ms per frame (\([0-9.]*\) ms stepping).*/\1 \2/p' "$tmp/stdout" | awk '{ printf "%.3f", $1 / $2 }')
		best=$(awk -v a="$best" -v b="$ratio" 'BEGIN { print (b < a ? b : a) }')
	done
	echo "wall time / stepping time without --stats: $best (best of 3)"
	awk -v r="$best" 'BEGIN { exit !(r <= 1.3) }' || fail "a frame took $best x its stepping time without --stats"
	final() { sed -n 's/.*Final state: \(.*\) non-finite values.*/\1/p' "$tmp/stdout"; }
	local without
	without=$(final)
	run run $args --stats "$tmp/s.csv"
	expect_code 0
	[ "$(final)" = "$without" ] || fail "final state with --stats '$(final)' differs from without '$without'"
	[ "$(($(wc -l <"$tmp/s.csv") - 1))" -eq 60 ] || fail "the CSV has $(($(wc -l <"$tmp/s.csv") - 1)) rows, expected 60"
}

# --intersections: three more --stats columns with the counts of every frame, the summary's totals,
# and weft bench's line; the xpbd preset's sheet folds through itself over the sphere (no
# self-collision), so some frames have crossings and the first (flat) has none.
test_intersections() {
	run run --preset xpbd --frames 150 --backend cpu --intersections --stats "$tmp/s.csv"
	expect_code 0
	head -1 "$tmp/s.csv" | grep -q ',non_finite,intersections_self,intersections_cloths,intersections_colliders,intersections_cloths_apart$' || fail "header: $(head -1 "$tmp/s.csv")"
	awk -F, 'NR == 2 && $13 != 0 { exit 1 }' "$tmp/s.csv" || fail "the flat first frame has crossings: $(sed -n 2p "$tmp/s.csv")"
	local with
	with=$(awk -F, 'NR > 1 && $13 + $14 + $15 > 0' "$tmp/s.csv" | wc -l)
	grep -q "frames with any: $with of 150" "$tmp/stdout" || fail "summary: $(cat "$tmp/stdout") (CSV: $with frames with any)"
	[ "$with" -gt 0 ] || fail "no frame with crossings: the check sees nothing"
	run bench --preset xpbd --frames 2 --warmup 0 --backend cpu --intersections
	expect_code 0
	grep -q '^  intersect   0 self, 0 between cloths, 0 with colliders, 0 between cloths kept apart' "$tmp/stdout" || fail "bench: $(cat "$tmp/stdout")"
}

# scenes/drop: the generator writes the committed scene and meshes byte for byte, and a small
# drop it makes (3 layers of 12 x 12 over the cylinder) loads and runs with the intersection count.
test_drop_scene() {
	command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
	local scenes="$here/../../scenes/drop"
	mkdir -p "$tmp/full" "$tmp/small"
	python3 "$scenes/make_drop.py" "$tmp/full" || fail "make_drop.py failed"
	for f in drop.json sheet-70.obj cylinder.obj; do
		cmp -s "$tmp/full/$f" "$scenes/$f" || fail "scenes/drop/$f differs from what make_drop.py writes"
	done
	python3 "$scenes/make_drop.py" "$tmp/small" --layers 3 --grid 12 --frames 4 || fail "make_drop.py (small) failed"
	run run --scene "$tmp/small/drop.json" --backend cpu --intersections --stats "$tmp/s.csv"
	expect_code 0
	grep -q "(3 cloths)" "$tmp/stdout" || fail "summary: $(cat "$tmp/stdout")"
	[ "$(($(wc -l <"$tmp/s.csv") - 1))" -eq 12 ] || fail "the CSV has $(($(wc -l <"$tmp/s.csv") - 1)) rows, expected 4 frames x 3 cloths"
	awk -F, 'NR > 1 && $2 == 0 && $14 + $15 + $16 != 0 { exit 1 }' "$tmp/s.csv" || fail "crossings while the layers fall apart: $(cat "$tmp/s.csv")"
}

# Frames of an earlier run in the --obj folder: refused (nothing touched) unless --overwrite, which
# removes them, and only them, first.
test_old_frames() {
	run run --preset xpbd --grid 4x4 --frames 10 --obj "$tmp/o" --quiet
	expect_code 0
	echo "keep me" >"$tmp/o/notes.txt"
	run run --preset xpbd --grid 4x4 --frames 3 --obj "$tmp/o" --stats "$tmp/s.csv" --quiet
	expect_code 2
	expect_stderr "--obj: '$tmp/o' already holds 10 frames of an earlier run"
	expect_stderr "--overwrite"
	[ "$(find "$tmp/o" -name 'frame_*.obj' | wc -l)" -eq 10 ] || fail "the old frames were touched"
	[ ! -e "$tmp/s.csv" ] || fail "statistics written despite the refusal"
	run run --preset xpbd --grid 4x4 --frames 3 --obj "$tmp/o" --overwrite
	expect_code 0
	expect_stderr "removed 10 old frames"
	[ "$(find "$tmp/o" -name 'frame_*.obj' | wc -l)" -eq 3 ] || fail "expected the 3 new frames only"
	[ -f "$tmp/o/notes.txt" ] || fail "--overwrite removed a file that is not a frame"
	run help run
	grep -q -- '--overwrite' "$tmp/stdout" || fail "weft help run does not explain --overwrite"
}

# A grid whose memory estimate exceeds the machine's memory is refused before any allocation.
test_grid_memory() {
	local kb
	kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
	if [ "${kb:-0}" -gt 27000000 ]; then
		echo "skipped: this machine has enough memory for an 8192x8192 grid"
		exit 77
	fi
	run run --preset xpbd --grid 8192x8192 --frames 1 --backend cpu
	expect_code 2
	expect_stderr "8192x8192 needs about"
	expect_stderr "more than this machine's memory"
	expect_stderr "allowed here: up to about"
}

# Issue 31, item 10: a 4096x4096 grid under a 4 GB address-space limit is refused at once (it took
# 60-80 s to fail "out of memory" when the estimate said 205 bytes a particle and the library held
# 1500), with the figure: the library's estimate, the CLI's message. Skipped where the program
# cannot start under 4 GB (a sanitizer's shadow memory).
test_grid_memory_fast() {
	(ulimit -v 4000000 && "$weft" --version) >/dev/null 2>&1 || { echo "skipped: weft does not start under ulimit -v 4000000"; exit 77; }
	local start end
	start=$(date +%s%N)
	(ulimit -v 4000000 && exec "$weft" run --preset xpbd --grid 4096x4096 --frames 1 --backend cpu --stats "$tmp/s.csv") \
		>"$tmp/stdout" 2>"$tmp/stderr"
	code=$?
	end=$(date +%s%N)
	expect_code 2
	expect_stderr "4096x4096 needs about 20.1 GB"
	expect_stderr "bytes per particle), more than the address-space limit (ulimit -v), 4.1 GB"
	[ $(((end - start) / 1000000)) -lt 2000 ] || fail "refused after $(((end - start) / 1000000)) ms, expected under 2 s"
	echo "refused in $(((end - start) / 1000000)) ms"
	[ ! -e "$tmp/s.csv" ] || fail "statistics written"
	expect_no_temporaries
}

# An output path that is a character device or a FIFO is written in place, never replaced by a
# regular file; a FIFO nobody reads is refused at once (no hang). Special files live in $tmp only.
test_special_outputs() {
	mkfifo "$tmp/fifo" || fail "mkfifo failed"
	run run --preset xpbd --grid 8x8 --frames 3 --stats "$tmp/fifo" --quiet
	expect_code 2
	expect_stderr "$tmp/fifo: is a FIFO with no reader"
	[ -p "$tmp/fifo" ] || fail "the FIFO was replaced"
	cat "$tmp/fifo" >"$tmp/from-fifo.csv" &
	local reader=$!
	run run --preset xpbd --grid 8x8 --frames 3 --stats "$tmp/fifo" --quiet
	expect_code 0
	wait "$reader"
	[ -p "$tmp/fifo" ] || fail "the FIFO was replaced by $(stat -c %F "$tmp/fifo")"
	[ "$(wc -l <"$tmp/from-fifo.csv")" -eq 4 ] || fail "the reader got $(wc -l <"$tmp/from-fifo.csv") lines, expected 4"
	# A character device (the same numbers as /dev/null; mknod needs root, so it may be skipped).
	if mknod "$tmp/null" c 1 3 2>/dev/null; then
		run run --preset xpbd --grid 8x8 --frames 3 --stats "$tmp/null" --obj "$tmp/o" --quiet
		expect_code 0
		[ -c "$tmp/null" ] || fail "the device was replaced by $(stat -c %F "$tmp/null")"
	else
		echo "device part skipped: mknod needs root"
	fi
	expect_no_temporaries
}

# ---------------------------------------------------------------- the other commands

test_presets() {
	run presets
	expect_code 0
	local p
	for p in xpbd compute-cloth spring-mesh; do
		grep -q "^$p " "$tmp/stdout" || fail "preset $p not listed"
	done
}

test_info() {
	run info
	expect_code 0
	grep -q '^weft [0-9]*\.[0-9]*\.[0-9]*$' "$tmp/stdout" || fail "no version line"
	grep -q '^backends: cpu' "$tmp/stdout" || fail "no backends line"
	# Issue 29, item 9: whether the renderer, ffmpeg and MPI are there.
	grep -qE '^renderer: (yes|no|built in)' "$tmp/stdout" || fail "no renderer line"
	grep -qE '^ffmpeg: +(yes|no|not used)' "$tmp/stdout" || fail "no ffmpeg line"
	grep -qE '^mpi: +(yes|no)' "$tmp/stdout" || fail "no mpi line"
	if grep -q '^renderer: yes' "$tmp/stdout"; then
		# The ffmpeg line follows PATH.
		PATH="$tmp/empty" run info
		expect_code 0
		grep -q '^ffmpeg: *no (not on PATH' "$tmp/stdout" || fail "ffmpeg reported without it on PATH"
	fi
}

# Issue 29, item 7: a configure on a machine without cJSON names the Debian package and `make deps`
# (pkg-config is pointed at an empty folder, so it finds no module at all).
test_missing_dependency() {
	command -v cmake >/dev/null || { echo "skipped: no cmake"; exit 0; }
	mkdir -p "$tmp/pc"
	PKG_CONFIG_LIBDIR="$tmp/pc" PKG_CONFIG_PATH="" cmake -S "$here/../.." -B "$tmp/build" >"$tmp/stdout" 2>"$tmp/stderr"
	code=$?
	expect_code 1
	# CMake wraps the message: compare it as one line.
	local joined
	joined=$(tr -s ' \n' '  ' <"$tmp/stderr")
	case $joined in *"install the Debian package libcjson-dev"*'run `make deps`'*) ;;
	*) fail "the configure does not name libcjson-dev and make deps" ;;
	esac
}

test_help() {
	run --version
	expect_code 0
	grep -q '^weft [0-9]' "$tmp/stdout" || fail "--version printed nothing"
	run --help
	expect_code 0
	grep -q 'weft run' "$tmp/stdout" && grep -q 'weft bench' "$tmp/stdout" || fail "help lacks a command"
	run run --help
	expect_code 0
	grep -q -- '--stats FILE.csv' "$tmp/stdout" || fail "run --help lacks --stats"
	run help bench
	expect_code 0
	grep -q -- '--warmup N' "$tmp/stdout" || fail "help bench lacks --warmup"
	# Jacobi takes any sweep count (an odd one copies the result back): the help says so, and an odd
	# count runs.
	run help run
	! grep -q 'even --iterations' "$tmp/stdout" || fail "help run says jacobi needs an even --iterations"
	grep -q 'jacobi: sweeps, any count' "$tmp/stdout" || fail "help run does not say jacobi takes any sweep count"
	run run --preset spring-mesh --grid 8x8 --frames 3 --iterations 3 --backend cpu --quiet
	expect_code 0
}

test_bench() {
	run bench --preset xpbd --grid 16x16 --frames 5 --warmup 1 --threads 1
	expect_code 0
	grep -qE 'median [0-9.]+ +p10 [0-9.]+ +p90 [0-9.]+' "$tmp/stdout" || fail "no percentiles"
	grep -q 'particle-substeps/s' "$tmp/stdout" || fail "no particle-substeps/s"
	grep -q 'constraint projections/s' "$tmp/stdout" || fail "no projections/s"
	# One cloth: cloth-steps/s is frames/s, 1000 / the median ms (to the printed digits).
	awk '/ms\/frame/ {ms = $3} /cloth-steps\/s/ {for (i = 1; i <= NF; ++i) if ($i == "cloth-steps/s") r = $(i - 1)}
		END {e = r * ms / 1000 - 1; exit !(r > 0 && e < 1e-3 && e > -1e-3)}' "$tmp/stdout" || fail "cloth-steps/s is not 1000 / ms a frame"
	grep -q '16x16; 256 particles' "$tmp/stdout" || fail "no sizes"
	grep -q 'threads 1' "$tmp/stdout" || fail "no thread count"
	! grep -q 'stages ms' "$tmp/stdout" || fail "stage times without --stages"
	# --stages: a median per stage, the solve stage non-zero, the unused fused stage zero.
	run bench --preset xpbd --grid 16x16 --frames 5 --warmup 1 --threads 1 --backend cpu --stages
	expect_code 0
	grep -qE 'stages ms +prepare [0-9.]+ +predict [0-9.]+ +solve (0\.[0-9]*[1-9][0-9]*|[1-9][0-9]*\.[0-9]+) +finish [0-9.]+ +normals [0-9.]+ +fused 0\.0000 +\(medians, wall clock\)' \
		"$tmp/stdout" || fail "no per-stage medians"
	# Issue 29, item 8: the floor is only given with a device's measured figures (the H200's);
	# elsewhere the report says it is not known.
	grep -q '^  floor       not known for cpu' "$tmp/stdout" || fail "no 'floor not known' line on the CPU"
	if WEFT_VK_DEVICE=llvmpipe "$weft" info | grep -q '^device [0-9]*: llvmpipe'; then
		WEFT_VK_DEVICE=llvmpipe run bench --preset xpbd --grid 16x16 --frames 3 --warmup 1 --backend vulkan
		expect_code 0
		grep -q '^  floor       not known for llvmpipe' "$tmp/stdout" || fail "no 'floor not known' line on lavapipe"
		! grep -q 'vs floor' "$tmp/stdout" || fail "a floor comparison on lavapipe"
	fi
	# On a terminal, progress on stderr ("\r" lines, from half a second into a phase: about 1 s each
	# here) while the frames run; none in a pipe.
	grep -q 'frame' "$tmp/stderr" && fail "progress written to a pipe"
	if command -v script >/dev/null; then
		script -qec "'$weft' bench --preset xpbd --grid 256x256 --frames 100 --warmup 100 --threads 1 --backend cpu" \
			"$tmp/typescript" >/dev/null 2>&1
		grep -aq 'weft bench: warm-up frame' "$tmp/typescript" || fail "no warm-up progress on a terminal"
		grep -aq 'weft bench: timed frame' "$tmp/typescript" || fail "no timed progress on a terminal"
	fi
}

# Command-line overrides reach the world: a jacobi run with an odd sweep count succeeds (the
# default def's single iteration is valid for every solver).
test_overrides() {
	run run --preset xpbd --solver jacobi --iterations 3 --substeps 3 --grid 10x7 --frames 2 --backend cpu --obj "$tmp/o"
	expect_code 0
	[ "$(count_lines '^v ' "$tmp/o/frame_0002.obj")" -eq 70 ] || fail "--grid 10x7 did not give 70 vertices"
	grep -q 'backend cpu' "$tmp/stdout" || fail "summary does not name the backend"
}

# --set PATH=VALUE reaches the defs through the library's def table, for fields no named option
# sets: a 0.01 s time step gives the CSV's times 0.01 and 0.02 (default 1/60), zero gravity leaves
# the resting sheet's momentum at 0 (-3.757 kg m/s after one frame under 9.8 m/s2), and cloth
# fields reach every cloth (10x7: 70 vertices). Options apply in the order given: a later --grid
# or --set wins. weft help fields lists the fields with the table's ranges, and each of the 70
# it lists (all but world.deviceName) runs when set to its default.
test_set_fields() {
	run run --preset xpbd --frames 2 --backend cpu --quiet --stats "$tmp/s.csv" --set step.timeStep=0.01 --set world.gravity=0,0,0
	expect_code 0
	awk -F, 'NR == 2 { t1 = $2; p1 = $10 } NR == 3 { t2 = $2 } END {
		exit !(t1 > 0.0099999 && t1 < 0.0100001 && t2 > 0.0199999 && t2 < 0.0200001 && p1 == 0) }' "$tmp/s.csv" ||
		fail "--set step.timeStep=0.01 / world.gravity=0,0,0 did not reach the world: $(sed -n 2,3p "$tmp/s.csv")"
	run run --preset xpbd --frames 1 --backend cpu --quiet --stats "$tmp/d.csv"
	expect_code 0
	awk -F, 'NR == 2 { exit !($10 < -3.7 && $10 > -3.8) }' "$tmp/d.csv" || fail "the default run's momentum_y is not about -3.757"
	run run --preset xpbd --frames 2 --backend cpu --quiet --obj "$tmp/a" --set cloth.cols=10 --set rows=7
	expect_code 0
	[ "$(count_lines '^v ' "$tmp/a/frame_0002.obj")" -eq 70 ] || fail "--set cloth.cols=10 --set rows=7 did not give 70 vertices"
	run run --preset xpbd --frames 2 --backend cpu --quiet --obj "$tmp/b" --set cloth.cols=4 --grid 10x7
	expect_code 0
	[ "$(count_lines '^v ' "$tmp/b/frame_0002.obj")" -eq 70 ] || fail "a --grid after --set cloth.cols did not win"
	run run --preset xpbd --frames 2 --backend cpu --quiet --obj "$tmp/c" --grid 4x4 --set cloth.cols=10 --set cloth.rows=7
	expect_code 0
	[ "$(count_lines '^v ' "$tmp/c/frame_0002.obj")" -eq 70 ] || fail "a --set after --grid did not win"
	run help fields
	expect_code 0
	grep -q 'world.step.timeStep  *a number in \[1e-7, 1\] (default 0.0166667)' "$tmp/stdout" || fail "help fields lacks step.timeStep's range"
	grep -q 'cloth.material.damping  *a number in \[0, 1000\]' "$tmp/stdout" || fail "help fields lacks material.damping"
	# Every field the help lists is taken at its own default (a new row of the table is settable
	# without code in the CLI); the device name is left out (text, no default).
	local fields=0 path value
	while read -r path value; do
		"$weft" run --preset xpbd --frames 1 --quiet --set "$path=$value" --backend cpu >/dev/null 2>"$tmp/field.err" ||
			fail "--set $path=$value (its default) failed: $(cat "$tmp/field.err")"
		fields=$((fields + 1))
	done < <(awk '/^  (world|cloth)\./ && !/deviceName/ { d = $0; sub(/.*\(default /, "", d); sub(/\).*/, "", d); print $1, d }' "$tmp/stdout")
	[ "$fields" -ge 70 ] || fail "weft help fields lists $fields settable fields, expected at least 70"
	run help run
	grep -q -- '--set PATH=VALUE' "$tmp/stdout" || fail "help run lacks --set"
	grep -q -- '--substeps N .*an integer in \[1, 4096\]' "$tmp/stdout" || fail "help run lacks --substeps' range from the table"
}

# Tearing through the OBJ export: the torn frames have the copies' vertices and faces that name
# only vertices of their own object; --tear-strain 0 keeps the sheet whole; the self-collision
# options reach the world (a thickness out of range is the library's message, by field).
test_tear() {
	local scene="$here/../../scenes/tear.json"
	run run --scene "$scene" --frames 60 --backend cpu --obj "$tmp/t"
	expect_code 0
	local first last
	first=$(count_lines '^v ' "$tmp/t/frame_0001.obj")
	last=$(count_lines '^v ' "$tmp/t/frame_0060.obj")
	[ "$first" -eq 1600 ] || fail "frame 1 has $first vertices, expected 1600"
	[ "$last" -gt 1600 ] || fail "frame 60 has $last vertices: the sheet did not tear"
	awk -v n="$last" '/^f /{ for (i = 2; i <= 4; ++i) { split($i, k, "/"); if (k[1] < 1 || k[1] > n) bad++ } } END { exit bad > 0 }' \
		"$tmp/t/frame_0060.obj" || fail "a face of frame 60 names a vertex past $last"
	# A torn grid is exported as a mesh: one vt per triangle corner.
	[ "$(count_lines '^vt ' "$tmp/t/frame_0060.obj")" -eq $((3 * $(count_lines '^f ' "$tmp/t/frame_0060.obj"))) ] ||
		fail "frame 60: not one vt per triangle corner"
	run run --scene "$scene" --frames 60 --backend cpu --obj "$tmp/u" --tear-strain 0
	expect_code 0
	[ "$(count_lines '^v ' "$tmp/u/frame_0060.obj")" -eq 1600 ] || fail "--tear-strain 0 still tore"
	run run --scene "$scene" --frames 2 --backend cpu --self-collision on --self-thickness 0.01 --self-friction 0.5 --quiet
	expect_code 0
}

test_scene() {
	local scene=$1
	run run --scene "$scene" --frames 2 --stats "$tmp/s.csv" --backend cpu
	expect_code 0
	[ "$(wc -l <"$tmp/s.csv")" -ge 3 ] || fail "fewer than 2 CSV rows"
	grep -q 'weft run: 2 frames' "$tmp/stdout" || fail "no summary"
	! grep -q ',[1-9][0-9]*$' "$tmp/s.csv" || fail "non-finite values in $(basename "$scene")"
}

# Rendering: --png writes every Nth frame, --video gives an MP4 of the requested size and count.
test_render_outputs() {
	run run --preset compute-cloth --frames 12 --every 2 --size 96x64 --png "$tmp/png" --video "$tmp/v.mp4" --backend cpu
	expect_code 0
	[ "$(ls "$tmp/png" | grep -c '^frame_00[0-9][0-9].png$')" -eq 6 ] || fail "expected 6 PNG files, got: $(ls "$tmp/png")"
	[ -f "$tmp/png/frame_0012.png" ] || fail "frame_0012.png missing"
	[ -z "$(find "$tmp" -name '*.tmp*' | head -3)" ] || fail "temporary files left behind"
	if command -v ffprobe >/dev/null; then
		local info
		info=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames,width,height -of csv=p=0 "$tmp/v.mp4")
		[ "$info" = "96,64,6" ] || fail "ffprobe reports '$info', expected 96,64,6"
	fi
}

# Issue 31, item 5: a disk that fills while ffmpeg finishes the file. ffmpeg logs "Error writing
# trailer ... No space left on device" (here "File too large": a 4 KB RLIMIT_FSIZE, which ffmpeg
# inherits, with SIGXFSZ ignored) and exits 0; weft used to rename the broken MP4 over the earlier
# good one and exit 0. Now: exit 1, the message, the earlier file as it was, no temporary.
test_render_video_disk_full() {
	command -v ffmpeg >/dev/null || { echo "skipped: no ffmpeg"; exit 0; }
	run run --preset xpbd --grid 8x8 --frames 30 --size 64x64 --video "$tmp/v.mp4" --backend cpu --quiet
	expect_code 0
	[ "$(stat -c %s "$tmp/v.mp4")" -gt 4096 ] || fail "the first video is too small for the test ($(stat -c %s "$tmp/v.mp4") bytes)"
	cp "$tmp/v.mp4" "$tmp/good.mp4"
	MESA_SHADER_CACHE_DISABLE=true run_with_file_limit 4 run --preset xpbd --grid 8x8 --frames 30 --size 64x64 \
		--video "$tmp/v.mp4" --backend cpu --quiet
	expect_code 1
	expect_stderr "--video: $tmp/v.mp4: ffmpeg could not write the video"
	expect_stderr "(the existing $tmp/v.mp4 was left as it was)"
	cmp -s "$tmp/v.mp4" "$tmp/good.mp4" || fail "the earlier video was replaced ($(stat -c %s "$tmp/v.mp4") bytes)"
	expect_no_temporaries
	# A new name: nothing is left under it.
	MESA_SHADER_CACHE_DISABLE=true run_with_file_limit 4 run --preset xpbd --grid 8x8 --frames 30 --size 64x64 \
		--video "$tmp/w.mp4" --backend cpu --quiet
	expect_code 1
	[ ! -e "$tmp/w.mp4" ] || fail "a broken video was left as $tmp/w.mp4"
	expect_no_temporaries
}

# --camera: the picture is taken from the given eye, the same one twice gives the same picture.
test_render_camera() {
	run run --preset xpbd --grid 8x8 --frames 1 --size 64x48 --png "$tmp/a" --backend cpu --quiet
	expect_code 0
	run run --preset xpbd --grid 8x8 --frames 1 --size 64x48 --png "$tmp/b" --backend cpu --quiet --camera 0,4,0.1,0,0,0,30
	expect_code 0
	run run --preset xpbd --grid 8x8 --frames 1 --size 64x48 --png "$tmp/c" --backend cpu --quiet --camera=0,4,0.1,0,0,0,30
	expect_code 0
	! cmp -s "$tmp/a/frame_0001.png" "$tmp/b/frame_0001.png" || fail "--camera did not change the picture"
	cmp -s "$tmp/b/frame_0001.png" "$tmp/c/frame_0001.png" || fail "the same --camera gave two pictures"
}

# --video names reach ffmpeg as files: "-1.mp4" is not an option and "a:b.mp4" not a protocol; a
# FIFO with a reader gets a streamable MP4 in place whatever its name; ".MP4" is an MP4 name too.
test_render_video_names() {
	command -v ffmpeg >/dev/null || { echo "skipped: no ffmpeg"; exit 0; }
	(cd "$tmp" && "$weft" run --preset xpbd --grid 8x8 --frames 3 --size 32x32 --video -1.mp4 --backend cpu --quiet) \
		>"$tmp/stdout" 2>"$tmp/stderr"
	code=$?
	expect_code 0
	[ -s "$tmp/-1.mp4" ] || fail "no video file named '-1.mp4'"
	run run --preset xpbd --grid 8x8 --frames 3 --size 32x32 --video "$tmp/upper.MP4" --backend cpu --quiet
	expect_code 0
	[ -s "$tmp/upper.MP4" ] || fail "no video file named 'upper.MP4'"
	(cd "$tmp" && "$weft" run --preset xpbd --grid 8x8 --frames 3 --size 32x32 --video a:b.mp4 --backend cpu --quiet) \
		>"$tmp/stdout" 2>"$tmp/stderr"
	code=$?
	expect_code 0
	[ -s "$tmp/a:b.mp4" ] || fail "no video file named 'a:b.mp4'"
	mkfifo "$tmp/v.fifo"
	cat "$tmp/v.fifo" >"$tmp/from-fifo.mp4" &
	local reader=$!
	run run --preset xpbd --grid 8x8 --frames 3 --size 32x32 --video "$tmp/v.fifo" --backend cpu --quiet
	expect_code 0
	wait "$reader"
	[ -p "$tmp/v.fifo" ] || fail "the FIFO was replaced"
	if command -v ffprobe >/dev/null; then
		local n
		n=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$tmp/from-fifo.mp4")
		[ "$n" = 3 ] || fail "ffprobe counts '$n' frames through the FIFO, expected 3"
	fi
	expect_no_temporaries
}

# An image larger than the device can hold is refused before the first step, with the limit named
# (lavapipe's device-local heap is 2 GiB: 8192x8192 with 4x MSAA needs about 2.5 GiB).
test_render_device_limit() {
	WEFT_VK_DEVICE=llvmpipe run run --preset xpbd --grid 8x8 --frames 2 --size 8192x8192 --png "$tmp/png" --backend cpu
	expect_code 1
	expect_stderr "image size 8192x8192"
	expect_stderr "device-local memory"
	expect_stderr "allowed: at most"
	[ -z "$(find "$tmp" -name '*.png')" ] || fail "PNG files written despite the refusal"
}

# --png into a folder with frames of an earlier run: refused unless --overwrite.
test_render_old_frames() {
	run run --preset xpbd --grid 8x8 --frames 4 --size 32x32 --png "$tmp/png" --backend cpu --quiet
	expect_code 0
	run run --preset xpbd --grid 8x8 --frames 2 --size 32x32 --png "$tmp/png" --backend cpu --quiet
	expect_code 2
	expect_stderr "--png: '$tmp/png' already holds 4 frames of an earlier run"
	run run --preset xpbd --grid 8x8 --frames 2 --size 32x32 --png "$tmp/png" --backend cpu --quiet --overwrite
	expect_code 0
	[ "$(find "$tmp/png" -name 'frame_*.png' | wc -l)" -eq 2 ] || fail "expected the 2 new PNG files only"
}

# Without ffmpeg the PNGs are still written, the run says why there is no video and fails.
test_render_no_ffmpeg() {
	mkdir -p "$tmp/empty-path"
	PATH="$tmp/empty-path" run run --preset xpbd --frames 4 --size 64x48 --png "$tmp/png" --video "$tmp/v.mp4" --backend cpu
	expect_code 1
	expect_stderr "ffmpeg"
	expect_stderr "the PNG frames are still written"
	[ "$(ls "$tmp/png" | grep -c '\.png$')" -eq 4 ] || fail "expected 4 PNG files"
	[ ! -e "$tmp/v.mp4" ] || fail "a video file was left behind"
}

# ---------------------------------------------------------------- caches (issue 29, item 6)

# The layer's reader and check (standard-library Python: CI always has it, with or without Blender).
usda_check() { # LAYER OBJ_DIR ARGS...
	python3 "$here/usda.py" check "$@" >"$tmp/check.out" 2>&1 || { cat "$tmp/check.out" >&2; fail "usda.py check $*"; }
	cat "$tmp/check.out"
}

# --usd: the layer holds every frame's points and normals as the OBJ frames print them, the faces and
# texture coordinates, the frame rate and time codes, the materials (the OBJ frames' weft.mtl colours)
# and the moving colliders: the xpbd preset (sphere, floor), the skirt (capsules, a mesh with a UV
# seam), a tearing sheet (faces sampled over time) and two cloths in one world.
test_usd_layer() {
	command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
	local scenes="$here/../../scenes"
	run run --preset xpbd --frames 30 --usd "$tmp/xpbd.usda" --obj "$tmp/xpbd" --backend cpu
	expect_code 0
	grep -q "Wrote a USD layer of 30 frames to $tmp/xpbd.usda" "$tmp/stdout" || fail "the summary does not name the USD layer"
	usda_check "$tmp/xpbd.usda" "$tmp/xpbd" --frames 30 --fps 60 --colliders sphere,floor --moving sphere
	run run --scene "$scenes/skirt.json" --frames 30 --usd "$tmp/skirt.usda" --obj "$tmp/skirt" --backend cpu --quiet
	expect_code 0
	usda_check "$tmp/skirt.usda" "$tmp/skirt" --frames 30 --fps 60 --colliders sphere,floor,capsule_0,capsule_1 \
		--moving sphere,capsule_0,capsule_1
	grep -q 'interpolation = "faceVarying"' "$tmp/skirt.usda" || fail "the skirt's UV seam is not kept (st per corner)"
	run run --scene "$scenes/tear.json" --frames 60 --usd "$tmp/tear.usda" --obj "$tmp/tear" --backend cpu --quiet
	expect_code 0
	usda_check "$tmp/tear.usda" "$tmp/tear" --frames 60 --fps 60 --colliders floor,sphere_0 --moving sphere_0 --tears
	run run --scene "$here/good/two_cloths.json" --usd "$tmp/two.usda" --obj "$tmp/two" --quiet
	expect_code 0
	usda_check "$tmp/two.usda" "$tmp/two" --frames 3 --fps 60
	# A time step that is no whole fraction of a second keeps its rate: 1 / 0.013 s.
	run run --preset spring-mesh --grid 6x6 --frames 2 --usd "$tmp/s.usda" --quiet
	expect_code 0
	grep -q '^    framesPerSecond = ' "$tmp/s.usda" || fail "no framesPerSecond"
	# Written in place into a device (the scratch file then goes to TMPDIR).
	run run --preset xpbd --grid 4x4 --frames 2 --usd /dev/null --quiet
	expect_code 0
	expect_no_temporaries
	run help run
	grep -q -- '--usd FILE.usda' "$tmp/stdout" || fail "weft help run does not explain --usd"
}

# --usd to places that cannot take it: refused before the first step, or, for a disk that fills,
# the run fails with the reason and leaves no file (an earlier layer of that name stays as it was).
test_usd_bad_outputs() {
	mkdir -p "$tmp/folder.usda"
	run run --preset xpbd --frames 2 --usd "$tmp/folder.usda" --stats "$tmp/s.csv"
	expect_code 2
	expect_stderr "weft run: --usd: '$tmp/folder.usda' is a folder, not a file name"
	[ ! -e "$tmp/s.csv" ] || fail "statistics written despite the refusal"
	echo "not a folder" >"$tmp/file"
	run run --preset xpbd --frames 2 --usd "$tmp/file/x.usda"
	expect_code 2
	expect_stderr "weft run: --usd: '$tmp/file' is not a folder"
	run run --preset xpbd --frames 2 --usd "$tmp/x.usdc"
	expect_code 2
	expect_stderr "weft run: --usd: '$tmp/x.usdc' is a binary USD name: weft writes ASCII USD only; give a .usda file name"
	run run --preset xpbd --frames 2 --usd "$tmp/x.usdz"
	expect_code 2
	expect_stderr "is a binary USD name"
	run run --preset xpbd --frames 2 --usd "$tmp/x.abc"
	expect_code 2
	expect_stderr "weft run: --usd: '$tmp/x.abc' does not end in .usda (allowed: a .usda (or .usd) file path: ASCII USD)"
	run run --preset xpbd --frames 2 --usd "$tmp/same.usda" --stats "$tmp/./same.usda"
	expect_code 2
	expect_stderr "is also the --stats file"
	mkdir -p "$tmp/o"
	run run --preset xpbd --frames 2 --obj "$tmp/o" --usd "$tmp/o/weft.mtl"
	expect_code 2
	expect_stderr "--usd: '$tmp/o/weft.mtl' does not end in .usda"
	run run --preset xpbd --frames 2 --obj "$tmp/o" --stats "$tmp/o/weft.mtl"
	expect_code 2
	expect_stderr "--stats: '$tmp/o/weft.mtl' is also the --obj file"
	mkfifo "$tmp/fifo.usda"
	run run --preset xpbd --frames 2 --usd "$tmp/fifo.usda"
	expect_code 2
	expect_stderr "$tmp/fifo.usda: is a FIFO with no reader"
	rm -f "$tmp/fifo.usda"
	[ -z "$(find "$tmp" -name '*.usd*' -type f)" ] || fail "a USD file was written despite a refusal: $(find "$tmp" -name '*.usd*')"
	# A full disk: a 256 KB file size limit (SIGXFSZ ignored, so writes fail with EFBIG).
	run run --preset xpbd --frames 3 --usd "$tmp/v.usda" --quiet
	expect_code 0
	cp "$tmp/v.usda" "$tmp/good.usda"
	run_with_file_limit 256 run --preset xpbd --frames 30 --usd "$tmp/v.usda" --quiet
	expect_code 1
	expect_stderr "weft run: --usd: $tmp/v.usda: cannot write: File too large"
	cmp -s "$tmp/v.usda" "$tmp/good.usda" || fail "the earlier layer was changed"
	run_with_file_limit 256 run --preset xpbd --frames 30 --usd "$tmp/w.usda" --quiet
	expect_code 1
	[ ! -e "$tmp/w.usda" ] || fail "a broken layer was left as $tmp/w.usda"
	expect_no_temporaries
	[ -z "$(find "$tmp" -name '.*' -type f)" ] || fail "hidden files left: $(find "$tmp" -name '.*' -type f)"
}

# SIGTERM: the layer is completed with the frames finished so far (endTimeCode n).
test_usd_interrupted() {
	command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
	"$weft" run --preset xpbd --grid 6x6 --frames 100000 --usd "$tmp/i.usda" --obj "$tmp/frames" \
		>"$tmp/stdout" 2>"$tmp/stderr" &
	local pid=$!
	wait_for_frame "$tmp/frames" 3 "$pid" || fail "no frames appeared"
	kill -TERM "$pid"
	wait_for_exit "$pid" "weft run (SIGTERM)"
	wait "$pid"
	code=$?
	expect_code 130
	local n
	n=$(sed -n 's/.*interrupted after \([0-9]*\) frame.*/\1/p' "$tmp/stderr")
	[ -n "$n" ] && [ "$n" -ge 3 ] || fail "the message does not say how many frames were finished"
	expect_stderr "kept: $n OBJ files in $tmp/frames, USD layer of $n frames in $tmp/i.usda"
	usda_check "$tmp/i.usda" "$tmp/frames" --frames "$n" --fps 60 --colliders sphere,floor --moving sphere
	expect_no_temporaries
}

# --obj writes DIR/weft.mtl, a material per cloth, and the frames name it (mtllib, usemtl).
test_obj_mtl() {
	run run --scene "$here/good/two_cloths.json" --obj "$tmp/o" --quiet
	expect_code 0
	local mtl=$tmp/o/weft.mtl obj=$tmp/o/frame_0003.obj
	[ -f "$mtl" ] || fail "no weft.mtl"
	[ "$(count_lines '^newmtl cloth_[01]$' "$mtl")" -eq 2 ] || fail "weft.mtl does not have cloth_0 and cloth_1"
	[ "$(count_lines '^Kd [0-9.e-]* [0-9.e-]* [0-9.e-]*$' "$mtl")" -eq 2 ] || fail "weft.mtl: no Kd per material"
	[ "$(sed -n 2p "$obj")" = "mtllib weft.mtl" ] || fail "the frame does not name weft.mtl: $(sed -n 2p "$obj")"
	# usemtl before each object's faces: the first f of cloth_1 follows "usemtl cloth_1".
	awk '/^o /{o=$2} /^usemtl /{m=$2} /^f /{ if (m != o) bad++ } END { exit bad > 0 }' "$obj" || fail "faces without their cloth's usemtl"
	[ "$(count_lines '^usemtl ' "$obj")" -eq 2 ] || fail "expected one usemtl per object"
	expect_no_temporaries
}

# Blender (when installed) plays the layer: the mesh's vertices at frames 1, middle and last equal
# the OBJ frames within 1e-5 m and move, the frame range, the material's colour, the collider
# objects. Skipped (77) without blender, or with a blender built without USD (Debian 12's 3.4.1).
cache_runs() { # the three runs both Blender tests read
	run run --preset xpbd --frames 30 --usd "$tmp/xpbd.usda" --obj "$tmp/xpbd" --backend cpu --quiet
	expect_code 0
	run run --scene "$here/../../scenes/skirt.json" --frames 30 --usd "$tmp/skirt.usda" --obj "$tmp/skirt" --backend cpu --quiet
	expect_code 0
	run run --scene "$here/../../scenes/tear.json" --frames 60 --usd "$tmp/tear.usda" --obj "$tmp/tear" --backend cpu --quiet
	expect_code 0
}

blender_check() { # MODE ARGS...
	blender --background --factory-startup --python "$here/blender_usd.py" -- "$@" >"$tmp/blender.out" 2>&1
	local rc=$?
	grep -E '^(FAILED|note|skipped|cloth_|blender_usd)|Error' "$tmp/blender.out"
	[ "$rc" -ne 77 ] || exit 77
	[ "$rc" -eq 0 ] || { tail -n 30 "$tmp/blender.out" >&2; fail "blender $1 check of $2 (exit code $rc)"; }
}

test_usd_blender() {
	command -v blender >/dev/null || { echo "skipped: no blender on PATH (apt-get install blender; make deps does not install it)"; exit 77; }
	cache_runs
	blender_check usd "$tmp/xpbd.usda" "$tmp/xpbd" 30 60 sphere,floor
	blender_check usd "$tmp/skirt.usda" "$tmp/skirt" 30 60 sphere,floor,capsule_0,capsule_1
	blender_check usd "$tmp/tear.usda" "$tmp/tear" 60 60 floor,sphere_0
}

# The OBJ frames and weft.mtl through Blender's OBJ importer: its vertices equal the layer's points
# as the OBJ prints them, the faces, the material and its colour, the UV map.
test_obj_blender() {
	command -v blender >/dev/null || { echo "skipped: no blender on PATH (apt-get install blender; make deps does not install it)"; exit 77; }
	cache_runs
	blender_check obj "$tmp/xpbd.usda" "$tmp/xpbd" 30
	blender_check obj "$tmp/skirt.usda" "$tmp/skirt" 30
	blender_check obj "$tmp/tear.usda" "$tmp/tear" 60
}

# ---------------------------------------------------------------- dispatch

case "$kind" in
case) test_case "$3" ;;
scene) test_scene "$3" ;;
*)
	declare -F "test_$kind" >/dev/null || fail "no test '$kind'"
	"test_$kind"
	;;
esac
echo "passed: $kind ${3:-}"
