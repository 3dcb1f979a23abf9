"""Checks the signaling JSON Schemas in Protocol/schema against the golden fixtures.

Run: python3 -m pytest -q Tests/interop/test_protocol_schema.py
"""

import base64
import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "Protocol" / "schema"
FIXTURES = ROOT / "Tests" / "StageProtocolTests" / "Fixtures"

CLIENT_TYPES = ["join", "publish", "unpublish", "mute", "subscribe", "ping", "leave", "sdpOffer", "preferLayer"]
SERVER_TYPES = [
    "joined", "participantJoined", "participantLeft", "streamsChanged", "muteChanged",
    "publishState", "subscribeState", "error", "disconnect", "pong", "sdpAnswer", "publishLayers", "downlinkEstimate",
]


def _load_schemas():
    schemas = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in SCHEMA_DIR.glob("*.json")}
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values()
    )
    return schemas, registry


SCHEMAS, REGISTRY = _load_schemas()


def validator(name):
    schema = SCHEMAS[name]
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=REGISTRY, format_checker=FormatChecker())


CLIENT = validator("client-message.json")
SERVER = validator("server-message.json")
CLAIMS = validator("token-claims.json")
HEADER = Draft202012Validator(
    {"$ref": SCHEMAS["token-claims.json"]["$id"] + "#/$defs/header"}, registry=REGISTRY
)

SIDES = {"client": CLIENT, "server": SERVER}


def fixture_files(side):
    return sorted((FIXTURES / side).glob("*.json"))


def fixture(side, name):
    return json.loads((FIXTURES / side / f"{name}.json").read_text(encoding="utf-8"))


def b64url_json(part):
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


@pytest.mark.parametrize(
    "path",
    [p for side in SIDES for p in fixture_files(side)],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_fixture_is_valid(path):
    raw = path.read_bytes()
    message = json.loads(raw)
    errors = list(SIDES[path.parent.name].iter_errors(message))
    assert not errors, "\n".join(e.message for e in errors)
    # The fixture's name starts with its type.
    assert message["type"] == path.stem.split("-")[0]
    # Byte-exact form that Swift's JSONEncoder(.sortedKeys, .withoutEscapingSlashes) writes.
    canonical = json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert raw == canonical.encode("utf-8")


@pytest.mark.parametrize("side,types", [("client", CLIENT_TYPES), ("server", SERVER_TYPES)])
def test_every_type_has_a_fixture_and_a_schema(side, types):
    found = {p.stem.split("-")[0] for p in fixture_files(side)}
    assert found == set(types)
    schema = SCHEMAS[f"{side}-message.json"]
    assert set(schema["$defs"]) == set(types)
    for name, definition in schema["$defs"].items():
        assert definition["properties"]["type"] == {"const": name}
        assert definition["additionalProperties"] is False


def test_join_token_claims_match_schema():
    token = fixture("client", "join")["token"]
    header, claims, signature = token.split(".")
    assert not list(HEADER.iter_errors(b64url_json(header)))
    errors = list(CLAIMS.iter_errors(b64url_json(claims)))
    assert not errors, "\n".join(e.message for e in errors)
    assert len(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))) == 96  # ES384 r||s


def _broken_client():
    join = fixture("client", "join")
    publish = fixture("client", "publish")
    subscribe = fixture("client", "subscribe")
    offer = fixture("client", "sdpOffer")

    def edit(message, **changes):
        m = copy.deepcopy(message)
        for key, value in changes.items():
            if value is ...:
                del m[key]
            else:
                m[key] = value
        return m

    long_stream = copy.deepcopy(publish)
    long_stream["streams"][0]["streamId"] = "s" * 65
    bad_kind = copy.deepcopy(publish)
    bad_kind["streams"][0]["kind"] = "screen"
    extra_stream_field = copy.deepcopy(publish)
    extra_stream_field["streams"][0]["codec"] = "vp8"
    return {
        "not an object": [join],
        "missing v": edit(join, v=...),
        "v 2": edit(join, v=2),
        "unknown type": edit(join, type="teleport"),
        "server type from client": {"v": 1, "type": "pong", "nonce": 1},
        "missing token": edit(join, token=...),
        "token too long": edit(join, token="a.b." + "c" * 8190),
        "token not a JWT": edit(join, token="not-a-jwt"),
        "unknown field": edit(join, extra=True),
        "empty requestId": edit(publish, requestId=""),
        "requestId too long": edit(publish, requestId="r" * 65),
        "streamId too long": long_stream,
        "bad stream kind": bad_kind,
        "extra stream field": extra_stream_field,
        "streams not an array": edit(publish, streams={}),
        "subscribeType video": edit(subscribe, subscribeType="video"),
        "participantId too long": edit(subscribe, participantId="p" * 65),
        "muted as string": {"v": 1, "type": "mute", "streamId": "mic", "muted": "true"},
        "nonce as string": {"v": 1, "type": "ping", "nonce": "17"},
        "leave with a field": {"v": 1, "type": "leave", "reason": "bye"},
        "sdp too long": edit(offer, sdp="v" * 32769),
        "bad purpose": edit(offer, purpose="both"),
    }


def _broken_server():
    joined = fixture("server", "joined")
    error = fixture("server", "error")
    no_caps = copy.deepcopy(joined)
    del no_caps["participant"]["capabilities"]
    camel_caps = copy.deepcopy(joined)
    camel_caps["participant"]["capabilities"] = {"allowPublish": True, "allowSubscribe": True}
    numeric_attr = copy.deepcopy(joined)
    numeric_attr["participant"]["attributes"] = {"seat": 3}
    return {
        "joined without capabilities": no_caps,
        "camelCase capabilities": camel_caps,
        "non-string attribute": numeric_attr,
        "pingIntervalSeconds 0": {**joined, "pingIntervalSeconds": 0},
        "unknown error code": {**error, "code": 4999},
        "error code as string": {**error, "code": "4290"},
        "bad leave reason": {"v": 1, "type": "participantLeft", "participantId": "qZ9y8X7w6V5u", "reason": "kicked"},
        "bad disconnect reason": {"v": 1, "type": "disconnect", "reason": "bye", "message": ""},
        "participantJoined nested": {"v": 1, "type": "participantJoined",
                                     "publisher": fixture("server", "participantJoined")},
        "bad publish state": {"v": 1, "type": "publishState", "state": "publishing", "streams": []},
        "client type from server": {"v": 1, "type": "leave"},
    }


@pytest.mark.parametrize("name,message", list(_broken_client().items()))
def test_broken_client_message_is_rejected(name, message):
    assert not CLIENT.is_valid(message), name


@pytest.mark.parametrize("name,message", list(_broken_server().items()))
def test_broken_server_message_is_rejected(name, message):
    assert not SERVER.is_valid(message), name


def test_broken_token_claims_are_rejected():
    claims = b64url_json(fixture("client", "join")["token"].split(".")[1])
    assert CLAIMS.is_valid(claims)
    for change in (
        {"version": "2.0"},
        {"events_url": "https://stage.example.com/v1/events"},
        {"capabilities": {"allow_publish": True}},
        {"exp": "tomorrow"},
        {"resource": "arn:aws:ivs:us-west-2:123456789012:channel/AbCdEf123456"},
    ):
        assert not CLAIMS.is_valid({**claims, **change}), change
    missing = dict(claims)
    del missing["jti"]
    assert not CLAIMS.is_valid(missing)
