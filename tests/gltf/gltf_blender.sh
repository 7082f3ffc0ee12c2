#!/usr/bin/env bash
# gltf_blender.py on three runs (a grid past one mesh's 64 targets, the tear, the skirt's mesh with
# its UV seam), or skipped (77) without blender.
#   gltf_blender.sh BLENDER|"" WEFT
set -u
blender=$1
weft=$2
here=$(cd "$(dirname "$0")" && pwd)
[ -n "$blender" ] && [ -x "$blender" ] || { echo "skipped: blender not found"; exit 77; }
d=$(mktemp -d "${TMPDIR:-/tmp}/weft-gltf-blender.XXXXXX")
trap 'rm -rf "$d"' EXIT
run() { # NAME ARGS...
	local name=$1
	shift
	"$weft" run "$@" --backend cpu --quiet --gltf "$d/$name.glb" --obj "$d/$name" || exit 1
}
run x --preset xpbd --frames 70
run t --scene "$here/../../scenes/tear.json" --frames 40
run s --scene "$here/../../scenes/skirt.json" --frames 12
"$blender" -b --factory-startup --python "$here/gltf_blender.py" -- "$d/x.glb" "$d/x" 70 "$d/t.glb" "$d/t" 40 "$d/s.glb" "$d/s" 12
