"""netlab: throwaway network topologies in Linux network namespaces, for interop tests.

Why: loopback hides everything that breaks WebRTC in the field -- NAT rewriting the source
address, routers that drop UDP or some TCP ports, IPv6-only clients, addresses that change
mid-call. This module builds those situations for real, with namespaces, veth pairs, a Linux
bridge and iptables, so tests can prove the SFU and the SDK cope with them.

Topology (every box is its own network namespace; the root namespace is never touched)::

                       "public internet": bridge in namespace <prefix>inet
                       203.0.113.0/24  +  2001:db8:113::/64  (documentation ranges)
        +--------------+----------------+--------------------+----------------+
        |              |                |                    |                |
   public_host     v6_only       <name>-gw (router)    <name>-gw ...     public_host ...
   .10, ::10      ::200 only     .100 (+ ::100)        .101
                                        | 192.168.N.1/24 (+ 2001:db8:1:N::1/64)
                                   nat_home <name>
                                   192.168.N.2/24, default via .1

* Hosts on the bridge talk directly (one L2 segment, no default routes needed).
* A NAT router MASQUERADEs the LAN behind its public IPv4 and, like a home router, forwards
  only LAN->WAN traffic and its replies (conntrack); nothing unsolicited gets in, so two homes
  cannot reach each other's 192.168 addresses.
* A NAT home with ``v6=True`` also gets a routed, *un-NATed* global IPv6 prefix
  (2001:db8:1:N::/64, as real ISPs hand out) behind the same stateful filter; every IPv6 host
  on the bridge gets a route to it via the router.
* Blocking (UDP, TCP destination ports) happens in the router's ``NETLAB-BLOCK`` chain,
  consulted first in FORWARD, so it can change at run time and never affects traffic that
  stays inside the home.
* ``shaped=True`` (public hosts, NAT homes) puts a link emulator between the host (or the
  home's router) and the bridge: namespace ``<name>-em`` running ``linkem.py``, a transparent
  two-port bridge that applies rate, delay, jitter and loss per direction (this kernel has no
  netem). The host keeps its public address; ``shape()`` changes the link at run time and
  ``link_stats()`` reads its counters.

Names: each NetLab gets a prefix ``pn<pid % 10000><letters>-`` (e.g. ``pn4242a-``); every
namespace and every interface it creates starts with it, interface names stay <= 15 chars.
The owner's pid and start time are written to ``/run/netlab/<prefix>`` so ``sweep_stale()``
can tell leftovers of dead runs (SIGKILL, power loss) from live parallel runs.

Cleanup: ``close()`` (called by ``__exit__``, by ``atexit`` and by a SIGTERM handler) kills
the processes started in the lab's namespaces, deletes the veths, the namespaces and the
``/etc/netns/<ns>/`` directories.

Usage::

    with NetLab() as lab:
        server = lab.public_host("server")            # 203.0.113.10, 2001:db8:113::10
        home = lab.nat_home("home", udp_blocked=True)  # 192.168.1.2 behind 203.0.113.100
        lab.set_hosts(home, {"stage.test": [server.v4]})
        lab.run(home, ["getent", "hosts", "stage.test"]).stdout
        sub = lab.public_host("sub", shaped=True)      # 203.0.113.11 behind a link emulator
        lab.shape(sub, "down", rate_bps=300_000, delay_ms=40, jitter_ms=10, loss=0.05)
        lab.link_stats(sub)["down"]["dropped_loss"]

CLI for humans: ``python3 Tests/interop/netlab.py demo`` or ``... sweep``.
Needs root, iproute2 and (for NAT homes) iptables; Debian's ``iptables`` (the nf_tables
variant) works inside namespaces.
"""
import atexit
import dataclasses
import ipaddress
import itertools
import json
import os
import pathlib
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

PUBLIC_V4_NET = ipaddress.ip_network("203.0.113.0/24")
PUBLIC_V6_NET = ipaddress.ip_network("2001:db8:113::/64")
HOME_V6_TEMPLATE = "2001:db8:1:{n}::"  # + "/64"; N is written in decimal digits, read as hex
PUBLIC_HOST_OCTETS = range(10, 100)    # public_host: .10, .11, ...
ROUTER_OCTETS = range(100, 200)        # NAT routers' WAN side: .100, .101, ...
V6_ONLY_SUFFIXES = range(200, 255)     # v6_only hosts: 2001:db8:113::200, ...
LAN_INDEXES = range(1, 255)            # 192.168.N.0/24 per home

CMD_TIMEOUT = 10.0       # seconds for any single setup/teardown command
RUN_TIMEOUT = 30.0       # default for lab.run() of test programs
NETNS_ETC = pathlib.Path("/etc/netns")
OWNER_DIR = pathlib.Path("/run/netlab")
BLOCK_CHAIN = "NETLAB-BLOCK"
IFNAMSIZ = 15
NAME_RE = re.compile(r"^[a-z][a-z0-9]{0,19}$")
PREFIX_RE = re.compile(r"^(pn(\d{1,4})([a-z]+)-)")
LINKEM = pathlib.Path(__file__).resolve().parent / "linkem.py"
LINK_DIRECTIONS = ("up", "down", "both")   # up: host -> internet; down: internet -> host


class NetLabError(RuntimeError):
    """A command failed, timed out, or the machine cannot run the lab (with the reason)."""


@dataclasses.dataclass(eq=False)
class Link:
    """A link emulator (linkem.py) in namespace `ns`, between a host's veth and a bridge port."""
    ns: str
    host_if: str                          # in `ns`, the peer of the host's (or router's) interface
    net_if: str                           # in `ns`, the peer of a bridge port
    proc: subprocess.Popen | None = None
    log: object = None                    # temporary file with the emulator's stderr
    pending: bytes = b""                  # stdout read beyond the last reply line


@dataclasses.dataclass(eq=False)
class Router:
    """A home's NAT router: WAN on the bridge, LAN towards the home."""
    ns: str
    wan_if: str
    lan_if: str
    public_v4: str
    public_v6: str | None
    lan_gw_v4: str
    lan_gw_v6: str | None
    link: Link | None = None


@dataclasses.dataclass(eq=False)
class Host:
    """A namespace a test runs programs in; addresses are strings (None when absent)."""
    name: str
    ns: str
    ifname: str
    v4: str | None = None
    v6: str | None = None
    router: Router | None = None
    lan_index: int | None = None
    link: Link | None = None      # the link emulator in front of it (shaped=True)

    @property
    def router_public_v4(self):
        """The source address a server on the bridge sees for this host's IPv4 traffic."""
        return self.router.public_v4 if self.router else self.v4

    @property
    def router_ns(self):
        return self.router.ns if self.router else None


# --------------------------------------------------------------------------- commands

def _cmd_text(args):
    return " ".join(str(a) for a in args)


def _run(args, *, timeout=CMD_TIMEOUT, check=True, input=None):
    """Run a command, bounded; on failure raise NetLabError carrying its stderr."""
    args = [str(a) for a in args]
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout, input=input)
    except subprocess.TimeoutExpired as exc:
        raise NetLabError(f"timed out after {timeout:g} s: {_cmd_text(args)}\n{exc.stderr or ''}") from None
    except FileNotFoundError as exc:
        raise NetLabError(f"cannot run {_cmd_text(args)}: {exc}") from None
    if check and proc.returncode != 0:
        raise NetLabError(f"`{_cmd_text(args)}` failed with exit {proc.returncode}: "
                          f"{(proc.stderr or proc.stdout).strip()}")
    return proc


def _ip_bin():
    return shutil.which("ip")


def preflight():
    """Raise NetLabError with the reason when this machine cannot build a lab.

    Tests must fail with that reason rather than skip: a silently skipped network test is a
    network test that never runs.
    """
    if os.geteuid() != 0:
        raise NetLabError(f"netlab needs root (network namespaces, veths, iptables); euid is {os.geteuid()}")
    if _ip_bin() is None:
        raise NetLabError("netlab needs iproute2's `ip` on PATH (apt-get install iproute2)")


def _require_iptables():
    for tool in ("iptables", "iptables-restore"):
        if shutil.which(tool) is None:
            raise NetLabError(f"NAT homes need `{tool}` on PATH (apt-get install iptables)")


def _netns_list():
    """Names of all named network namespaces (`ip netns list` prints `name (id: N)`)."""
    out = _run(["ip", "netns", "list"]).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


# --------------------------------------------------------------------------- ownership

def _proc_start_time(pid):
    """Start time (clock ticks since boot) of a live pid, or None; defeats pid reuse."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def owner_file(prefix):
    """The file naming the process that made `prefix`'s namespaces ("pid start-time"): the
    prefix without its dash, in OWNER_DIR."""
    return OWNER_DIR / prefix[:-1]


def _owner_alive(prefix):
    """Is the process that created `prefix` still running?

    With an owner file (`owner_file`): that exact process (pid and start time). Without one
    (crash between claiming the prefix and writing the file): any live process whose pid % 10000 matches,
    which errs on the side of keeping a live parallel run's namespaces.
    """
    match = PREFIX_RE.match(prefix)
    if not match:
        return True
    try:
        pid, start = (int(x) for x in owner_file(match.group(1)).read_text().split())
        return _proc_start_time(pid) == start
    except (OSError, ValueError):
        pass
    short = int(match.group(2))
    return any(int(p) % 10000 == short for p in os.listdir("/proc") if p.isdigit())


def _letters(n):
    """0 -> 'a', 25 -> 'z', 26 -> 'ba': a counter that cannot be confused with the pid digits."""
    text = ""
    while True:
        text = chr(ord("a") + n % 26) + text
        n //= 26
        if n == 0:
            return text


_COUNTER = itertools.count()


def _kill_ns_pids(ns):
    """SIGKILL whatever still runs inside `ns` (only processes the lab started live there)."""
    proc = _run(["ip", "netns", "pids", ns], check=False)
    for pid in proc.stdout.split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def _delete_ns(ns):
    """Kill its processes, delete the namespace and its /etc/netns directory; never raises."""
    _kill_ns_pids(ns)
    _run(["ip", "netns", "del", ns], check=False)
    shutil.rmtree(NETNS_ETC / ns, ignore_errors=True)


def _remove_if_empty(*directories):
    """Leave no empty /etc/netns or /run/netlab behind (a parallel lab simply recreates them)."""
    for directory in directories:
        try:
            directory.rmdir()
        except OSError:
            pass


def sweep_stale(verbose=False):
    """Remove namespaces, /etc/netns dirs and owner files of NetLabs whose process is gone.

    Returns the removed namespace / directory names. Safe to run next to live labs.
    """
    removed = []
    for ns in _netns_list():
        match = PREFIX_RE.match(ns)
        if match and not _owner_alive(match.group(1)):
            removed += [ns] + ([str(NETNS_ETC / ns)] if (NETNS_ETC / ns).exists() else [])
            _delete_ns(ns)
    for path in (NETNS_ETC.iterdir() if NETNS_ETC.is_dir() else ()):
        match = PREFIX_RE.match(path.name)
        if match and not _owner_alive(match.group(1)):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(str(path))
    for path in (OWNER_DIR.iterdir() if OWNER_DIR.is_dir() else ()):
        if not _owner_alive(path.name + "-"):
            path.unlink(missing_ok=True)
    _remove_if_empty(NETNS_ETC, OWNER_DIR)
    if verbose:
        print("\n".join(f"removed {r}" for r in removed) or "nothing to sweep")
    return removed


# --------------------------------------------------------------------------- process-wide cleanup

_LIVE = set()
_LIVE_LOCK = threading.Lock()
_HANDLERS_INSTALLED = False
_PREVIOUS_SIGTERM = None


def _cleanup_all():
    """Close every live NetLab of this process (atexit / SIGTERM)."""
    with _LIVE_LOCK:
        labs = list(_LIVE)
    for lab in labs:
        lab.close(quiet=True)


def _on_sigterm(signum, frame):
    """Clean up, then behave as SIGTERM would have without us (chain or die by the signal)."""
    _cleanup_all()
    previous = _PREVIOUS_SIGTERM
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)


def _install_handlers():
    """atexit always; SIGTERM only from the main thread (Python allows no other)."""
    global _HANDLERS_INSTALLED, _PREVIOUS_SIGTERM
    if _HANDLERS_INSTALLED:
        return
    _HANDLERS_INSTALLED = True
    atexit.register(_cleanup_all)
    if threading.current_thread() is threading.main_thread():
        _PREVIOUS_SIGTERM = signal.getsignal(signal.SIGTERM)
        signal.signal(signal.SIGTERM, _on_sigterm)


# --------------------------------------------------------------------------- the lab

class NetLab:
    """A set of namespaces around one "public internet" bridge; see the module docstring.

    Use as a context manager (or call start()/close()). Not thread-safe: build the topology
    from one thread; running programs in it from many is fine.
    """

    def __init__(self, sweep=True):
        self.sweep = sweep
        self.prefix = None
        self.bridge_ns = None
        self.bridge_if = None
        self.hosts = {}
        self._namespaces = []      # creation order; deleted in reverse
        self._veths = []           # (ns, ifname): one end of each pair we created
        self._procs = []
        self._links = []
        self._etc_dirs = []
        self._v6_members = []      # namespaces with a global IPv6 on the bridge
        self._v6_routes = []       # (home prefix, router's public v6)
        self._pairs = itertools.count(1)
        self._public = iter(PUBLIC_HOST_OCTETS)
        self._routers = iter(ROUTER_OCTETS)
        self._v6_only = iter(V6_ONLY_SUFFIXES)
        self._lans = iter(LAN_INDEXES)
        self._closed = False

    # ---- lifecycle

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        self.close(quiet=exc_type is not None)
        return False

    def start(self):
        """Check the machine, claim a prefix, build the bridge namespace."""
        preflight()
        if self.sweep:
            sweep_stale()
        _install_handlers()
        with _LIVE_LOCK:
            _LIVE.add(self)
        try:
            self._claim_prefix()
            self._write_owner_file()
            self._build_bridge()
        except BaseException:
            self.close(quiet=True)
            raise
        return self

    def close(self, quiet=False):
        """Remove everything this lab created. Idempotent.

        Raises NetLabError listing leftovers unless `quiet` (used when another exception is
        already on its way, at exit and on SIGTERM).
        """
        if self._closed:
            return
        self._closed = True
        self._stop_procs()
        for link in self._links:
            for stream in (link.proc and link.proc.stdin, link.proc and link.proc.stdout, link.log):
                try:
                    stream and stream.close()
                except OSError:
                    pass
        for ns, ifname in reversed(self._veths):
            _run(["ip", "-n", ns, "link", "del", ifname], check=False)
        for ns in reversed(self._namespaces):
            _delete_ns(ns)
        for path in self._etc_dirs:
            shutil.rmtree(path, ignore_errors=True)
        if self.prefix:
            owner_file(self.prefix).unlink(missing_ok=True)
        _remove_if_empty(NETNS_ETC, OWNER_DIR)
        with _LIVE_LOCK:
            _LIVE.discard(self)
        left = self.leftovers()
        if left and not quiet:
            raise NetLabError(f"netlab cleanup left behind: {left}")

    def leftovers(self):
        """Namespaces and /etc/netns dirs of this lab that still exist (empty after close)."""
        if not self.prefix:
            return []
        left = [ns for ns in _netns_list() if ns.startswith(self.prefix)]
        if NETNS_ETC.is_dir():
            left += [str(p) for p in NETNS_ETC.iterdir() if p.name.startswith(self.prefix)]
        return left

    def _stop_procs(self):
        """terminate(), then SIGKILL what did not exit in time (a blocked SIGTERM is inherited)."""
        for proc in self._procs:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + 2
        for proc in self._procs:
            try:
                proc.wait(timeout=max(0.01, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=CMD_TIMEOUT)

    def _claim_prefix(self):
        """Pick `pn<pid%10000><letters>-`; creating its bridge namespace is the atomic claim."""
        for _ in range(100):
            prefix = f"pn{os.getpid() % 10000}{_letters(next(_COUNTER))}-"
            ns = prefix + "inet"
            if ns in _netns_list():
                continue
            if _run(["ip", "netns", "add", ns], check=False).returncode == 0:
                self.prefix, self.bridge_ns = prefix, ns
                self._namespaces.append(ns)
                return
        raise NetLabError("could not claim a free netlab prefix in 100 tries")

    def _write_owner_file(self):
        OWNER_DIR.mkdir(parents=True, exist_ok=True)
        owner_file(self.prefix).write_text(f"{os.getpid()} {_proc_start_time(os.getpid())}\n")

    def _ifname(self, tag):
        name = self.prefix + tag
        if len(name) > IFNAMSIZ:
            raise NetLabError(f"interface name {name!r} is longer than {IFNAMSIZ} characters")
        return name

    def _build_bridge(self):
        """The public segment: a plain L2 bridge, no STP delay, no netfilter on bridged frames."""
        self._init_ns(self.bridge_ns)
        self.bridge_if = self._ifname("br")
        _run(["ip", "-n", self.bridge_ns, "link", "add", self.bridge_if, "type", "bridge",
              "stp_state", "0", "forward_delay", "0", "mcast_snooping", "0",
              "nf_call_iptables", "0", "nf_call_ip6tables", "0", "nf_call_arptables", "0"])
        _run(["ip", "-n", self.bridge_ns, "link", "set", self.bridge_if, "up"])

    # ---- namespace plumbing

    def _check_name(self, name):
        if not NAME_RE.match(name):
            raise ValueError(f"host name {name!r} must match {NAME_RE.pattern} (it becomes part of a namespace name)")
        if name in self.hosts or name == "inet":
            raise ValueError(f"host name {name!r} is already used in this lab")
        if self._closed or self.prefix is None:
            raise NetLabError("NetLab is not started (use `with NetLab() as lab:`)")

    def _new_ns(self, suffix):
        """Create `<prefix><suffix>`, registered for cleanup before anything can fail."""
        ns = self.prefix + suffix
        _run(["ip", "netns", "add", ns])
        self._namespaces.append(ns)
        self._init_ns(ns)
        return ns

    def _init_ns(self, ns):
        """lo up; no DAD/RA so IPv6 addresses work at once and nothing autoconfigures."""
        _run(["ip", "-n", ns, "link", "set", "lo", "up"])
        self._sysctl(ns, {"net.ipv6.conf.all.accept_dad": 0, "net.ipv6.conf.default.accept_dad": 0,
                          "net.ipv6.conf.all.accept_ra": 0, "net.ipv6.conf.default.accept_ra": 0})

    def _sysctl(self, ns, values):
        _run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", *(f"{k}={v}" for k, v in values.items())])

    def _veth(self, ns_a, tag_a, ns_b, tag_b):
        """A veth pair created directly inside two namespaces (never in the root namespace)."""
        a, b = self._ifname(tag_a), self._ifname(tag_b)
        _run(["ip", "link", "add", a, "netns", ns_a, "type", "veth", "peer", "name", b, "netns", ns_b])
        self._veths.append((ns_a, a))
        _run(["ip", "-n", ns_a, "link", "set", a, "up"])
        _run(["ip", "-n", ns_b, "link", "set", b, "up"])
        return a, b

    def _attach(self, ns):
        """Plug `ns` into the bridge; returns its interface name."""
        return self._attach_port(ns)[0]

    def _attach_port(self, ns):
        """Plug `ns` into the bridge; returns its interface name and the bridge port's."""
        i = next(self._pairs)
        ifname, port = self._veth(ns, f"e{i}", self.bridge_ns, f"b{i}")
        _run(["ip", "-n", self.bridge_ns, "link", "set", port, "master", self.bridge_if])
        return ifname, port

    def _attach_shaped(self, ns, name):
        """Plug `ns` into the bridge through a link emulator in `<name>-em`; returns (ifname, Link).

        The emulator namespace has IPv6 off (it must send nothing of its own). Offloads go off
        on the two veths that send into it, so it gets every frame segmented and checksummed.
        """
        em = self._new_ns(f"{name}-em")
        self._sysctl(em, {"net.ipv6.conf.all.disable_ipv6": 1, "net.ipv6.conf.default.disable_ipv6": 1})
        i = next(self._pairs)
        ifname, host_if = self._veth(ns, f"e{i}", em, f"s{i}")
        net_if, port = self._attach_port(em)
        for where, dev in ((ns, ifname), (self.bridge_ns, port)):
            _run(["ip", "netns", "exec", where, sys.executable, LINKEM, "no-offload", dev])
        link = Link(ns=em, host_if=host_if, net_if=net_if, log=tempfile.TemporaryFile())
        self._links.append(link)
        link.proc = self.popen(em, [sys.executable, LINKEM, "run", "--host-if", host_if, "--net-if", net_if],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=link.log)
        if not self._link_read(link, name).get("ready"):
            raise NetLabError(f"link emulator of {name} did not start: {self._link_log(link)}")
        return ifname, link

    @staticmethod
    def _addr(ns, ifname, address, plen):
        extra = ["nodad"] if ":" in address else []
        _run(["ip", "-n", ns, "addr", "add", f"{address}/{plen}", "dev", ifname, *extra])

    def _join_v6(self, ns):
        """A new IPv6 bridge member learns the routes to every v6 home prefix."""
        self._v6_members.append(ns)
        for prefix, via in self._v6_routes:
            _run(["ip", "-n", ns, "-6", "route", "add", prefix, "via", via])

    def _add_v6_route(self, prefix, via, skip_ns):
        self._v6_routes.append((prefix, via))
        for ns in self._v6_members:
            if ns != skip_ns:
                _run(["ip", "-n", ns, "-6", "route", "add", prefix, "via", via])

    @staticmethod
    def _take(allocator, what):
        try:
            return next(allocator)
        except StopIteration:
            raise NetLabError(f"netlab ran out of {what}") from None

    # ---- public API: topology

    def public_host(self, name, v4=True, v6=True, shaped=False):
        """A namespace directly on the public segment (a server, a TURN relay, ...).

        shaped: behind a link emulator (see shape()); still the same public addresses.
        """
        self._check_name(name)
        if not (v4 or v6):
            raise ValueError("a public host needs v4 or v6")
        ns = self._new_ns(name)
        ifname, link = self._attach_shaped(ns, name) if shaped else (self._attach(ns), None)
        octet = self._take(self._public, "public host addresses")
        host = Host(name=name, ns=ns, ifname=ifname, link=link)
        if v4:
            host.v4 = str(PUBLIC_V4_NET[octet])
            self._addr(ns, ifname, host.v4, 24)
        if v6:
            host.v6 = f"{PUBLIC_V6_NET.network_address}{octet}"
            self._addr(ns, ifname, host.v6, 64)
            self._join_v6(ns)
        self.hosts[name] = host
        return host

    def v6_only(self, name):
        """A namespace on the public segment with IPv6 only: no IPv4 address but 127.0.0.1, no IPv4 route."""
        self._check_name(name)
        ns = self._new_ns(name)
        ifname = self._attach(ns)
        suffix = self._take(self._v6_only, "v6-only addresses")
        host = Host(name=name, ns=ns, ifname=ifname, v6=f"{PUBLIC_V6_NET.network_address}{suffix}")
        self._addr(ns, ifname, host.v6, 64)
        self._join_v6(ns)
        self.hosts[name] = host
        return host

    def nat_home(self, name, udp_blocked=False, blocked_tcp_ports=(), v6=False, shaped=False):
        """A home 192.168.N.2/24 behind its own NAT router `<name>-gw` on the public segment.

        udp_blocked: the router drops UDP forwarded from the LAN (TURN-over-TCP territory).
        blocked_tcp_ports: the router drops forwarded TCP to these destination ports.
        v6: also a routed global 2001:db8:1:N::2/64 (no NAT66), behind the same filter.
        shaped: a link emulator between the router's WAN and the bridge (the home's access line).
        """
        self._check_name(name)
        _require_iptables()
        n = self._take(self._lans, "home LAN subnets")
        router = self._build_router(name, n, v6, shaped)
        ns = self._new_ns(name)
        i = next(self._pairs)
        router.lan_if, ifname = self._veth(router.ns, f"l{i}", ns, f"h{i}")
        host = Host(name=name, ns=ns, ifname=ifname, v4=f"192.168.{n}.2", router=router, lan_index=n,
                    link=router.link)
        self._sysctl(ns, {f"net.ipv4.conf.{ifname}.promote_secondaries": 1})
        self._addr(router.ns, router.lan_if, router.lan_gw_v4, 24)
        self._addr(ns, ifname, host.v4, 24)
        _run(["ip", "-n", ns, "route", "add", "default", "via", router.lan_gw_v4])
        if v6:
            home_prefix = HOME_V6_TEMPLATE.format(n=n)
            router.lan_gw_v6, host.v6 = home_prefix + "1", home_prefix + "2"
            self._addr(router.ns, router.lan_if, router.lan_gw_v6, 64)
            self._addr(ns, ifname, host.v6, 64)
            _run(["ip", "-n", ns, "-6", "route", "add", "default", "via", router.lan_gw_v6])
            self._add_v6_route(home_prefix + "/64", router.public_v6, skip_ns=router.ns)
        self._load_router_rules(router, udp_blocked, blocked_tcp_ports)
        self.hosts[name] = host
        return host

    def _build_router(self, name, n, v6, shaped=False):
        """Router namespace: WAN on the bridge (maybe through a link emulator) with a public address, forwarding on."""
        ns = self._new_ns(f"{name}-gw")
        wan_if, link = self._attach_shaped(ns, name) if shaped else (self._attach(ns), None)
        octet = self._take(self._routers, "router addresses")
        router = Router(ns=ns, wan_if=wan_if, lan_if="", public_v4=str(PUBLIC_V4_NET[octet]),
                        public_v6=f"{PUBLIC_V6_NET.network_address}{octet}" if v6 else None,
                        lan_gw_v4=f"192.168.{n}.1", lan_gw_v6=None, link=link)
        self._addr(ns, wan_if, router.public_v4, 24)
        settings = {"net.ipv4.ip_forward": 1}
        if v6:
            self._addr(ns, wan_if, router.public_v6, 64)
            self._join_v6(ns)
            settings["net.ipv6.conf.all.forwarding"] = 1
        self._sysctl(ns, settings)
        return router

    def _load_router_rules(self, router, udp_blocked, blocked_tcp_ports):
        """Home-router filtering, loaded atomically with iptables-restore (one call per family).

        FORWARD: our block chain first, then LAN->WAN and replies only (policy DROP).
        IPv4 also gets MASQUERADE on the WAN; IPv6 is routed as is.
        """
        blocks = self._block_rules(router, udp_blocked, blocked_tcp_ports)
        filter_table = [
            "*filter", ":INPUT ACCEPT [0:0]", ":FORWARD DROP [0:0]", ":OUTPUT ACCEPT [0:0]",
            f":{BLOCK_CHAIN} - [0:0]",
            f"-A FORWARD -j {BLOCK_CHAIN}",
            f"-A FORWARD -i {router.lan_if} -o {router.wan_if} -j ACCEPT",
            f"-A FORWARD -i {router.wan_if} -o {router.lan_if} -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
            *(f"-A {BLOCK_CHAIN} {' '.join(rule)}" for rule in blocks),
            "COMMIT",
        ]
        nat_table = ["*nat", ":PREROUTING ACCEPT [0:0]", ":INPUT ACCEPT [0:0]", ":OUTPUT ACCEPT [0:0]",
                     ":POSTROUTING ACCEPT [0:0]", f"-A POSTROUTING -o {router.wan_if} -j MASQUERADE", "COMMIT"]
        _run(["ip", "netns", "exec", router.ns, "iptables-restore"], input="\n".join(filter_table + nat_table) + "\n")
        if router.public_v6:
            _run(["ip", "netns", "exec", router.ns, "ip6tables-restore"], input="\n".join(filter_table) + "\n")

    @staticmethod
    def _udp_rule(router):
        return ["-i", router.lan_if, "-p", "udp", "-j", "DROP"]

    @staticmethod
    def _tcp_rule(router, port):
        return ["-i", router.lan_if, "-p", "tcp", "--dport", str(int(port)), "-j", "DROP"]

    def _block_rules(self, router, udp_blocked, ports):
        rules = [self._udp_rule(router)] if udp_blocked else []
        return rules + [self._tcp_rule(router, p) for p in ports]

    # ---- public API: running things

    @staticmethod
    def _ns_of(target):
        """Accept a Host, a Router or a namespace name."""
        return target if isinstance(target, str) else target.ns

    def _exec_args(self, target, args):
        if isinstance(args, (str, bytes)):
            raise TypeError("args must be a list (no shell strings), e.g. [sys.executable, '-c', code]")
        return ["ip", "netns", "exec", self._ns_of(target), *[str(a) for a in args]]

    def popen(self, target, args, **kwargs):
        """subprocess.Popen inside the namespace; killed at close() if still running.

        Starts a new session by default so a stray Ctrl-C in the terminal reaches only us.
        """
        kwargs.setdefault("start_new_session", True)
        proc = subprocess.Popen(self._exec_args(target, args), **kwargs)
        self._procs.append(proc)
        return proc

    def run(self, target, args, check=True, **kwargs):
        """subprocess.run inside the namespace: text output captured, bounded by RUN_TIMEOUT.

        With check (default) a non-zero exit or a timeout raises NetLabError with stderr.
        """
        kwargs.setdefault("timeout", RUN_TIMEOUT)
        if "stdout" not in kwargs and "stderr" not in kwargs:
            kwargs.setdefault("capture_output", True)
        kwargs.setdefault("text", True)
        full = self._exec_args(target, args)
        try:
            proc = subprocess.run(full, **kwargs)
        except subprocess.TimeoutExpired as exc:
            raise NetLabError(f"timed out after {kwargs['timeout']:g} s: {_cmd_text(full)}\n"
                              f"stderr: {exc.stderr or ''}") from None
        if check and proc.returncode != 0:
            raise NetLabError(f"`{_cmd_text(full)}` failed with exit {proc.returncode}: {proc.stderr or ''}")
        return proc

    def set_hosts(self, target, names):
        """Write /etc/netns/<ns>/hosts; `ip netns exec` bind-mounts it over /etc/hosts.

        names: {"stage.test": ["203.0.113.10", "2001:db8:113::10"], ...}
        """
        ns = self._ns_of(target)
        directory = NETNS_ETC / ns
        directory.mkdir(parents=True, exist_ok=True)
        if directory not in self._etc_dirs:
            self._etc_dirs.append(directory)
        lines = ["127.0.0.1 localhost", "::1 localhost ip6-localhost ip6-loopback"]
        for hostname, addresses in names.items():
            addresses = [addresses] if isinstance(addresses, str) else addresses
            lines += [f"{ipaddress.ip_address(a)} {hostname}" for a in addresses]
        (directory / "hosts").write_text("\n".join(lines) + "\n")
        return directory / "hosts"

    # ---- public API: changes mid-test

    def replace_address(self, host, new_v4=None):
        """Move a NAT home to another LAN address (like a DHCP renumbering); returns it.

        Adds the new /24 address, points the default route at it as source, then deletes the
        old one (promote_secondaries keeps the new one and the routes alive).
        """
        if host.router is None:
            raise ValueError(f"{host.name} is not a NAT home")
        old = host.v4
        new_v4 = new_v4 or self._free_lan_address(host)
        if ipaddress.ip_address(new_v4) not in ipaddress.ip_network(f"192.168.{host.lan_index}.0/24"):
            raise ValueError(f"{new_v4} is not in {host.name}'s LAN 192.168.{host.lan_index}.0/24")
        self._addr(host.ns, host.ifname, new_v4, 24)
        gateway = ["default", "via", host.router.lan_gw_v4, "dev", host.ifname]
        _run(["ip", "-n", host.ns, "route", "replace", *gateway, "src", new_v4])
        _run(["ip", "-n", host.ns, "addr", "del", f"{old}/24", "dev", host.ifname])
        _run(["ip", "-n", host.ns, "route", "replace", *gateway, "src", new_v4])
        host.v4 = new_v4
        return new_v4

    def _free_lan_address(self, host):
        out = _run(["ip", "-n", host.ns, "-4", "-o", "addr", "show", "dev", host.ifname]).stdout
        used = set(re.findall(r"inet (\S+)/", out)) | {host.router.lan_gw_v4}
        for last in range(3, 255):
            candidate = f"192.168.{host.lan_index}.{last}"
            if candidate not in used:
                return candidate
        raise NetLabError(f"no free address left in {host.name}'s LAN")

    def _set_rule(self, host, rule, present):
        """Add or remove one NETLAB-BLOCK rule on the home's router, for each IP family it has."""
        if host.router is None:
            raise ValueError(f"{host.name} is not a NAT home")
        tools = ["iptables"] + (["ip6tables"] if host.router.public_v6 else [])
        for tool in tools:
            base = ["ip", "netns", "exec", host.router.ns, tool]
            exists = _run([*base, "-C", BLOCK_CHAIN, *rule], check=False).returncode == 0
            if present and not exists:
                _run([*base, "-I", BLOCK_CHAIN, *rule])
            elif exists and not present:
                _run([*base, "-D", BLOCK_CHAIN, *rule])

    def block_udp(self, host):
        """From now on the home's router drops UDP from the LAN (live flows stop too)."""
        self._set_rule(host, self._udp_rule(host.router), True)

    def unblock_udp(self, host):
        self._set_rule(host, self._udp_rule(host.router), False)

    def block_tcp_port(self, host, port):
        """From now on the home's router drops TCP from the LAN to destination `port`."""
        self._set_rule(host, self._tcp_rule(host.router, port), True)

    def unblock_tcp_port(self, host, port):
        self._set_rule(host, self._tcp_rule(host.router, port), False)

    # ---- public API: shaped links

    def shape(self, host, direction, rate_bps=None, delay_ms=0, jitter_ms=0, loss=0.0, queue_ms=100,
              jitter="uniform", queue_bytes=None, burst_bytes=None):
        """Set the shape of a shaped host's link in `direction`: "up" (host -> internet), "down", "both".

        Replaces that direction's previous shape at once (the defaults are an unshaped link);
        frames already queued keep their place. rate_bps counts Ethernet frames (None: no
        limit); queue_ms (or queue_bytes) bounds the drop-tail queue behind the rate; jitter is
        "uniform" (+-jitter_ms) or "normal" (sigma jitter_ms) and never reorders; loss is a
        probability. Returns the emulator's view of the new shape(s); bad values raise
        NetLabError with the emulator's reason. Semantics in detail: linkem.py's docstring.
        """
        if direction not in LINK_DIRECTIONS:
            raise ValueError(f"direction must be one of {LINK_DIRECTIONS}, not {direction!r}")
        return self._link_call(host, {"cmd": "shape", "dir": direction, "rate_bps": rate_bps, "delay_ms": delay_ms,
                                      "jitter_ms": jitter_ms, "jitter": jitter, "loss": loss, "queue_ms": queue_ms,
                                      "queue_bytes": queue_bytes, "burst_bytes": burst_bytes})

    def link_stats(self, host):
        """{"up": {...}, "down": {...}}: frames_in, bytes_in, forwarded, bytes_out, dropped_loss,
        dropped_queue, dropped_overflow, send_errors, oversize, max_frame, queue_frames,
        queue_bytes, queue_limit_bytes, delay_frames and the shape. Counts every frame sent
        towards the emulator before the call."""
        answer = self._link_call(host, {"cmd": "stats"})
        return {"up": answer["up"], "down": answer["down"]}

    @staticmethod
    def _link_of(host):
        if getattr(host, "link", None) is None:
            raise ValueError(f"{getattr(host, 'name', host)!r} has no link emulator (create it with shaped=True)")
        return host.link

    def _link_call(self, host, request):
        """One command to the host's emulator and its reply; NetLabError if refused or dead."""
        link = self._link_of(host)
        try:
            link.proc.stdin.write((json.dumps(request) + "\n").encode())
            link.proc.stdin.flush()
        except (OSError, ValueError):
            raise NetLabError(f"link emulator of {host.name} is gone: {self._link_log(link)}") from None
        answer = self._link_read(link, host.name)
        if not answer.get("ok"):
            raise NetLabError(f"link emulator of {host.name} refused {request['cmd']}: {answer.get('error')}")
        return answer

    def _link_read(self, link, name, timeout=CMD_TIMEOUT):
        """The emulator's next stdout line, parsed; NetLabError with its stderr if it exits or stalls."""
        deadline = time.monotonic() + timeout
        fd = link.proc.stdout.fileno()
        while b"\n" not in link.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise NetLabError(f"link emulator of {name} did not answer within {timeout:g} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                try:
                    code = link.proc.wait(timeout=CMD_TIMEOUT)
                except subprocess.TimeoutExpired:
                    code = "?"
                raise NetLabError(f"link emulator of {name} exited ({code}): {self._link_log(link)}")
            link.pending += chunk
        line, link.pending = link.pending.split(b"\n", 1)
        try:
            return json.loads(line)
        except ValueError:
            raise NetLabError(f"link emulator of {name} said {line[:200]!r}") from None

    @staticmethod
    def _link_log(link):
        """The end of the emulator's stderr, for error messages."""
        try:
            link.log.seek(0)
            return link.log.read()[-2000:].decode(errors="replace").strip() or "(no stderr)"
        except (OSError, ValueError):
            return "(stderr unavailable)"

    # ---- for humans

    def describe(self):
        """Multi-line summary: every namespace with its addresses."""
        lines = [f"bridge namespace {self.bridge_ns}: {PUBLIC_V4_NET}, {PUBLIC_V6_NET}"]
        for host in self.hosts.values():
            addrs = ", ".join(a for a in (host.v4, host.v6) if a) or "-"
            line = f"{host.name:10} ns={host.ns:18} {addrs}"
            if host.link:
                line += f"   shaped by {host.link.ns}"
            if host.router:
                rv6 = f", {host.router.public_v6}" if host.router.public_v6 else ""
                line += f"   behind NAT {host.router.ns} ({host.router.public_v4}{rv6})"
            lines.append(line)
        return "\n".join(lines)


# --------------------------------------------------------------------------- CLI

def _demo():
    """Build the standard cast, print how to use it, wait for Ctrl-C, clean up."""
    with NetLab() as lab:
        server = lab.public_host("server")
        homes = [lab.nat_home("home1", v6=True), lab.nat_home("home2"),
                 lab.nat_home("udpblk", udp_blocked=True, blocked_tcp_ports=(3478,))]
        v6host = lab.v6_only("v6only")
        slow = lab.public_host("slow", shaped=True)
        lab.shape(slow, "both", rate_bps=2_500_000, delay_ms=20, jitter_ms=5, loss=0.01)
        for host in [server, *homes, v6host, slow]:
            lab.set_hosts(host, {"stage.test": [a for a in (server.v4, server.v6) if a]})
        print(lab.describe())
        print("\n'stage.test' resolves to the server in every namespace. Try:")
        examples = [
            (server, "python3 -m http.server 8080 --bind ::", "a web server on 203.0.113.10 and ::10"),
            (homes[0], "curl -s http://stage.test:8080/ | head -3", "its log shows the router's 203.0.113.100"),
            (homes[2], "curl -s http://stage.test:8080/ | head -3", "TCP passes; UDP from this home does not"),
            (v6host, "curl -s http://stage.test:8080/ | head -3", "over IPv6 only"),
            (slow, "curl -s -o /dev/null -w '%{time_total}\\n' http://stage.test:8080/",
             "2.5 Mbps, 20+-5 ms each way, 1 % loss (lab.shape)"),
            (homes[2].router, f"iptables -S {BLOCK_CHAIN}", "the router's drop rules"),
            (homes[0], "bash", "a shell inside a home"),
        ]
        for target, command, why in examples:
            print(f"  ip netns exec {target.ns} {command:45} # {why}")
        print("\nCtrl-C to tear everything down.", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("\ncleaning up")
    return 0


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["demo", "sweep"],
                        help="demo: build a sample topology until Ctrl-C; sweep: remove leftovers of dead runs")
    args = parser.parse_args(argv)
    try:
        preflight()
        if args.command == "sweep":
            sweep_stale(verbose=True)
            return 0
        return _demo()
    except NetLabError as exc:
        print(f"netlab: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
