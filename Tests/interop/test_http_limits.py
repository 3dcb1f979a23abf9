"""What an unauthenticated client can make the HTTP side hold (issue 11, findings 2 and 4):
idle and trickling connections are closed, malformed requests get an answer or a close within
seconds, and unsigned bodies are refused from the headers, never read into memory."""
import socket
import time

import pytest

from conftest import StageServer, server_binary


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    srv = StageServer(server_binary(), tmp_path_factory.mktemp("limits"), extra_args=["--http-idle-timeout", "2"])
    srv.start()
    yield srv
    srv.stop()


def connect(server):
    sock = socket.create_connection(("127.0.0.1", server.http_port), timeout=10)
    return sock


def closed_within(sock, seconds):
    """Seconds until the server closed the connection (reading what it sent), or None."""
    sock.settimeout(0.2)
    start = time.monotonic()
    received = b""
    while time.monotonic() - start < seconds:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return time.monotonic() - start, received
        if not data:
            return time.monotonic() - start, received
        received += data
    return None, received


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def test_idle_and_trickling_connections_are_closed(limited):
    idle = connect(limited)
    partial = connect(limited)
    partial.sendall(b"POST /ListStages HTTP/1.1\r\nHost: x\r\n")
    for sock, what in ((idle, "idle"), (partial, "half a request")):
        after, _ = closed_within(sock, 6)
        print(f"{what}: closed after {after}")
        assert after is not None and after <= 5
        sock.close()


@pytest.mark.parametrize("request_bytes", [
    b"BREW /ListStages HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST /ListStages HTTP/1.1\r\nHost: x\r\nX-Bad: a\x00b\r\n\r\n",
    b"POST /ListStages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 80_000 + b"\r\n\r\n",
], ids=["unknown-method", "nul-in-header", "bad-chunk-size", "80kb-header"])
def test_malformed_http_gets_an_answer_or_a_close_within_5_s(server, request_bytes):
    """On the default server (30 s idle timeout): the parser's refusal is answered at once."""
    sock = connect(server)
    try:
        sock.sendall(request_bytes)
    except (BrokenPipeError, ConnectionResetError):
        return   # refused while we were still sending: closed at once
    after, received = closed_within(sock, 8)
    sock.close()
    print(f"answered {received[:40]!r}, closed after {after}")
    assert after is not None and after <= 5, received[:200]
    assert received.startswith(b"HTTP/1.1 400") or received.startswith(b"HTTP/1.1 431"), received[:200]


def test_unsigned_bodies_are_refused_from_the_headers(limited):
    """300 connections each announcing a 1 MB unsigned body and sending part of it: each is
    refused (403) without the server reading the body, and the server's memory barely moves."""
    before = rss_kb(limited.proc.pid)
    sockets = []
    head = (b"POST /ListStages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000000\r\n\r\n")
    for _ in range(300):
        sock = connect(limited)
        sock.sendall(head + b"{" * 60_000)
        sockets.append(sock)
    answers = []
    for sock in sockets:
        sock.settimeout(10)
        try:
            answers.append(sock.recv(200))
        except OSError:
            answers.append(b"")
    grown_mb = (rss_kb(limited.proc.pid) - before) / 1024
    for sock in sockets:
        sock.close()
    print(f"RSS grew {grown_mb:.1f} MB holding 300 unsigned 1 MB bodies; first answer {answers[0][:60]!r}")
    assert all(a.startswith(b"HTTP/1.1 403") for a in answers), [a[:40] for a in answers if not a.startswith(b"HTTP/1.1 403")][:3]
    assert grown_mb < 100
