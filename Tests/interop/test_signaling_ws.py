"""One end-to-end join over the signaling WebSocket, observed through the control plane."""
import json
import time

import pytest


def test_joined_participant_is_visible_and_operator_disconnect_revokes_its_token(
        client, make_stage, decode_jwt, ws_connect, recv_type, eventually):
    import websockets

    arn = make_stage(name="ws-e2e")["arn"]
    tok = client.create_participant_token(stageArn=arn, userId="alice", attributes={"role": "host"},
                                          capabilities=["PUBLISH", "SUBSCRIBE"])["participantToken"]
    pid = tok["participantId"]
    events_url = decode_jwt(tok["token"])[1]["events_url"]
    join = json.dumps({"v": 1, "type": "join", "token": tok["token"]})

    ws = ws_connect(events_url)
    ws.send(join)
    joined = recv_type(ws, "joined")
    assert joined["type"] == "joined", joined

    def one_session():
        sessions = client.list_stage_sessions(stageArn=arn)["stageSessions"]
        assert len(sessions) == 1, sessions
        return sessions[0]["sessionId"]

    session_id = eventually(one_session)
    assert joined.get("sessionId", session_id) == session_id

    def connected():
        participants = client.list_participants(stageArn=arn, sessionId=session_id)["participants"]
        assert [(p["participantId"], p["state"]) for p in participants] == [(pid, "CONNECTED")], participants

    eventually(connected)
    participant = client.get_participant(stageArn=arn, sessionId=session_id, participantId=pid)["participant"]
    assert participant["userId"] == "alice" and participant["attributes"] == {"role": "host"}
    events = client.list_participant_events(stageArn=arn, sessionId=session_id, participantId=pid)["events"]
    assert "JOINED" in [e["name"] for e in events], events

    client.disconnect_participant(stageArn=arn, participantId=pid, reason="bye")
    disconnect = recv_type(ws, "disconnect")
    assert disconnect["type"] == "disconnect" and disconnect["reason"] == "disconnectedByOperator", disconnect
    with pytest.raises(websockets.exceptions.ConnectionClosed):
        while True:  # anything after `disconnect` is tolerated, but the server must close the socket
            ws.recv(timeout=10)

    def disconnected():
        participants = client.list_participants(stageArn=arn, sessionId=session_id,
                                                filterByState="DISCONNECTED")["participants"]
        assert pid in [p["participantId"] for p in participants], participants

    eventually(disconnected)

    again = ws_connect(events_url)
    again.send(join)
    refused = recv_type(again, "joined")
    assert refused["type"] == "error" and refused["code"] == 4012, refused



def test_a_request_id_over_64_characters_is_refused(client, make_stage, decode_jwt, ws_connect, recv_type):
    arn = make_stage(name="request-id")["arn"]
    tok = client.create_participant_token(stageArn=arn, userId="r", capabilities=["PUBLISH"])["participantToken"]
    ws = ws_connect(decode_jwt(tok["token"])[1]["events_url"])
    ws.send(json.dumps({"v": 1, "type": "join", "token": tok["token"]}))
    assert recv_type(ws, "joined")["type"] == "joined"
    streams = [{"streamId": "cam", "kind": "video", "muted": False}]
    ws.send(json.dumps({"v": 1, "type": "publish", "requestId": "r" * 65, "streams": streams}))
    refused = recv_type(ws, "publishState")
    assert refused["type"] == "error" and refused["code"] == 4220 and "requestId" in refused["message"], refused
    ws.send(json.dumps({"v": 1, "type": "publish", "requestId": "r" * 64, "streams": streams}))
    accepted = recv_type(ws, "publishState")
    assert accepted["type"] == "publishState" and accepted["requestId"] == "r" * 64, accepted
    ws.close()


def test_a_thirteenth_publisher_is_refused_like_ivs(client, make_stage, decode_jwt, ws_connect, recv_type):
    """IVS caps a stage at 12 publishers: the 13th `publish` gets 4090 stageAtCapacity; once one
    publisher leaves, it may publish."""
    arn = make_stage(name="capacity")["arn"]
    sockets = []
    streams = [{"streamId": "cam", "kind": "video", "muted": False}]
    try:
        for index in range(13):
            tok = client.create_participant_token(stageArn=arn, userId=f"p{index}", capabilities=["PUBLISH"])["participantToken"]
            ws = ws_connect(decode_jwt(tok["token"])[1]["events_url"])
            ws.send(json.dumps({"v": 1, "type": "join", "token": tok["token"]}))
            assert recv_type(ws, "joined")["type"] == "joined"
            ws.send(json.dumps({"v": 1, "type": "publish", "requestId": "p", "streams": streams}))
            sockets.append((ws, recv_type(ws, "publishState")))
        answers = [answer for _, answer in sockets]
        assert all(a["type"] == "publishState" for a in answers[:12]), answers[:12]
        assert answers[12]["type"] == "error" and answers[12]["code"] == 4090, answers[12]
        sockets[0][0].send(json.dumps({"v": 1, "type": "leave"}))
        last = sockets[12][0]
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            last.send(json.dumps({"v": 1, "type": "publish", "requestId": "again", "streams": streams}))
            answer = recv_type(last, "publishState")
            if answer["type"] == "publishState":
                break
            time.sleep(0.1)
        assert answer["type"] == "publishState", answer
    finally:
        for ws, _ in sockets:
            ws.close()


def raw_websocket(url):
    """A WebSocket opened by hand (to send frames no client library would), and a reader of
    the close code the server sends (RFC 6455 §5.5.1)."""
    import base64
    import os
    import socket
    import struct
    from urllib.parse import urlparse
    parsed = urlparse(url)
    sock = socket.create_connection((parsed.hostname, parsed.port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET {parsed.path} HTTP/1.1\r\nHost: {parsed.hostname}:{parsed.port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head

    def send(opcode, payload, masked=True):
        mask = os.urandom(4) if masked else b"\0\0\0\0"
        length = len(payload)
        bit = 0x80 if masked else 0
        header = bytes([0x80 | opcode]) + (bytes([bit | length]) if length < 126 else
                                           bytes([bit | 126]) + struct.pack(">H", length) if length < 65536 else
                                           bytes([bit | 127]) + struct.pack(">Q", length))
        sock.sendall(header + (mask if masked else b"") + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def close_code():
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return None
            data += chunk
            while len(data) >= 2:
                opcode, length = data[0] & 0x0F, data[1] & 0x7F
                offset = 2 + (2 if length == 126 else 8 if length == 127 else 0)
                if length == 126:
                    length = struct.unpack(">H", data[2:4])[0]
                elif length == 127:
                    length = struct.unpack(">Q", data[2:10])[0]
                if len(data) < offset + length:
                    break
                payload, data = data[offset:offset + length], data[offset + length:]
                if opcode == 0x8:
                    return struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 1005

    return sock, send, close_code


@pytest.mark.parametrize("opcode, payload, masked, code", [
    (0x1, b'{"v":1,"type":"join","token":"\xff\xfe"}', True, 1007),   # text that is not UTF-8 (RFC 6455 §8.1)
    (0x1, b"x" * (64 * 1024 + 1), True, 1009),                        # over the 64 KB frame limit
    (0x1, b'{"v":1,"type":"ping"}', False, 1002),                     # a client frame must be masked (RFC 6455 §5.1)
    (0x9, b"", False, 1002),                                          # control frames too
])
def test_a_broken_frame_closes_with_the_rfc_code(client, make_stage, decode_jwt, opcode, payload, masked, code):
    arn = make_stage(name="frames")["arn"]
    tok = client.create_participant_token(stageArn=arn)["participantToken"]
    sock, send, close_code = raw_websocket(decode_jwt(tok["token"])[1]["events_url"])
    try:
        send(opcode, payload, masked)
        assert close_code() == code
    finally:
        sock.close()


def test_sigterm_tells_every_client_the_server_is_shutting_down(tmp_path_factory, decode_jwt, ws_connect, recv_type):
    """SIGTERM: each joined client gets `disconnect` (serverShutdown) before its socket closes."""
    import signal
    from composition import clients
    from conftest import StageServer, server_binary, stop_process
    srv = StageServer(server_binary(), tmp_path_factory.mktemp("shutdown"))
    srv.start()
    try:
        _, realtime = clients(srv)
        arn = realtime.create_stage(name="shutdown")["stage"]["arn"]
        tok = realtime.create_participant_token(stageArn=arn)["participantToken"]
        ws = ws_connect(decode_jwt(tok["token"])[1]["events_url"])
        ws.send(json.dumps({"v": 1, "type": "join", "token": tok["token"]}))
        assert recv_type(ws, "joined")["type"] == "joined"
        srv.proc.send_signal(signal.SIGTERM)
        message = recv_type(ws, "disconnect")
        assert message["type"] == "disconnect" and message["reason"] == "serverShutdown", message
        assert srv.proc.wait(timeout=15) == 0
    finally:
        stop_process(srv.proc)


def test_rejoining_with_the_same_token_continues_the_session(tmp_path_factory, decode_jwt, ws_connect, recv_type, eventually):
    """A participant alone on a stage who rejoins (replacing its own socket, or within the
    linger time after leaving) stays in the same stage session; the session ends only once
    the stage stayed empty for `--session-linger`, with the time the last participant left."""
    from composition import clients
    from conftest import StageServer, server_binary, stop_process
    srv = StageServer(server_binary(), tmp_path_factory.mktemp("linger"), extra_args=["--session-linger", "3"])
    srv.start()
    try:
        _, realtime = clients(srv)
        arn = realtime.create_stage(name="linger")["stage"]["arn"]
        tok = realtime.create_participant_token(stageArn=arn)["participantToken"]
        url = decode_jwt(tok["token"])[1]["events_url"]
        join = json.dumps({"v": 1, "type": "join", "token": tok["token"]})

        def joined_session(ws):
            ws.send(join)
            return recv_type(ws, "joined")["sessionId"]

        first = ws_connect(url)
        session_id = joined_session(first)
        for _ in range(10):               # the same token joins again while connected: replaced
            second = ws_connect(url)
            assert joined_session(second) == session_id
            first.close()
            first = second
        for _ in range(10):               # leaves, and rejoins within the linger time
            first.close()
            first = ws_connect(url)
            assert joined_session(first) == session_id
        sessions = realtime.list_stage_sessions(stageArn=arn)["stageSessions"]
        assert [s["sessionId"] for s in sessions] == [session_id] and "endTime" not in sessions[0], sessions

        first.close()
        def ended():
            session = realtime.get_stage_session(stageArn=arn, sessionId=session_id)["stageSession"]
            assert "endTime" in session, session
            return session
        session = eventually(ended, timeout=15)
        left = realtime.get_participant(stageArn=arn, sessionId=session_id,
                                        participantId=tok["participantId"])["participant"]
        assert left["state"] == "DISCONNECTED"
        assert session["endTime"] >= session["startTime"]
        again = ws_connect(url)
        assert joined_session(again) != session_id   # after the session ended, a new one starts
        again.close()
    finally:
        stop_process(srv.proc)
