"""An aiortc WHEP viewer to run inside a lab namespace (netlab.popen): subscribes to one
publisher and prints, once a second, a JSON line {time, frameWidth, framesDecoded,
packetsReceived, packetsLost} about the video it decodes and receives (its inbound-rtp counts,
which its receiver reports to the server).  aiortc offers abs-send-time and goog-remb and no transport-cc: its receiver
estimates the link from abs-send-time and reports it as REMB.

    python aiortc_viewer.py WHEP_URL TOKEN SECONDS
"""
import asyncio
import json
import sys
import time

import requests
from aiortc import RTCBundlePolicy, RTCConfiguration, RTCPeerConnection, RTCSessionDescription


async def watch(url, token, seconds):
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))
    pc.addTransceiver("video", direction="recvonly")
    state = {"width": 0, "decoded": 0}
    deadline = time.monotonic() + seconds

    async def decode(track):
        while time.monotonic() < deadline:
            try:
                frame = await asyncio.wait_for(track.recv(), timeout=max(0.1, deadline - time.monotonic()))
            except Exception:
                return
            state["width"], state["decoded"] = frame.width, state["decoded"] + 1

    tasks = []
    pc.on("track", lambda track: tasks.append(asyncio.ensure_future(decode(track))) if track.kind == "video" else None)
    await pc.setLocalDescription(await pc.createOffer())
    response = await asyncio.to_thread(requests.post, url, data=pc.localDescription.sdp, timeout=10, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/sdp"})
    if response.status_code != 201:
        print(json.dumps({"error": response.status_code, "body": response.text}), flush=True)
        return 1
    await pc.setRemoteDescription(RTCSessionDescription(sdp=response.text, type="answer"))
    while time.monotonic() < deadline:
        await asyncio.sleep(1)
        inbound = [s for s in (await pc.getStats()).values() if getattr(s, "type", "") == "inbound-rtp" and s.kind == "video"]
        print(json.dumps({"time": time.time(), "frameWidth": state["width"], "framesDecoded": state["decoded"],
                          "packetsReceived": sum(s.packetsReceived for s in inbound),
                          "packetsLost": sum(s.packetsLost for s in inbound)}), flush=True)
    for task in tasks:
        task.cancel()
    await pc.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(watch(sys.argv[1], sys.argv[2], float(sys.argv[3]))))
