"""What the built programs link, read from `ldd`: Debian's FFmpeg is built with x264 (GPL), so
only `stage-compositor` may link libavcodec, libavformat, libx264 or libpostproc; the server,
the CLI and the benchmark stay Apache-2.0 (README, Licence)."""
import re
import subprocess

import pytest

from conftest import server_binary

GPL_LIBRARIES = re.compile(r"^\s*(libavcodec|libavformat|libx264|libpostproc)\.so", re.MULTILINE)


def linked(binary):
    result = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, f"ldd {binary}: {result.stdout}{result.stderr}"
    return result.stdout


def build_dir():
    return server_binary().resolve().parent


@pytest.mark.parametrize("program", ["stage", "stage-server", "stage-bench"])
def test_apache_programs_link_no_gpl_library(program):
    binary = build_dir() / program
    assert binary.is_file(), f"{binary} not built (swift build builds every product)"
    found = sorted(set(GPL_LIBRARIES.findall(linked(binary))))
    assert not found, f"{program} links {', '.join(found)}: GPL through Debian's x264 build"


def test_the_check_sees_the_compositor_link_libavcodec():
    """The one program that links FFmpeg does show up, so the check above can fail."""
    found = set(GPL_LIBRARIES.findall(linked(build_dir() / "stage-compositor")))
    assert {"libavcodec", "libavformat"} <= found
