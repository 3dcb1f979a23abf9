"""Headless Chromium pages for the lab tests: a viewer that watches one publisher over WHEP
(RFC 9725) and logs what the test reads, and the reading of its console (`TAG {json}` lines)."""
import json

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


def console_objects(log_path, tag):
    """The JSON objects the page logged as `TAG {…}` (Chromium's --enable-logging=stderr), in order."""
    return [json.loads(line.split(tag + " ", 1)[1].split('", source')[0])
            for line in log_path.read_text(errors="replace").splitlines() if tag + " {" in line]
