# The Vulkan backend from Python, on lavapipe with the validation layer (any message fails): the
# same bits as the CPU (as the C tests find on lavapipe), devices listed, and the renderer drawing a
# Vulkan world's cloths straight from the solver's buffers.
import numpy as np
import pytest

import weft
from conftest import have_renderer, render_device

DEVICE = render_device()
pytestmark = pytest.mark.skipif(not any(DEVICE.lower() in d["name"].lower() for d in weft.devices()),
                                reason="no %s Vulkan device" % DEVICE)


def stepped(backend, frames=20, **fields):
    scene = weft.preset("xpbd")
    scene.cloths[0].update(cols=16, rows=16)
    extra = {"deviceName": DEVICE, "validation": True} if backend == "vulkan" else {}
    w = scene.create(backend=backend, **extra, **fields)
    w.step(frames)
    return w


def test_vulkan_world_equals_cpu_bit_for_bit():
    with stepped("cpu") as cpu, stepped("vulkan") as vk:
        assert vk.backend == "vulkan" and DEVICE in vk.device_name.lower()
        a, b = cpu.cloths[0].positions, vk.cloths[0].positions
        assert a.shape == (256, 3)
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))
        assert np.array_equal(cpu.cloths[0].velocities, vk.cloths[0].velocities)
        # The whole state's bits (clock, origin, positions, inverse masses, velocities), signs of zeros included.
        assert cpu.state_hash() == vk.state_hash()
        assert vk.warnings["validationMessages"] == 0
        assert vk.profile["dispatches"] > 0 and cpu.profile["dispatches"] == 0


def test_vulkan_snapshot_and_setters():
    with stepped("vulkan", frames=5) as w:
        c = w.cloths[0]
        snap = w.snapshot()
        w.step(5)
        a = c.positions
        w.restore(snap)
        w.step(5)
        assert np.array_equal(c.positions, a)
        w.set_sphere(radius=0.3)
        c.grab(0, (0.0, 2.0, 0.0))
        w.step(2)
        assert np.allclose(c.positions[0], (0.0, 2.0, 0.0), atol=1e-6)
        assert w.warnings["validationMessages"] == 0


def test_vulkan_tablecloth_with_colliders_equals_cpu():
    """The tablecloth scene (a rotated box and a ball) on lavapipe: the CPU's bits after 30 frames."""
    from conftest import scene_path
    s = weft.load_scene(scene_path("tablecloth.json"))
    s.cloths[0].update(cols=16, rows=16)
    with s.create(backend="cpu") as cpu, s.create(backend="vulkan", deviceName=DEVICE, validation=True) as vk:
        assert len(vk.colliders) == 2
        cpu.step(30)
        vk.step(30)
        a, b = cpu.cloths[0].positions, vk.cloths[0].positions
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))
        assert a[:, 1].max() < 0.95  # it fell onto the table
        assert vk.warnings["validationMessages"] == 0


@pytest.mark.skipif(not have_renderer(), reason="no renderer")
def test_render_a_vulkan_world_from_its_buffers():
    with stepped("vulkan", frames=5) as w:
        r = weft.Renderer(w, size=(96, 64))
        img = r.render(w, camera="xpbd")
        assert img.shape == (64, 96, 4)
        assert r.shares_world_device and r.zero_copy_cloths == 1 and r.upload_bytes == 0
        assert w.warnings["validationMessages"] == 0
    assert r._ptr is None  # closed with its world
