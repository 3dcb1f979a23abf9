"""Stages, participant tokens and API errors, driven with boto3 (and raw SigV4 requests where
botocore would refuse to send the request)."""
import datetime
import re
import uuid

import pytest
import requests
from botocore.exceptions import ClientError

STAGE_ARN_RE = r"^arn:aws:ivs:us-east-1:\d{12}:stage/[A-Za-z0-9-]+$"
TOKEN_CLAIMS = {"exp", "iat", "jti", "resource", "topic", "events_url", "whip_url", "user_id",
                "attributes", "capabilities", "version"}
PROM_SAMPLE = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})?\s+\S+(\s+\d+)?$")


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def error_of(excinfo):
    err = excinfo.value.response["Error"]
    return err["Code"], err.get("Message", "")


def all_stage_arns(client, **kwargs):
    arns, token = [], None
    for _ in range(1000):
        page = client.list_stages(**kwargs, **({"nextToken": token} if token else {}))
        arns += [s["arn"] for s in page["stages"]]
        token = page.get("nextToken")
        if not token:
            return arns
    pytest.fail("ListStages pagination never ended")


def test_healthz_and_metrics_need_no_auth(server):
    assert requests.get(f"{server.url}/healthz", timeout=5).status_code == 200
    resp = requests.get(f"{server.url}/metrics", timeout=5)
    assert resp.status_code == 200
    assert resp.headers["Content-Type"].startswith("text/plain")
    samples = [l for l in resp.text.splitlines() if l.strip() and not l.startswith("#")]
    assert all(PROM_SAMPLE.match(l) for l in samples), samples


def test_create_stage_returns_arn_endpoints_tags_and_requested_tokens(client, decode_jwt):
    name = unique("interop")
    resp = client.create_stage(name=name, tags={"env": "interop"}, participantTokenConfigurations=[
        {"userId": "host", "capabilities": ["PUBLISH", "SUBSCRIBE"], "attributes": {"role": "host"}},
        {"userId": "viewer", "capabilities": ["SUBSCRIBE"], "duration": 30},
    ])
    stage = resp["stage"]
    try:
        assert re.match(STAGE_ARN_RE, stage["arn"]), stage["arn"]
        assert stage["name"] == name
        assert stage["tags"] == {"env": "interop"}
        assert stage["endpoints"]["events"] and stage["endpoints"]["whip"]
        tokens = resp["participantTokens"]
        assert [t["userId"] for t in tokens] == ["host", "viewer"]
        assert tokens[0]["attributes"] == {"role": "host"}
        assert tokens[1]["capabilities"] == ["SUBSCRIBE"] and tokens[1]["duration"] == 30
        for t in tokens:
            _, claims = decode_jwt(t["token"])
            assert claims["resource"] == stage["arn"] and claims["jti"] == t["participantId"]
    finally:
        client.delete_stage(arn=stage["arn"])


def test_get_and_update_stage(client, make_stage):
    stage = make_stage(name=unique("before"))
    got = client.get_stage(arn=stage["arn"])["stage"]
    assert got["arn"] == stage["arn"] and got["name"] == stage["name"]
    assert got["endpoints"] == stage["endpoints"]
    new_name = unique("after")
    updated = client.update_stage(arn=stage["arn"], name=new_name)["stage"]
    assert updated["arn"] == stage["arn"] and updated["name"] == new_name
    assert client.get_stage(arn=stage["arn"])["stage"]["name"] == new_name


def test_list_stages_pages_one_at_a_time_through_every_stage_stably(client, make_stage):
    mine = {make_stage(name=unique("page"))["arn"] for _ in range(3)}
    first = all_stage_arns(client, maxResults=1)
    assert mine <= set(first)
    assert len(first) == len(set(first)), "a stage appeared on two pages"
    assert all_stage_arns(client, maxResults=1) == first, "pagination order is not stable"
    assert set(all_stage_arns(client)) == set(first)
    page = client.list_stages(maxResults=1)
    assert len(page["stages"]) == 1 and "nextToken" in page


def test_deleted_stage_is_gone(client, make_stage):
    arn = make_stage(name=unique("doomed"))["arn"]
    client.delete_stage(arn=arn)
    with pytest.raises(ClientError) as e:
        client.get_stage(arn=arn)
    assert error_of(e)[0] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as e:
        client.create_participant_token(stageArn=arn, userId="late")
    assert error_of(e)[0] == "ResourceNotFoundException"
    assert arn not in all_stage_arns(client)


@pytest.mark.parametrize("capabilities", [["PUBLISH", "SUBSCRIBE"], ["PUBLISH"], ["SUBSCRIBE"]])
def test_participant_token_is_an_es384_jwt_with_ivs_claims(client, make_stage, decode_jwt, capabilities):
    stage = make_stage(name=unique("tok"))
    attributes = {"role": "guest", "emoji": "🎤"}
    tok = client.create_participant_token(stageArn=stage["arn"], userId="user-1", attributes=attributes,
                                          capabilities=capabilities, duration=90)["participantToken"]
    assert tok["userId"] == "user-1" and tok["attributes"] == attributes
    assert sorted(tok["capabilities"]) == sorted(capabilities) and tok["duration"] == 90
    assert tok["participantId"]
    header, claims = decode_jwt(tok["token"])
    assert header["alg"] == "ES384"
    assert TOKEN_CLAIMS <= set(claims), TOKEN_CLAIMS - set(claims)
    assert claims["jti"] == tok["participantId"]
    assert claims["resource"] == stage["arn"]
    assert claims["topic"] == stage["arn"].rsplit("/", 1)[1]
    assert claims["user_id"] == "user-1" and claims["attributes"] == attributes
    assert claims["capabilities"] == {"allow_publish": "PUBLISH" in capabilities,
                                      "allow_subscribe": "SUBSCRIBE" in capabilities}
    assert claims["version"] == "1.0"
    assert claims["exp"] - claims["iat"] == 90 * 60
    assert abs(tok["expirationTime"].timestamp() - claims["exp"]) <= 1
    now = datetime.datetime.now(datetime.timezone.utc).timestamp()
    assert abs(claims["iat"] - now) < 120
    assert re.match(r"^wss?://", claims["events_url"]) and re.match(r"^https?://", claims["whip_url"])


def test_participant_token_defaults_to_720_minutes_and_both_capabilities(client, make_stage):
    tok = client.create_participant_token(stageArn=make_stage()["arn"])["participantToken"]
    assert tok["duration"] == 720
    assert sorted(tok["capabilities"]) == ["PUBLISH", "SUBSCRIBE"]


@pytest.mark.parametrize("operation, field", [
    ("create_participant_token", "attributes"),
    ("create_participant_token", "duration"),
    ("create_stage", "name"),
    ("create_stage", "name-too-long"),
    ("list_stages", "maxResults"),
])
def test_server_side_validation_names_the_field(client, make_stage, operation, field):
    arn = make_stage()["arn"] if operation == "create_participant_token" else None
    kwargs = {
        "attributes": {"stageArn": arn, "attributes": {f"k{i}": "v" * 60 for i in range(20)}},
        "duration": {"stageArn": arn, "duration": 20161},
        "name": {"name": "has space"},
        "name-too-long": {"name": "n" * 129},
        "maxResults": {"maxResults": 101},
    }[field]
    with pytest.raises(ClientError) as e:
        getattr(client, operation)(**kwargs)
    code, message = error_of(e)
    assert code == "ValidationException"
    assert field.split("-")[0] in message
    client.list_stages()


@pytest.mark.parametrize("operation, body, field", [
    ("CreateParticipantToken", {"duration": 0}, "duration"),
    ("CreateParticipantToken", {"duration": 20161}, "duration"),
    ("CreateParticipantToken", {"attributes": {"a": "x" * 1100}}, "attributes"),
    ("CreateStage", {"name": "bad name"}, "name"),
    ("ListStages", {"maxResults": 0}, "maxResults"),
    ("ListStages", {"maxResults": 101}, "maxResults"),
    ("CreateStage", {"name": "x", "bogus": 1}, "bogus"),
])
def test_raw_invalid_request_is_400_validation_exception(client, make_stage, raw_call, operation, body, field):
    if operation == "CreateParticipantToken":
        body = dict(body, stageArn=make_stage()["arn"])
    resp = raw_call(operation, body)
    assert resp.status_code == 400, resp.text
    assert resp.headers.get("x-amzn-ErrorType", "").startswith("ValidationException")
    assert field in resp.json()["message"]
    client.list_stages()


def test_malformed_json_is_400_validation_exception(client, raw_call):
    resp = raw_call("CreateStage", data=b'{"name": "x",')
    assert resp.status_code == 400, resp.text
    assert resp.headers.get("x-amzn-ErrorType", "").startswith("ValidationException")
    client.list_stages()


@pytest.mark.parametrize("how", ["unsigned", "wrong-secret"])
def test_bad_credentials_are_403_access_denied(client, raw_call, how):
    resp = raw_call("ListStages", {}, sign=how != "unsigned", secret="not-the-secret")
    assert resp.status_code == 403, resp.text
    assert resp.headers.get("x-amzn-ErrorType", "").startswith("AccessDeniedException")
    client.list_stages()


def test_unknown_operation_is_rejected_with_an_error_type(client, raw_call):
    resp = raw_call("NoSuchOperation", {})
    assert resp.status_code in (400, 404), resp.text
    assert resp.headers.get("x-amzn-ErrorType")
    client.list_stages()


def test_fresh_stage_has_no_sessions(client, make_stage):
    assert client.list_stage_sessions(stageArn=make_stage()["arn"])["stageSessions"] == []


def test_disconnecting_an_unknown_participant_is_not_found(client, make_stage):
    with pytest.raises(ClientError) as e:
        client.disconnect_participant(stageArn=make_stage()["arn"], participantId="nosuchparticipant1", reason="x")
    assert error_of(e)[0] == "ResourceNotFoundException"


def test_participants_of_an_unknown_session_are_empty_or_not_found(client, make_stage):
    arn = make_stage()["arn"]
    try:
        assert client.list_participants(stageArn=arn, sessionId="st-AAAAAAAAAAAAA")["participants"] == []
    except ClientError as e:
        assert e.response["Error"]["Code"] == "ResourceNotFoundException"


def test_stage_survives_restart(server, client):
    stage = client.create_stage(name=unique("durable"))["stage"]
    client.create_participant_token(stageArn=stage["arn"], userId="before-restart")
    server.restart()
    got = client.get_stage(arn=stage["arn"])["stage"]
    assert got["name"] == stage["name"] and got["endpoints"] == stage["endpoints"]
    assert stage["arn"] in all_stage_arns(client)
    client.create_participant_token(stageArn=stage["arn"], userId="after-restart")
    client.delete_stage(arn=stage["arn"])


def test_signature_for_another_region_or_service_is_refused(server):
    """SigV4's credential scope names a region and a service: a valid signature for another
    region, or for another service, is not a signature for this API (403 AccessDeniedException)."""
    import json as json_module
    import requests as requests_module
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    from conftest import ACCESS_KEY, REGION, SECRET_KEY

    def call(service, region):
        request = AWSRequest(method="POST", url=f"{server.url}/ListStages", data=json_module.dumps({}).encode(),
                             headers={"Content-Type": "application/json"})
        SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), service, region).add_auth(request)
        prepared = request.prepare()
        return requests_module.post(prepared.url, headers=dict(prepared.headers), data=prepared.body, timeout=10)

    assert call("ivs", REGION).status_code == 200
    for service, region, words in (("ivs", "eu-west-1", "region 'eu-west-1'"), ("s3", REGION, "service 's3'")):
        response = call(service, region)
        assert response.status_code == 403, (service, region, response.text)
        assert response.headers["x-amzn-ErrorType"] == "AccessDeniedException"
        assert words in response.json()["message"]


def test_the_database_is_private_and_metric_labels_are_bounded(server, raw_call):
    """The SQLite file holds every token issued: mode 0600 like the signing key. An operation
    name a client made up is counted as "unknown", not as a new Prometheus series."""
    import os
    import stat
    import requests as requests_module
    database = server.data_dir / "proscenium.sqlite"
    assert stat.S_IMODE(os.stat(database).st_mode) == 0o600
    raw_call("MadeUpOperationXYZ", {}, sign=False)
    metrics = requests_module.get(f"{server.url}/metrics", timeout=10).text
    assert "MadeUpOperationXYZ" not in metrics
    assert 'operation="unknown"' in metrics
