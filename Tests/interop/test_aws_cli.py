"""The AWS CLI (v1) drives the server end to end; its JSON output must have the IVS shapes."""
import json
import os
import re
import shutil
import subprocess

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

STAGE_ARN_RE = r"^arn:aws:ivs:us-east-1:\d{12}:stage/[A-Za-z0-9-]+$"
KEY_ARN_RE = r"^arn:aws:ivs:us-east-1:\d{12}:public-key/[A-Za-z0-9-]+$"


@pytest.fixture
def aws(server):
    exe = shutil.which("aws")
    if exe is None:
        pytest.fail("the `aws` CLI is not on PATH: scripts/setup.sh --interop installs it")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ACCESS_KEY_ID="AKIDTEST", AWS_SECRET_ACCESS_KEY="secretTEST", AWS_DEFAULT_REGION="us-east-1",
               AWS_CONFIG_FILE="/dev/null", AWS_SHARED_CREDENTIALS_FILE="/dev/null", AWS_PAGER="")

    def run(*args, check=True):
        cmd = [exe, "ivs-realtime", *args, "--endpoint-url", server.url, "--output", "json"]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        if check:
            assert proc.returncode == 0, f"{' '.join(args[:1])} failed ({proc.returncode}): {proc.stderr}"
            return json.loads(proc.stdout) if proc.stdout.strip() else {}
        return proc

    return run


def test_cli_stage_lifecycle(aws):
    stage = aws("create-stage", "--name", "cli-demo")["stage"]
    arn = stage["arn"]
    assert re.match(STAGE_ARN_RE, arn) and stage["name"] == "cli-demo"
    assert set(stage["endpoints"]) >= {"events", "whip"}

    assert arn in [s["arn"] for s in aws("list-stages")["stages"]]
    assert aws("update-stage", "--arn", arn, "--name", "cli-demo-renamed")["stage"]["name"] == "cli-demo-renamed"

    tok = aws("create-participant-token", "--stage-arn", arn, "--user-id", "cli-user",
              "--capabilities", "PUBLISH", "SUBSCRIBE", "--attributes", "role=host")["participantToken"]
    assert tok["userId"] == "cli-user" and tok["attributes"] == {"role": "host"}
    assert sorted(tok["capabilities"]) == ["PUBLISH", "SUBSCRIBE"]
    assert tok["token"].count(".") == 2 and tok["participantId"] and tok["expirationTime"]

    listed = aws("list-participants", "--stage-arn", arn, "--session-id", "st-0123456789abc", check=False)
    if listed.returncode == 0:
        assert json.loads(listed.stdout)["participants"] == []
    else:
        assert "ResourceNotFoundException" in listed.stderr, listed.stderr

    aws("delete-stage", "--arn", arn)
    gone = aws("get-stage", "--arn", arn, check=False)
    assert gone.returncode != 0 and "ResourceNotFoundException" in gone.stderr, gone.stderr


def test_cli_import_public_key(aws, tmp_path):
    pem = ec.generate_private_key(ec.SECP384R1()).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    pem_file = tmp_path / "public.pem"
    pem_file.write_text(pem)
    key = aws("import-public-key", "--name", "cli-key", "--public-key-material", f"file://{pem_file}")["publicKey"]
    assert re.match(KEY_ARN_RE, key["arn"]) and key["name"] == "cli-key" and key["fingerprint"]
    assert key["publicKeyMaterial"].strip() == pem.strip()
    assert key["arn"] in [k["arn"] for k in aws("list-public-keys")["publicKeys"]]
    aws("delete-public-key", "--arn", key["arn"])
