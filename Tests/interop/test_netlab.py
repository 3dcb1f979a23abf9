"""Proves the netlab harness with real traffic, so later SFU/SDK tests can trust it.

Every check sends packets through the namespaces: a tiny Python echo server (UDP and TCP, each
reply is the source address the server saw) and a one-shot client that prints
`<reply> <its own local address>`, `TIMEOUT` or `ERR:<errno>`. Negative checks wait about a
second; positive ones return as soon as the reply arrives.
"""
import os
import pathlib
import select
import signal
import subprocess
import sys

import pytest

import netlab as netlab_module
from netlab import NETNS_ETC, OWNER_DIR, NetLab, NetLabError, owner_file, sweep_stale

HERE = pathlib.Path(__file__).resolve().parent
PORT, OTHER_PORT = 7000, 7001

ECHO_SERVER = r'''
import socket, sys, threading

def peer(addr):
    host = addr[0]
    return host[7:] if host.startswith("::ffff:") else host

def bound(kind, port):
    s = socket.socket(socket.AF_INET6, kind)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # one socket for v4 and v6
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", port))
    return s

def udp(s):
    while True:
        data, addr = s.recvfrom(2048)
        s.sendto(peer(addr).encode(), addr)

def tcp(s):
    s.listen(16)
    while True:
        conn, addr = s.accept()
        with conn:
            conn.sendall(peer(addr).encode())

for port in map(int, sys.argv[1:]):
    threading.Thread(target=udp, args=(bound(socket.SOCK_DGRAM, port),), daemon=True).start()
    threading.Thread(target=tcp, args=(bound(socket.SOCK_STREAM, port),), daemon=True).start()
print("READY", flush=True)
threading.Event().wait()
'''

ECHO_CLIENT = r'''
import errno, socket, sys, time
proto, host, port, bind, wait = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
family = socket.AF_INET6 if ":" in host else socket.AF_INET
deadline = time.monotonic() + wait
try:
    s = socket.socket(family, socket.SOCK_DGRAM if proto == "udp" else socket.SOCK_STREAM)
    if bind:
        s.bind((bind, 0))
    if proto == "udp":
        s.connect((host, port))  # connected: getsockname() shows the source address used
        while True:  # resend every 0.2 s until the deadline: UDP may lose the first packet
            s.send(b"ping")
            s.settimeout(max(0.01, min(0.2, deadline - time.monotonic())))
            try:
                reply = s.recv(2048)
                break
            except socket.timeout:
                if time.monotonic() >= deadline:
                    raise
    else:
        s.settimeout(wait)
        s.connect((host, port))
        reply = s.recv(2048)
    print(reply.decode(), s.getsockname()[0])
except socket.timeout:
    print("TIMEOUT")
except OSError as e:
    print("ERR:" + errno.errorcode.get(e.errno, str(e.errno)))
'''


def start_echo(lab, host, *ports):
    """Echo server in `host`; returns once it has bound every port (its READY line)."""
    proc = lab.popen(host, [sys.executable, "-c", ECHO_SERVER, *map(str, ports)],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    readable, _, _ = select.select([proc.stdout], [], [], 10)
    line = proc.stdout.readline().strip() if readable else ""
    if line != "READY":
        proc.kill()
        pytest.fail(f"echo server in {host.ns} not ready: {line!r} {proc.stderr.read()}", pytrace=False)
    return proc


def probe(lab, host, proto, dest, port=PORT, *, bind="", wait=3.0):
    """One client exchange from `host`; (reply, local address) or (TIMEOUT|ERR:..., None)."""
    out = lab.run(host, [sys.executable, "-c", ECHO_CLIENT, proto, dest, port, bind, wait],
                  timeout=wait + 10).stdout.split()
    return (out[0], out[1]) if len(out) == 2 else (out[0], None)


def reply(lab, host, proto, dest, port=PORT, **kwargs):
    """The address the server saw; fails the test when nothing came back."""
    seen, local = probe(lab, host, proto, dest, port, **kwargs)
    assert local is not None, f"{proto} {host.name} -> {dest}:{port}: {seen}"
    return seen


def nothing_back(lab, host, proto, dest, port=PORT):
    """True when the exchange got no reply (dropped, unreachable or refused)."""
    seen, local = probe(lab, host, proto, dest, port, wait=1.0)
    return local is None


def addresses(lab, host, family):
    out = lab.run(host, ["ip", "-o", family, "addr", "show"]).stdout
    return [line.split()[3].split("/")[0] for line in out.splitlines()]


def lab_namespaces(prefix):
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(prefix)]


def lab_etc_dirs(prefix):
    return [p.name for p in NETNS_ETC.iterdir() if p.name.startswith(prefix)] if NETNS_ETC.is_dir() else []


# --------------------------------------------------------------------------- 1. NAT

def test_nat_home_reaches_server_and_is_masqueraded(netlab):
    server = netlab.public_host("server")
    home = netlab.nat_home("home")
    assert (server.v4, server.v6) == ("203.0.113.10", "2001:db8:113::10")
    start_echo(netlab, server, PORT)

    for proto in ("udp", "tcp"):
        seen, local = probe(netlab, home, proto, server.v4)
        assert local == home.v4 == "192.168.1.2", (proto, seen, local)
        assert seen == home.router_public_v4, f"{proto}: server saw {seen}, not the router's public address"
        assert not seen.startswith("192.168.")


# --------------------------------------------------------------------------- 2. isolation

def test_nat_homes_cannot_reach_each_other(netlab):
    netlab.public_host("server")
    home1, home2 = netlab.nat_home("home1"), netlab.nat_home("home2")
    start_echo(netlab, home2, PORT)
    assert reply(netlab, home2, "udp", home2.v4) == home2.v4  # the target is up: the negatives mean something

    for proto in ("udp", "tcp"):
        assert nothing_back(netlab, home1, proto, home2.v4), f"{proto} home1 reached home2's LAN address"
        assert nothing_back(netlab, home1, proto, home2.router_public_v4), f"{proto} got through home2's NAT unsolicited"
    assert nothing_back(netlab, home2, "tcp", home1.v4)


# --------------------------------------------------------------------------- 3. blocking

def test_udp_blocked_home_gets_no_udp_but_tcp_works(netlab):
    server = netlab.public_host("server")
    blocked = netlab.nat_home("blocked", udp_blocked=True)
    start_echo(netlab, server, PORT)

    assert nothing_back(netlab, blocked, "udp", server.v4)
    assert reply(netlab, blocked, "tcp", server.v4) == blocked.router_public_v4
    # The home's own UDP stack is intact: a local echo inside the home still answers.
    start_echo(netlab, blocked, OTHER_PORT)
    assert reply(netlab, blocked, "udp", blocked.v4, OTHER_PORT) == blocked.v4


def test_blocked_tcp_ports_block_exactly_those_ports(netlab):
    server = netlab.public_host("server")
    home = netlab.nat_home("home", blocked_tcp_ports=(PORT,))
    start_echo(netlab, server, PORT, OTHER_PORT)

    assert nothing_back(netlab, home, "tcp", server.v4, PORT)
    assert reply(netlab, home, "tcp", server.v4, OTHER_PORT) == home.router_public_v4
    assert reply(netlab, home, "udp", server.v4, PORT) == home.router_public_v4  # UDP to that port still passes


def test_block_and_unblock_at_runtime(netlab):
    server = netlab.public_host("server")
    home = netlab.nat_home("home")
    start_echo(netlab, server, PORT)

    assert reply(netlab, home, "udp", server.v4) == home.router_public_v4
    netlab.block_udp(home)
    netlab.block_udp(home)  # idempotent
    assert nothing_back(netlab, home, "udp", server.v4)
    netlab.unblock_udp(home)
    assert reply(netlab, home, "udp", server.v4) == home.router_public_v4

    netlab.block_tcp_port(home, PORT)
    assert nothing_back(netlab, home, "tcp", server.v4)
    netlab.unblock_tcp_port(home, PORT)
    assert reply(netlab, home, "tcp", server.v4) == home.router_public_v4


# --------------------------------------------------------------------------- 4. IPv6

def test_v6_only_host(netlab):
    server = netlab.public_host("server")
    v6host = netlab.v6_only("v6host")
    start_echo(netlab, server, PORT)

    for proto in ("udp", "tcp"):
        assert reply(netlab, v6host, proto, server.v6) == v6host.v6
    assert v6host.v4 is None
    assert addresses(netlab, v6host, "-4") == ["127.0.0.1"]
    routes = netlab.run(v6host, ["ip", "-4", "route", "show", "table", "all"]).stdout.splitlines()
    assert routes and all("dev lo" in r for r in routes), f"an IPv4 route besides loopback: {routes}"
    assert probe(netlab, v6host, "udp", server.v4, wait=1.0)[0] == "ERR:ENETUNREACH"
    assert probe(netlab, v6host, "tcp", server.v4, wait=1.0)[0] == "ERR:ENETUNREACH"


def test_nat_home_with_v6_is_routed_not_natted_and_filtered_inbound(netlab):
    server = netlab.public_host("server")
    home = netlab.nat_home("home", v6=True)
    start_echo(netlab, server, PORT)
    start_echo(netlab, home, OTHER_PORT)

    assert reply(netlab, home, "udp", server.v6) == home.v6 == "2001:db8:1:1::2"
    assert reply(netlab, home, "tcp", server.v4) == home.router_public_v4
    assert nothing_back(netlab, server, "tcp", home.v6, OTHER_PORT), "unsolicited inbound IPv6 got through"


# --------------------------------------------------------------------------- 5. names

def test_set_hosts_resolves_inside_the_namespace_only(netlab):
    server = netlab.public_host("server")
    home = netlab.nat_home("home")
    netlab.set_hosts(home, {"stage.test": [server.v4]})
    netlab.set_hosts(server, {"stage.test": [server.v6]})

    assert netlab.run(home, ["getent", "hosts", "stage.test"]).stdout.split()[0] == server.v4
    assert netlab.run(server, ["getent", "hosts", "stage.test"]).stdout.split()[0] == server.v6
    assert netlab.run(home, ["getent", "hosts", "localhost"]).returncode == 0
    outside = subprocess.run(["getent", "hosts", "stage.test"], capture_output=True, timeout=10)
    assert outside.returncode != 0, "the root namespace must not see the lab's names"
    start_echo(netlab, server, PORT)
    assert reply(netlab, home, "tcp", "stage.test") == home.router_public_v4  # a real client resolves it


# --------------------------------------------------------------------------- 6. renumbering

def test_replace_address(netlab):
    server = netlab.public_host("server")
    home = netlab.nat_home("home")
    start_echo(netlab, server, PORT)
    old = home.v4

    new = netlab.replace_address(home)
    assert new == home.v4 == "192.168.1.3"
    assert addresses(netlab, home, "-4") == ["127.0.0.1", new]
    seen, local = probe(netlab, home, "udp", server.v4, bind=new)
    assert (seen, local) == (home.router_public_v4, new)
    assert probe(netlab, home, "tcp", server.v4)[1] == new, "default source is not the new address"
    assert probe(netlab, home, "udp", server.v4, bind=old)[0] == "ERR:EADDRNOTAVAIL"

    assert netlab.replace_address(home, "192.168.1.77") == "192.168.1.77"
    assert reply(netlab, home, "udp", server.v4, bind="192.168.1.77") == home.router_public_v4
    with pytest.raises(ValueError):
        netlab.replace_address(home, "10.0.0.5")


# --------------------------------------------------------------------------- 7. cleanup

def build_everything(lab):
    server = lab.public_host("server")
    home = lab.nat_home("home", v6=True, udp_blocked=True)
    lab.v6_only("v6host")
    lab.set_hosts(home, {"stage.test": [server.v4]})
    return lab.popen(home, ["sleep", "60"])


def assert_gone(prefix):
    assert lab_namespaces(prefix) == []
    assert lab_etc_dirs(prefix) == []
    assert not owner_file(prefix).exists()


def test_cleanup_after_normal_exit():
    with NetLab() as lab:
        sleeper = build_everything(lab)
        assert len(lab_namespaces(lab.prefix)) == 5  # inet, server, home-gw, home, v6host
        assert lab_etc_dirs(lab.prefix) == [lab.hosts["home"].ns]
    assert_gone(lab.prefix)
    assert sleeper.poll() is not None


def test_cleanup_when_the_body_raises():
    with pytest.raises(ZeroDivisionError):
        with NetLab() as lab:
            sleeper = build_everything(lab)
            1 / 0
    assert_gone(lab.prefix)
    assert sleeper.poll() is not None


def test_sigterm_cleans_up(tmp_path):
    """A run killed by SIGTERM (CI's timeout) removes its lab and still dies by the signal."""
    child = (f"import signal, sys, time; sys.path.insert(0, {str(HERE)!r}); import netlab\n"
             # a test process may hand down a blocked SIGTERM; the child must be able to receive it
             "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})\n"
             "lab = netlab.NetLab().start(); lab.public_host('a')\n"
             "lab.set_hosts(lab.nat_home('b'), {'x': ['203.0.113.10']})\n"
             "print(lab.prefix, flush=True); time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        readable, _, _ = select.select([proc.stdout], [], [], 15)
        prefix = proc.stdout.readline().strip() if readable else ""
        assert prefix.startswith("pn"), f"child did not build its lab: {proc.stderr.read() if not readable else ''}"
        assert len(lab_namespaces(prefix)) == 4
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == -signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert_gone(prefix)


def test_sweep_removes_only_dead_runs():
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    dead_prefix = f"pn{dead.pid % 10000}zz-"
    live_prefix = f"pn{os.getpid() % 10000}zy-"
    created = [dead_prefix + "inet", dead_prefix + "home", live_prefix + "inet"]
    OWNER_DIR.mkdir(parents=True, exist_ok=True)
    owner_file(dead_prefix).write_text(f"{dead.pid} 1\n")  # start time 1: never a live process
    owner_file(live_prefix).write_text(f"{os.getpid()} {netlab_module._proc_start_time(os.getpid())}\n")
    try:
        for ns in created:
            subprocess.run(["ip", "netns", "add", ns], check=True, timeout=10)
        (NETNS_ETC / (dead_prefix + "home")).mkdir(parents=True)

        removed = sweep_stale()
        assert set(removed) >= {dead_prefix + "inet", dead_prefix + "home", str(NETNS_ETC / (dead_prefix + "home"))}
        assert lab_namespaces(dead_prefix) == [] and lab_etc_dirs(dead_prefix) == []
        assert not owner_file(dead_prefix).exists()
        assert lab_namespaces(live_prefix) == [live_prefix + "inet"]
    finally:
        for ns in created:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)
        for prefix in (dead_prefix, live_prefix):
            owner_file(prefix).unlink(missing_ok=True)


def test_owner_file_decides_even_when_a_live_pid_shares_the_prefix_number():
    # The prefix's number is a pid modulo 10000: without reading the owner file, our own live
    # process would keep this dead run's namespaces forever.
    prefix = f"pn{os.getpid() % 10000}zx-"
    OWNER_DIR.mkdir(parents=True, exist_ok=True)
    owner = owner_file(prefix)
    try:
        owner.write_text(f"{os.getpid()} 1\n")  # start time 1: our pid, but not our process
        assert not netlab_module._owner_alive(prefix)
        owner.write_text(f"{os.getpid()} {netlab_module._proc_start_time(os.getpid())}\n")
        assert netlab_module._owner_alive(prefix)
    finally:
        owner.unlink(missing_ok=True)


# --------------------------------------------------------------------------- preconditions

def test_not_root_fails_with_the_reason(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(NetLabError, match="needs root"):
        NetLab().start()


def test_missing_ip_fails_with_the_reason(monkeypatch):
    monkeypatch.setattr(netlab_module, "_ip_bin", lambda: None)
    with pytest.raises(NetLabError, match="iproute2"):
        NetLab().start()


def test_failing_command_reports_its_stderr(netlab):
    host = netlab.public_host("server")
    with pytest.raises(NetLabError, match="No such file or directory|does not exist|Cannot find"):
        netlab.run(host, ["ip", "link", "set", "nosuchif", "up"])
    with pytest.raises(NetLabError, match="timed out"):
        netlab.run(host, ["sleep", "5"], timeout=0.3)
