# weft.render and weft.Video from Python, on lavapipe (as tests/render), with the validation layer:
# every message fails the test.
import os
import subprocess
import sys

import numpy as np
import pytest

import weft
from conftest import SOURCE, have_renderer, render_device

pytestmark = pytest.mark.skipif(not have_renderer(), reason="no renderer or no %s device" % render_device())


def test_render_returns_an_image_of_the_scene():
    with weft.preset("xpbd").create(backend="cpu") as w:
        w.step(10)
        opts = {"deviceName": render_device(), "validation": True}
        img = weft.render(w, size=(160, 90), camera="xpbd", **opts)
        assert img.shape == (90, 160, 4) and img.dtype == np.uint8 and img.flags.owndata
        assert (img[..., 3] == 255).all()
        # the cloth is in the picture: pixels differ from the background's colour
        bg = np.array(weft.RendererDef().background) * 255
        assert (np.abs(img[..., :3].astype(float) - bg).sum(axis=2) > 30).mean() > 0.05
        # the same frame again, into a caller's array: the same pixels (the renderer is cached on the world)
        out = np.zeros_like(img)
        assert weft.render(w, size=(160, 90), camera="xpbd", out=out, **opts) is out
        assert np.array_equal(out, img)
        # a step later the picture changed
        w.step(10)
        later = weft.render(w, size=(160, 90), camera="xpbd", **opts)
        assert (later != img).any()
        # the camera fitted to the scene (camera=None) and a look-at camera
        fit = weft.render(w, size=(160, 90), **opts)
        look = weft.render(w, size=(160, 90), camera=weft.Camera.look_at((0, 2, 5), (0, 0, 0), 40), **opts)
        assert fit.shape == look.shape == (90, 160, 4)
        r = next(iter(w._render_cache.values()))
        assert r.validation_count == 0
        with pytest.raises(weft.ArgumentError, match="out: needs a writable C-contiguous uint8 array"):
            weft.render(w, size=(160, 90), out=np.zeros((90, 160, 3), np.uint8), **opts)
    # the world's close closed its renderers first
    assert r._ptr is None


def test_bad_renderer_fields_raise():
    with weft.World(backend="cpu") as w:
        with pytest.raises(weft.DefError, match=r"wfRendererDef.width: \[1, 16384\]") as e:
            weft.render(w, size=(0, 10), deviceName=render_device())
        assert e.value.field == "width"
        with pytest.raises(weft.BackendUnavailableError):
            weft.Renderer(size=(16, 16), deviceName="no-such-gpu-anywhere")


def test_example_writes_mp4_and_gif(tmp_path):
    mp4, gif = tmp_path / "drape.mp4", tmp_path / "drape.gif"
    env = dict(os.environ)
    subprocess.run([sys.executable, os.path.join(SOURCE, "python", "examples", "drape_video.py"), str(mp4),
                    "--gif", str(gif), "--frames", "12", "--size", "96x64", "--device", render_device()],
                   check=True, env=env)
    frames = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                             "stream=nb_read_frames,width,height", "-of", "csv=p=0", str(mp4)],
                            check=True, capture_output=True, text=True).stdout.strip()
    assert frames == "96,64,12"
    assert gif.read_bytes()[:6] == b"GIF89a"
