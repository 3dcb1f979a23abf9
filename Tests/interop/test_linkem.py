"""Proves the user-space link emulator (linkem.py, via netlab's shaped hosts) with real traffic.

Small Python programs run inside the namespaces: an ICMP pinger (no `ping` on this machine), a
paced UDP sender stamping each datagram with its sequence number and CLOCK_MONOTONIC send time
(one clock for every namespace, so one-way delays are exact), and a UDP receiver that records
(seq, sent, received, size) until told to stop. Synchronisation is by events: READY lines,
processes exiting, and the emulator's own counters saying its queues are empty. Margins are
wide enough for a busy 2-core machine; measured figures are printed (see them with `-s`).
"""
import json
import math
import os
import pathlib
import select
import statistics
import subprocess
import sys
import time

import pytest

from netlab import NetLab, NetLabError

PORT = 7000
ETH_IP_UDP = 14 + 20 + 8          # bytes a UDP payload gains on the wire (the rate counts frames)

PINGER = r'''
import json, os, socket, struct, sys, time
dest, count, interval = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def checksum(b):
    total = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    total = (total >> 16) + (total & 0xFFFF)
    return ~(total + (total >> 16)) & 0xFFFF
sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
ident, rtts = os.getpid() & 0xFFFF, []
for seq in range(count):
    body = bytes(56)
    packet = struct.pack("!BBHHH", 8, 0, checksum(struct.pack("!BBHHH", 8, 0, 0, ident, seq) + body), ident, seq) + body
    start = time.monotonic()
    sock.sendto(packet, (dest, 0))
    rtt, deadline = None, start + 2
    while rtt is None and time.monotonic() < deadline:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        try:
            data = sock.recv(2048)
        except socket.timeout:
            break
        kind, _, _, who, number = struct.unpack_from("!BBHHH", data, (data[0] & 15) * 4)
        if kind == 0 and who == ident and number == seq:
            rtt = (time.monotonic() - start) * 1000
    rtts.append(rtt)
    time.sleep(max(0.0, start + interval - time.monotonic()))
print(json.dumps(rtts))
'''

UDP_SENDER = r'''
import json, select, socket, struct, sys, time
dest, port, count, size, rate_bps, watch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6] == "1"
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.connect((dest, port))
interval, padding = size * 8 / rate_bps, bytes(size - 12)
sent = errors = 0
start = time.monotonic()
for seq in range(count):
    wait = start + seq * interval - time.monotonic()
    if watch:
        if select.select([sys.stdin], [], [], max(0.0, wait))[0]:
            break                                   # "stop" (or EOF) from the test
    elif wait > 0:
        time.sleep(wait)
    try:
        sock.send(struct.pack("!Id", seq, time.monotonic()) + padding)
        sent += 1
    except OSError:
        errors += 1
print(json.dumps({"sent": sent, "errors": errors, "seconds": time.monotonic() - start}))
'''

UDP_RECEIVER = r'''
import json, select, socket, struct, sys, time
port, limit, progress = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
sock.bind(("0.0.0.0", port))
sock.setblocking(False)
got = []
def drain():
    while True:
        try:
            data = sock.recv(65536)
        except BlockingIOError:
            return
        seq, sent = struct.unpack_from("!Id", data)
        got.append((seq, sent, time.monotonic(), len(data)))
        if progress and len(got) % progress == 0:
            print(len(got), flush=True)
print("READY", flush=True)
deadline = time.monotonic() + limit
while time.monotonic() < deadline:
    readable = select.select([sock, sys.stdin], [], [], deadline - time.monotonic())[0]
    if sock in readable:
        drain()
    if sys.stdin in readable:
        break                                       # "stop" (or EOF) from the test
drain()
print(json.dumps(got), flush=True)
'''


# --------------------------------------------------------------------------- helpers

class Lines:
    """Line reader over a child's stdout with deadlines (select + os.read, no hidden buffering)."""

    def __init__(self, proc):
        self.proc, self.fd, self.buffer = proc, proc.stdout.fileno(), b""

    def next(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise AssertionError(f"no line from {self.proc.args[-4:]} within {timeout} s")
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise AssertionError(f"{self.proc.args[3:6]} exited ({self.proc.wait()}): {self.proc.stderr.read()}")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()


def ping(lab, src, dest, count=20, interval=0.05):
    """RTTs in ms of `count` sequential ICMP echoes (None for a lost one)."""
    return json.loads(lab.run(src, [sys.executable, "-c", PINGER, dest, count, interval],
                              timeout=count * (interval + 2) + 10).stdout)


def start_receiver(lab, host, limit=60, progress=0):
    proc = lab.popen(host, [sys.executable, "-c", UDP_RECEIVER, PORT, limit, progress],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = Lines(proc)
    assert lines.next() == "READY"
    return proc, lines


def stop_receiver(proc, lines):
    """[(seq, sent, received, size), ...] in arrival order."""
    proc.stdin.write(b"stop\n")
    proc.stdin.flush()
    while True:
        line = lines.next()
        if line.startswith("["):
            proc.wait(timeout=10)
            return json.loads(line)


def send_udp(lab, src, dest, count, size, rate_bps, watch=False):
    """The sender process; with watch it stops early on a line on its stdin."""
    return lab.popen(src, [sys.executable, "-c", UDP_SENDER, dest, PORT, count, size, rate_bps, int(watch)],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc, timeout=60):
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return json.loads(out)


def wait_link_idle(lab, host, timeout=10.0):
    """Poll the emulator until nothing is queued or delayed in either direction; its stats."""
    deadline = time.monotonic() + timeout
    while True:
        stats = lab.link_stats(host)
        if all(stats[d]["queue_frames"] == 0 and stats[d]["delay_frames"] == 0 for d in ("up", "down")):
            return stats
        assert time.monotonic() < deadline, f"link of {host.name} still busy after {timeout} s: {stats}"
        time.sleep(0.02)


def delta(after, before, direction, counter):
    return after[direction][counter] - before[direction][counter]


def one_way_ms(got):
    return [(received - sent) * 1000 for _, sent, received, _ in got]


def goodput_bps(got, start=-math.inf, end=math.inf):
    """UDP payload bits/s between the first and last arrival inside [start, end]."""
    inside = [(received, size) for _, _, received, size in got if start <= received <= end]
    assert len(inside) >= 10, f"only {len(inside)} datagrams in the window"
    span = inside[-1][0] - inside[0][0]
    return sum(size for _, size in inside[1:]) * 8 / span


def binomial_bounds(n, p, tail=1e-6):
    """(lo, hi) with P(X < lo) <= tail and P(X > hi) <= tail for X ~ Binomial(n, p)."""
    def pmf(k):
        return math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                        + k * math.log(p) + (n - k) * math.log1p(-p))
    lo, mass = 0, 0.0
    while mass + pmf(lo) <= tail:
        mass, lo = mass + pmf(lo), lo + 1
    hi, mass = n, 0.0
    while mass + pmf(hi) <= tail:
        mass, hi = mass + pmf(hi), hi - 1
    return lo, hi


def cpu_seconds(pid):
    """User + system CPU time of a live process, from /proc (clock ticks of 1/100 s)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@pytest.fixture
def trio(netlab):
    """server, an unshaped reference host, and `sub` behind a link emulator; ARP already warm."""
    server = netlab.public_host("server")
    ref = netlab.public_host("ref")
    sub = netlab.public_host("sub", shaped=True)
    for host in (ref, sub):
        assert None not in ping(netlab, server, host.v4, count=2, interval=0.01), f"{host.name} unreachable"
    return server, ref, sub


# --------------------------------------------------------------------------- (a) unshaped

def test_unshaped_link_adds_little_rtt(netlab, trio):
    server, ref, sub = trio
    direct, shaped = [], []
    for _ in range(2):                                    # interleaved, so machine load hits both alike
        direct += ping(netlab, server, ref.v4, count=50, interval=0.01)
        shaped += ping(netlab, server, sub.v4, count=50, interval=0.01)
    assert None not in direct + shaped
    added = statistics.median(shaped) - statistics.median(direct)
    print(f"\nunshaped: ping RTT median direct {statistics.median(direct):.3f} ms, through linkem "
          f"{statistics.median(shaped):.3f} ms (added {added:.3f} ms); p90 through linkem {percentile(shaped, 0.9):.3f} ms")
    assert added < 2.0, (direct, shaped)


def test_unshaped_link_keeps_up_with_3000_pps_of_full_frames(netlab, trio):
    server, _, sub = trio
    receiver = start_receiver(netlab, sub)
    before, cpu_before = netlab.link_stats(sub), cpu_seconds(sub.link.proc.pid)
    result = finish(send_udp(netlab, server, sub.v4, 6000, 1400, 3000 * 1400 * 8))   # 3000/s for 2 s
    after, cpu_after = wait_link_idle(netlab, sub), cpu_seconds(sub.link.proc.pid)
    got = stop_receiver(*receiver)
    delays = one_way_ms(got)
    rate = result["sent"] / result["seconds"]
    print(f"\n3000 pps x 1442-byte frames: sent {result['sent']} at {rate:.0f}/s, received {len(got)}, "
          f"one-way delay p50 {percentile(delays, 0.5):.3f} ms, p99 {percentile(delays, 0.99):.3f} ms, "
          f"max {max(delays):.3f} ms; emulator CPU {cpu_after - cpu_before:.2f} s in {result['seconds']:.2f} s")
    assert result["sent"] == 6000 and rate > 2000
    assert delta(after, before, "down", "send_errors") == 0
    assert len(got) >= 0.999 * 6000, f"lost {6000 - len(got)}"
    assert percentile(delays, 0.5) < 2.0 and percentile(delays, 0.99) < 50


def test_tcp_crosses_with_offloads_off(netlab, trio):
    """Full-size TCP both ways (IPv6 down, IPv4 up) arrives intact; no frame above the MTU reaches the emulator."""
    server, _, sub = trio
    sink = ("import hashlib, socket, sys\ns = socket.create_server(('::', %d), family=socket.AF_INET6, dualstack_ipv6=True)\n"
            "print('READY', flush=True)\n"
            "c, _ = s.accept(); h = hashlib.sha256(); n = 0\n"
            "while (b := c.recv(1 << 16)):\n    h.update(b); n += len(b)\nprint(n, h.hexdigest())\n" % PORT)
    source = ("import hashlib, socket, sys\ndata = bytes(range(256)) * 16384\n"
              "c = socket.create_connection((sys.argv[1], %d)); c.sendall(data); c.close()\n"
              "print(len(data), hashlib.sha256(data).hexdigest())\n" % PORT)
    for src, dst, address in ((server, sub, sub.v6), (sub, server, server.v4)):
        proc = netlab.popen(dst, [sys.executable, "-c", sink], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        lines = Lines(proc)
        assert lines.next() == "READY"
        sent = netlab.run(src, [sys.executable, "-c", source, address]).stdout.split()
        assert lines.next(timeout=30).split() == sent and sent[0] == str(256 * 16384)
    stats = netlab.link_stats(sub)
    for direction in ("up", "down"):
        assert stats[direction]["max_frame"] <= 1514 and stats[direction]["oversize"] == 0, stats


# --------------------------------------------------------------------------- (b) delay and jitter

def test_delay_and_jitter_without_reordering(netlab, trio):
    server, _, sub = trio
    netlab.shape(sub, "both", delay_ms=100)
    rtts = ping(netlab, server, sub.v4, count=10)
    print(f"\ndelay 100 ms each way: RTT min {min(rtts):.2f} median {statistics.median(rtts):.2f} max {max(rtts):.2f} ms")
    assert min(rtts) >= 200 and statistics.median(rtts) < 215, rtts

    netlab.shape(sub, "both", delay_ms=100, jitter_ms=10)
    rtts = ping(netlab, server, sub.v4, count=20)
    print(f"+ jitter 10 ms: RTT min {min(rtts):.2f} median {statistics.median(rtts):.2f} max {max(rtts):.2f} ms")
    assert 180 <= min(rtts) and max(rtts) < 235, rtts
    assert max(rtts) - min(rtts) >= 5, f"no spread: {rtts}"

    receiver = start_receiver(netlab, sub)
    finish(send_udp(netlab, server, sub.v4, 500, 100, 1000 * 100 * 8))      # 1 ms apart, << the jitter
    wait_link_idle(netlab, sub)
    got = stop_receiver(*receiver)
    delays = one_way_ms(got)
    print(f"UDP 1000/s: {len(got)} of 500 received, one-way {min(delays):.2f}..{max(delays):.2f} ms")
    assert [seq for seq, *_ in got] == list(range(500)), "lost or reordered"
    assert min(delays) >= 90 and max(delays) < 135, (min(delays), max(delays))


# --------------------------------------------------------------------------- (c) loss

def test_random_loss_is_binomial(netlab, trio):
    server, _, sub = trio
    n, p = 2000, 0.05
    netlab.shape(sub, "down", loss=p)
    receiver = start_receiver(netlab, sub)
    before = netlab.link_stats(sub)
    finish(send_udp(netlab, server, sub.v4, n, 100, 2000 * 100 * 8))
    after = wait_link_idle(netlab, sub)
    got = stop_receiver(*receiver)
    seqs = [seq for seq, *_ in got]
    lost = n - len(set(seqs))
    lo, hi = binomial_bounds(n, p)
    print(f"\nloss {p:.0%}: lost {lost} of {n} ({lost / n:.2%}); binomial 1e-6 bounds [{lo}, {hi}]; "
          f"emulator dropped {delta(after, before, 'down', 'dropped_loss')} of "
          f"{delta(after, before, 'down', 'frames_in')} frames")
    assert len(seqs) == len(set(seqs)), "duplicates"
    assert lo <= lost <= hi
    assert delta(after, before, "down", "frames_in") >= n            # nothing lost before the emulator
    assert lost <= delta(after, before, "down", "dropped_loss") <= lost + 5   # + the odd ARP frame


# --------------------------------------------------------------------------- (d) rate

def test_rate_limit_and_bounded_queue(netlab, trio):
    server, _, sub = trio
    rate, queue_ms, size = 300_000, 100, 1000
    netlab.shape(sub, "down", rate_bps=rate, queue_ms=queue_ms)
    receiver = start_receiver(netlab, sub)
    before = netlab.link_stats(sub)
    finish(send_udp(netlab, server, sub.v4, 375, size, 1_000_000))          # 1 Mbps for 3 s
    after = wait_link_idle(netlab, sub)
    got = stop_receiver(*receiver)
    expected = rate * size / (size + ETH_IP_UDP)
    measured = goodput_bps(got)
    delays = one_way_ms(got)
    frame_ms = (size + ETH_IP_UDP) * 8 / rate * 1000
    print(f"\nrate {rate} bps, queue {queue_ms} ms: goodput {measured:.0f} bps (expected {expected:.0f}), "
          f"{len(got)} of 375 through, queue drops {delta(after, before, 'down', 'dropped_queue')}, "
          f"one-way delay max {max(delays):.1f} ms")
    assert abs(measured - expected) <= 0.15 * expected
    assert delta(after, before, "down", "dropped_queue") > 0
    assert queue_ms / 2 <= max(delays) <= queue_ms + frame_ms + 30, "queueing delay not bounded by the queue"


# --------------------------------------------------------------------------- (e) changes at run time

def test_rate_change_at_run_time(netlab, trio):
    server, _, sub = trio
    size, high, low = 1000, 2_500_000, 300_000
    netlab.shape(sub, "down", rate_bps=high, queue_ms=100)
    proc, lines = start_receiver(netlab, sub, progress=10)
    sender = send_udp(netlab, server, sub.v4, 100_000, size, 3_000_000, watch=True)   # above both rates

    def wait_for(count):
        while int(lines.next()) < count:
            pass
        return count

    changes, count = [], wait_for(10)
    for rate, more in ((high, 400), (low, 60), (high, 400)):                 # each phase ~1.3-1.7 s
        if changes:
            netlab.shape(sub, "down", rate_bps=rate, queue_ms=100)
        changes.append((time.monotonic(), rate))
        count = wait_for(count + more)
    end = time.monotonic()
    sender.stdin.write(b"stop\n")
    sender.stdin.flush()
    finish(sender)
    wait_link_idle(netlab, sub)
    got = stop_receiver(proc, lines)
    results = []
    for i, (start, rate) in enumerate(changes):
        stop = changes[i + 1][0] if i + 1 < len(changes) else end
        measured = goodput_bps(got, start + 0.3, stop)                          # after the old queue drained
        results.append((rate, measured, rate * size / (size + ETH_IP_UDP)))
    print("\nrun-time changes: " + ", ".join(f"{r} bps -> {m:.0f} (expected {e:.0f})" for r, m, e in results))
    for rate, measured, expected in results:
        assert abs(measured - expected) <= 0.15 * expected, results


# --------------------------------------------------------------------------- NAT homes and errors

def test_shaped_nat_home(netlab):
    server = netlab.public_host("server")
    home = netlab.nat_home("home", shaped=True)
    assert None not in ping(netlab, home, server.v4, count=2, interval=0.01)      # ARP warm, NAT works
    netlab.shape(home, "up", delay_ms=30)
    rtts = ping(netlab, home, server.v4, count=5)
    assert None not in rtts and 30 <= min(rtts) and max(rtts) < 60, rtts
    assert netlab.link_stats(home)["up"]["forwarded"] >= 5


def test_bad_shapes_are_refused_with_the_reason(netlab, trio):
    _, ref, sub = trio
    with pytest.raises(NetLabError, match="loss must be"):
        netlab.shape(sub, "down", loss=1.5)
    with pytest.raises(NetLabError, match="rate_bps must be"):
        netlab.shape(sub, "up", rate_bps=-1)
    with pytest.raises(ValueError, match="direction"):
        netlab.shape(sub, "sideways")
    with pytest.raises(ValueError, match="no link emulator"):
        netlab.shape(ref, "down", delay_ms=5)
    shape = netlab.shape(sub, "down", rate_bps=1_000_000, queue_bytes=3000, delay_ms=5, jitter_ms=2, jitter="normal")
    assert shape["down"]["queue_bytes"] == 3000 and "up" not in shape                # still answering
    assert netlab.link_stats(sub)["down"]["queue_limit_bytes"] == 3000
    assert None not in ping(netlab, sub, ref.v4, count=3, interval=0.01)


# --------------------------------------------------------------------------- (f) cleanup

def lab_processes(prefix):
    """Pids whose command line mentions the lab's prefix (the emulators name their interfaces)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if prefix.encode() in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            pass
    return found


def test_cleanup_leaves_nothing():
    with NetLab() as lab:
        first = lab.public_host("first", shaped=True)
        second = lab.nat_home("second", shaped=True)
        lab.shape(first, "both", rate_bps=1_000_000, delay_ms=20, loss=0.01)
        emulators = [first.link.proc, second.link.proc]
        assert len(lab_processes(lab.prefix)) == 2
        first.link.proc.stdin.close()                                   # stdin EOF: exits by itself
        assert first.link.proc.wait(timeout=10) == 0
    assert lab.leftovers() == []
    assert [p.returncode for p in emulators] == [0, 0]                  # the second ended cleanly on SIGTERM
    assert lab_processes(lab.prefix) == []
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10).stdout
    assert lab.prefix not in out
