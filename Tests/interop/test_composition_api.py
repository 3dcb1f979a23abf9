"""Server-side composition, encoder/storage configurations and `ivs` channels, driven with boto3.

Holds with any composition runner: a composition may go ACTIVE (the compositor) or FAILED (a build
without one), so only the shapes, the validation and what the control plane itself decides are
asserted, never the runner's outcome.
"""
import re
import uuid

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from conftest import ACCESS_KEY, REGION, SECRET_KEY

ARN = r"^arn:aws:ivs:us-east-1:\d{12}:%s/[A-Za-z0-9-]+$"
COMPOSITION_STATES = {"STARTING", "ACTIVE", "STOPPING", "FAILED", "STOPPED"}
DESTINATION_STATES = {"STARTING", "ACTIVE", "STOPPING", "RECONNECTING", "FAILED", "STOPPED"}


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def error_of(excinfo):
    err = excinfo.value.response["Error"]
    return err["Code"], err.get("Message", ""), excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"]


@pytest.fixture(scope="session")
def ivs(server):
    """The `ivs` (channels) client: same endpoint, same SigV4 signing name."""
    return boto3.client(
        "ivs", endpoint_url=server.url, region_name=REGION, aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        config=Config(retries={"mode": "standard", "total_max_attempts": 2}, connect_timeout=5, read_timeout=30))


@pytest.fixture
def resources(client, ivs, eventually):
    """Records what a test creates; at teardown stops its compositions, then deletes the rest."""
    made = {"compositions": [], "channels": [], "encoders": [], "storage": []}
    yield made
    for arn in made["compositions"]:
        try:
            client.stop_composition(arn=arn)
        except ClientError:
            pass

        def ended(arn=arn):
            assert client.get_composition(arn=arn)["composition"]["state"] in {"STOPPED", "FAILED"}
        eventually(ended, timeout=45)
    for kind, delete in (("channels", ivs.delete_channel), ("encoders", client.delete_encoder_configuration),
                         ("storage", client.delete_storage_configuration)):
        for arn in made[kind]:
            try:
                delete(arn=arn)
            except ClientError as e:
                if e.response["Error"]["Code"] != "ResourceNotFoundException":
                    raise


def make_channel(ivs, resources, **kwargs):
    out = ivs.create_channel(**kwargs)
    resources["channels"].append(out["channel"]["arn"])
    return out


def make_encoder(client, resources, **kwargs):
    config = client.create_encoder_configuration(**kwargs)["encoderConfiguration"]
    resources["encoders"].append(config["arn"])
    return config


def make_storage(client, resources, bucket):
    config = client.create_storage_configuration(s3={"bucketName": bucket})["storageConfiguration"]
    resources["storage"].append(config["arn"])
    return config


# Channels (ivs).

def test_create_channel_defaults_stream_key_and_playback_url(server, ivs, resources):
    name = unique("ch")
    out = make_channel(ivs, resources, name=name, tags={"team": "stage one"})
    channel, key = out["channel"], out["streamKey"]
    channel_id = channel["arn"].rsplit("/", 1)[1]
    assert re.match(ARN % "channel", channel["arn"])
    assert channel["name"] == name
    assert channel["latencyMode"] == "LOW"
    assert channel["type"] == "STANDARD"
    assert channel["authorized"] is False
    assert channel["insecureIngest"] is False
    assert channel["recordingConfigurationArn"] == ""
    assert channel["playbackUrl"] == f"{server.url}/hls/{channel_id}/master.m3u8"
    assert channel["ingestEndpoint"]
    assert channel["tags"] == {"team": "stage one"}
    assert re.match(ARN % "stream-key", key["arn"])
    assert key["channelArn"] == channel["arn"]
    assert key["value"].startswith("sk_us-east-1_")
    assert ivs.get_channel(arn=channel["arn"])["channel"] == channel


def test_list_channels_pages_and_filters_by_name(ivs, resources):
    name = unique("listed")
    arns = [make_channel(ivs, resources, name=name)["channel"]["arn"] for _ in range(3)]
    seen, token = [], None
    for _ in range(10):
        page = ivs.list_channels(filterByName=name, maxResults=2, **({"nextToken": token} if token else {}))
        seen += [c["arn"] for c in page["channels"]]
        assert all(c["name"] == name and c["latencyMode"] == "LOW" for c in page["channels"])
        token = page.get("nextToken")
        if not token:
            break
    assert seen == arns


def test_list_channels_filters_are_mutually_exclusive(ivs):
    with pytest.raises(ClientError) as e:
        ivs.list_channels(filterByName="a",
                          filterByRecordingConfigurationArn="arn:aws:ivs:us-east-1:123456789012:recording-configuration/abc")
    assert error_of(e)[0] == "ConflictException"
    assert error_of(e)[2] == 409


def test_delete_channel_answers_204_then_it_is_gone(ivs, resources):
    arn = make_channel(ivs, resources)["channel"]["arn"]
    assert ivs.delete_channel(arn=arn)["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(ClientError) as e:
        ivs.get_channel(arn=arn)
    assert error_of(e)[0] == "ResourceNotFoundException"


@pytest.mark.parametrize("kwargs, field", [
    ({"latencyMode": "FAST"}, "latencyMode"),
    ({"type": "PREMIUM"}, "type"),
    ({"authorized": True}, "authorized"),
    ({"containerFormat": "TS"}, "containerFormat"),
    ({"preset": "HIGHER_BANDWIDTH_DELIVERY"}, "preset"),
    ({"name": "has space"}, "name"),
])
def test_create_channel_validation_names_the_field(ivs, kwargs, field):
    with pytest.raises(ClientError) as e:
        ivs.create_channel(**kwargs)
    code, message, status = error_of(e)
    assert (code, status) == ("ValidationException", 400)
    assert message.startswith(field)


def test_an_idle_channel_is_not_broadcasting(ivs, resources):
    arn = make_channel(ivs, resources)["channel"]["arn"]
    with pytest.raises(ClientError) as e:
        ivs.get_stream(channelArn=arn)
    code, _, status = error_of(e)
    assert (code, status) == ("ChannelNotBroadcasting", 404)
    assert all(s["channelArn"] != arn for s in ivs.list_streams()["streams"])


# Encoder and storage configurations (ivs-realtime).

def test_encoder_configuration_defaults(client, resources):
    config = make_encoder(client, resources, name=unique("enc"))
    assert re.match(ARN % "encoder-configuration", config["arn"])
    assert config["video"] == {"width": 1280, "height": 720, "framerate": 30, "bitrate": 2500000}
    assert client.get_encoder_configuration(arn=config["arn"])["encoderConfiguration"] == config
    listed = client.list_encoder_configurations(maxResults=100)["encoderConfigurations"]
    assert config["arn"] in [c["arn"] for c in listed]


@pytest.mark.parametrize("video, field", [
    ({"width": 1921}, "video.width"),
    ({"width": 641}, "video.width"),
    ({"height": 1922}, "video.height"),
    ({"width": 1920, "height": 1920}, "video.width, video.height"),
    ({"framerate": 61.0}, "video.framerate"),
    ({"bitrate": 8500001}, "video.bitrate"),
])
def test_encoder_configuration_validation_names_the_field(client, video, field):
    with pytest.raises(ClientError) as e:
        client.create_encoder_configuration(video=video)
    code, message, status = error_of(e)
    assert (code, status) == ("ValidationException", 400)
    assert message.startswith(field)


def test_storage_configuration_makes_the_bucket_directory(server, client, resources):
    bucket = unique("bucket")
    config = make_storage(client, resources, bucket)
    assert re.match(ARN % "storage-configuration", config["arn"])
    assert config["s3"] == {"bucketName": bucket}
    assert (server.data_dir / "s3" / bucket).is_dir()
    assert client.get_storage_configuration(arn=config["arn"])["storageConfiguration"]["s3"]["bucketName"] == bucket
    for bad in ("Upper-Case", "a..b", "-dash-first"):
        with pytest.raises(ClientError) as e:
            client.create_storage_configuration(s3={"bucketName": bad})
        assert error_of(e)[0] == "ValidationException"
        assert error_of(e)[1].startswith("s3.bucketName")


# Compositions.

@pytest.fixture
def composition_inputs(client, ivs, make_stage, resources):
    stage = make_stage(name=unique("comp"))
    encoder = make_encoder(client, resources, video={"width": 640, "height": 360, "framerate": 30, "bitrate": 1000000})
    storage = make_storage(client, resources, unique("rec"))
    channel = make_channel(ivs, resources, name=unique("out"))["channel"]
    destinations = [
        {"channel": {"channelArn": channel["arn"], "encoderConfigurationArn": encoder["arn"]}},
        {"s3": {"storageConfigurationArn": storage["arn"], "encoderConfigurationArns": [encoder["arn"]],
                "recordingConfiguration": {"format": "HLS", "hlsConfiguration": {"targetSegmentDurationSeconds": 4}}}},
    ]
    return stage, destinations


def test_start_composition_shapes_idempotency_and_stop(client, composition_inputs, resources, eventually):
    stage, destinations = composition_inputs
    token = unique("tok")
    started = client.start_composition(stageArn=stage["arn"], destinations=destinations, idempotencyToken=token,
                                       layout={"grid": {"gridGap": 4}}, tags={"k": "v"})["composition"]
    resources["compositions"].append(started["arn"])
    assert re.match(ARN % "composition", started["arn"])
    assert started["stageArn"] == stage["arn"]
    assert started["state"] in COMPOSITION_STATES
    assert started["layout"]["grid"]["gridGap"] == 4
    assert started["tags"] == {"k": "v"}
    assert "startTime" in started

    again = client.start_composition(stageArn=stage["arn"], destinations=destinations, idempotencyToken=token,
                                     layout={"grid": {"gridGap": 4}}, tags={"k": "v"})["composition"]
    assert again["arn"] == started["arn"]

    got = client.get_composition(arn=started["arn"])["composition"]
    assert got["state"] in COMPOSITION_STATES
    assert [set(d) >= {"id", "state", "configuration"} for d in got["destinations"]] == [True, True]
    assert all(d["state"] in DESTINATION_STATES for d in got["destinations"])
    channel_dest, s3_dest = got["destinations"]
    assert channel_dest["configuration"]["channel"] == destinations[0]["channel"]
    assert s3_dest["configuration"]["s3"]["recordingConfiguration"]["hlsConfiguration"]["targetSegmentDurationSeconds"] == 4
    stage_id, composition_id = stage["arn"].rsplit("/", 1)[1], started["arn"].rsplit("/", 1)[1]
    assert s3_dest["detail"]["s3"]["recordingPrefix"] == f"{stage_id}/{composition_id}/{s3_dest['id']}/composite"
    assert "detail" not in channel_dest or "s3" not in channel_dest["detail"]

    listed = client.list_compositions(filterByStageArn=stage["arn"])["compositions"]
    assert [c["arn"] for c in listed] == [started["arn"]]
    assert [d["id"] for d in listed[0]["destinations"]] == [channel_dest["id"], s3_dest["id"]]

    with pytest.raises(ClientError) as e:
        client.start_composition(stageArn=stage["arn"], destinations=destinations, idempotencyToken=token)
    assert error_of(e)[0] == "ConflictException"
    assert error_of(e)[1].startswith("idempotencyToken")

    client.stop_composition(arn=started["arn"])

    def ended():
        assert client.get_composition(arn=started["arn"])["composition"]["state"] in {"STOPPED", "FAILED"}
    eventually(ended, timeout=45)
    final = client.get_composition(arn=started["arn"])["composition"]
    assert "endTime" in final
    assert all(d["state"] in {"STOPPED", "FAILED"} for d in final["destinations"])


@pytest.mark.parametrize("change, code, field", [
    (lambda d: [d[0], d[0]], "ValidationException", "destinations"),
    (lambda d: [dict(d[1], s3=dict(d[1]["s3"], recordingConfiguration={"hlsConfiguration": {"targetSegmentDurationSeconds": 11}}))],
     "ValidationException", "destinations[0].s3.recordingConfiguration.hlsConfiguration.targetSegmentDurationSeconds"),
    (lambda d: [{"channel": {"channelArn": "arn:aws:ivs:us-east-1:123456789012:channel/nope"}}],
     "ResourceNotFoundException", "destinations[0].channel.channelArn"),
    (lambda d: [{"channel": d[0]["channel"], "s3": d[1]["s3"]}], "ValidationException", "destinations[0]"),
])
def test_start_composition_validation_names_the_field(client, composition_inputs, change, code, field):
    stage, destinations = composition_inputs
    with pytest.raises(ClientError) as e:
        client.start_composition(stageArn=stage["arn"], destinations=change(destinations))
    assert error_of(e)[0] == code
    assert error_of(e)[1].startswith(field)


def test_start_composition_on_an_unknown_stage_is_not_found(client, composition_inputs):
    _, destinations = composition_inputs
    with pytest.raises(ClientError) as e:
        client.start_composition(stageArn="arn:aws:ivs:us-east-1:123456789012:stage/nope", destinations=destinations)
    assert error_of(e)[0] == "ResourceNotFoundException"
    assert error_of(e)[1].startswith("stageArn")


def test_list_streams_and_compositions_answer_their_shapes(client, ivs):
    assert isinstance(ivs.list_streams()["streams"], list)
    assert isinstance(client.list_compositions(maxResults=100)["compositions"], list)
