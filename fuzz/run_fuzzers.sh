#!/usr/bin/env bash
# Runs each libFuzzer target of a WEFT_FUZZ build for a bounded time, seeded from the repository:
#   run_fuzzers.sh BUILD_DIR SECONDS [more libFuzzer flags]
# Seeds: scene files from scenes/ and tests/cli/{good,bad}; OBJ files (scenes/meshes and small
# forms); argument sets from tests/cli/cases.txt; sweep files from scenes/sweeps and tests/sweep.
# New inputs go to BUILD_DIR/fuzz/<target>-corpus (kept between runs), crashes to BUILD_DIR/fuzz/.
# Exit code: 0 when no target found anything, else the first failing target's.
# WEFT_FUZZ_TARGETS="scene sweep" runs only those; WEFT_FUZZ_JOBS=2 runs two targets at a time.
set -u
build=$1
seconds=$2
shift 2
extra=("$@")
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$build/fuzz
mkdir -p "$work/scene-seed" "$work/args-seed" "$work/obj-seed" "$work/sweep-seed" "$work/scene-corpus" "$work/args-corpus" "$work/obj-corpus" \
	"$work/sweep-corpus"

cp "$root"/scenes/*.json "$root"/tests/cli/good/*.json "$root"/tests/cli/bad/*.json "$work/scene-seed/"
# Sweep seeds: the shipped sweep files (their "../scene.json" resolves: the target names its input
# scenes/sweeps/fuzz.json) and the tests' (their base scene path made one of scenes/).
cp "$root"/scenes/sweeps/*.json "$work/sweep-seed/"
for f in "$root"/tests/sweep/*.json; do
	sed 's|"\.\./\.\./scenes/|"../|' "$f" >"$work/sweep-seed/test_$(basename "$f")"
done
# OBJ seeds: the shipped meshes' first lines (the whole skirt is slow to mutate) and small forms.
head -c 4000 "$root"/scenes/meshes/skirt.obj >"$work/obj-seed/skirt_head.obj"
printf 'v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nf 1/1 4/4 3/3 2/2\nf -4 -3 -2\n' >"$work/obj-seed/quad.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0.5 0 1\nv 2 0 0\nvn 0 1 0\nf 1//1 3//1 2//1\nf 2/1/1 3/1/1 4/1/1\n' >"$work/obj-seed/forms.obj"

# One seed per run/bench line of cases.txt: a byte for the command (0 run, 1 bench), then the
# arguments one per line.
n=0
while IFS='|' read -r name code text more args; do
	case "$name" in '#'* | '') continue ;; esac
	set -f
	# shellcheck disable=SC2086
	set -- $args
	set +f
	[ $# -ge 1 ] || continue
	case "$1" in run) cmd='\000' ;; bench) cmd='\001' ;; *) continue ;; esac
	shift
	{
		printf "$cmd"
		first=1
		for a in "$@"; do
			a=${a//@bad/$root/tests/cli/bad}
			a=${a//@good/$root/tests/cli/good}
			a=${a//@tmp//tmp/weft-fuzz}
			[ $first -eq 1 ] || printf '\n'
			printf '%s' "$a"
			first=0
		done
	} >"$work/args-seed/case_$n"
	n=$((n + 1))
done <"$root/tests/cli/cases.txt"

# One target: runs it, prints its summary, returns its exit code.
run_target() {
	local target=$1 exe code
	exe=$build/fuzz/weft_fuzz_$target
	[ -x "$exe" ] || exe=$build/weft_fuzz_$target
	[ -x "$exe" ] || { echo "run_fuzzers.sh: $target: no executable in $build/fuzz" >&2; return 2; }
	echo "== weft_fuzz_$target: $seconds s, seeds $(ls "$work/$target-seed" | wc -l)"
	"$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-dict="$here/$target.dict" -artifact_prefix="$work/$target-" "${extra[@]}" \
		"$work/$target-corpus" "$work/$target-seed" >"$work/$target.log" 2>&1
	code=$?
	grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb)|ERROR|SUMMARY' "$work/$target.log" | tail -6
	echo "   corpus: $(ls "$work/$target-corpus" | wc -l) inputs; log: $work/$target.log"
	if [ $code -ne 0 ]; then
		echo "weft_fuzz_$target FAILED (exit $code); see $work/$target.log and $work/$target-crash-*" >&2
	fi
	return $code
}

# WEFT_FUZZ_JOBS targets at a time (default 1), each batch's summaries printed in order once it ends.
jobs=${WEFT_FUZZ_JOBS:-1}
targets=(${WEFT_FUZZ_TARGETS:-scene obj args sweep})
status=0
for ((b = 0; b < ${#targets[@]}; b += jobs)); do
	batch=("${targets[@]:b:jobs}")
	pids=()
	for target in "${batch[@]}"; do
		run_target "$target" >"$work/$target.summary" 2>&1 &
		pids+=($!)
	done
	for k in "${!batch[@]}"; do
		wait "${pids[$k]}"
		code=$?
		cat "$work/${batch[$k]}.summary"
		[ $code -eq 0 ] || [ $status -ne 0 ] || status=$code
	done
done
exit $status
