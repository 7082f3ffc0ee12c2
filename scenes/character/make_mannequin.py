#!/usr/bin/env python3
"""Writes a walking mannequin as OBJ files, one per pose of its walk cycle: ten closed capsules and
a sphere (torso, head, upper and lower arms and legs), 3 812 vertices and 7 584 triangles, skinned
to a skeleton of ten bones by linear blend skinning (a limb bends where it meets its parent, so the
mesh deforms and does not only move), walking in place. Every pose has the same vertices and faces,
as weft's mesh collider keys need. And its dress: a flared skirt of 200 x 100 particles (a UV seam
written twice, as modellers export it; quads) whose waistband sits 1.5 cm outside the torso.

    python3 scenes/character/make_mannequin.py scenes/character    # mannequin-0.obj ... -7.obj, mannequin-dress.obj

The figure stands on y = 0, faces +z, hips at 0.92 m.
"""
import math
import os
import sys

POSES = 8
SEGMENTS = 24  # around every capsule

# Bones: name, parent, rest joint (where it turns), rest end, radius across x and z at the joint and
# the end, rings along it. The torso is an elliptic capsule; the head a sphere (joint = end).
BONES = [
    ("torso", None, (0.0, 0.90, 0.0), (0.0, 1.44, 0.0), (0.165, 0.115), (0.19, 0.12), 30),
    ("head", "torso", (0.0, 1.68, 0.0), (0.0, 1.68, 0.0), (0.105, 0.115), (0.105, 0.115), 16),
    ("armL", "torso", (0.23, 1.42, 0.0), (0.25, 1.14, 0.0), (0.05, 0.05), (0.042, 0.042), 16),
    ("foreL", "armL", (0.25, 1.14, 0.0), (0.26, 0.90, 0.0), (0.042, 0.042), (0.033, 0.033), 16),
    ("armR", "torso", (-0.23, 1.42, 0.0), (-0.25, 1.14, 0.0), (0.05, 0.05), (0.042, 0.042), 16),
    ("foreR", "armR", (-0.25, 1.14, 0.0), (-0.26, 0.90, 0.0), (0.042, 0.042), (0.033, 0.033), 16),
    ("thighL", "torso", (0.095, 0.92, 0.0), (0.10, 0.50, 0.0), (0.08, 0.08), (0.055, 0.055), 16),
    ("shinL", "thighL", (0.10, 0.50, 0.0), (0.10, 0.08, 0.0), (0.055, 0.055), (0.04, 0.04), 16),
    ("thighR", "torso", (-0.095, 0.92, 0.0), (-0.10, 0.50, 0.0), (0.08, 0.08), (0.055, 0.055), 16),
    ("shinR", "thighR", (-0.10, 0.50, 0.0), (-0.10, 0.08, 0.0), (0.055, 0.055), (0.04, 0.04), 16),
]
INDEX = {b[0]: i for i, b in enumerate(BONES)}


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def scale(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


def norm(a):
    length = math.sqrt(a[0] ** 2 + a[1] ** 2 + a[2] ** 2)
    return scale(a, 1.0 / length)


def rot_x(angle):
    c, s = math.cos(angle), math.sin(angle)
    return ((1, 0, 0), (0, c, -s), (0, s, c))


def rot_z(angle):
    c, s = math.cos(angle), math.sin(angle)
    return ((c, -s, 0), (s, c, 0), (0, 0, 1))


def mul(m, v):
    return tuple(m[r][0] * v[0] + m[r][1] * v[1] + m[r][2] * v[2] for r in range(3))


def matmul(a, b):
    return tuple(tuple(sum(a[r][k] * b[k][c] for k in range(3)) for c in range(3)) for r in range(3))


def capsule(bone):
    """Vertices (position, weight on the bone's parent) and triangles of one bone's capsule."""
    _, parent, joint, end, r0, r1, rings = bone
    axis = sub(end, joint)
    length = math.sqrt(sum(c * c for c in axis))
    up = norm(axis) if length > 0 else (0.0, 1.0, 0.0)
    # Two directions across the axis: x-like and z-like (the radii are given along them).
    side = norm(sub((1.0, 0.0, 0.0), scale(up, up[0]))) if abs(up[0]) < 0.9 else (0.0, 0.0, 1.0)
    front = (up[1] * side[2] - up[2] * side[1], up[2] * side[0] - up[0] * side[2], up[0] * side[1] - up[1] * side[0])
    verts = []
    # Rings from the joint's pole to the end's pole: a hemisphere, the side, a hemisphere.
    cap = rings // 3
    profile = []  # (axial offset, radius fraction, which end's radii, 0..1 along the bone)
    for k in range(1, cap + 1):
        a = math.pi / 2 * k / cap
        profile.append((-math.cos(a), math.sin(a), 0.0))
    side_rings = rings - 2 * cap if length > 0 else 1  # a sphere: the two caps meet at its equator
    for k in range(1, side_rings):
        profile.append((0.0, 1.0, k / side_rings))
    for k in range(cap if length > 0 else cap - 1, 0, -1):  # a sphere's equator is the first cap's last ring
        a = math.pi / 2 * k / cap
        profile.append((math.cos(a), math.sin(a), 1.0))
    poles = []
    for pole, at, r in ((-1.0, 0.0, r0), (1.0, 1.0, r1)):
        base = add(joint, scale(axis, at))
        poles.append(add(base, scale(up, pole * (r[0] + r[1]) / 2)))
    verts.append((poles[0], 0.0))
    for cap_offset, frac, t in profile:
        rx = r0[0] + (r1[0] - r0[0]) * t
        rz = r0[1] + (r1[1] - r0[1]) * t
        centre = add(joint, scale(axis, t))
        centre = add(centre, scale(up, cap_offset * (rx + rz) / 2))
        for s in range(SEGMENTS):
            # Turned half a segment on every other bone: a child's cap never puts a vertex exactly on
            # its parent's (an OBJ reader welds equal positions, and would weld some poses only).
            a = 2.0 * math.pi * (s + 0.5 * (INDEX[bone[0]] % 2)) / SEGMENTS
            p = add(centre, add(scale(side, frac * rx * math.cos(a)), scale(front, frac * rz * math.sin(a))))
            verts.append((p, t))
    verts.append((poles[1], 1.0))
    tris = []
    n = len(profile)
    for s in range(SEGMENTS):
        s1 = (s + 1) % SEGMENTS
        tris.append((0, 1 + s1, 1 + s))
        last = 1 + (n - 1) * SEGMENTS
        tris.append((len(verts) - 1, last + s, last + s1))
    for k in range(n - 1):
        for s in range(SEGMENTS):
            s1 = (s + 1) % SEGMENTS
            a, b = 1 + k * SEGMENTS + s, 1 + k * SEGMENTS + s1
            c, d = a + SEGMENTS, b + SEGMENTS
            tris.append((a, b, d))
            tris.append((a, d, c))
    # Skinning: near its joint a limb follows its parent too (half at the joint, none past a
    # quarter of it), so the mesh bends at the knee, the hip, the elbow and the shoulder.
    weighted = []
    for p, t in verts:
        w = 0.0
        if parent is not None and bone[0] != "head":
            u = min(max(t / 0.25, 0.0), 1.0)
            w = 0.5 * (1.0 - u * u * (3.0 - 2.0 * u))
        weighted.append((p, w))
    return weighted, tris


def pose(phase):
    """Each bone's rotation (world) and its joint's world position at walk phase `phase` (radians)."""
    s = math.sin(phase)
    local = {
        "torso": rot_z(0.03 * math.sin(2 * phase)),
        "head": rot_x(0.0),
        "armL": rot_x(0.35 * s),
        "foreL": rot_x(-0.35 - 0.15 * s),
        "armR": rot_x(-0.35 * s),
        "foreR": rot_x(-0.35 + 0.15 * s),
        "thighL": rot_x(-0.45 * s),
        "shinL": rot_x(0.7 * max(0.0, math.sin(phase + 1.2))),
        "thighR": rot_x(0.45 * s),
        "shinR": rot_x(0.7 * max(0.0, math.sin(phase + 1.2 + math.pi))),
    }
    bob = (0.0, 0.015 * math.cos(2 * phase), 0.0)
    rotation, joint = {}, {}
    for name, parent, rest_joint, _, _, _, _ in BONES:
        if parent is None:
            rotation[name] = local[name]
            joint[name] = add(rest_joint, bob)
        else:
            rotation[name] = matmul(rotation[parent], local[name])
            prest = BONES[INDEX[parent]][2]
            joint[name] = add(joint[parent], mul(rotation[parent], sub(rest_joint, prest)))
    return rotation, joint


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    parts = []
    offset = 0
    for bone in BONES:
        verts, tris = capsule(bone)
        parts.append((bone, verts, [(a + offset, b + offset, c + offset) for a, b, c in tris]))
        offset += len(verts)
    triangles = sum(len(p[2]) for p in parts)
    for k in range(POSES):
        rotation, joint = pose(2.0 * math.pi * k / POSES)
        path = os.path.join(folder, f"mannequin-{k}.obj")
        with open(path, "w") as f:
            f.write(f"# weft: a walking mannequin, pose {k} of {POSES}, made by scenes/character/make_mannequin.py\n")
            for bone, verts, _ in parts:
                name, parent = bone[0], bone[1]
                for p, w in verts:
                    own = add(joint[name], mul(rotation[name], sub(p, bone[2])))
                    if w > 0.0:
                        pb = BONES[INDEX[parent]]
                        theirs = add(joint[parent], mul(rotation[parent], sub(p, pb[2])))
                        own = add(scale(own, 1.0 - w), scale(theirs, w))
                    f.write(f"v {own[0]:.4f} {own[1]:.4f} {own[2]:.4f}\n")
            for _, _, tris in parts:
                for a, b, c in tris:
                    f.write(f"f {a + 1} {b + 1} {c + 1}\n")
    write_dress(os.path.join(folder, "mannequin-dress.obj"))
    print(f"{POSES} poses of {offset} vertices and {triangles} triangles, and the dress, in {folder}")


def write_dress(path, around=200, rings=100):
    """A skirt from the waist (y = 1.0, an ellipse 1.5 cm outside the torso) flaring to below the knee."""
    top, bottom, y0, y1 = (0.185, 0.131), (0.43, 0.37), 1.0, 0.43
    with open(path, "w") as f:
        f.write("# weft: the mannequin's dress, made by scenes/character/make_mannequin.py\n")
        for r in range(rings):
            t = r / (rings - 1)
            rx, rz, y = top[0] + (bottom[0] - top[0]) * t, top[1] + (bottom[1] - top[1]) * t, y0 + (y1 - y0) * t
            for a in range(around + 1):  # a = around repeats a = 0 (the seam)
                angle = 2.0 * math.pi * (a % around) / around
                f.write(f"v {rx * math.cos(angle):.4f} {y:.4f} {rz * math.sin(angle):.4f}\n")
        for r in range(rings):
            for a in range(around + 1):
                f.write(f"vt {6.0 * a / around:.4f} {3.0 * r / (rings - 1):.4f}\n")
        row = around + 1
        for r in range(rings - 1):
            for a in range(around):
                i0, i1 = r * row + a + 1, r * row + a + 2
                j0, j1 = i0 + row, i1 + row
                # Quads (weft keeps them: both diagonals shear), 0.1 mm positions: the file stays under 2 MB.
                f.write(f"f {i0}/{i0} {j0}/{j0} {j1}/{j1} {i1}/{i1}\n")


main()
