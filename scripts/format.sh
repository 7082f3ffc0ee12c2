#!/bin/sh
# Applies .clang-format to every tracked C and C++ file (scripts/format-files.sh), or to the files
# given. Needs clang-format 14 (Debian 12's clang-format).
set -e
cd "$(git rev-parse --show-toplevel)"
if [ $# -gt 0 ]; then
	clang-format -i --style=file "$@"
else
	scripts/format-files.sh | xargs clang-format -i --style=file
fi
