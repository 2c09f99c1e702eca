"""The camera as the live service's event source: the vision pipeline feeding LiveReferee."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from conftest import cut_sample_clip

from nertz.referee.errors import NertzError
from nertz.referee.service.live import LiveReferee
from nertz.referee.store import EventStore
from nertz.referee.table import Table
from nertz.vision.camera_source import CameraSource

SAMPLE = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "round-3p"


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    """The sample round's first 4 seconds (two plays), as an mp4v file."""
    path = tmp_path_factory.mktemp("cam") / "first4s.mp4"
    cut_sample_clip(path, 120)
    return path


def table() -> Table:
    return Table.from_dict(json.loads((SAMPLE / "table.json").read_text()))


def test_the_camera_source_feeds_the_live_referee_and_shows_the_annotated_frame(clip, tmp_path):
    src = CameraSource(str(clip), table(), speed=20.0)
    live = LiveReferee(EventStore(tmp_path / "cam.db"), table(), src)
    live.start()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            plays = [e for e in live.round.events if getattr(e, "type", None) == "play"]
            if len(plays) >= 2:
                break
            time.sleep(0.2)
        assert [(p.player, str(p.card)) for p in plays[:2]] == [("green", "AD"), ("blue", "AS")]
        jpeg = live.frame()
        assert jpeg is not None and jpeg[:2] == b"\xff\xd8"
    finally:
        live.stop()


def _wait_for(live: LiveReferee, done, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not done():
        time.sleep(0.2)


def test_after_a_call_the_camera_counts_the_nertz_cards_left_as_nertz_referee_does(clip, tmp_path):
    # the page posts red's call at 1 s and blue's count; the camera counts green's Nertz
    # cards left (blue's was given) the way `nertz referee` counts them on the same frames,
    # and the round is no longer scored as "no count, 0 left"
    from nertz.vision.observe import referee_observer
    from nertz.vision.pipeline import RefereePipeline
    from nertz.vision.sources import open_source

    cli = RefereePipeline(table(), referee_observer(table()), calls=[("red", 1.0)], nertz_left={"blue": 5})
    with open_source(str(clip)) as frames:
        cli.run((f.index, f.t, f.image) for f in frames)
    assert set(cli.video_counts) == {"green"}

    src = CameraSource(str(clip), table(), speed=50.0)
    live = LiveReferee(EventStore(tmp_path / "cam.db"), table(), src)
    live.start()
    try:
        live.push_event({"type": "call", "player": "red", "t": 1.0}, origin="api")
        live.push_event({"type": "nertz_left", "player": "blue", "count": 5}, origin="api")
        counted = lambda: [se.event for se in live.current.events
                           if se.origin == "source:camera" and se.event["type"] == "nertz_left"]
        _wait_for(live, counted)
        assert [(e["player"], e["count"]) for e in counted()] == [("green", cli.video_counts["green"])]
        players = live.scored_result()["players"]
        assert players["blue"]["nertz_left"] == 5 and players["green"]["nertz_left"] == cli.video_counts["green"]
        assert not [r for r in live.round.rulings if r.kind == "no_count"]
    finally:
        live.stop()


def test_a_call_made_after_the_video_ended_still_gets_the_cameras_counts(clip, tmp_path):
    # a newcomer's round: the video played out, then the call was pressed on the page; the
    # camera's counts came only for calls made while the video ran ("no count, 0 left")
    from nertz.vision.observe import referee_observer
    from nertz.vision.pipeline import RefereePipeline
    from nertz.vision.sources import open_source

    cli = RefereePipeline(table(), referee_observer(table()), calls=[("red", 9.0)])
    with open_source(str(clip)) as frames:
        cli.run((f.index, f.t, f.image) for f in frames)
    assert set(cli.video_counts) == {"green", "blue"}

    src = CameraSource(str(clip), table(), speed=50.0)
    live = LiveReferee(EventStore(tmp_path / "cam.db"), table(), src)
    live.start()
    try:
        _wait_for(live, lambda: live.source_ended)
        assert live.source_ended
        live.push_event({"type": "call", "player": "red", "t": 9.0}, origin="api")
        counted = lambda: [se.event for se in live.current.events
                           if se.origin == "source:camera" and se.event["type"] == "nertz_left"]
        _wait_for(live, lambda: len(counted()) == 2, seconds=60)
        assert {e["player"]: e["count"] for e in counted()} == cli.video_counts
        assert not [r for r in live.round.rulings if r.kind == "no_count"]
    finally:
        live.stop()


def test_a_camera_source_that_cannot_be_opened_is_a_clear_error(tmp_path):
    with pytest.raises(NertzError, match="nothing.mp4"):
        CameraSource(str(tmp_path / "nothing.mp4"), table())


def test_a_table_without_zones_is_refused_for_the_camera(clip):
    t = table().to_dict()
    t.pop("zones")
    with pytest.raises(ValueError, match="zones"):
        CameraSource(str(clip), Table.from_dict(t))


def test_serve_with_a_camera_source_and_no_table_says_what_is_missing(clip):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "nertz", "serve", "--source", str(clip), "--port", "0"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "needs a table file" in r.stderr and "Traceback" not in r.stderr


def test_serve_with_a_missing_event_log_says_it_is_missing(tmp_path):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "nertz", "serve", "--source", str(tmp_path / "nosuch.jsonl"), "--port", "0"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "no such event log" in r.stderr and "Traceback" not in r.stderr


def test_serve_refuses_a_camera_table_of_other_players_than_the_stored_match(clip, tmp_path, monkeypatch):
    """A store (the default --db is shared) holding a match of other players keeps its own
    table: a camera watching other players would report plays none of which apply, so the
    start is refused, as it is for an event log; the same players still resume."""
    import uvicorn
    from typer.testing import CliRunner

    from nertz.cli import app

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # never serve here
    db = tmp_path / "s.db"
    store = EventStore(db)
    LiveReferee(store, table())  # a match of red, blue and green
    store.close()
    data = table().to_dict()
    names = {"red": "anna", "blue": "ben", "green": "cleo"}
    for p in data["players"]:
        p["name"] = names[p["name"]]
    data["zones"] = {names[k]: v for k, v in data["zones"].items()}
    other = tmp_path / "abc.json"
    other.write_text(json.dumps(data))
    r = CliRunner().invoke(app, ["serve", "--source", str(clip), "--table", str(other), "--db", str(db), "--port", "0"])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith(f"error: {other}: its players (anna, ben, cleo) are not those of the match stored in "
                               f"{db} (red, blue, green)"), r.output
    r = CliRunner().invoke(app, ["serve", "--source", str(clip), "--table", str(SAMPLE / "table.json"), "--db", str(db),
                                 "--port", "0"])
    assert r.exit_code == 0 and "resumed from" in r.output, r.output


def test_a_table_made_for_another_resolution_is_refused_for_the_camera(tmp_path):
    import subprocess
    import sys

    import cv2

    small = tmp_path / "small.mp4"  # the sample's frames at half size; its table is for 1280 x 720
    cap = cv2.VideoCapture(str(SAMPLE / "clip.mp4"))
    out = cv2.VideoWriter(str(small), cv2.VideoWriter_fourcc(*"mp4v"), 30, (640, 360))
    for _ in range(15):
        ok, frame = cap.read()
        assert ok
        out.write(cv2.resize(frame, (640, 360)))
    out.release()
    cap.release()
    with pytest.raises(ValueError, match="calibrated on 1280x720 frames and this source.s are 640x360"):
        CameraSource(str(small), table())
    r = subprocess.run([sys.executable, "-m", "nertz", "serve", "--source", str(small), "--table", str(SAMPLE / "table.json"),
                        "--port", "0", "--db", str(tmp_path / "s.db")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "Traceback" not in r.stderr
    assert "nertz calibrate" in r.stderr


def _moved(t: Table, dx: float = 6.0) -> Table:
    """``t`` recalibrated: its shared area moved ``dx`` pixels to the right."""
    data = t.to_dict()
    data["shared_area"] = [[x + dx, y] for x, y in data["shared_area"]]
    return Table.from_dict(data, source="calibration")


def _run_briefly(src: CameraSource) -> None:
    """One run of ``src.events`` as the live referee starts it, stopped before its first frame
    (the pipeline is built with the run's table, nothing is looked at)."""
    stop = threading.Event()
    stop.set()
    assert list(src.events(0, lambda: 0.0, stop)) == []


def test_a_new_table_reaches_the_cameras_next_run_not_the_one_in_progress(clip):
    """The page's calibration never reached the camera: its pipeline kept --table's regions."""
    src = CameraSource(str(clip), table())
    src.new_round([])  # round 1's run takes its table (the live referee does this under its lock)
    moved = _moved(table())
    src.set_table(moved)
    _run_briefly(src)
    assert src._pipe.table == table()  # the run in progress keeps the one it started with
    src.new_round([])
    _run_briefly(src)
    assert src._pipe.table is moved and src.table is moved  # the next round's run watches with it


def test_a_table_beyond_the_cameras_frames_is_refused_and_the_held_one_kept(clip):
    src = CameraSource(str(clip), table())
    with pytest.raises(ValueError, match="outside this source's 1280x720 frames"):
        src.set_table(_moved(table(), dx=2000.0))
    assert src.table == table()


def test_a_resumed_match_gives_the_camera_its_calibrated_table_not_the_table_file(clip, tmp_path):
    """After a restart the service said the stored table was kept, while the camera still
    watched with --table's regions."""
    store = EventStore(tmp_path / "cam.db")
    LiveReferee(store, table()).set_table(_moved(table()))  # calibrated on the page
    store.close()
    src = CameraSource(str(clip), table())
    live = LiveReferee(EventStore(tmp_path / "cam.db"), table(), src)
    assert live.resumed and src.table == live.table == _moved(table())
    live.store.close()


def test_serve_resumes_with_the_calibrated_table_or_says_why_it_cannot(clip, tmp_path, monkeypatch):
    import uvicorn
    from typer.testing import CliRunner

    import nertz.referee.service.app as service_app
    from nertz.cli import app

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # never serve here
    seen = []
    create_app = service_app.create_app
    monkeypatch.setattr(service_app, "create_app", lambda live, **kw: seen.append(live) or create_app(live, **kw))
    db = tmp_path / "s.db"
    store = EventStore(db)
    LiveReferee(store, table()).set_table(_moved(table()))
    store.close()
    args = ["serve", "--source", str(clip), "--table", str(SAMPLE / "table.json"), "--db", str(db), "--port", "0"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "the camera watches with its regions and back colours, as last calibrated" in r.output
    assert seen[0].source.table == _moved(table())

    far = tmp_path / "far.db"  # a stored calibration that this camera's frames cannot hold
    store = EventStore(far)
    live = LiveReferee(store, table())
    # as a store from before 2026-12-07 holds it: the service without a camera now refuses it too
    store.append("table", {"table": _moved(table(), dx=2000.0).to_dict()}, match=live.match_no, round=0,
                 origin="calibration")
    store.close()
    r = CliRunner().invoke(app, args[:-4] + ["--db", str(far), "--port", "0"])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith("error: the camera cannot use this table: ") and "give another --db" in r.output, r.output


def test_serve_refuses_a_speed_for_a_live_camera_and_paces_a_video_file_by_it(clip, tmp_path, monkeypatch):
    """--speed 2 with a webcam ran the round clock at twice real time while the frames came in
    real time (the help said it was for an event log). A webcam or stream is refused, nothing
    opened or stored; a video file (paced at media time) still takes it, and the start says so."""
    import uvicorn
    from typer.testing import CliRunner

    from nertz.cli import app

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # never serve here
    for source in ("0", "rtsp://127.0.0.1:9/table"):
        r = CliRunner().invoke(app, ["serve", "--source", source, "--table", str(SAMPLE / "table.json"), "--speed", "2",
                                     "--db", str(tmp_path / "live.db"), "--port", "0"])
        assert r.exit_code == 2 and "Traceback" not in r.output, r.output
        assert r.output.startswith(f"error: --speed 2: {source} is a live camera"), r.output
    assert not list(tmp_path.iterdir())
    r = CliRunner().invoke(app, ["serve", "--source", str(clip), "--table", str(SAMPLE / "table.json"), "--speed", "2",
                                 "--db", str(tmp_path / "video.db"), "--port", "0"])
    assert r.exit_code == 0 and f"source: camera {clip} at speed 2 (" in r.output, r.output


class _World:
    """The sample round's table filmed live at 30 fps, on a fake clock: it stands for ``time``
    in :mod:`nertz.vision.sources` (``monotonic``, ``sleep``: a reopen's wait lets the round go
    on), each read of its camera takes one frame period, and the round started with the world
    (:meth:`t` is the round clock). The camera gives no frame in the ``dead`` windows (seconds)
    and sets ``stop`` once the round clock passes ``until``."""

    def __init__(self, stop: threading.Event, until: float) -> None:
        self.t0 = self.now = 1000.0
        self.stop, self.until = stop, until
        self.dead: list[tuple[float, float]] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s

    def t(self) -> float:
        return self.now - self.t0


class _LiveCamera:
    """A ``cv2.VideoCapture`` double for a webcam looking at :class:`_World`: each read gives the
    sample clip's frame of the world's time now (a live camera hands out its newest frame)."""

    def __init__(self, world: _World) -> None:
        import cv2

        self.world, self.cv2 = world, cv2
        self.cap = cv2.VideoCapture(str(SAMPLE / "clip.mp4"))
        self.next = 0

    def isOpened(self) -> bool:
        return True

    def set(self, prop, value) -> bool:
        return True

    def get(self, prop) -> float:
        return 30.0 if prop == self.cv2.CAP_PROP_FPS else 0.0

    def release(self) -> None:
        self.cap.release()

    def read(self):
        w = self.world
        w.now += 1 / 30
        if w.t() > w.until:
            w.stop.set()
        if any(a <= w.t() < b for a, b in w.dead):
            return False, None
        k = max(int(round(w.t() * 30)), self.next)
        if k - self.next > 5:
            self.cap.set(self.cv2.CAP_PROP_POS_FRAMES, k)
            self.next = k
        while self.next < k:
            self.cap.grab()
            self.next += 1
        self.next += 1
        return self.cap.read()


def test_a_live_camera_reopened_mid_round_goes_on_with_the_rounds_clock_and_piles(monkeypatch):
    """``nertz serve`` with a webcam, stopped after green's AD (1.79 s) and started again: the
    new run's times began again from 0 (blue's AS at 1.4 s, before the AD), its first event was
    dropped by position as if it were one already stored, and its fresh tracker reported the AD
    lying on pile 1 as a new play (red's, at 0 s). Now a live run is timed on the round clock,
    keeps every event it reports, and takes the cards it finds on the table as the round's piles
    (the AD is pile 1, not a new play). The camera also drops out once on the way and is reopened
    by the source itself; times go on across that too."""
    from nertz.vision import sources as vsources

    stop = threading.Event()
    world = _World(stop, until=4.0)
    monkeypatch.setattr(vsources, "time", world)
    monkeypatch.setattr(vsources, "_default_live_capture", lambda target: _LiveCamera(world))

    first = CameraSource(0, table())
    run = first.events(0, world.t, stop)
    index, ad = next(run)  # the service is stopped here
    assert abs(first.now() - world.t()) < 0.05  # a call from the page now is stamped on the round's time
    run.close()
    assert first.now() is None
    assert (index, ad["player"], ad["card"], ad["pile"]) == (0, "green", "AD", 1) and 1.6 < ad["t"] < 1.9

    world.dead = [(world.t() + 0.3, world.t() + 0.4)]
    again = CameraSource(0, table())  # the service started again: the round's store holds the AD
    again.new_round([])
    again.round_piles({1: "AD"}, 2)
    later = list(again.events(1, world.t, stop))
    assert [(i, e["player"], e["card"], e["pile"]) for i, e in later] == [(1, "blue", "AS", 2)]
    assert 3.2 < later[0][1]["t"] < 3.6  # truth 3.44 s


def test_a_live_run_in_a_round_under_way_names_its_trackers_piles_by_the_rounds():
    from nertz.vision.camera_source import _RoundPiles

    piles = _RoundPiles({1: "2S", 2: "AH", 4: "AD"}, 5)

    def play(card: str, pile: int) -> dict:
        return {"t": 9.0, "type": "play", "player": "red", "card": card, "pile": pile, "confidence": 0.9}

    assert piles.place(play("AH", 1)) is None  # the AH lying on the round's pile 2: not a new play
    assert piles.place(play("2H", 1))["pile"] == 2  # the next card on it
    assert piles.place({"t": 9.5, "type": "take_back", "player": "red", "card": "2H", "pile": 1})["pile"] == 2
    assert piles.place(play("4S", 2))["pile"] == 1  # on the 2S pile (its 3S was played while the camera was away)
    assert piles.place(play("AC", 3))["pile"] == 5  # a new pile: the round's next number
    assert piles.place(play("AD", 7)) is None and piles.place(play("2D", 7))["pile"] == 4
    assert piles.place(play("AS", 8))["pile"] == 6


def test_the_pages_call_is_timed_on_the_cameras_clock_when_the_machine_falls_behind(clip, tmp_path, monkeypatch):
    """A video watched as the camera, on a machine that cannot keep up (its looks take three
    times the frames' time): the page's call was stamped with the round clock, seconds ahead of
    the frames being watched, so green's AD, played in the video after the frame on show at the
    call, was ruled before the call. Now the call takes the time of the frame being watched."""
    from nertz.vision.pipeline import RefereePipeline

    step = RefereePipeline.step

    def slow_step(self, index, t, frame):  # a slow machine: 0.1 s a frame of 1/30 s
        time.sleep(0.1)
        step(self, index, t, frame)

    monkeypatch.setattr(RefereePipeline, "step", slow_step)
    src = CameraSource(str(clip), table())
    live = LiveReferee(EventStore(tmp_path / "slow.db"), table(), src)
    live.start()
    try:
        _wait_for(live, lambda: src._latest is not None and src._latest[1] >= 0.5, seconds=60)
        shown = src._latest[1]
        call = live.push_event({"type": "call", "player": "red"}, origin="button")["event"]
        ahead = live.current.speed * (time.time() - live.current.wall_start)
        assert ahead > shown + 0.5  # the round clock has run ahead of the frames
        assert shown <= call["t"] <= shown + 0.2
        plays = lambda: [se.event for se in live.current.events if se.event["type"] == "play"]
        _wait_for(live, plays, seconds=60)
        assert plays()[0]["card"] == "AD" and plays()[0]["t"] > call["t"]
    finally:
        live.stop()


class _Unplugged:
    """A ``cv2.VideoCapture`` double for a webcam that is not there (unplugged): never opened."""

    def isOpened(self) -> bool:
        return False

    def release(self) -> None:
        pass


def test_a_camera_that_cannot_be_reopened_ends_its_source_not_the_service(tmp_path, monkeypatch, capsys):
    """``nertz serve --source 0``: the webcam drops out mid-round for good. Its SourceError
    (given up after its 5 reopen attempts) was raised in the service's source thread, which died
    with a traceback; ``source_ended`` stayed False and the page was told nothing. Now the
    service goes on: one console line says what failed and what to do, ``GET /api/round`` says
    the source ended and lists the failure last in ``source_errors`` (``stopped``), the
    WebSocket sends it, and what the round holds (the camera's play, the page's events and
    corrections) stays, served and stored."""
    from fastapi.testclient import TestClient

    from nertz.referee.service.app import create_app
    from nertz.vision import sources as vsources

    world = _World(threading.Event(), until=float("inf"))
    world.dead = [(2.5, float("inf"))]  # unplugged after green's AD (1.79 s), for good
    monkeypatch.setattr(vsources, "time", world)
    monkeypatch.setattr(vsources, "_default_live_capture", lambda target: _LiveCamera(world))
    died: list = []
    monkeypatch.setattr(threading, "excepthook", died.append)  # a source thread killed by the error
    db = tmp_path / "cam.db"
    live = LiveReferee(EventStore(db), table(), CameraSource(0, table()))
    msgs: list = []
    live.subscribe(msgs.append)  # what the WebSocket sends
    with TestClient(create_app(live)) as c:
        deadline = time.monotonic() + 120
        while not c.get("/api/round").json()["source_ended"] and time.monotonic() < deadline:
            time.sleep(0.2)
        body = c.get("/api/round").json()
        assert body["source_ended"] and body["source"] == "camera"
        *_, failure = body["source_errors"]
        assert failure["stopped"] and failure["index"] is None and failure["event"] is None
        assert failure["message"].startswith("camera 0 dropped out and could not be reopened after 5 attempts")
        assert body["source_error_count"] == 0  # it counts events not applied; this is none
        seen = [e for e in body["events"] if e["origin"] == "source:camera"]
        assert [(e["event"]["player"], e["event"]["card"]) for e in seen] == [("green", "AD")]
        # the service goes on: the page's events and corrections apply as before
        assert c.post("/api/events", json={"t": 5.0, "type": "play", "player": "red", "card": "AS", "pile": 2}).status_code == 200
        assert c.post(f"/api/round/events/{seen[0]['seq']}/correct", json={"action": "change_owner", "player": "blue"}).status_code == 200
        after = c.get("/api/round").json()
        assert after["source_ended"] and after["source_errors"] == body["source_errors"]
    assert died == []
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.startswith("source stopped: ")]
    assert len(lines) == 1 and "after 5 attempts" in lines[0] and "restart nertz serve with --source" in lines[0]
    kinds = [m["type"] for m in msgs]
    stopped = [m for m in msgs if m["type"] == "source_error"]
    assert len(stopped) == 1 and stopped[0]["stopped"] and stopped[0]["message"] == failure["message"]
    assert kinds.index("source_end") == kinds.index("source_error") + 1
    scores = {p["name"]: p["score"] for p in after["players"]}
    resumed = LiveReferee(EventStore(db))  # the store holds the round as it was served
    assert {n: s.score for n, s in resumed.round.result.players.items()} == scores
    assert [(se.event["player"], se.event["card"]) for se in resumed.current.events] == [("green", "AD"), ("red", "AS")]
    assert resumed.current.corrections and not resumed.source_ended


def test_a_camera_unplugged_before_a_round_starts_ends_that_rounds_source_with_a_clear_line(monkeypatch, tmp_path, capsys):
    """The camera opened at start-up, then cannot be opened when the round's run starts (each
    round opens it anew): its "cannot be opened" is that round's source failure, as above, not
    a dead source thread."""
    import numpy as np

    from nertz.vision import sources as vsources

    class _OneFrame(_Unplugged):
        def isOpened(self) -> bool:
            return True

        def set(self, prop, value) -> bool:
            return True

        def get(self, prop) -> float:
            return 0.0

        def read(self):
            return True, np.zeros((720, 1280, 3), np.uint8)

    caps = iter([_OneFrame()])
    monkeypatch.setattr(vsources, "_default_live_capture", lambda target: next(caps, _Unplugged()))
    died: list = []
    monkeypatch.setattr(threading, "excepthook", died.append)
    live = LiveReferee(EventStore(tmp_path / "cam.db"), table(), CameraSource(0, table()))
    live.start()
    try:
        _wait_for(live, lambda: live.source_ended, seconds=30)
    finally:
        live.stop()
    assert live.source_ended and died == []
    assert live.source_errors[-1]["stopped"] and live.source_errors[-1]["message"].startswith("camera 0 cannot be opened")
    err = capsys.readouterr().err
    assert err.count("source stopped: camera 0 cannot be opened") == 1 and "Traceback" not in err


def test_serve_refuses_a_webcam_that_cannot_be_opened_at_start(monkeypatch, tmp_path):
    """A camera that cannot be opened at all is refused before the service starts: one line,
    exit 2, no store made."""
    from typer.testing import CliRunner

    from nertz.cli import app
    from nertz.vision import sources as vsources

    monkeypatch.setattr(vsources, "_default_live_capture", lambda target: _Unplugged())
    db = tmp_path / "s.db"
    r = CliRunner().invoke(app, ["serve", "--source", "0", "--table", str(SAMPLE / "table.json"), "--db", str(db),
                                 "--port", "0"])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith("error: camera 0 cannot be opened: is it connected"), r.output
    assert not db.exists()


def test_a_camera_that_gives_up_still_reports_the_plays_its_pipeline_held_back(tmp_path, monkeypatch):
    """``nertz serve --source 0``: red and blue both play the 4C to pile 5 at 15.35 s (a tie);
    the pipeline holds such a contested pair back for its ``hold`` (1.5 s), and the webcam is
    unplugged for good at 15.7 s. The give-up raised straight out of the camera's run, so the
    two plays the camera saw were never reported (only a normal end flushed them). Now they
    are reported, each once, before the source is marked ended."""
    from nertz.vision import sources as vsources

    world = _World(threading.Event(), until=float("inf"))
    world.dead = [(15.7, float("inf"))]  # just after the 4C pair lands, within its hold
    monkeypatch.setattr(vsources, "time", world)
    monkeypatch.setattr(vsources, "_default_live_capture", lambda target: _LiveCamera(world))
    live = LiveReferee(EventStore(tmp_path / "cam.db"), table(), CameraSource(0, table()))
    msgs: list = []
    live.subscribe(msgs.append)
    live.start()
    try:
        _wait_for(live, lambda: live.source_ended, seconds=240)
    finally:
        live.stop()
    assert live.source_ended and live.source_errors[-1]["stopped"]
    seen = [(se.event["player"], se.event["card"], se.event["pile"]) for se in live.current.events
            if se.origin == "source:camera"]
    assert seen[-2:] == [("red", "4C", 5), ("blue", "4C", 5)] or seen[-2:] == [("blue", "4C", 5), ("red", "4C", 5)]
    assert len(seen) == len(set(seen)) == 14  # every play up to the 4C pair, each once
    kinds = [(m["type"], (m.get("event") or {}).get("card")) for m in msgs]
    assert kinds.index(("source_end", None)) > max(i for i, k in enumerate(kinds) if k == ("event", "4C"))


def _run_until_unplugged(monkeypatch, dead_at: float, heard: list[dict]) -> tuple[list[dict], str]:
    """One run of a webcam's :meth:`CameraSource.events` unplugged for good at ``dead_at`` s of
    the round clock, having heard ``heard`` from the page: its events and the error it ended with."""
    from nertz.vision import sources as vsources

    world = _World(threading.Event(), until=float("inf"))
    world.dead = [(dead_at, float("inf"))]
    monkeypatch.setattr(vsources, "time", world)
    monkeypatch.setattr(vsources, "_default_live_capture", lambda target: _LiveCamera(world))
    src = CameraSource(0, table())
    src.new_round(heard)
    got: list[dict] = []
    with pytest.raises(vsources.SourceError, match="could not be reopened") as err:
        for _, ev in src.events(0, world.t, threading.Event()):
            got.append(ev)
    return got, str(err.value)


def test_a_camera_that_gives_up_after_a_call_counts_only_from_what_it_saw(monkeypatch):
    """The counts after a call need the spread's frames (8-14 s after it), which a camera
    unplugged before them never gives. A call it saw (1 s, unplugged at 2.5 s) is counted
    from what it saw, each Nertz pile's top card up to then, as the normal end counts; a call
    after its last frame is given no count by the camera (nothing invented: the page's or
    "no count")."""
    got, _ = _run_until_unplugged(monkeypatch, 2.5, [{"t": 1.0, "type": "call", "player": "red"}])
    counts = {e["player"]: e["count"] for e in got if e["type"] == "nertz_left"}
    assert counts == {"blue": 13, "green": 13}  # the truth: green's AD came from a work pile
    assert [(e["player"], e["card"]) for e in got if e["type"] == "play"] == [("green", "AD")]

    got, _ = _run_until_unplugged(monkeypatch, 2.5, [{"t": 5.0, "type": "call", "player": "red"}])
    assert [e["type"] for e in got] == ["play"]  # green's AD; no count for a call it never saw
