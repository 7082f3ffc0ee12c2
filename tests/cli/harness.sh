# The shell tests' common part (sourced by tests/cli/cli_test.sh and tests/sweep/sweep_test.sh):
# a scratch folder $tmp removed on exit, and running weft ($weft) with its exit code and output kept.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAILED: $*" >&2
	for f in "$tmp/stdout" "$tmp/stderr"; do
		[ -s "$f" ] && { echo "--- ${f##*/}:" >&2; head -c 3000 "$f" >&2; }
	done
	exit 1
}

# Runs weft with the given arguments; the exit code goes to $code, the output to files.
run() {
	"$weft" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	code=$?
}

# run, with a full disk past KB kilobytes: RLIMIT_FSIZE with SIGXFSZ ignored, so writes fail with EFBIG.
run_with_file_limit() { # KB ARGS...
	local kb=$1
	shift
	(trap '' XFSZ && ulimit -f "$kb" && exec "$weft" "$@") >"$tmp/stdout" 2>"$tmp/stderr"
	code=$?
}

expect_code() {
	[ "$code" -eq "$1" ] || fail "weft ${*:2}: exit code $code, expected $1"
}

expect_stderr() {
	grep -qF -- "$1" "$tmp/stderr" || fail "stderr does not contain: $1"
}

# Waits until FOLDER holds frame_N.obj of a run in the background (PID): 0, or 1 when it ended first.
wait_for_frame() { # FOLDER N PID
	local i name
	name=$(printf 'frame_%04d.obj' "$2")
	for i in $(seq 200); do
		[ -e "$1/$name" ] && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# Waits up to 20 s for PID to end; then kills it and fails.
wait_for_exit() { # PID WHAT
	local i
	for i in $(seq 200); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$1"
	fail "$2 did not stop within 20 s"
}
