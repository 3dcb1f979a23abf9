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
