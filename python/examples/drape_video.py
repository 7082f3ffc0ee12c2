"""Steps a preset and writes it as an MP4 (through the renderer's ffmpeg pipe) and a GIF (ffmpeg
from the MP4, with a palette).

    PYTHONPATH=build/python python3 python/examples/drape_video.py out/drape.mp4 --gif out/drape.gif
"""
import argparse
import os
import subprocess

import weft


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mp4", help="the video to write (H.264)")
    ap.add_argument("--gif", help="also write this GIF")
    ap.add_argument("--preset", default="xpbd", choices=sorted(weft.presets()))
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--size", default="640x360", help="WxH")
    ap.add_argument("--device", help="a part of the Vulkan device's name for the renderer")
    a = ap.parse_args()
    w, h = (int(s) for s in a.size.split("x"))

    os.makedirs(os.path.dirname(os.path.abspath(a.mp4)), exist_ok=True)
    with weft.preset(a.preset).create() as world:
        style = {"deviceName": a.device} if a.device else {}
        camera = weft.Camera.for_preset(a.preset)
        with weft.Video(a.mp4, (w, h), fps=30) as video:
            for _ in range(a.frames):
                world.step()
                video.write(weft.render(world, size=(w, h), camera=camera, **style))
    if a.gif:
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", a.mp4, "-vf",
                        "fps=15,split[a][b];[a]palettegen[p];[b][p]paletteuse", a.gif], check=True)
    print("wrote", a.mp4, *([a.gif] if a.gif else []))


if __name__ == "__main__":
    main()
