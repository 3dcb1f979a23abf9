"""Server-side composition end to end, as a backend written against IVS drives it (boto3 `ivs`
and `ivs-realtime`): three `stage join` hosts publish, a composition lays them out in a grid
and feeds a low-latency HLS channel and an s3 (local directory) recording; ffmpeg, ffprobe and
headless Chromium play what comes out. The tests run in order on one live composition."""
import pathlib
import signal
import subprocess
import time

import pytest
import requests

from cdp import Browser
from composition import (Host, clients, compositor_pids, decode_frames, ffprobe_duration, ffprobe_streams, luma_of_png,
                         playlist_parts, region_spread, segments_with_dates, variant_urls, wait_composition, wait_published)
from conftest import StageServer, server_binary, stop_process

PART_TARGET = 10 / 30


@pytest.fixture(scope="module")
def comp_server(tmp_path_factory):
    srv = StageServer(server_binary(), tmp_path_factory.mktemp("composition-server"),
                      extra_args=["--composition-idle-timeout", "4"])
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def live(comp_server, tmp_path_factory):
    """A stage with three hosts, a LOW-latency channel and a composition to it and to s3."""
    workdir = tmp_path_factory.mktemp("composition")
    ivs, realtime = clients(comp_server)
    channel = ivs.create_channel(name="show", latencyMode="LOW")
    encoder = realtime.create_encoder_configuration(name="hd", video={"width": 1280, "height": 720, "framerate": 30,
                                                                      "bitrate": 2_500_000})["encoderConfiguration"]
    storage = realtime.create_storage_configuration(name="archive", s3={"bucketName": "recordings"})["storageConfiguration"]
    stage = realtime.create_stage(name="show")["stage"]
    hosts = [Host(comp_server, realtime, stage["arn"], workdir, f"host{i}") for i in range(3)]
    state = {"workdir": workdir, "ivs": ivs, "realtime": realtime, "channel": channel, "encoder": encoder, "storage": storage,
             "stage": stage, "hosts": hosts, "server": comp_server}
    try:
        wait_published(realtime, stage["arn"], 3)
        state["started_at"] = time.time()
        state["composition"] = realtime.start_composition(
            stageArn=stage["arn"], idempotencyToken="show-1",
            layout={"grid": {"gridGap": 2}},
            destinations=[
                {"channel": {"channelArn": channel["channel"]["arn"], "encoderConfigurationArn": encoder["arn"]}},
                {"s3": {"storageConfigurationArn": storage["arn"], "encoderConfigurationArns": [encoder["arn"]],
                        "recordingConfiguration": {"hlsConfiguration": {"targetSegmentDurationSeconds": 2}}}},
            ])["composition"]
        yield state
    finally:
        for host in state["hosts"]:
            host.stop()


def test_composition_goes_active_and_the_channel_plays(live):
    realtime = live["realtime"]
    composition, waited = wait_composition(realtime, live["composition"]["arn"], {"ACTIVE"}, timeout=5)
    live["active_at"] = time.monotonic()
    print(f"ACTIVE after {waited:.2f} s; destinations {[d['state'] for d in composition['destinations']]}")
    # Each destination reports its own state (the recording's first segment can come a moment
    # after the composition is ACTIVE: once seen STARTING then, in a CI-like run).
    deadline = time.monotonic() + 5
    while [d["state"] for d in composition["destinations"]] != ["ACTIVE", "ACTIVE"] and time.monotonic() < deadline:
        time.sleep(0.1)
        composition = realtime.get_composition(arn=live["composition"]["arn"])["composition"]
    assert [d["state"] for d in composition["destinations"]] == ["ACTIVE", "ACTIVE"]
    playback = live["channel"]["channel"]["playbackUrl"]
    stream = live["ivs"].get_stream(channelArn=live["channel"]["channel"]["arn"])["stream"]
    assert stream["state"] == "LIVE" and stream["health"] == "HEALTHY"
    time.sleep(2.5)   # a whole segment exists
    urls, master = variant_urls(playback)
    print(master)
    assert len(urls) == 2 and "RESOLUTION=1280x720" in master and "RESOLUTION=640x360" in master
    assert 'CODECS="avc1.' in master and "mp4a.40.2" in master and "FRAME-RATE=30.000" in master
    for url, (width, height) in zip(urls, [(1280, 720), (640, 360)]):
        streams, errors = ffprobe_streams(url)
        print(url, streams, errors[-500:])
        assert f"codec_name=h264|width={width}|height={height}|r_frame_rate=30/1" in streams
        assert any(line.startswith("codec_name=aac") and "sample_rate=48000" in line for line in streams)
    decode = __import__("subprocess").run(["ffmpeg", "-v", "error", "-i", playback, "-t", "10", "-f", "null", "-"],
                                          capture_output=True, text=True, timeout=60)
    assert decode.returncode == 0 and decode.stdout + decode.stderr == "", decode.stderr[-2000:]


def test_low_latency_playlist_and_blocking_reloads(live):
    urls, _ = variant_urls(live["channel"]["channel"]["playbackUrl"])
    media = urls[0]
    text = requests.get(media, timeout=10).text
    for tag in ("#EXT-X-PART-INF:PART-TARGET=0.33333", "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.00000",
                "#EXT-X-PRELOAD-HINT:TYPE=PART", "#EXT-X-RENDITION-REPORT:", "#EXT-X-PROGRAM-DATE-TIME:", "#EXT-X-MAP:URI=",
                ",INDEPENDENT=YES"):
        assert tag in text, f"{tag} missing:\n{text}"
    # Blocking reload for the next part (the preload hint's, as players ask): answered as soon as
    # it exists, which is within one part target.
    waits = []
    for _ in range(10):
        msn, part = preload_hint(text)
        started = time.monotonic()
        response = requests.get(media, params={"_HLS_msn": msn, "_HLS_part": part}, timeout=10)
        waits.append(time.monotonic() - started)
        assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
        text = response.text
        assert (msn, part) in playlist_parts(text)
    print("blocking reload waits (s):", [round(w, 3) for w in waits])
    median = sorted(waits)[len(waits) // 2]
    # Each answer comes when the next part exists: one part target after the previous one.
    assert 0.05 < median <= PART_TARGET + 0.05
    assert max(waits) <= 2 * PART_TARGET
    # The preload-hinted part is served as soon as it exists.
    hint = text.rsplit('#EXT-X-PRELOAD-HINT:TYPE=PART,URI="', 1)[1].split('"', 1)[0]
    part_response = requests.get(media.rsplit("/", 1)[0] + "/" + hint, timeout=10)
    assert part_response.status_code == 200 and part_response.content[4:8] in (b"moof", b"styp")
    assert "immutable" in part_response.headers["Cache-Control"]
    assert part_response.headers["Access-Control-Allow-Origin"] == "*"
    # The spec's 400s: a part without a segment, too far ahead.
    text = requests.get(media, timeout=10).text
    msn, part = playlist_parts(text)[-1]
    print("last part before the 400 checks:", (msn, part))
    for params in ({"_HLS_part": 1}, {"_HLS_msn": msn + 3}, {"_HLS_msn": msn, "_HLS_part": part + 20}):
        bad = requests.get(media, params=params, timeout=10)
        assert bad.status_code == 400, (params, bad.status_code, bad.text)


def preload_hint(text):
    uri = text.rsplit('#EXT-X-PRELOAD-HINT:TYPE=PART,URI="', 1)[1].split('"', 1)[0]
    msn, part, _ = uri.split(".")
    return int(msn), int(part)


def grid_cells(count, width=1280, height=720):
    """Centres of the grid's tiles for `count` hosts: rows of ceil(sqrt(n)) columns, the last row centred."""
    import math
    columns = math.ceil(math.sqrt(count))
    rows = math.ceil(count / columns)
    cell_w, cell_h = width / columns, height / rows
    centres = []
    for index in range(count):
        row, column = divmod(index, columns)
        in_row = min(columns, count - row * columns)
        offset = (columns - in_row) * cell_w / 2
        centres.append((int(offset + (column + 0.5) * cell_w), int((row + 0.5) * cell_h)))
    return centres


def busy_tiles(rows, count, width=1280, height=720):
    """Luma spread over the middle 60 % of each expected tile: the test pattern's bars are busy."""
    import math
    columns = math.ceil(math.sqrt(count))
    box = (int(width / columns * 0.6), int(height / math.ceil(count / columns) * 0.6))
    return [region_spread(rows, x - box[0] // 2, y - box[1] // 2, *box) for x, y in grid_cells(count, width, height)]


def count_busy(rows, count, width, height):
    """The frame shows `count` (3 or 4) hosts in the grid: with four, the bottom corners hold
    tiles; with three, the bottom row is centred and its corners are background."""
    sx, sy = width / 1280, height / 720
    box = lambda x, y, w, h: region_spread(rows, int(x * sx), int(y * sy), int(w * sx), int(h * sy))
    top = box(40, 40, 560, 280) > 12 and box(680, 40, 560, 280) > 12
    corners = [box(40, 400, 240, 280), box(1000, 400, 240, 280)]
    if count == 4:
        return top and all(c > 12 for c in corners)
    return top and box(500, 400, 280, 280) > 12 and all(c < 6 for c in corners)


def test_chromium_plays_the_player_page_and_shows_three_hosts(live):
    channel_id = live["channel"]["channel"]["arn"].rsplit("/", 1)[1]
    page = f"{live['server'].url}/play/{channel_id}"
    browser = Browser(page, live["workdir"])
    try:
        first = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            now = browser.evaluate("document.getElementById('player').currentTime")
            first = now if first is None or first == 0 else first
            if first and now and now > first + 2:
                break
            time.sleep(0.5)
        state = browser.evaluate("({t: player.currentTime, paused: player.paused, w: player.videoWidth, h: player.videoHeight,"
                                 " latency: window.liveLatencySeconds, error: player.error && player.error.code})")
        print("player:", state)
        assert state["t"] > first + 2 and not state["paused"] and state["error"] is None
        assert isinstance(state["latency"], (int, float)) and 0 < state["latency"] < 15
        assert (state["w"], state["h"]) in ((1280, 720), (640, 360))
        browser.evaluate("document.getElementById('player').style.cssText = 'position:fixed;left:0;top:0;width:100vw;height:100vh;"
                         "max-height:none;object-fit:fill';"
                         "document.getElementById('info').style.display='none'; true")
        time.sleep(1.0)
        shot = browser.screenshot(live["workdir"] / "player.png")
        print("screenshot:", shot)
    finally:
        browser.close()
    rows = luma_of_png(shot, 1280, 720)
    spreads = busy_tiles(rows, 3)
    print("tile spreads:", [round(s, 1) for s in spreads])
    assert all(s > 12 for s in spreads), spreads
    # With three tiles the last row is centred: its corners are background.
    assert count_busy(rows, 3, 1280, 720)


def first_frame_with_tiles(media_url, count, since, timeout=8):
    """Follows the rendition segment by segment; returns the wall-clock time (from
    EXT-X-PROGRAM-DATE-TIME and the frame index) of the first frame after `since` showing
    exactly `count` busy grid tiles, or None."""
    base = media_url.rsplit("/", 1)[0]
    seen = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = requests.get(media_url, timeout=10).text
        for start, uri in segments_with_dates(text):
            if uri in seen or start + 2 < since:
                continue
            seen.add(uri)
            init = text.split('#EXT-X-MAP:URI="')[-1].split('"')[0]
            data = requests.get(f"{base}/{init}", timeout=10).content + requests.get(f"{base}/{uri}", timeout=10).content
            for index, rows in enumerate(decode_frames(data, 320, 180)):
                at = start + index / 30
                if at >= since and count_busy(rows, count, 320, 180):
                    return at
        time.sleep(0.3)
    return None


def test_hosts_joining_and_leaving_change_the_grid_without_a_gap(live):
    server, realtime = live["server"], live["realtime"]
    urls, _ = variant_urls(live["channel"]["channel"]["playbackUrl"])
    before = requests.get(urls[0], timeout=10).text
    fourth = Host(server, realtime, live["stage"]["arn"], live["workdir"], "host3")
    live["hosts"].append(fourth)
    wait_published(realtime, live["stage"]["arn"], 4)
    published = time.time()
    shown = first_frame_with_tiles(urls[0], 4, since=published)
    assert shown is not None, "no frame with four tiles"
    print(f"fourth host: published → first frame with four tiles {shown - published:.2f} s")
    assert shown - published <= 2.0
    leaving = live["hosts"].pop(0)
    leaving.stop()
    left = time.time()
    shown = first_frame_with_tiles(urls[0], 3, since=left)
    assert shown is not None, "no frame with three tiles after a host left"
    print(f"host left: process stopped → first frame with three tiles {shown - left:.2f} s")
    assert shown - left <= 2.0
    after = requests.get(urls[0], timeout=10).text
    # Media sequence numbers run on without a gap and without a discontinuity.
    sequences = [int(line[:-4]) for line in after.splitlines() if line.endswith(".m4s") and not line.startswith("#")]
    assert sequences == list(range(sequences[0], sequences[0] + len(sequences)))
    assert "#EXT-X-DISCONTINUITY" not in after
    assert int(before.split("#EXT-X-MEDIA-SEQUENCE:")[1].split()[0]) < int(after.split("#EXT-X-MEDIA-SEQUENCE:")[1].split()[0])


def newest_frame(media_url, width=1280, height=720):
    text = requests.get(media_url, timeout=10).text
    _, uri = segments_with_dates(text)[-1]
    base = media_url.rsplit("/", 1)[0]
    init = text.split('#EXT-X-MAP:URI="')[-1].split('"')[0]
    data = requests.get(f"{base}/{init}", timeout=10).content + requests.get(f"{base}/{uri}", timeout=10).content
    return decode_frames(data, width, height)[-1]


def test_a_host_stopping_its_video_gets_a_placeholder_tile(live):
    """SIGUSR1 mutes `stage join`'s camera: its tile (whichever it is: tiles follow the order
    the compositor saw the hosts publish) becomes a plain tile with its user id, the others keep
    playing, and unmuting brings the picture back."""
    import os
    urls, _ = variant_urls(live["channel"]["channel"]["playbackUrl"])
    # The top band of each of the three tiles (top left, top right, bottom centre), above the
    # placeholder's centred name.
    bands = [(40, 20, 560, 80), (680, 20, 560, 80), (360, 380, 560, 80)]
    muted_host = live["hosts"][0]
    os.kill(muted_host.process.pid, signal.SIGUSR1)
    time.sleep(3)
    rows = newest_frame(urls[0])
    spreads = [region_spread(rows, *band) for band in bands]
    print(f"muted: band spreads {[round(s, 1) for s in spreads]}")
    assert sorted(s < 6 for s in spreads) == [False, False, True], spreads
    assert sum(s > 12 for s in spreads) == 2, spreads
    os.kill(muted_host.process.pid, signal.SIGUSR1)
    time.sleep(3)
    rows = newest_frame(urls[0])
    spreads = [region_spread(rows, *band) for band in bands]
    print(f"unmuted: band spreads {[round(s, 1) for s in spreads]}")
    assert all(s > 12 for s in spreads), spreads


def test_stopping_completes_a_playable_recording(live):
    realtime = live["realtime"]
    arn = live["composition"]["arn"]
    realtime.stop_composition(arn=arn)
    wall = time.monotonic() - live["active_at"]
    composition, _ = wait_composition(realtime, arn, {"STOPPED"}, timeout=15)
    s3 = composition["destinations"][1]
    assert s3["state"] == "STOPPED"
    prefix = s3["detail"]["s3"]["recordingPrefix"]
    folder = live["server"].data_dir / "s3" / "recordings" / prefix
    multivariant = folder / "media" / "hls" / "multivariant.m3u8"
    assert multivariant.is_file(), sorted(str(p) for p in folder.rglob("*"))[:20]
    renditions = [line for line in multivariant.read_text().splitlines() if line and not line.startswith("#")]
    print(f"GetComposition: {composition['startTime']} → {composition['endTime']}")
    for rendition in renditions:
        playlist = folder / "media" / "hls" / rendition
        text = playlist.read_text()
        assert "#EXT-X-ENDLIST" in text and "#EXT-X-PLAYLIST-TYPE:VOD" in text
        duration = ffprobe_duration(str(playlist))
        print(f"{rendition}: {duration:.2f} s recorded; live from ACTIVE to StopComposition {wall:.2f} s")
        assert abs(duration - wall) <= 1.0
    assert (folder / "events" / "recording-ended.json").is_file()


def test_a_killed_compositor_is_restarted_and_the_channel_resumes(live):
    server, realtime = live["server"], live["realtime"]
    arn = realtime.start_composition(
        stageArn=live["stage"]["arn"], layout={"grid": {}},
        destinations=[{"channel": {"channelArn": live["channel"]["channel"]["arn"], "encoderConfigurationArn": live["encoder"]["arn"]}}],
    )["composition"]["arn"]
    wait_composition(realtime, arn, {"ACTIVE"}, timeout=5)
    time.sleep(1)
    urls, _ = variant_urls(live["channel"]["channel"]["playbackUrl"])
    pids = compositor_pids(server)
    assert len(pids) == 1, pids
    import os
    os.kill(pids[0], signal.SIGKILL)
    killed = time.monotonic()
    composition, _ = wait_composition(realtime, arn, {"ACTIVE", "STARTING", "FAILED"}, timeout=2)
    states = []
    while time.monotonic() - killed < 10:
        destinations = realtime.get_composition(arn=arn)["composition"]["destinations"]
        states.append(destinations[0]["state"])
        if "RECONNECTING" in states and states[-1] == "ACTIVE":
            break
        time.sleep(0.05)
    resumed = time.monotonic() - killed
    print(f"destination states after the kill: {sorted(set(states), key=states.index)}; ACTIVE again after {resumed:.2f} s")
    assert "RECONNECTING" in states and states[-1] == "ACTIVE"
    assert resumed <= 3
    while time.monotonic() - killed < 5:
        text = requests.get(urls[0], timeout=10).text
        if "#EXT-X-DISCONTINUITY" in text and "#EXT-X-PART:" in text.split("#EXT-X-DISCONTINUITY")[-1]:
            break
        time.sleep(0.05)
    parts_again = time.monotonic() - killed
    print(f"first part after the restart listed {parts_again:.2f} s after the kill")
    assert parts_again <= 3
    new_pids = compositor_pids(server)
    assert len(new_pids) == 1 and new_pids != pids
    realtime.stop_composition(arn=arn)
    wait_composition(realtime, arn, {"STOPPED"}, timeout=15)


def test_pip_puts_the_marked_participant_in_the_inset(comp_server, tmp_path):
    """Two hosts: the one whose `pip` attribute is "true" sends video, the other only audio (a
    placeholder tile). PiP layout with pipParticipantAttribute "pip": the video is in the inset
    (bottom right, a quarter of the canvas each way), the placeholder fills the rest."""
    ivs, realtime = clients(comp_server)
    channel = ivs.create_channel(name="pip", latencyMode="LOW")["channel"]
    stage = realtime.create_stage(name="pip")["stage"]
    hosts = [Host(comp_server, realtime, stage["arn"], tmp_path, "inset", attributes={"pip": "true"}),
             Host(comp_server, realtime, stage["arn"], tmp_path, "voice", camera="none")]
    try:
        wait_published(realtime, stage["arn"], 2)
        arn = realtime.start_composition(stageArn=stage["arn"], layout={"pip": {"pipParticipantAttribute": "pip"}},
                                         destinations=[{"channel": {"channelArn": channel["arn"]}}])["composition"]["arn"]
        wait_composition(realtime, arn, {"ACTIVE"}, timeout=5)
        time.sleep(3)
        urls, _ = variant_urls(channel["playbackUrl"])
        text = requests.get(urls[0], timeout=10).text
        start, uri = segments_with_dates(text)[-1]
        base = urls[0].rsplit("/", 1)[0]
        init = text.split('#EXT-X-MAP:URI="')[-1].split('"')[0]
        frames = decode_frames(requests.get(f"{base}/{init}", timeout=10).content + requests.get(f"{base}/{uri}", timeout=10).content,
                               1280, 720)
        rows = frames[-1]
        # Kept for a look: the luma of the frame checked.
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "gray", "-s", "1280x720", "-i", "-",
                        str(tmp_path / "pip.png")], input=b"".join(rows), check=True)
        inset = region_spread(rows, 1280 - 300, 720 - 170, 280, 160)
        background = region_spread(rows, 40, 40, 400, 200)
        print(f"pip: inset spread {inset:.1f}, main area spread {background:.1f}")
        assert inset > 12 and background < 6
        realtime.stop_composition(arn=arn)
        wait_composition(realtime, arn, {"STOPPED"}, timeout=15)
    finally:
        for host in hosts:
            host.stop()


def test_stage_compose_cli_broadcasts_and_an_empty_stage_stops_by_itself(comp_server, tmp_path):
    """`stage compose` creates the channel and the composition and prints the player URL;
    `stage compositions` lists it; with nobody publishing it stops by itself after the idle
    timeout (4 s on this server, IVS's 60 s by default), and its recording is complete."""
    import os
    import subprocess
    from composition import stage_cli
    ivs, realtime = clients(comp_server)
    stage = realtime.create_stage(name="cli")["stage"]
    env = dict(os.environ, STAGE_ENDPOINT=comp_server.url, AWS_ACCESS_KEY_ID="AKIDTEST", AWS_SECRET_ACCESS_KEY="secretTEST")
    out = subprocess.run([str(stage_cli(comp_server)), "compose", "--stage-arn", stage["arn"], "--record", "cli-bucket"],
                         capture_output=True, text=True, env=env, timeout=30)
    print(out.stdout, out.stderr)
    assert out.returncode == 0, out.stderr
    fields = dict(line.split(None, 1) for line in out.stdout.splitlines() if line and not line.startswith("stop"))
    arn = fields["composition"].split()[0]
    assert fields["player"].startswith(f"{comp_server.url}/play/")
    assert requests.get(fields["player"], timeout=10).text.count("<video") == 1
    started = time.monotonic()
    wait_composition(realtime, arn, {"ACTIVE"}, timeout=5)
    listed = subprocess.run([str(stage_cli(comp_server)), "compositions", "--stage-arn", stage["arn"]], capture_output=True,
                            text=True, env=env, timeout=30).stdout
    assert arn in listed and "ACTIVE" in listed, listed
    composition, _ = wait_composition(realtime, arn, {"STOPPED"}, timeout=15)
    stopped_after = time.monotonic() - started
    print(f"stopped by itself {stopped_after:.1f} s after start (idle timeout 4 s)")
    assert 3.5 <= stopped_after <= 8
    assert [d["state"] for d in composition["destinations"]] == ["STOPPED", "STOPPED"]
    prefix = composition["destinations"][1]["detail"]["s3"]["recordingPrefix"]
    playlist = comp_server.data_dir / "s3" / "cli-bucket" / prefix / "media" / "hls" / "720p30" / "playlist.m3u8"
    assert "#EXT-X-ENDLIST" in playlist.read_text()


def test_an_unwritable_recording_fails_only_its_destination(comp_server, tmp_path):
    """The recording directory cannot be made (a file stands where the stage's folder goes):
    the s3 destination is FAILED, the channel destination stays ACTIVE and plays."""
    ivs, realtime = clients(comp_server)
    channel = ivs.create_channel(name="blocked", latencyMode="NORMAL")["channel"]
    storage = realtime.create_storage_configuration(name="blocked", s3={"bucketName": "blocked"})["storageConfiguration"]
    stage = realtime.create_stage(name="blocked")["stage"]
    blocker = comp_server.data_dir / "s3" / "blocked" / stage["arn"].rsplit("/", 1)[1]
    blocker.write_text("not a directory")
    host = Host(comp_server, realtime, stage["arn"], tmp_path, "solo")
    try:
        wait_published(realtime, stage["arn"], 1)
        arn = realtime.start_composition(stageArn=stage["arn"], layout={"grid": {}}, destinations=[
            {"channel": {"channelArn": channel["arn"]}},
            {"s3": {"storageConfigurationArn": storage["arn"], "encoderConfigurationArns": [
                realtime.create_encoder_configuration(name="blocked")["encoderConfiguration"]["arn"]]}},
        ])["composition"]["arn"]
        composition, _ = wait_composition(realtime, arn, {"ACTIVE"}, timeout=5)
        deadline = time.monotonic() + 5
        while [d["state"] for d in composition["destinations"]] != ["ACTIVE", "FAILED"] and time.monotonic() < deadline:
            time.sleep(0.2)
            composition = realtime.get_composition(arn=arn)["composition"]
        print("destinations:", [d["state"] for d in composition["destinations"]])
        assert [d["state"] for d in composition["destinations"]] == ["ACTIVE", "FAILED"]
        time.sleep(2.5)
        urls, _ = variant_urls(channel["playbackUrl"])
        streams, _ = ffprobe_streams(urls[0])
        assert any(line.startswith("codec_name=h264") for line in streams), streams
        assert "recording directory" in comp_server.log_path.read_text()
        realtime.stop_composition(arn=arn)
        wait_composition(realtime, arn, {"STOPPED"}, timeout=15)
    finally:
        host.stop()


def test_audio_and_video_stay_in_sync(comp_server, tmp_path):
    """A host's camera flashes and its microphone beeps at the same instants; in the channel the
    beep and the flash are within 40 ms of each other (the compositor aligns each participant's
    audio and video by the sender's RTCP sender reports)."""
    from composition import flash_and_beep_times, make_flash_and_beep
    ivs, realtime = clients(comp_server)
    channel = ivs.create_channel(name="sync", latencyMode="LOW")["channel"]
    stage = realtime.create_stage(name="sync")["stage"]
    video, audio = make_flash_and_beep(tmp_path)
    token = realtime.create_participant_token(stageArn=stage["arn"], userId="av", capabilities=["PUBLISH"])["participantToken"]
    import subprocess
    from composition import stage_cli
    host = subprocess.Popen([str(stage_cli(comp_server)), "join", "--token", token["token"], "--strategy", "broadcast",
                             "--camera", str(video), "--mic", str(audio), "--simulcast", "off", "--status-interval", "0"],
                            stdout=open(tmp_path / "host.log", "wb"), stderr=subprocess.STDOUT)
    try:
        wait_published(realtime, stage["arn"], 1)
        arn = realtime.start_composition(stageArn=stage["arn"], layout={"grid": {"gridGap": 0}},
                                         destinations=[{"channel": {"channelArn": channel["arn"]}}])["composition"]["arn"]
        wait_composition(realtime, arn, {"ACTIVE"}, timeout=5)
        time.sleep(5)   # past the first sender reports, which sync starts from
        urls, _ = variant_urls(channel["playbackUrl"])
        capture = tmp_path / "capture.mp4"
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-live_start_index", "-1", "-i", urls[1], "-t", "4", "-c", "copy", str(capture)],
                       check=True, timeout=60)
        realtime.stop_composition(arn=arn)
    finally:
        stop_process(host)
    flashes, beeps = flash_and_beep_times(capture)
    # A capture that starts during a flash or a beep sees only its end: count whole ones.
    flashes, beeps = [f for f in flashes if f > 0.1], [b for b in beeps if b > 0.1]
    # The two tracks of a capture need not start together: a flash whose beep fell before the
    # audio's first sample has no beep within half a period (one a second), and is left out;
    # a real skew that large would leave fewer than two pairs and fail below.
    nearest = [(min(beeps, key=lambda b: abs(b - f)) - f) for f in flashes if beeps]
    skews = [s for s in nearest if abs(s) < 0.5]
    print("flashes", [round(f, 3) for f in flashes], "beeps", [round(b, 3) for b in beeps])
    print("audio minus video (ms):", [round(s * 1000) for s in nearest])
    assert len(skews) >= 2, nearest
    assert all(abs(s) <= 0.040 for s in skews), skews


def test_sigterm_completes_the_recordings(tmp_path_factory, tmp_path):
    """Shutting the server down (SIGTERM) stops its compositions first: the recording is a
    complete VOD playlist, and the server exits cleanly."""
    srv = StageServer(server_binary(), tmp_path_factory.mktemp("shutdown-recording"))
    srv.start()
    host = None
    try:
        ivs, realtime = clients(srv)
        channel = ivs.create_channel(name="bye", latencyMode="LOW")["channel"]
        storage = realtime.create_storage_configuration(name="bye", s3={"bucketName": "bye"})["storageConfiguration"]
        encoder = realtime.create_encoder_configuration(name="bye")["encoderConfiguration"]
        stage = realtime.create_stage(name="bye")["stage"]
        host = Host(srv, realtime, stage["arn"], tmp_path, "solo")
        wait_published(realtime, stage["arn"], 1)
        composition = realtime.start_composition(stageArn=stage["arn"], layout={"grid": {}}, destinations=[
            {"channel": {"channelArn": channel["arn"]}},
            {"s3": {"storageConfigurationArn": storage["arn"], "encoderConfigurationArns": [encoder["arn"]]}},
        ])["composition"]
        wait_composition(realtime, composition["arn"], {"ACTIVE"}, timeout=5)
        time.sleep(3)
        prefix = realtime.get_composition(arn=composition["arn"])["composition"]["destinations"][1]["detail"]["s3"]["recordingPrefix"]
        srv.proc.send_signal(signal.SIGTERM)
        assert srv.proc.wait(timeout=20) == 0
        playlist = srv.data_dir / "s3" / "bye" / prefix / "media" / "hls" / "720p30" / "playlist.m3u8"
        text = playlist.read_text()
        assert "#EXT-X-ENDLIST" in text and "#EXT-X-PLAYLIST-TYPE:VOD" in text, text[-300:]
        assert ffprobe_duration(str(playlist)) > 2
    finally:
        if host:
            host.stop()
        stop_process(srv.proc)
