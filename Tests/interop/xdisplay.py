"""An X display of our own (Xvfb) for the screen-capture and window tests, and a grab of it."""
import contextlib
import os
import subprocess
import time

import numpy as np


def free_display():
    for number in range(90, 200):
        if not os.path.exists(f"/tmp/.X11-unix/X{number}") and not os.path.exists(f"/tmp/.X{number}-lock"):
            return f":{number}"
    raise RuntimeError("no free X display number")


@contextlib.contextmanager
def xvfb(width=1280, height=720):
    """Yields the name of a running Xvfb display; kills it afterwards."""
    display = free_display()
    server = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not os.path.exists(f"/tmp/.X11-unix/X{display[1:]}"):
            assert time.monotonic() < deadline and server.poll() is None, "Xvfb did not start"
            time.sleep(0.05)
        yield display
    finally:
        server.kill()
        server.wait()


def grab(display, size, png=None):
    """The display's picture as a (height, width, 3) RGB array; also written to `png` if given."""
    raw = subprocess.run(["ffmpeg", "-v", "error", "-f", "x11grab", "-draw_mouse", "0", "-i", display, "-frames:v", "1",
                          "-pix_fmt", "rgb24", "-f", "rawvideo", "-"], capture_output=True, check=True, timeout=20).stdout
    if png:
        subprocess.run(["ffmpeg", "-v", "error", "-f", "x11grab", "-draw_mouse", "0", "-i", display, "-frames:v", "1",
                        "-y", str(png)], check=True, timeout=20)
    return np.frombuffer(raw[:size[0] * size[1] * 3], dtype=np.uint8).reshape(size[1], size[0], 3)


def grab_luma(display, size):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-f", "x11grab", "-draw_mouse", "0", "-i", display, "-frames:v", "1",
                          "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"], capture_output=True, check=True, timeout=20).stdout
    return np.frombuffer(raw[:size[0] * size[1]], dtype=np.uint8).reshape(size[1], size[0])
