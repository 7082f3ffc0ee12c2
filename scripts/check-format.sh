#!/bin/sh
# Exits 1 and names each tracked C and C++ file that scripts/format.sh would change; 0 when none.
# Needs clang-format 14 (Debian 12's clang-format); other versions format some constructs differently.
cd "$(git rev-parse --show-toplevel)" || exit 2
if ! command -v clang-format >/dev/null 2>&1; then
	echo "check-format: clang-format is not installed (Debian: apt-get install clang-format)" >&2
	exit 2
fi
bad=0
for f in $(scripts/format-files.sh); do
	if ! clang-format --style=file "$f" | cmp -s - "$f"; then
		echo "check-format: $f differs from .clang-format (scripts/format.sh $f)" >&2
		bad=$((bad + 1))
	fi
done
if [ "$bad" -gt 0 ]; then
	echo "check-format: $bad file(s) to format" >&2
	exit 1
fi
echo "check-format: every C and C++ file follows .clang-format"
