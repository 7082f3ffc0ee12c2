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

expect_code() {
	[ "$code" -eq "$1" ] || fail "weft ${*:2}: exit code $code, expected $1"
}

expect_stderr() {
	grep -qF -- "$1" "$tmp/stderr" || fail "stderr does not contain: $1"
}
