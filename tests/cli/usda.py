#!/usr/bin/env python3
"""A reader of the ASCII USD that `weft run --usd` writes, and a check of it against the OBJ frames.

Not a USD implementation: it parses the subset of the .usda grammar the writer uses (layer metadata,
nested `def` prims with metadata, attributes with default values, `.timeSamples` and `.connect`,
relationships) and keeps numbers as the text written, so that a check can compare them digit for
digit. Standard library only; Blender's Python imports it too (tests/cli/blender_usd.py).

    usda.py check LAYER.usda OBJ_DIR --frames N --fps F [--colliders a,b] [--moving a,b] [--tears]
                  [--surfaces mesh_0:VERTICES:TRIANGLES:reshaped,...]
"""
import argparse
import os
import re
import struct
import sys

_TOKEN = re.compile(
    r'\s+|#[^\n]*'  # space and comments (the "#usda 1.0" line included)
    r'|(?P<str3>"""(?:.|\n)*?""")'
    r'|(?P<str>"(?:\\.|[^"\\])*")'
    r'|(?P<path><[^>]*>)'
    r'|(?P<asset>@[^@\n]*@)'
    r'|(?P<num>[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|(?:inf|nan)(?![\w:.])))'
    r'|(?P<name>[A-Za-z_][A-Za-z0-9_:.]*)'
    r'|(?P<punct>[()\[\]{}=,:])')


class UsdaError(Exception):
    pass


def tokenize(text):
    if not text.startswith('#usda 1.0'):
        raise UsdaError('not an ASCII USD layer: the first line is not "#usda 1.0"')
    tokens, at = [], 0
    while at < len(text):
        m = _TOKEN.match(text, at)
        if m is None:
            line = text.count('\n', 0, at) + 1
            raise UsdaError('line %d: unexpected text %r' % (line, text[at:at + 20]))
        at = m.end()
        if m.lastgroup is not None:
            tokens.append((m.lastgroup, m.group(m.lastgroup)))
    return tokens


class Number(str):
    """A number as written ("0.600000024"): str for digit-by-digit comparisons, float() for values."""


class Asset(str):
    """An asset path (@./name.png@), relative to the layer."""


class Path(str):
    """A path value: </weft/Looks/cloth_0>, without the brackets."""


class Attribute:
    def __init__(self, type_name):
        self.type = type_name
        self.default = None
        self.samples = {}  # time code -> value
        self.meta = {}
        self.connect = None
        self.uniform = False

    def at(self, time):
        """The value at a time code: the last sample at or before it (held, as Blender reads)."""
        if not self.samples:
            return self.default
        times = sorted(self.samples)
        earlier = [t for t in times if t <= time]
        return self.samples[earlier[-1] if earlier else times[0]]


class Prim:
    def __init__(self, path, type_name):
        self.path = path
        self.type = type_name
        self.meta = {}
        self.attributes = {}
        self.relationships = {}
        self.children = []


class Layer:
    def __init__(self, text):
        self._tokens = tokenize(text)
        self._at = 0
        self.meta = {}
        self.prims = {}  # path -> Prim
        if self._peek() == '(':
            self.meta = self._metadata()
        while self._at < len(self._tokens):
            self._prim('')

    # -- tokens
    def _peek(self, ahead=0):
        i = self._at + ahead
        return self._tokens[i][1] if i < len(self._tokens) else None

    def _next(self):
        if self._at >= len(self._tokens):
            raise UsdaError('unexpected end of the layer')
        token = self._tokens[self._at]
        self._at += 1
        return token

    def _expect(self, text):
        kind, value = self._next()
        if value != text:
            raise UsdaError('expected %r, got %r (token %d)' % (text, value, self._at))

    # -- values
    def _value(self):
        kind, text = self._next()
        if kind == 'num':
            return Number(text)
        if kind == 'str':
            return text[1:-1].encode().decode('unicode_escape')
        if kind == 'str3':
            return text[3:-3]
        if kind == 'path':
            return Path(text[1:-1])
        if kind == 'asset':
            return Asset(text[1:-1])
        if kind == 'name':
            return text  # a token such as None
        if text in '([':
            close = ')' if text == '(' else ']'
            items = []
            while self._peek() != close:
                items.append(self._value())
                if self._peek() == ',':
                    self._next()
            self._next()
            return tuple(items) if close == ')' else items
        if text == '{':  # time samples: { 1: value, 2: value, }
            samples = {}
            while self._peek() != '}':
                time = float(self._next()[1])
                self._expect(':')
                samples[int(time) if time == int(time) else time] = self._value()
                if self._peek() == ',':
                    self._next()
            self._next()
            return samples
        raise UsdaError('unexpected %r where a value belongs' % text)

    # ( key = value ... ), with list edits ("prepend apiSchemas = [...]")
    def _metadata(self):
        self._expect('(')
        meta = {}
        while self._peek() != ')':
            key = self._next()[1]
            if key in ('prepend', 'append', 'delete', 'add', 'reorder'):
                key = self._next()[1]
            if self._peek() == '=':
                self._next()
                meta[key] = self._value()
            else:
                meta[key] = True
        self._next()
        return meta

    def _type_name(self):
        name = self._next()[1]
        if self._peek() == '[' and self._peek(1) == ']':
            self._at += 2
            name += '[]'
        return name

    def _prim(self, parent):
        specifier = self._next()[1]
        if specifier not in ('def', 'over', 'class'):
            raise UsdaError('expected a prim (def), got %r' % specifier)
        type_name = None
        if self._tokens[self._at][0] == 'name':
            type_name = self._next()[1]
        kind, name = self._next()
        if kind != 'str':
            raise UsdaError('expected the prim name, got %r' % name)
        prim = Prim(parent + '/' + name[1:-1], type_name)
        if prim.path in self.prims:
            raise UsdaError('prim %s defined twice' % prim.path)
        self.prims[prim.path] = prim
        if self._peek() == '(':
            prim.meta = self._metadata()
        self._expect('{')
        while self._peek() != '}':
            if self._peek() in ('def', 'over', 'class'):
                prim.children.append(self._prim(prim.path).path)
            else:
                self._property(prim)
        self._next()
        return prim

    def _property(self, prim):
        uniform = False
        while self._peek() in ('custom', 'uniform', 'varying'):
            uniform |= self._next()[1] == 'uniform'
        if self._peek() == 'rel':
            self._next()
            name = self._next()[1]
            value = None
            if self._peek() == '=':
                self._next()
                value = self._value()
            prim.relationships[name] = value
            return
        type_name = self._type_name()
        name = self._next()[1]
        suffix = None
        for s in ('.timeSamples', '.connect'):
            if name.endswith(s):
                name, suffix = name[:-len(s)], s
        attribute = prim.attributes.setdefault(name, Attribute(type_name))
        attribute.uniform |= uniform
        if attribute.type != type_name:
            raise UsdaError('%s.%s: declared as %s and as %s' % (prim.path, name, attribute.type, type_name))
        if self._peek() == '=':
            self._next()
            value = self._value()
            if suffix == '.timeSamples':
                if not isinstance(value, dict):
                    raise UsdaError('%s.%s.timeSamples is not a dictionary' % (prim.path, name))
                attribute.samples = value
            elif suffix == '.connect':
                attribute.connect = value
            else:
                attribute.default = value
        if self._peek() == '(':
            attribute.meta.update(self._metadata())


def load(path):
    with open(path, encoding='utf-8') as f:
        return Layer(f.read())


def as_float32(number):
    """The float32 a number's text names (the writer prints floats with %.9g: exact)."""
    return struct.unpack('f', struct.pack('f', float(number)))[0]


def obj_text(number):
    """The OBJ frames' text for a float32 value: C's printf("%.6g"), which Python's % matches."""
    return '%.6g' % as_float32(number)


# ---------------------------------------------------------------- the OBJ frames

def read_obj(path):
    """Objects of one frame_NNNN.obj: name -> dict of v, vt, vn (text triples), f (v/vt/vn index triples), usemtl."""
    objects, current, mtllib = {}, None, None
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == 'mtllib':
                mtllib = parts[1]
            elif parts[0] == 'o':
                current = objects.setdefault(parts[1], {'v': [], 'vt': [], 'vn': [], 'f': [], 'usemtl': None})
            elif parts[0] in ('v', 'vt', 'vn'):
                current[parts[0]].append(parts[1:])
            elif parts[0] == 'f':
                current['f'].append([tuple(int(k) for k in corner.split('/')) for corner in parts[1:]])
            elif parts[0] == 'usemtl':
                current['usemtl'] = parts[1]
    return objects, mtllib


def read_mtl(path):
    materials, current = {}, None
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == 'newmtl':
                current = materials.setdefault(parts[1], {})
            elif parts and current is not None:
                current[parts[0]] = parts[1:]
    return materials


# ---------------------------------------------------------------- the check

class Check:
    def __init__(self):
        self.failures = []

    def __call__(self, condition, message):
        if not condition and len(self.failures) < 20:
            self.failures.append(message)
        return condition


def check_surface(ok, layer, name, frames, vertices, triangles, reshaped):
    """A mesh collider's Mesh "surface" under its Xform: its faces, and points, normals and extent
    of `vertices` each frame (time-sampled every frame when the shape changes, else one value)."""
    prim = layer.prims.get('/weft/colliders/%s/surface' % name)
    if not ok(prim is not None and prim.type == 'Mesh', 'no Mesh /weft/colliders/%s/surface' % name):
        return
    a = prim.attributes
    counts, indices = a['faceVertexCounts'].default, a['faceVertexIndices'].default
    ok(len(counts) == triangles and all(c == '3' for c in counts), '%s: %d face counts, expected %d triangles' % (prim.path, len(counts), triangles))
    ok(len(indices) == 3 * triangles and all(0 <= int(i) < vertices for i in indices),
       '%s: %d face indices, expected %d within %d vertices' % (prim.path, len(indices), 3 * triangles, vertices))
    ok(prim.relationships.get('material:binding') == '/weft/Looks/collider', '%s: not bound to the collider material' % prim.path)
    ok(a['normals'].meta.get('interpolation') == 'vertex', '%s: normals not per vertex' % prim.path)
    for key in ('points', 'normals', 'extent'):
        samples = len(a[key].samples)
        ok(samples == (frames if reshaped else 0), '%s: %d %s samples, expected %d' % (prim.path, samples, key, frames if reshaped else 0))
    shapes = set()
    for frame in range(1, frames + 1):
        points, normals = a['points'].at(frame), a['normals'].at(frame)
        ok(len(points) == vertices and len(normals) == vertices,
           '%s at frame %d: %d points and %d normals, expected %d' % (prim.path, frame, len(points), len(normals), vertices))
        ok(all(abs(sum(float(x) ** 2 for x in n) - 1) < 1e-4 for n in normals), '%s at frame %d: normals not unit' % (prim.path, frame))
        lo = [min(as_float32(p[k]) for p in points) for k in range(3)]
        hi = [max(as_float32(p[k]) for p in points) for k in range(3)]
        extent = [[as_float32(x) for x in corner] for corner in a['extent'].at(frame)]
        ok(extent == [lo, hi], '%s at frame %d: extent %s, the points span %s' % (prim.path, frame, extent, [lo, hi]))
        shapes.add(tuple(points))
    ok((len(shapes) > 1) == reshaped, '%s: %d shapes over the frames' % (prim.path, len(shapes)))


def check(layer_path, obj_dir, frames, fps, colliders, moving, tears, surfaces=()):
    ok = Check()
    layer = load(layer_path)
    m = layer.meta
    ok(m.get('defaultPrim') == 'weft' and '/weft' in layer.prims, 'defaultPrim is not the prim /weft')
    ok(m.get('upAxis') == 'Y', 'upAxis %r, expected "Y"' % m.get('upAxis'))
    ok(m.get('metersPerUnit') == '1', 'metersPerUnit %r, expected 1' % m.get('metersPerUnit'))
    ok(m.get('startTimeCode') == '1' and m.get('endTimeCode') == str(frames),
       'time codes %r..%r, expected 1..%d' % (m.get('startTimeCode'), m.get('endTimeCode'), frames))
    for key in ('framesPerSecond', 'timeCodesPerSecond'):
        ok(float(m.get(key, 'nan')) == fps, '%s %r, expected %g' % (key, m.get(key), fps))

    cloths = sorted((p for p in layer.prims.values() if p.type == 'Mesh' and re.fullmatch(r'/weft/cloth_\d+', p.path)),
                    key=lambda p: int(p.path.rsplit('_', 1)[1]))
    mtl = read_mtl(os.path.join(obj_dir, 'weft.mtl'))
    changes = 0
    for frame in range(1, frames + 1):
        objects, mtllib = read_obj(os.path.join(obj_dir, 'frame_%04d.obj' % frame))
        ok(mtllib == 'weft.mtl', 'frame %d: mtllib %r, expected weft.mtl' % (frame, mtllib))
        ok(len(objects) == len(cloths), 'frame %d: %d OBJ objects, %d cloth meshes' % (frame, len(objects), len(cloths)))
        v_base = vt_base = 1
        for index, prim in enumerate(cloths):
            o = objects.get('cloth_%d' % index)
            if not ok(o is not None, 'frame %d: no object cloth_%d' % (frame, index)):
                break
            a = prim.attributes
            points, normals = a['points'].at(frame), a['normals'].at(frame)
            where = '%s at frame %d' % (prim.path, frame)
            ok(len(a['points'].samples) == frames, '%s: %d points samples' % (prim.path, len(a['points'].samples)))
            ok(len(points) == len(o['v']), '%s: %d points, the OBJ has %d' % (where, len(points), len(o['v'])))
            ok(len(normals) == len(o['vn']), '%s: %d normals, the OBJ has %d' % (where, len(normals), len(o['vn'])))
            bad = [i for i, (p, v) in enumerate(zip(points, o['v'])) if [obj_text(x) for x in p] != v]
            ok(not bad, '%s: %d points differ from the OBJ, the first %s: %s vs %s' % (
                where, len(bad), bad[:1], bad and points[bad[0]], bad and o['v'][bad[0]]))
            bad = [i for i, (n, vn) in enumerate(zip(normals, o['vn'])) if list(n) != vn]
            ok(not bad, '%s: %d normals differ from the OBJ' % (where, len(bad)))
            lo = [min(as_float32(p[k]) for p in points) for k in range(3)]
            hi = [max(as_float32(p[k]) for p in points) for k in range(3)]
            extent = [[as_float32(x) for x in corner] for corner in a['extent'].at(frame)]
            ok(extent == [lo, hi], '%s: extent %s, the points span %s' % (where, extent, [lo, hi]))
            counts, indices = a['faceVertexCounts'].at(frame), a['faceVertexIndices'].at(frame)
            ok(len(counts) == len(o['f']) and all(c == '3' for c in counts),
               '%s: %d face counts (all 3?), the OBJ has %d faces' % (where, len(counts), len(o['f'])))
            obj_indices = [corner[0] - v_base for face in o['f'] for corner in face]
            ok([int(i) for i in indices] == obj_indices, '%s: faceVertexIndices differ from the OBJ faces' % where)
            st = a['primvars:st']
            uvs = st.at(frame)
            if st.meta.get('interpolation') == 'vertex':
                want = [o['vt'][i] for i in range(len(o['v']))]
                ok(len(o['vt']) == len(o['v']), '%s: vertex st but the OBJ has %d vt for %d v' % (where, len(o['vt']), len(o['v'])))
            else:
                ok(st.meta.get('interpolation') == 'faceVarying', '%s: st interpolation %r' % (where, st.meta.get('interpolation')))
                want = [o['vt'][corner[1] - vt_base] for face in o['f'] for corner in face]
            ok(len(uvs) == len(want) and all([obj_text(x) for x in uv] == w for uv, w in zip(uvs, want)),
               '%s: primvars:st differ from the OBJ vt (%d values, %d expected)' % (where, len(uvs), len(want)))
            ok(o['usemtl'] == 'cloth_%d' % index, '%s: OBJ usemtl %r' % (where, o['usemtl']))
            v_base += len(o['v'])
            vt_base += len(o['vt'])
            if frame == 1:
                changes += max(len(a['faceVertexCounts'].samples) - 1, 0)
                ok(a['subdivisionScheme'].default == 'none', '%s: subdivisionScheme not "none"' % prim.path)
                ok(a['doubleSided'].default == '1', '%s: not doubleSided' % prim.path)
                ok(a['normals'].meta.get('interpolation') == 'vertex', '%s: normals not per vertex' % prim.path)
                look = prim.relationships.get('material:binding')
                ok(look == '/weft/Looks/cloth_%d' % index, '%s: material:binding %r' % (prim.path, look))
                surface = layer.prims.get('%s/Surface' % look)
                ok(surface is not None and surface.attributes['info:id'].default == 'UsdPreviewSurface',
                   '%s: no UsdPreviewSurface shader' % look)
                ok(layer.prims[look].attributes['outputs:surface'].connect == look + '/Surface.outputs:surface',
                   '%s: outputs:surface is not connected to its shader' % look)
                # The weave: a UsdUVTexture reading the PNG beside the layer through the st primvar,
                # the same image as weft.mtl's map_Kd (both the renderer's, byte for byte).
                weave = layer.prims.get('%s/Weave' % look)
                if ok(weave is not None, '%s: no Weave texture shader' % look):
                    name = weave.attributes['inputs:file'].default
                    image = os.path.join(os.path.dirname(layer_path), name)
                    ok(isinstance(name, Asset) and os.path.isfile(image), '%s: texture %r not beside the layer' % (look, name))
                    mapped = mtl.get('cloth_%d' % index, {}).get('map_Kd')
                    if ok(mapped is not None, 'weft.mtl cloth_%d has no map_Kd' % index) and os.path.isfile(image):
                        with open(image, 'rb') as a, open(os.path.join(obj_dir, mapped[0]), 'rb') as b:
                            png = a.read()
                            ok(png[:8] == b'\x89PNG\r\n\x1a\n' and png == b.read(), '%s and %s differ' % (image, mapped[0]))
                    ok(surface.attributes['inputs:diffuseColor'].connect == look + '/Weave.outputs:rgb',
                       '%s: diffuseColor not connected to the texture' % look)
                    ok(weave.attributes['inputs:wrapS'].default == 'repeat', '%s: the texture does not repeat' % look)
                    st = layer.prims.get('%s/St' % look)
                    ok(st is not None and st.attributes['inputs:varname'].default == 'st', '%s: no st primvar reader' % look)
                kd = mtl.get('cloth_%d' % index, {}).get('Kd')
                color = surface and list(surface.attributes['inputs:diffuseColor'].default)
                ok(kd is not None and color == kd, '%s: diffuseColor %s, weft.mtl Kd %s' % (look, color, kd))
    ok(not tears or changes > 0, 'no time-sampled faces: the cloth did not tear in the layer')
    ok(tears or changes == 0, '%d changes of the faces in a run that should not tear' % changes)

    types = {'sphere': 'Sphere', 'floor': 'Mesh', 'capsule': 'Capsule', 'box': 'Cube', 'plane': 'Mesh', 'mesh': 'Xform'}
    for name in colliders:
        prim = layer.prims.get('/weft/colliders/' + name)
        if not ok(prim is not None, 'no collider prim /weft/colliders/%s' % name):
            continue
        kind = name.split('_')[0]
        ok(prim.type == types[kind], '%s is a %s, expected a %s' % (prim.path, prim.type, types[kind]))
        order = prim.attributes['xformOpOrder'].default
        ok(order[0] == 'xformOp:translate', '%s: xformOpOrder %s' % (prim.path, order))
        translate = prim.attributes['xformOp:translate']
        if name in moving:
            ok(len(translate.samples) == frames, '%s: %d translate samples, expected %d' % (prim.path, len(translate.samples), frames))
            ok(len(set(translate.samples.values())) > 1, '%s does not move' % prim.path)
        if 'xformOp:orient' in order:
            orient = prim.attributes['xformOp:orient']
            for q in list(orient.samples.values()) or [orient.default]:
                ok(abs(sum(float(x) ** 2 for x in q) - 1) < 1e-5, '%s: orient %s is not a unit quaternion' % (prim.path, q))
        if kind == 'capsule':
            ok(prim.attributes['axis'].default == 'X', '%s: axis is not X' % prim.path)
            ok(float(prim.attributes['height'].default) > 0 and float(prim.attributes['radius'].default) > 0,
               '%s: no height or radius' % prim.path)
        if kind == 'sphere':
            ok(float(prim.attributes['radius'].default) > 0, '%s: no radius' % prim.path)
    for name, vertices, triangles, reshaped in surfaces:
        check_surface(ok, layer, name, frames, vertices, triangles, reshaped)
    # A mesh collider's surface is its Xform's child: the colliders are the folder's own children.
    found = sorted(p.path.rsplit('/', 1)[1] for p in layer.prims.values() if re.fullmatch(r'/weft/colliders/[^/]+', p.path))
    ok(found == sorted(colliders), 'collider prims %s, expected %s' % (found, sorted(colliders)))
    return ok.failures, len(cloths), changes


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True)
    c = sub.add_parser('check', help='check a layer against the OBJ frames of the same run')
    c.add_argument('layer')
    c.add_argument('obj_dir')
    c.add_argument('--frames', type=int, required=True)
    c.add_argument('--fps', type=float, required=True)
    c.add_argument('--colliders', default='', help='comma-separated prim names expected under /weft/colliders')
    c.add_argument('--moving', default='', help='comma-separated colliders that must have a sample per frame')
    c.add_argument('--tears', action='store_true', help='the faces must change over time')
    c.add_argument('--surfaces', default='',
                   help='comma-separated mesh colliders NAME:VERTICES:TRIANGLES[:reshaped] (the shape changes over time)')
    a = parser.parse_args()
    surfaces = []
    for item in (n for n in a.surfaces.split(',') if n):
        parts = item.split(':')
        surfaces.append((parts[0], int(parts[1]), int(parts[2]), parts[3:] == ['reshaped']))
    try:
        failures, cloths, changes = check(a.layer, a.obj_dir, a.frames, a.fps, [n for n in a.colliders.split(',') if n],
                                          [n for n in a.moving.split(',') if n], a.tears, surfaces)
    except (UsdaError, OSError, KeyError, ValueError, TypeError) as e:
        print('usda.py: %s: %s: %s' % (a.layer, type(e).__name__, e), file=sys.stderr)
        return 1
    if failures:
        for f in failures:
            print('usda.py: %s: %s' % (a.layer, f), file=sys.stderr)
        return 1
    print('usda.py: %s: %d cloth%s, %d frames equal to the OBJ frames as printed, %d change%s of the faces, colliders %s' % (
        a.layer, cloths, '' if cloths == 1 else 's', a.frames, changes, '' if changes == 1 else 's', ','.join(a.colliders.split(',')) or '-'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
