"""linkem: a user-space link emulator (rate, delay, jitter, loss) for netlab's namespaces.

Why user space: the lab's kernel (a Firecracker VM) has no ``netem`` qdisc and no modules, so
delay, jitter and loss cannot be had from ``tc``; this process does all four, and the rate too.

How: it runs in its own namespace holding two veth ends, ``--host-if`` (whose peer is the
emulated host) and ``--net-if`` (whose peer is a port of the public bridge), and copies Ethernet
frames between them with AF_PACKET raw sockets, as a transparent two-port bridge (it never sees
its own sends: PACKET_IGNORE_OUTGOING, and PACKET_OUTGOING frames are skipped). Direction
``up`` is host -> bridge, ``down`` bridge -> host; each is a pipeline::

    arrival -> loss (Bernoulli p) -> rate: token bucket + drop-tail FIFO -> delay line -> send

Choices (documented because they shape results):

* Loss is decided on arrival, like netem: a lost frame uses no bandwidth.
* Rate counts whole Ethernet frames (14-byte header included, no preamble/FCS), like tbf on a
  veth. The shaper queue holds ``queue_bytes`` or else ``queue_ms`` at the rate (tbf's
  ``latency``), never less than one full frame; a frame that does not fit is dropped.
  The bucket holds ``burst_bytes`` (default: the larger of 2 full frames and 10 ms at the rate).
* Jitter keeps order. A frame is due at max(now + delay + sample, the previous frame's due
  time), sample uniform in [-jitter, +jitter] or normal with sigma = jitter (clamped so the
  delay is >= 0). Real links have one queue and rarely reorder; netem's jitter reorders
  whenever the jitter exceeds the packet spacing. The cost: frames closer together than the
  jitter bunch up behind a late one, so their mean delay is a little above ``delay_ms``.
* Every queue is bounded: the shaper by its limit, the delay line by DELAY_LINE_MAX_FRAMES /
  DELAY_LINE_MAX_BYTES (overflow is counted, it should stay 0).
* Offloads must be off on the two veths that send *into* the emulator (netlab does it with
  ``linkem.py no-offload IF``: no ethtool needed), so every frame arrives segmented and with
  its checksum filled in; a frame longer than the MTU cannot be forwarded and is counted in
  ``oversize`` (the receive buffer takes 256 KiB, so none is silently truncated).

Control: one JSON object per line on stdin, one JSON reply per line on stdout::

    {"cmd": "shape", "dir": "up"|"down"|"both", "rate_bps": 300000, "delay_ms": 40,
     "jitter_ms": 10, "jitter": "uniform"|"normal", "loss": 0.05, "queue_ms": 100,
     "queue_bytes": null, "burst_bytes": null}     -> {"ok": true, "up": {shape...}}
    {"cmd": "stats"}  -> {"ok": true, "up": {counters...}, "down": {...}}
    {"cmd": "quit"}   -> {"ok": true}, then exit

A shape command replaces the whole shape of that direction (omitted keys take their defaults:
unshaped); frames already queued keep their place. ``stats`` first reads every frame already
waiting in the sockets, so it accounts for everything sent before it was asked. The first
line on stdout is ``{"ready": true, ...}`` once both sockets are bound. Exits 0 on SIGTERM,
SIGINT, stdin EOF or ``quit``.

CLI: ``linkem.py run --host-if A --net-if B [--seed N]``; ``linkem.py no-offload IF...``.
"""
import argparse
import array
import collections
import fcntl
import json
import os
import random
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_OUTGOING = 4
PACKET_IGNORE_OUTGOING = 23
RECV_BUFFER = 256 * 1024           # > any GSO frame a veth can carry by default (64 KiB)
SOCKET_BUFFER = 4 * 1024 * 1024    # kernel buffers: absorb bursts while we sleep
READ_BATCH = 256                   # frames read from one socket per wake-up
MAX_FRAME = 1514                   # Ethernet header + 1500 MTU
DELAY_LINE_MAX_FRAMES = 20000
DELAY_LINE_MAX_BYTES = 32 * 1024 * 1024
MAX_CONTROL_LINE = 64 * 1024
MAX_DELAY_MS = 60_000
MAX_QUEUE_MS = 10_000

DEFAULT_SHAPE = {"rate_bps": None, "delay_ms": 0.0, "jitter_ms": 0.0, "jitter": "uniform",
                 "loss": 0.0, "queue_ms": 100.0, "queue_bytes": None, "burst_bytes": None}
COUNTERS = ("frames_in", "bytes_in", "forwarded", "bytes_out", "dropped_loss", "dropped_queue",
            "dropped_overflow", "send_errors", "oversize", "max_frame")

# --------------------------------------------------------------------------- offloads

SIOCETHTOOL = 0x8946
# ethtool legacy "set one feature" commands (linux/ethtool.h): tx checksum, scatter-gather,
# TSO, GSO, GRO. Without tx checksum and GSO the kernel finishes checksums and segments
# in software before a frame enters the veth.
ETHTOOL_SET = {"tx-checksum": 0x17, "sg": 0x19, "tso": 0x1F, "gso": 0x24, "gro": 0x2C}


def disable_offloads(ifname):
    """Turn tx-checksum, sg, tso, gso and gro off on `ifname` in this namespace (ioctl, no ethtool)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for feature, cmd in ETHTOOL_SET.items():
            value = array.array("I", [cmd, 0])              # struct ethtool_value {cmd, data}
            ifreq = struct.pack("16sP", ifname.encode(), value.buffer_info()[0])
            ifreq += bytes(40 - len(ifreq))
            try:
                fcntl.ioctl(sock.fileno(), SIOCETHTOOL, ifreq)
            except OSError as exc:
                raise OSError(exc.errno, f"cannot turn {feature} off on {ifname}: {exc.strerror}") from None


# --------------------------------------------------------------------------- shapes

def parse_shape(fields):
    """A complete, validated shape from a command's fields (missing ones take defaults)."""
    unknown = set(fields) - set(DEFAULT_SHAPE)
    if unknown:
        raise ValueError(f"unknown shape keys: {sorted(unknown)}")
    shape = dict(DEFAULT_SHAPE, **fields)

    def number(key, low, high, allow_none=False):
        value = shape[key]
        if value is None and allow_none:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise ValueError(f"{key} must be a number in [{low}, {high}]" + (" or null" if allow_none else "")
                             + f", not {value!r}")
        shape[key] = float(value) if key.endswith(("_ms", "loss")) else int(value)

    number("rate_bps", 1000, 100e9, allow_none=True)
    number("delay_ms", 0, MAX_DELAY_MS)
    number("jitter_ms", 0, MAX_DELAY_MS)
    number("loss", 0, 1)
    number("queue_ms", 1, MAX_QUEUE_MS)
    number("queue_bytes", MAX_FRAME, 64 * 1024 * 1024, allow_none=True)
    number("burst_bytes", MAX_FRAME, 64 * 1024 * 1024, allow_none=True)
    if shape["jitter"] not in ("uniform", "normal"):
        raise ValueError(f"jitter must be 'uniform' or 'normal', not {shape['jitter']!r}")
    return shape


class Direction:
    """One direction of the link: counters, shaper queue, delay line, and the socket it sends on."""

    def __init__(self, name, out_sock, rng):
        self.name, self.out, self.rng = name, out_sock, rng
        self.queue = collections.deque()   # frames waiting for tokens
        self.queued_bytes = 0
        self.line = collections.deque()    # (due time, frame), due times non-decreasing
        self.line_bytes = 0
        self.last_due = 0.0
        for counter in COUNTERS:
            setattr(self, counter, 0)
        self.set_shape(parse_shape({}), time.monotonic())

    def set_shape(self, shape, now):
        self.shape = shape
        self.loss = shape["loss"]
        self.delay = shape["delay_ms"] / 1000
        self.jitter = shape["jitter_ms"] / 1000
        self.normal = shape["jitter"] == "normal"
        rate = shape["rate_bps"]
        self.byte_rate = rate / 8 if rate else None
        if rate:
            self.limit = shape["queue_bytes"] or max(MAX_FRAME, int(self.byte_rate * shape["queue_ms"] / 1000))
            self.burst = shape["burst_bytes"] or max(2 * MAX_FRAME, int(self.byte_rate * 0.010))
        else:
            self.limit = self.burst = 0
        self.tokens, self.refilled = float(self.burst), now

    def arrive(self, frame, now):
        """A frame read from the input interface: count it, maybe lose it, queue or delay it."""
        size = len(frame)
        self.frames_in += 1
        self.bytes_in += size
        if size > self.max_frame:
            self.max_frame = size
        if self.loss and self.rng.random() < self.loss:
            self.dropped_loss += 1
        elif self.byte_rate is None and not self.queue:
            self._delay(frame, now)
        elif self.byte_rate is not None and self.queued_bytes + size > self.limit:
            self.dropped_queue += 1
        else:
            self.queue.append(frame)
            self.queued_bytes += size

    def _delay(self, frame, now):
        if not self.delay and not self.jitter and not self.line:
            self._send(frame)
            return
        if len(self.line) >= DELAY_LINE_MAX_FRAMES or self.line_bytes + len(frame) > DELAY_LINE_MAX_BYTES:
            self.dropped_overflow += 1
            return
        extra = self.delay
        if self.jitter:
            extra += self.rng.gauss(0, self.jitter) if self.normal else self.rng.uniform(-self.jitter, self.jitter)
        due = max(now + max(0.0, extra), self.last_due)
        self.last_due = due
        self.line.append((due, frame))
        self.line_bytes += len(frame)

    def _send(self, frame):
        try:
            self.out.send(frame)
        except OSError:
            self.send_errors += 1
            if len(frame) > MAX_FRAME:
                self.oversize += 1
            return
        self.forwarded += 1
        self.bytes_out += len(frame)

    def service(self, now):
        """Release frames the bucket allows, send those due; return when to come back (or None)."""
        if self.queue:
            if self.byte_rate is None:                      # rate just removed: flush to the delay line
                while self.queue:
                    self._delay(self.queue.popleft(), now)
                self.queued_bytes = 0
            else:
                self.tokens = min(self.burst, self.tokens + (now - self.refilled) * self.byte_rate)
                self.refilled = now
                while self.queue and self.tokens >= min(len(self.queue[0]), self.burst):
                    frame = self.queue.popleft()
                    self.queued_bytes -= len(frame)
                    self.tokens -= len(frame)
                    self._delay(frame, now)
        line = self.line
        while line and line[0][0] <= now:
            frame = line.popleft()[1]
            self.line_bytes -= len(frame)
            self._send(frame)
        wake = line[0][0] if line else None
        if self.queue:
            need = min(len(self.queue[0]), self.burst) - self.tokens
            ready = now + need / self.byte_rate
            wake = ready if wake is None else min(wake, ready)
        return wake

    def stats(self):
        out = {counter: getattr(self, counter) for counter in COUNTERS}
        out.update(queue_frames=len(self.queue), queue_bytes=self.queued_bytes, queue_limit_bytes=self.limit,
                   delay_frames=len(self.line), shape=self.shape)
        return out


# --------------------------------------------------------------------------- the emulator

def open_port(ifname):
    """A non-blocking AF_PACKET socket bound to `ifname` that does not see its own sends."""
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)  # proto 0: receives nothing until bound
    try:
        sock.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
    except OSError:
        pass                                                    # kernel < 4.20: pkttype check below
    for option, force in ((socket.SO_RCVBUF, 33), (socket.SO_SNDBUF, 32)):  # SO_RCVBUFFORCE / SO_SNDBUFFORCE
        try:
            sock.setsockopt(socket.SOL_SOCKET, force, SOCKET_BUFFER)
        except OSError:
            sock.setsockopt(socket.SOL_SOCKET, option, SOCKET_BUFFER)
    sock.bind((ifname, ETH_P_ALL))
    sock.setblocking(False)
    return sock


class Emulator:
    """The event loop: two sockets, stdin for commands, a wake-up pipe for signals."""

    def __init__(self, host_if, net_if, seed=None):
        rng = random.Random(seed)
        self.host_sock, self.net_sock = open_port(host_if), open_port(net_if)
        self.up = Direction("up", self.net_sock, rng)
        self.down = Direction("down", self.host_sock, rng)
        self.inputs = {self.host_sock.fileno(): (self.host_sock, self.up),
                       self.net_sock.fileno(): (self.net_sock, self.down)}
        self.buffer = bytearray(RECV_BUFFER)
        self.view = memoryview(self.buffer)
        self.control = b""
        self.running = True

    def pump(self, sock, direction, now, limit=READ_BATCH):
        """Read up to `limit` waiting frames from `sock` into `direction`."""
        for _ in range(limit):
            try:
                size, address = sock.recvfrom_into(self.buffer, 0, socket.MSG_TRUNC)
            except (BlockingIOError, InterruptedError):
                return
            if address[2] == PACKET_OUTGOING:
                continue
            if size > RECV_BUFFER:                     # truncated: cannot forward it
                direction.frames_in += 1
                direction.oversize += 1
                continue
            direction.arrive(bytes(self.view[:size]), now)

    def command(self, line):
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a command is a JSON object")
            cmd = request.pop("cmd", None)
            if cmd == "stats":
                now = time.monotonic()
                for sock, direction in self.inputs.values():
                    self.pump(sock, direction, now, limit=100_000)
                    direction.service(now)
                return {"ok": True, "up": self.up.stats(), "down": self.down.stats()}
            if cmd == "shape":
                which = request.pop("dir", None)
                targets = {"up": [self.up], "down": [self.down], "both": [self.up, self.down]}.get(which)
                if targets is None:
                    raise ValueError(f"dir must be 'up', 'down' or 'both', not {which!r}")
                shape = parse_shape(request)
                for direction in targets:
                    direction.set_shape(shape, time.monotonic())
                return {"ok": True, **{d.name: d.shape for d in targets}}
            if cmd == "quit":
                self.running = False
                return {"ok": True}
            raise ValueError(f"unknown cmd {cmd!r} (shape, stats, quit)")
        except (ValueError, TypeError) as exc:
            return {"ok": False, "error": str(exc)}

    def read_control(self):
        """Handle the complete lines waiting on stdin; EOF stops the emulator."""
        chunk = os.read(0, 65536)
        if not chunk:
            self.running = False
            return
        self.control += chunk
        while b"\n" in self.control and self.running:
            line, self.control = self.control.split(b"\n", 1)
            if line.strip():
                reply(self.command(line))
        if len(self.control) > MAX_CONTROL_LINE:
            self.control = b""
            reply({"ok": False, "error": f"command line longer than {MAX_CONTROL_LINE} bytes"})

    def run(self):
        wake_r, wake_w = socket.socketpair()
        wake_w.setblocking(False)
        signal.set_wakeup_fd(wake_w.fileno())
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: None)   # the wake-up fd does the work
        poller = select.epoll()
        for fd in (*self.inputs, 0, wake_r.fileno()):
            poller.register(fd, select.EPOLLIN)
        reply({"ready": True, "pid": os.getpid()})
        wake = None
        while self.running:
            timeout = -1 if wake is None else max(0.0, wake - time.monotonic())
            events = poller.poll(timeout)
            now = time.monotonic()
            for fd, _ in events:
                if fd in self.inputs:
                    self.pump(*self.inputs[fd], now)
                elif fd == 0:
                    self.read_control()
                else:
                    self.running = False
            now = time.monotonic()
            wakes = [w for w in (self.up.service(now), self.down.service(now)) if w is not None]
            wake = min(wakes) if wakes else None
        return 0


def reply(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="emulate the link between two interfaces of this namespace")
    run.add_argument("--host-if", required=True, help="interface whose peer is the emulated host")
    run.add_argument("--net-if", required=True, help="interface whose peer is the network (bridge port)")
    run.add_argument("--seed", type=int, help="seed for loss and jitter (default: random)")
    off = sub.add_parser("no-offload", help="turn tx-checksum/sg/tso/gso/gro off on interfaces here")
    off.add_argument("ifnames", nargs="+")
    args = parser.parse_args(argv)
    try:
        if args.command == "no-offload":
            for ifname in args.ifnames:
                disable_offloads(ifname)
            return 0
        for ifname in (args.host_if, args.net_if):
            disable_offloads(ifname)
        return Emulator(args.host_if, args.net_if, args.seed).run()
    except OSError as exc:
        print(f"linkem: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
