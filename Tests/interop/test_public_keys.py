"""Imported public keys: the CRUD API and joining with a self-signed (ES384) participant token."""
import base64
import json
import re
import secrets
import time

import pytest
from botocore.exceptions import ClientError
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

KEY_ARN_RE = r"^arn:aws:ivs:us-east-1:\d{12}:public-key/[A-Za-z0-9-]+$"


def new_key():
    private = ec.generate_private_key(ec.SECP384R1())
    pem = private.public_key().public_bytes(serialization.Encoding.PEM,
                                            serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, pem


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def self_signed_token(private, key_arn, stage_arn, template_claims, user_id="self-signed", kid=True, **overrides):
    """An IVS participant token signed by us: JWS ES384 with the raw r||s signature."""
    now = int(time.time())
    claims = {"exp": now + 3600, "iat": now, "jti": secrets.token_hex(6), "resource": stage_arn,
              "topic": stage_arn.rsplit("/", 1)[1], "events_url": template_claims["events_url"],
              "whip_url": template_claims["whip_url"], "user_id": user_id, "attributes": {"via": "self"},
              "capabilities": {"allow_publish": True, "allow_subscribe": True}, "version": "1.0"}
    claims.update(overrides)
    header = {"alg": "ES384", "typ": "JWT", **({"kid": key_arn} if kid else {})}
    signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
    r, s = decode_dss_signature(private.sign(signing_input.encode(), ec.ECDSA(hashes.SHA384())))
    return f"{signing_input}.{b64url(r.to_bytes(48, 'big') + s.to_bytes(48, 'big'))}"


@pytest.fixture
def imported_key(client):
    private, pem = new_key()
    key = client.import_public_key(publicKeyMaterial=pem, name="k1")["publicKey"]
    yield private, pem, key
    try:
        client.delete_public_key(arn=key["arn"])
    except client.exceptions.ResourceNotFoundException:
        pass


def all_key_arns(client):
    arns, kwargs = [], {}
    for _ in range(1000):
        page = client.list_public_keys(**kwargs)
        arns += [k["arn"] for k in page["publicKeys"]]
        if not page.get("nextToken"):
            return arns
        kwargs = {"nextToken": page["nextToken"]}
    pytest.fail("ListPublicKeys pagination never ended")


def test_import_get_list_and_delete_public_key(client, imported_key):
    _, pem, key = imported_key
    assert re.match(KEY_ARN_RE, key["arn"]), key["arn"]
    assert key["name"] == "k1"
    assert key["publicKeyMaterial"].strip() == pem.strip()
    assert isinstance(key.get("fingerprint"), str) and key["fingerprint"]
    assert client.get_public_key(arn=key["arn"])["publicKey"] == key
    assert key["arn"] in all_key_arns(client)
    client.delete_public_key(arn=key["arn"])
    with pytest.raises(ClientError) as e:
        client.get_public_key(arn=key["arn"])
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert key["arn"] not in all_key_arns(client)


def test_importing_the_same_key_twice_conflicts(client, imported_key):
    _, pem, _ = imported_key
    with pytest.raises(ClientError) as e:
        client.import_public_key(publicKeyMaterial=pem, name="k1-again")
    assert e.value.response["Error"]["Code"] == "ConflictException"


@pytest.mark.parametrize("material", [
    "garbage",
    "-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----\n",
    "-----BEGIN PUBLIC KEY-----\nAAAAAAAAAAAAAAAAAAAAAAAA\n-----END PUBLIC KEY-----\n",
], ids=["not-pem", "pem-with-junk", "pem-not-a-key"])
def test_garbage_key_material_is_a_validation_error(client, material):
    with pytest.raises(ClientError) as e:
        client.import_public_key(publicKeyMaterial=material)
    err = e.value.response["Error"]
    assert err["Code"] == "ValidationException" and "publicKeyMaterial" in err["Message"]
    client.list_public_keys()


def test_self_signed_token_joins_until_its_key_is_deleted(client, make_stage, imported_key, decode_jwt,
                                                        ws_connect, recv_type):
    private, _, key = imported_key
    arn = make_stage(name="self-signed")["arn"]
    template = decode_jwt(client.create_participant_token(stageArn=arn)["participantToken"]["token"])[1]

    ws = ws_connect(template["events_url"])
    ws.send(json.dumps({"v": 1, "type": "join", "token": self_signed_token(private, key["arn"], arn, template)}))
    joined = recv_type(ws, "joined")
    assert joined["type"] == "joined", joined
    ws.close()

    client.delete_public_key(arn=key["arn"])
    ws = ws_connect(template["events_url"])
    token = self_signed_token(private, key["arn"], arn, template, user_id="after-delete")
    ws.send(json.dumps({"v": 1, "type": "join", "token": token}))
    refused = recv_type(ws, "joined")
    assert refused["type"] == "error" and refused["code"] == 4010, refused


def test_the_kid_picks_the_key(client, make_stage, imported_key, decode_jwt, ws_connect, recv_type):
    """A kid is the imported key's ARN and only that key checks the token; no kid (IVS's own
    layout) tries every key; a kid naming another key, or none, is refused."""
    private, _, key = imported_key
    other_private, other_pem = new_key()
    other = client.import_public_key(publicKeyMaterial=other_pem, name="k2")["publicKey"]
    try:
        arn = make_stage(name="kid")["arn"]
        template = decode_jwt(client.create_participant_token(stageArn=arn)["participantToken"]["token"])[1]

        def join(token):
            ws = ws_connect(template["events_url"])
            ws.send(json.dumps({"v": 1, "type": "join", "token": token}))
            answer = recv_type(ws, "joined")
            ws.close()
            return answer

        assert join(self_signed_token(private, None, arn, template, kid=False))["type"] == "joined"
        assert join(self_signed_token(other_private, other["arn"], arn, template))["type"] == "joined"
        wrong = join(self_signed_token(private, other["arn"], arn, template))
        assert wrong["type"] == "error" and "the imported public key its kid names" in wrong["message"], wrong
        unknown = join(self_signed_token(private, "some-key", arn, template))
        assert unknown["type"] == "error" and "kid 'some-key'" in unknown["message"], unknown
    finally:
        client.delete_public_key(arn=other["arn"])


@pytest.mark.parametrize("overrides, reason", [
    ({"exp": 2**63 - 1}, "14 days"),
    ({"iat": int(time.time()) + 3600, "exp": int(time.time()) + 7200}, "iat"),
    ({"nbf": int(time.time()) + 3600}, "not valid before"),
    ({"jti": "p" * 200}, "jti"),
    ({"jti": "bad id"}, "jti"),
    ({"attributes": {"blob": "x" * 2000}}, "1 KB"),
])
def test_self_signed_tokens_keep_the_api_limits(client, make_stage, imported_key, decode_jwt, ws_connect, recv_type,
                                                overrides, reason):
    """What CreateParticipantToken would refuse is refused in a self-signed token too."""
    private, _, key = imported_key
    arn = make_stage(name="limits")["arn"]
    template = decode_jwt(client.create_participant_token(stageArn=arn)["participantToken"]["token"])[1]
    ws = ws_connect(template["events_url"])
    ws.send(json.dumps({"v": 1, "type": "join", "token": self_signed_token(private, key["arn"], arn, template, **overrides)}))
    refused = recv_type(ws, "joined")
    ws.close()
    assert refused["type"] == "error" and refused["code"] == 4010 and reason in refused["message"], refused
