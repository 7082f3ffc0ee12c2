# Lifetimes (issue 29.1): a World that nothing refers to is destroyed at once, by reference
# counting, with its C world and memory; and finalisers that the cyclic GC runs at any moment (here
# gc.set_threshold(1): a collection at nearly every allocation) never deadlock inside cffi.
# Each case runs in a fresh interpreter with the GC on: the hang lives in cffi's first lookup of a
# function, and the memory measure needs a process that has not grown for other tests.
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import have_renderer


def run_fresh(code, timeout=120):
    """Runs `code` in a new interpreter; a hang is a failure with the output so far, not a stuck test."""
    try:
        r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                           timeout=timeout, env=dict(os.environ))
    except subprocess.TimeoutExpired as e:
        pytest.fail("hung for %d s; stdout: %s stderr: %s" % (timeout, e.stdout, e.stderr))
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_the_issues_snippet_returns():
    """The issue's exact lines: they never returned (a World.__del__ from the GC inside cffi's lookup
    of wfEnumerateDevices, which holds cffi's non-reentrant lock, then needed that lock)."""
    run_fresh("""
        import gc, weft; w = weft.World(backend="cpu"); w.add_cloth(cols=8, rows=8); del w; gc.set_threshold(1); weft.devices()
        print("returned")
    """, timeout=60)


def test_a_world_in_a_cycle_freed_by_the_gc_inside_cffi_returns():
    """The same with a World only the cyclic GC can free (a cycle of the user's): its finaliser runs
    inside cffi's first lookup of wfEnumerateDevices and makes the process's first wfDestroyWorld
    call, which must not need cffi's lock."""
    run_fresh("""
        import gc, weft; w = weft.World(backend="cpu"); w.add_cloth(cols=8, rows=8); w.me = w; fin = w._finalizer
        del w; gc.set_threshold(1); weft.devices()
        gc.collect()
        assert not fin.alive
        print("returned")
    """, timeout=60)


def test_a_deleted_world_is_freed_at_once():
    """`del world` (no cloth kept) destroys the C world there and then: its weakref is dead, its
    finaliser has run, and a 400x400 cloth's memory (about 60 MB of state) goes back to the system.
    A cloth kept keeps its world alive; deleting it then frees both."""
    out = run_fresh("""
        import gc, weakref
        import weft
        assert gc.isenabled()

        def rss_mb():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
        import os

        w = weft.World(backend="cpu", threads=1)
        w.add_cloth(cols=8, rows=8)
        w.add_collider(type="sphere", position=(0, 0.5, 0), radius=0.2)
        w.step(2)
        ref, fin = weakref.ref(w), w._finalizer
        del w
        assert ref() is None, "the World is still referred to (a cycle?)"
        assert not fin.alive, "the C world was not destroyed"

        # a cloth keeps its world; letting go of both frees it
        w = weft.World(backend="cpu", threads=1)
        c = w.add_cloth(cols=8, rows=8)
        ref, fin = weakref.ref(w), w._finalizer
        del w
        assert ref() is not None and c.positions.shape == (64, 3)
        del c
        assert ref() is None and not fin.alive

        # memory: 400 x 400 particles, created and deleted; gc.collect() is never called
        base = rss_mb()
        w = weft.World(backend="cpu", threads=1)
        c = w.add_cloth(cols=400, rows=400)
        w.step(1)
        grown = rss_mb()
        del w, c
        freed = rss_mb()
        print("rss base %.1f MB, with the world %.1f MB, after del %.1f MB" % (base, grown, freed))
        assert grown - base > 20, (base, grown)
        assert freed - base < 0.25 * (grown - base), (base, grown, freed)
    """)
    print(out)


def test_finalisers_under_a_gc_at_every_allocation_never_deadlock():
    """Worlds with cloths and colliders made and dropped in a loop, some of them in a cycle of the
    user's own (so only the cyclic GC frees them, at whatever cffi call it interrupts), while
    devices(), backends(), presets(), scenes and (when built) render() run: every world is destroyed
    and the loop ends."""
    out = run_fresh("""
        import gc, weakref
        import weft
        gc.set_threshold(1)
        refs = []
        for i in range(60):
            w = weft.World(backend="cpu", threads=1)
            c = w.add_cloth(cols=8, rows=8)
            w.add_collider(type="sphere", position=(0, 0.5, 0), radius=0.2)
            w.step(1)
            if i % 2:
                w.me = w  # a cycle of the user's: only the cyclic GC frees it
                c.owner = w
            refs.append(w._finalizer)
            del w, c
            weft.devices()
            weft.backends()
            weft.presets()
            weft.parse_scene('{"world": {"step": {"substeps": %d}}, "cloths": [{"cols": 4, "rows": 4}]}' % (i % 9 + 1))
        gc.collect()
        assert not any(f.alive for f in refs), sum(f.alive for f in refs)
        print("60 worlds destroyed")
    """, timeout=240)
    assert "60 worlds destroyed" in out


@pytest.mark.skipif(not have_renderer(), reason="no renderer")
def test_rendered_worlds_are_freed_and_never_deadlock():
    """weft.render keeps a renderer on the world: the world is still freed at `del`, its renderer
    first, and under gc.set_threshold(1) the loop of render + del ends."""
    run_fresh("""
        import gc, weakref
        import os
        import weft
        gc.set_threshold(1)
        for i in range(6):
            w = weft.World(backend="cpu", threads=1)
            w.add_cloth(cols=8, rows=8)
            weft.render(w, size=(32, 24), deviceName=os.environ.get("WEFT_TEST_DEVICE", "llvmpipe"))
            r = next(iter(w._render_cache.values()))
            ref, fin, rfin = weakref.ref(w), w._finalizer, r._finalizer
            del w, r
            assert ref() is None and not fin.alive and not rfin.alive
            weft.devices()
        print("done")
    """, timeout=240)
