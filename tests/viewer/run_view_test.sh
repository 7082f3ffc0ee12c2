#!/bin/sh
# Runs one scripted weft-view session under Xvfb, then checks its log and screenshots.
#   run_view_test.sh MODE VIEWER CHECKER SCRIPT OUTDIR [viewer options...]
# Exits 77 (ctest: skipped) when xvfb-run is missing. VIEW_PRELOAD, when set, is preloaded into the
# viewer only (sanitizer builds: see keep_modules.c), not into Xvfb. VIEW_DISPLAY is the first X
# display number to try (each test its own, so parallel ctest runs do not race for the same one).
mode=$1 viewer=$2 checker=$3 script=$4 out=$5
shift 5
if ! command -v xvfb-run >/dev/null 2>&1; then
	echo "SKIP: xvfb-run not found; the viewer tests need a virtual display (Debian packages xvfb and xauth)"
	exit 77
fi
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
display=${VIEW_DISPLAY:-99}
# The viewer's own exit code goes through a file: xvfb-run's status also reports its clean-up,
# which can fail when several virtual displays start and stop at once (seen under ctest -j2).
rcfile="$out/exit-code"
rm -f "$rcfile"
run_viewer() {
	xvfb-run -a -n "$display" -s "-screen 0 1024x768x24" sh -c '"$@"; echo $? > "$RCFILE"' viewer "$@"
}
export RCFILE="$rcfile"
if [ -n "$VIEW_PRELOAD" ]; then
	run_viewer env LD_PRELOAD="$VIEW_PRELOAD" "$viewer" --script "$script" --screenshot-dir "$out" "$@"
else
	run_viewer "$viewer" --script "$script" --screenshot-dir "$out" "$@"
fi
rc=$(cat "$rcfile" 2>/dev/null || echo "none (the viewer did not finish)")
echo "weft-view: exit code $rc after $(( $(date +%s) - start )) s"
if [ "$rc" != 0 ]; then
	echo "FAIL: weft-view exited with $rc"
	exit 1
fi
exec "$checker" "$mode" "$out"
