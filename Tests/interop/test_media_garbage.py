"""Random and truncated packets thrown at the media port while real media flows: the SFU keeps
forwarding, and every dropped datagram shows up in /metrics under its reason."""
import asyncio
import os
import random
import re
import socket
import struct
import threading
import time

import requests

from test_media_aiortc import publish_and_watch


def garbage_datagrams(rng, count):
    """A mix of what a hostile or broken peer sends: noise, truncated or forged STUN, DTLS-looking
    records, RTP/RTCP-looking packets with random bodies, and empty-ish datagrams."""
    for i in range(count):
        kind = i % 6
        if kind == 0:
            yield os.urandom(rng.randint(1, 1400))
        elif kind == 1:   # a Binding request with a random USERNAME and a bad MESSAGE-INTEGRITY
            user = b"nobody:x"
            attrs = struct.pack("!HH", 0x0006, len(user)) + user + struct.pack("!HH", 0x0008, 20) + os.urandom(20)
            yield struct.pack("!HHI", 0x0001, len(attrs), 0x2112A442) + os.urandom(12) + attrs
        elif kind == 2:   # STUN header cut short
            yield struct.pack("!HHI", 0x0001, 80, 0x2112A442)[: rng.randint(1, 8)]
        elif kind == 3:   # a DTLS handshake record header with garbage
            yield bytes([22, 0xFE, 0xFD]) + os.urandom(rng.randint(0, 200))
        elif kind == 4:   # RTP-looking
            yield bytes([0x80, rng.randint(0, 127)]) + os.urandom(rng.randint(0, 1200))
        else:             # RTCP-looking
            yield bytes([0x81, rng.choice([200, 201, 205, 206])]) + os.urandom(rng.randint(0, 100))


def blast(port, stop, sent):
    rng = random.Random(7)
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(4)]
    try:
        for index, datagram in enumerate(garbage_datagrams(rng, 30000)):
            if stop.is_set():
                break
            sockets[index % 4].sendto(datagram, ("127.0.0.1", port))
            sent[0] += 1
            if index % 200 == 199:
                time.sleep(0.05)   # ~4,000 datagrams per second, bounded by the count above
    finally:
        for s in sockets:
            s.close()


def dropped(metrics_text):
    return {m.group(1): float(m.group(2)) for m in
            re.finditer(r'proscenium_media_dropped_total\{reason="([a-z_]+)"\} ([0-9.e+]+)', metrics_text)}


def test_garbage_on_the_media_port_is_dropped_and_counted_while_media_flows(server, client, make_stage):
    stage = make_stage()
    publisher = client.create_participant_token(stageArn=stage["arn"], userId="pub", capabilities=["PUBLISH"])["participantToken"]
    viewer = client.create_participant_token(stageArn=stage["arn"], userId="view", capabilities=["SUBSCRIBE"])["participantToken"]
    before = dropped(requests.get(f"{server.url}/metrics", timeout=5).text)
    stop, sent = threading.Event(), [0]
    thread = threading.Thread(target=blast, args=(server.media_port, stop, sent))
    thread.start()
    try:
        result = asyncio.run(publish_and_watch(server.url, publisher["token"], publisher["participantId"],
                                               viewer["token"], seconds=6))
    finally:
        stop.set()
        thread.join()
    received = len([n for n in result["seen"] if 1 <= n <= result["sent"]])
    print(f"{sent[0]} garbage datagrams; subscriber decoded {received}/{result['sent']} frames")
    assert received >= 0.95 * result["sent"]
    assert server.proc.poll() is None
    after = dropped(requests.get(f"{server.url}/metrics", timeout=5).text)
    grew = {reason for reason in after if after[reason] > before.get(reason, 0)}
    print("drop reasons that grew:", sorted(grew))
    assert {"malformed_stun", "stun_unknown_username", "unknown_address", "unknown_kind"} <= grew
    assert sum(after.values()) - sum(before.values()) >= 0.9 * sent[0]
