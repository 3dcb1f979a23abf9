"""TLS end to end, with a CA this test makes with the `openssl` CLI.

1. stage-server serving TLS itself (`--tls-cert/--tls-key`, default public URL https://127.0.0.1:PORT):
   boto3 (`verify=`), the AWS CLI (`--ca-bundle`) and `stage` (`--ca-file`) call the control
   plane over https; a `stage join` host publishes and a `stage join` viewer records over wss.
2. The same behind Debian's nginx terminating TLS (https://localhost:PORT) in front of a
   plain-http stage-server whose --public-url is the nginx URL.
3. Without the CA (or with another one) the CLI fails fast with a TLS verification error.
"""
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import time

import boto3
import pytest
import requests
from botocore.config import Config

from conftest import ACCESS_KEY, REGION, REPO, SECRET_KEY, StageServer

OPENSSL = shutil.which("openssl")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
RECORD_SECONDS = 6


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _openssl(*args, cwd):
    subprocess.run([OPENSSL, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _make_ca(directory, name):
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN=Proscenium {name}",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
             cwd=directory)
    return directory / f"{name}.pem"


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A test CA, a server certificate it signs (IP:127.0.0.1, DNS:localhost) and an unrelated CA."""
    if OPENSSL is None:
        pytest.fail("the openssl CLI is not installed: scripts/setup.sh --interop installs it")
    d = tmp_path_factory.mktemp("pki")
    ca = _make_ca(d, "ca")
    other = _make_ca(d, "other-ca")
    (d / "server.ext").write_text("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                                  "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n")
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "server.key",
             "-out", "server.csr", "-subj", "/CN=localhost", cwd=d)
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "server.pem", "-days", "2", "-extfile", "server.ext", cwd=d)
    return {"ca": ca, "other": other, "cert": d / "server.pem", "key": d / "server.key", "dir": d}


def _binary():
    binary = pathlib.Path(os.environ.get("STAGE_SERVER_BIN", REPO / ".build/debug/stage-server"))
    if not binary.is_file():
        pytest.fail(f"stage-server binary not found at {binary} (run `swift build` or set STAGE_SERVER_BIN)", pytrace=False)
    return binary


def _stage_cli():
    return pathlib.Path(os.environ.get("STAGE_CLI_BIN", _binary().resolve().parent / "stage"))


class TLSStageServer(StageServer):
    """stage-server with --tls-cert/--tls-key and no --public-url: the default URL must be https."""

    def __init__(self, binary, workdir, pki):
        super().__init__(binary, workdir)
        self.pki = pki
        self.url = f"https://127.0.0.1:{self.http_port}"

    def start(self):
        env = dict(os.environ, STAGE_ACCESS_KEY_ID=ACCESS_KEY, STAGE_SECRET_ACCESS_KEY=SECRET_KEY)
        args = [str(self.binary), "--http-port", str(self.http_port), "--data-dir", str(self.data_dir),
                "--media-port", str(self.media_port), "--host", "127.0.0.1",
                "--tls-cert", str(self.pki["cert"]), "--tls-key", str(self.pki["key"])]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env)
        self._wait_ready()

    def _wait_ready(self):
        _wait_https(self, self.pki["ca"])


class ProxiedStageServer(StageServer):
    """Plain-http stage-server on loopback (port `http_port`) whose public URL is nginx's https URL."""

    def __init__(self, binary, workdir, http_port, public_url):
        super().__init__(binary, workdir)
        self.http_port = http_port
        self.url = f"http://127.0.0.1:{http_port}"
        self.public_url = public_url

    def start(self):
        env = dict(os.environ, STAGE_ACCESS_KEY_ID=ACCESS_KEY, STAGE_SECRET_ACCESS_KEY=SECRET_KEY)
        args = [str(self.binary), "--http-port", str(self.http_port), "--data-dir", str(self.data_dir),
                "--media-port", str(self.media_port), "--host", "127.0.0.1", "--public-url", self.public_url]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env)
        self._wait_ready()


NGINX_CONF = """\
# The server block of docs/DEPLOYMENT.md, with paths and ports of this test.
{user}
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;

    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      close;
    }}

    server {{
        listen 127.0.0.1:{port} ssl;
        server_name localhost;
        ssl_certificate     {cert};
        ssl_certificate_key {key};
        ssl_protocols TLSv1.2 TLSv1.3;

        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
            proxy_buffering off;
            client_max_body_size 1m;
        }}
    }}
}}
"""


class Nginx:
    """nginx as a child of the test, with its own config, prefix, pid and logs in a temp dir."""

    def __init__(self, workdir, pki, upstream_port):
        self.prefix = workdir
        self.port = _free_port()
        self.url = f"https://localhost:{self.port}"
        self.conf = workdir / "nginx.conf"
        self.conf.write_text(NGINX_CONF.format(
            user="user root;" if os.geteuid() == 0 else "", prefix=workdir, port=self.port,
            cert=pki["cert"], key=pki["key"], upstream=upstream_port))
        self.proc = None

    def start(self, ca):
        if not os.path.exists(NGINX):
            pytest.fail("nginx is not installed: scripts/setup.sh --interop installs nginx-light", pytrace=False)
        log = open(self.prefix / "nginx.stderr", "wb")
        self.proc = subprocess.Popen([NGINX, "-p", str(self.prefix), "-c", str(self.conf), "-e", str(self.prefix / "error.log"),
                                      "-g", "daemon off;"], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"nginx exited with {self.proc.returncode}:\n{self.log_tail()}", pytrace=False)
            try:
                if requests.get(f"{self.url}/healthz", timeout=1, verify=str(ca)).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.05)
        self.stop()
        pytest.fail(f"nginx not proxying /healthz within 20 s\n{self.log_tail()}", pytrace=False)

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGQUIT)  # graceful: the master waits for its workers
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def log_tail(self, lines=30):
        text = ""
        for name in ("nginx.stderr", "error.log"):
            path = self.prefix / name
            if path.exists():
                text += f"--- {name} ---\n" + "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) + "\n"
        return text


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory, pki):
    srv = TLSStageServer(_binary(), tmp_path_factory.mktemp("tls-server"), pki)
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def proxied(tmp_path_factory, pki):
    """(nginx, stage-server): nginx terminates TLS at https://localhost:PORT."""
    workdir = tmp_path_factory.mktemp("nginx")
    upstream_port = _free_port()
    nginx = Nginx(workdir, pki, upstream_port)
    srv = ProxiedStageServer(_binary(), tmp_path_factory.mktemp("proxied-server"), upstream_port, nginx.url)
    try:
        srv.start()
        nginx.start(pki["ca"])
        yield nginx, srv
    finally:
        nginx.stop()
        srv.stop()


def _wait_https(srv, ca):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if srv.proc.poll() is not None:
            pytest.fail(f"stage-server exited with {srv.proc.returncode}\n{srv.log_tail()}", pytrace=False)
        try:
            if requests.get(f"{srv.url}/healthz", timeout=1, verify=str(ca)).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.05)
    srv.stop()
    pytest.fail(f"stage-server not ready over https within 60 s\n{srv.log_tail()}", pytrace=False)


def _boto(url, ca):
    return boto3.client("ivs-realtime", endpoint_url=url, region_name=REGION, verify=str(ca),
                        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
                        config=Config(retries={"mode": "standard", "total_max_attempts": 2}, connect_timeout=5, read_timeout=30))


def _cli_env(endpoint):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "STAGE_CA_FILE"))}
    env.update(AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY, AWS_DEFAULT_REGION=REGION,
               AWS_CONFIG_FILE="/dev/null", AWS_SHARED_CREDENTIALS_FILE="/dev/null", AWS_PAGER="", STAGE_ENDPOINT=endpoint)
    return env


def _aws_cli(url, ca, *args):
    exe = shutil.which("aws")
    if exe is None:
        pytest.fail("the `aws` CLI is not on PATH: scripts/setup.sh --interop installs it")
    proc = subprocess.run([exe, "ivs-realtime", *args, "--endpoint-url", url, "--ca-bundle", str(ca), "--output", "json"],
                          env=_cli_env(url), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"aws {args[0]} over https failed ({proc.returncode}): {proc.stderr}"
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def _stage(url, *args, timeout=60, **extra_env):
    return subprocess.run([str(_stage_cli()), *args], env=dict(_cli_env(url), **extra_env),
                          capture_output=True, text=True, timeout=timeout)


def _join(url, workdir, name, token, *args):
    log = open(workdir / f"join-{name}.log", "w+")
    proc = subprocess.Popen([str(_stage_cli()), "join", "--token", token, *args],
                            stdout=log, stderr=subprocess.STDOUT, env=_cli_env(url))
    return proc, log


def _leave(proc, log):
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    log.seek(0)
    return log.read()


def _count_vp8_frames(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                          "-show_entries", "stream=codec_name,width,height,nb_read_frames", "-of", "json", str(path)],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return json.loads(out)["streams"][0]


def _host_and_guest_over_tls(url, ca, workdir):
    """A CLI host publishes the test camera and tone; a CLI viewer records. Returns the recording's video stream."""
    boto = _boto(url, ca)
    stage = boto.create_stage(name="tls")["stage"]
    assert stage["endpoints"]["events"].startswith("wss://"), stage["endpoints"]
    host = boto.create_participant_token(stageArn=stage["arn"], userId="tls-host")["participantToken"]
    guest = boto.create_participant_token(stageArn=stage["arn"], userId="tls-guest", capabilities=["SUBSCRIBE"])["participantToken"]
    record = workdir / "rec"
    host_proc, host_log = _join(url, workdir, "host", host["token"], "--camera", "test", "--mic", "tone",
                                "--size", "640x360", "--fps", "30", "--status-interval", "0", "--ca-file", str(ca))
    guest_proc = guest_log = None
    try:
        guest_proc, guest_log = _join(url, workdir, "guest", guest["token"], "--strategy", "viewer", "--record", str(record),
                                      "--camera", "none", "--mic", "none", "--status-interval", "2", "--ca-file", str(ca))
        time.sleep(RECORD_SECONDS + 2)
        assert host_proc.poll() is None, "the host exited early"
        assert guest_proc.poll() is None, "the guest exited early"
    finally:
        guest_out = _leave(guest_proc, guest_log) if guest_proc else ""
        host_out = _leave(host_proc, host_log)
        try:
            boto.delete_stage(arn=stage["arn"])
        except Exception:
            pass
    print("--- guest ---\n" + guest_out[-1500:] + "\n--- host ---\n" + host_out[-800:])
    videos = sorted(record.glob("*.ivf")) if record.exists() else []
    assert videos, f"the guest recorded no video over wss\n{guest_out[-2000:]}\n{host_out[-1000:]}"
    assert sorted(record.glob("*.ogg")), "the guest recorded no audio over wss"
    stream = _count_vp8_frames(videos[0])
    print(f"recorded {videos[0].name}: {stream}")
    assert stream["codec_name"] == "vp8"
    # 30 fps for about RECORD_SECONDS s once subscribed; half of that is a clear "media flows".
    assert int(stream["nb_read_frames"]) >= 15 * RECORD_SECONDS, stream
    return stream


def test_tls_server_serves_boto3_aws_cli_and_stage_cli(tls_server, pki):
    boto = _boto(tls_server.url, pki["ca"])
    created = boto.create_stage(name="tls-boto")["stage"]
    assert created["endpoints"]["events"] == f"wss://127.0.0.1:{tls_server.http_port}/events/{created['arn'].split('/')[-1]}"
    assert created["endpoints"]["whip"] == f"{tls_server.url}/whip"
    listed = _aws_cli(tls_server.url, pki["ca"], "list-stages")
    assert created["arn"] in [s["arn"] for s in listed["stages"]]
    for extra, env in (((["--ca-file", str(pki["ca"])], {}), ([], {"STAGE_CA_FILE": str(pki["ca"])}))):
        made = _stage(tls_server.url, "create-stage", "--name", "tls-cli", "--json", *extra, **env)
        assert made.returncode == 0, made.stderr
        boto.delete_stage(arn=json.loads(made.stdout)["arn"])
    boto.delete_stage(arn=created["arn"])


def test_tls_server_cli_host_and_guest_media(tls_server, pki, tmp_path):
    _host_and_guest_over_tls(tls_server.url, pki["ca"], tmp_path)


def test_tls_cli_without_the_ca_fails_fast_with_a_verification_error(tls_server, pki):
    boto = _boto(tls_server.url, pki["ca"])
    stage = boto.create_stage(name="tls-negative")["stage"]
    token = boto.create_participant_token(stageArn=stage["arn"], userId="nobody")["participantToken"]["token"]
    try:
        for extra in ([], ["--ca-file", str(pki["other"])]):
            started = time.monotonic()
            joined = _stage(tls_server.url, "join", "--token", token, "--camera", "none", "--mic", "none", *extra, timeout=30)
            elapsed = time.monotonic() - started
            output = joined.stdout + joined.stderr
            assert joined.returncode != 0, output
            assert "TLS verification failed for 127.0.0.1:" in output, output
            assert elapsed < 15, f"took {elapsed:.1f} s"
            control = _stage(tls_server.url, "create-stage", "--name", "never", *extra)
            assert control.returncode == 1, control.stdout + control.stderr
            assert "TLS verification failed for 127.0.0.1:" in control.stderr, control.stderr
        unreadable = _stage(tls_server.url, "join", "--token", token, "--ca-file", str(pki["dir"] / "missing.pem"))
        assert unreadable.returncode != 0 and "missing.pem" in unreadable.stderr, unreadable.stderr
    finally:
        boto.delete_stage(arn=stage["arn"])


def test_tls_server_refuses_bad_tls_flags(pki, tmp_path):
    binary = str(_binary())
    base = [binary, "--data-dir", str(tmp_path / "data"), "--http-port", str(_free_port()), "--media-port", str(_free_port())]
    only_cert = subprocess.run([*base, "--tls-cert", str(pki["cert"])], capture_output=True, text=True, timeout=30)
    assert only_cert.returncode != 0 and "--tls-cert needs --tls-key" in only_cert.stderr, only_cert.stderr
    missing = subprocess.run([*base, "--tls-cert", str(tmp_path / "nope.pem"), "--tls-key", str(pki["key"])],
                             capture_output=True, text=True, timeout=30)
    assert missing.returncode != 0 and "nope.pem" in missing.stderr, missing.stderr
    swapped = subprocess.run([*base, "--tls-cert", str(pki["key"]), "--tls-key", str(pki["cert"])],
                             capture_output=True, text=True, timeout=30)
    assert swapped.returncode != 0 and "--tls-cert" in swapped.stderr, swapped.stderr
    wrong_key = pki["dir"] / "ca.key"
    mismatched = subprocess.run([*base, "--tls-cert", str(pki["cert"]), "--tls-key", str(wrong_key)],
                                capture_output=True, text=True, timeout=30)
    assert mismatched.returncode != 0 and "--tls-key" in mismatched.stderr, mismatched.stderr


def test_nginx_terminating_tls_serves_boto3_aws_cli_and_stage_cli(proxied, pki):
    nginx, _ = proxied
    boto = _boto(nginx.url, pki["ca"])
    created = boto.create_stage(name="behind-nginx")["stage"]
    assert created["endpoints"]["events"].startswith(f"wss://localhost:{nginx.port}/events/")
    listed = _aws_cli(nginx.url, pki["ca"], "list-stages")
    assert created["arn"] in [s["arn"] for s in listed["stages"]]
    made = _stage(nginx.url, "create-stage", "--name", "behind-nginx-cli", "--json", "--ca-file", str(pki["ca"]))
    assert made.returncode == 0, made.stderr
    boto.delete_stage(arn=json.loads(made.stdout)["arn"])
    boto.delete_stage(arn=created["arn"])


def test_nginx_terminating_tls_cli_host_and_guest_media(proxied, pki, tmp_path):
    nginx, _ = proxied
    _host_and_guest_over_tls(nginx.url, pki["ca"], tmp_path)
