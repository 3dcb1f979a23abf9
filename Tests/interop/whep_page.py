"""Headless Chromium pages for the lab tests: a viewer that watches one publisher over WHEP
(RFC 9725) and logs what the test reads, and the reading of its console (`TAG {json}` lines)."""
import json
import subprocess
import time

_OPEN = """<!doctype html><meta charset=utf-8><script>
(async () => {
  try {
    const pc = new RTCPeerConnection();
"""
_NEGOTIATE = """    await pc.setLocalDescription();
    await new Promise(r => { if (pc.iceGatheringState === 'complete') r(); else pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && r(); });
    const response = await fetch('WHEP_URL', {method: 'POST', body: pc.localDescription.sdp,
      headers: {'Authorization': 'Bearer WHEP_TOKEN', 'Content-Type': 'application/sdp'}});
    console.log('WHEP_STATUS ' + response.status);
    await pc.setRemoteDescription({type: 'answer', sdp: await response.text()});
"""
_CLOSE = """  } catch (e) { console.log('WHEP_ERROR ' + e); }
})();
</script>"""


def viewer_page(whep, token, script, audio=True, play_audio=False):
    """A page that receives video (and audio) of one publisher from `whep` with `token` as
    bearer, then runs `script`: JavaScript with the connected RTCPeerConnection as `pc`.
    Chromium decodes audio only while something plays it out: `play_audio` plays it."""
    lines = ["    pc.addTransceiver('video', {direction: 'recvonly'});\n"]
    if audio:
        lines.append("    pc.addTransceiver('audio', {direction: 'recvonly'});\n")
    if play_audio:
        lines.append("    pc.ontrack = e => { if (e.track.kind === 'audio') { const a = new Audio(); "
                     "a.srcObject = new MediaStream([e.track]); a.play(); } };\n")
    negotiate = _NEGOTIATE.replace("WHEP_URL", whep).replace("WHEP_TOKEN", token)
    return _OPEN + "".join(lines) + negotiate + script + _CLOSE


def console_lines(log_path, tag):
    """What the page logged as `TAG …` (Chromium's --enable-logging=stderr), after the tag, in order."""
    return [line.split(tag + " ", 1)[1].split('", source')[0]
            for line in log_path.read_text(errors="replace").splitlines() if tag + " " in line]


def console_objects(log_path, tag):
    """The JSON objects the page logged as `TAG {…}`, in order."""
    return [json.loads(text) for text in console_lines(log_path, tag) if text.startswith("{")]


class LabChromium:
    """Headless Chromium in a lab namespace showing one page; its console goes to `log_path`."""

    def __init__(self, lab, box, workdir, html, seconds=60):
        from test_media_chromium_simulcast import CHROMIUM_FLAGS
        page = workdir / "view.html"
        page.write_text(html)
        self.log_path = workdir / "chromium.log"
        self._log = open(self.log_path, "wb")
        self.proc = lab.popen(box, ["timeout", str(seconds), "chromium", *CHROMIUM_FLAGS, f"--user-data-dir={workdir / 'profile'}",
                                    page.as_uri()], stdout=self._log, stderr=subprocess.STDOUT)

    def objects(self, tag="STATS"):
        return console_objects(self.log_path, tag)

    def wait_decoding(self, timeout=45, also=lambda s: True):
        """Until a `STATS` object shows decoded frames (and satisfies `also`); fails with the log's tail."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not any(s.get("framesDecoded") and also(s) for s in self.objects()):
            time.sleep(0.2)
        assert any(s.get("framesDecoded") for s in self.objects()), self.log_path.read_text(errors="replace")[-3000:]

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        self._log.close()
