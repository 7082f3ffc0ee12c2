#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds a consumer with find_package(weft) and one
# with pkg-config, and runs both.
set -euo pipefail
build=$1 here=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$here" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cmake" >/dev/null
"$tmp/cmake/consumer"
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cc "$here/main.c" $(pkg-config --cflags --libs weft) -o "$tmp/pc-consumer"
LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/pc-consumer"
echo "passed: install_consumer"
