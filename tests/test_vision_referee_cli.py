"""``nertz referee`` run as a user runs it, on a short clip cut from the bundled sample round."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import cut_sample_clip, make_unreadable

SAMPLE = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "round-3p"


def nertz(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nertz", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    """The sample round's first 6 seconds (3 plays), as an mp4v file."""
    path = tmp_path_factory.mktemp("clip") / "short.mp4"
    cut_sample_clip(path, 180)
    return path


def test_referee_json_prints_plays_rulings_and_ends_with_the_result(clip, tmp_path):
    out_video = tmp_path / "annotated.mp4"
    r = nertz("referee", "--source", str(clip), "--table", str(SAMPLE / "table.json"), "--call", "red@5.9",
              "--nertz-left", "blue=9", "--json", "--out", str(out_video))
    assert r.returncode == 0, r.stderr
    # not a terminal: no progress bar, not even its blank line; green's count (not given) is
    # counted from its Nertz pile's top card: 3H played in the first seconds, KC on top
    assert r.stderr == ("Nertz cards left, counted from the video: green 12 (from the pile's top cards) "
                        "(--nertz-left NAME=N gives a count instead)\n")
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    plays = [(x["player"], x["card"]) for x in lines if x["type"] == "play"]
    assert ("green", "AD") in plays and ("blue", "AS") in plays
    assert any(x["type"] == "ruling" and x.get("kind") == "accepted" for x in lines)
    result = lines[-1]
    assert result["type"] == "result" and result["caller"] == "red"
    assert result["players"]["blue"]["nertz_left"] == 9 and result["players"]["green"]["nertz_left"] == 12
    cap = cv2.VideoCapture(str(out_video))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) >= 170
    cap.release()


@pytest.mark.parametrize("args, message", [
    (["--source", "no/such/clip.mp4", "--table", str(SAMPLE / "table.json")], "no/such/clip.mp4"),
    (["--source", "x.mp4"], "x.mp4: no such file"),  # the missing file first, then the table
    (["--source", str(SAMPLE / "clip.mp4")], "a table file is needed"),
    (["--call", "red81"], "NAME@SECONDS"),
    (["--call", "purple@3"], "no player 'purple'"),
    (["--nertz-left", "blue=three"], "NAME=N"),
    (["--call", "red@-5"], "must not be negative"),
    (["--nertz-left", "blue=-3"], "cannot be negative"),
    (["--nertz-left", "blue=14"], "holds 13 cards at most"),  # refused before the video, not after it
    (["--nertz-left", "blue=²"], "NAME=N"),  # a digit to str.isdigit(), not to int()
    (["--nertz-left", "blue=3", "--nertz-left", "blue=4"], "gives blue twice"),
    (["--call", "red@1_0"], "NAME@SECONDS"),  # 10 s to float()
    (["--call", "red@\u0663"], "NAME@SECONDS"),  # an Arabic-Indic 3: 3 s to float()
    (["--fps", "10"], "only a folder of images"),  # the sample round is a video: it has its own rate
    (["--source", str(SAMPLE / "clip.mp4"), "--table", str(SAMPLE / "table.json"), "--fps", "10"],
     "only a folder of images"),
])
def test_referee_user_mistakes_are_one_error_line_and_status_2(args, message):
    r = nertz("referee", *args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert message in r.stderr and r.stderr.startswith("error: ")


def test_a_file_that_is_no_video_is_our_one_error_line_without_ffmpegs_own(tmp_path):
    fake = tmp_path / "fake.mp4"
    fake.write_text("not a video")
    r = nertz("referee", "--source", str(fake), "--table", str(SAMPLE / "table.json"))
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and "cannot be opened as a video" in r.stderr


def test_referee_refuses_a_table_without_zones(tmp_path, clip):
    t = json.loads((SAMPLE / "table.json").read_text())
    del t["zones"]
    (tmp_path / "t.json").write_text(json.dumps(t))
    r = nertz("referee", "--source", str(clip), "--table", str(tmp_path / "t.json"))
    assert r.returncode == 2 and "zones" in r.stderr


def test_show_without_a_display_is_refused_up_front(clip, monkeypatch):
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    r = subprocess.run([sys.executable, "-m", "nertz", "referee", "--source", str(clip), "--table",
                        str(SAMPLE / "table.json"), "--show"], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 2 and "--show needs a display" in r.stderr


def test_keys_call_nertz_for_the_table_players_in_order():
    from nertz.vision.referee_cli import key_to_call

    names = ["red", "blue", "green"]
    assert [key_to_call(ord(k), names) for k in "1234q"] == ["red", "blue", "green", None, None]


def test_referee_refuses_an_audit_photo_it_cannot_read(clip, tmp_path):
    bad = tmp_path / "spread.png"
    bad.write_bytes(b"not a png")
    r = nertz("referee", "--source", str(clip), "--table", str(SAMPLE / "table.json"), "--audit", str(bad))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "not a readable image" in r.stderr


def test_referee_refuses_an_audit_photo_it_cannot_count_before_reading_the_video(clip, tmp_path):
    """A photo with no cards in it is refused at once: exit 2, no play printed."""
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 120, np.uint8))
    r = nertz("referee", "--source", str(clip), "--table", str(SAMPLE / "table.json"), "--audit", str(blank), "--json")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("error: --audit") and "cannot be counted" in r.stderr
    assert r.stdout == ""


def _referee_with_a_fixed_audit(clip, tmp_path, monkeypatch, call: str) -> list[dict]:
    """``nertz referee --json`` on ``clip`` with ``--call call`` and an end-of-round photo whose
    audit is replaced by fixed counts (red 0, green 2, blue 1 in the shared area; 7 of blue's
    backs in blue's zone, none in green's); returns the printed JSON lines."""
    from typer.testing import CliRunner

    import nertz.vision.audit as audit_mod
    from nertz.cli import app

    photo = tmp_path / "spread.png"
    cv2.imwrite(str(photo), np.full((36, 64, 3), 255, np.uint8))
    fixed = audit_mod.AuditResult(counts={"red": 0, "green": 2, "blue": 1}, zones={"blue": {"blue": 7}, "green": {}},
                                  unknown=0, face_up=0)
    monkeypatch.setattr(audit_mod, "audit", lambda image, table, **kw: fixed)
    monkeypatch.setattr(audit_mod, "check_face_down", lambda image, table, res: None)  # (a blank photo)
    r = CliRunner().invoke(app, ["referee", "--source", str(clip), "--table", str(SAMPLE / "table.json"),
                                 "--call", call, "--audit", str(photo), "--json"])
    assert r.exit_code == 0, r.output
    return [json.loads(x) for x in r.stdout.splitlines()]


def test_referee_scores_the_round_by_the_audit_photo(clip, tmp_path, monkeypatch):
    """The wiring: the audit's zone counts become the Nertz counts, its shared-area counts the
    scored foundations, the live counts are kept beside them. (The audit itself is measured in
    test_audit.py; here it is replaced by fixed counts.)"""
    lines = _referee_with_a_fixed_audit(clip, tmp_path, monkeypatch, "red@5.9")
    assert any(x["type"] == "nertz_left" and x["player"] == "blue" and x["count"] == 7 for x in lines)
    assert lines[-2]["type"] == "audit" and lines[-2]["counts"]["green"] == 2
    result = lines[-1]
    assert result["type"] == "result" and result["scored_by"] == "audit" and result["caller"] == "red"
    assert result["players"]["blue"] == {"foundation": 1, "nertz_left": 7, "score": 1 - 2 * 7}
    assert result["players"]["green"]["foundation"] == 2
    assert result["live"]["green"]["foundation"] >= 1     # the live count, kept for the record


def test_the_audit_photo_does_not_give_the_caller_a_nertz_count(clip, tmp_path, monkeypatch):
    """What lies in the caller's zone at the end (their stock) is not a Nertz pile: a valid call
    means an empty one. Before, the caller's own backs in their zone were pushed as their Nertz
    count, which made the call false ("play on") and the round unended."""
    from typer.testing import CliRunner

    import nertz.vision.audit as audit_mod
    from nertz.cli import app

    photo = tmp_path / "spread.png"
    cv2.imwrite(str(photo), np.full((36, 64, 3), 255, np.uint8))
    fixed = audit_mod.AuditResult(counts={"red": 0, "green": 2, "blue": 1},
                                  zones={"red": {"red": 4}, "blue": {"blue": 7}, "green": {}}, unknown=0, face_up=0)
    monkeypatch.setattr(audit_mod, "audit", lambda image, table, **kw: fixed)
    monkeypatch.setattr(audit_mod, "check_face_down", lambda image, table, res: None)  # (a blank photo)
    r = CliRunner().invoke(app, ["referee", "--source", str(clip), "--table", str(SAMPLE / "table.json"),
                                 "--call", "red@5.9", "--audit", str(photo), "--json"])
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert not any(x["type"] == "nertz_left" and x["player"] == "red" for x in lines)
    result = lines[-1]
    assert result["caller"] == "red" and result["players"]["red"]["nertz_left"] == 0
    assert result["players"]["blue"]["nertz_left"] == 7


def test_with_an_audit_photo_no_player_is_ruled_without_a_count_before_the_photo_counts_them(clip, tmp_path,
                                                                                            monkeypatch):
    """The photo's zones give the Nertz counts at the end; before, a "no Nertz pile count for
    blue: scored as 0 left" ruling was printed at the call for every player, and never taken
    back once the photo's counts came."""
    lines = _referee_with_a_fixed_audit(clip, tmp_path, monkeypatch, "red@5.9")
    assert not any(x.get("kind") == "no_count" for x in lines)
    assert {x["player"]: x["count"] for x in lines if x["type"] == "nertz_left"} == {"blue": 7, "green": 0}
    # a call after the source's end is still ruled before the photo's counts are pushed
    lines = _referee_with_a_fixed_audit(clip, tmp_path, monkeypatch, "red@60")
    assert not any(x.get("kind") == "no_count" for x in lines)
    assert lines[-1]["caller"] == "red" and lines[-1]["players"]["blue"]["nertz_left"] == 7


def test_the_unsure_plays_are_listed_least_sure_first_after_the_scoreboard():
    from nertz.vision.referee_cli import unsure_plays

    events = [{"t": 1.0, "type": "play", "player": "red", "card": "AS", "pile": 1, "confidence": 0.95},
              {"t": 2.0, "type": "play", "player": "blue", "card": "2S", "pile": 1, "confidence": 0.5},
              {"t": 3.0, "type": "take_back", "player": "blue", "card": "2S", "pile": 1},
              {"t": 4.0, "type": "play", "player": "red", "card": "AH", "pile": 2, "confidence": 0.3}]
    lines = unsure_plays(events, 0.9)
    assert lines[0].startswith("The camera was unsure of 2 plays")
    assert "red AH on pile 2 (confidence 0.30)" in lines[1] and "blue 2S on pile 1 (confidence 0.50)" in lines[2]
    assert len(lines) == 3
    assert unsure_plays(events, 0.9, most=1)[-1] == "  ... and 1 more"
    assert unsure_plays(events[:1], 0.9) == []


def test_the_sample_rounds_announced_counts_go_with_its_announced_call(clip, monkeypatch):
    """With no source, the counts said at the sample's table (red 0, blue 3, green 0, for red's
    call at 59.1 s) were pushed at a --call of the user's own (so blue@30 was a false call,
    blue having "3 left", and the note called it "as said at the table"), and one --nertz-left
    dropped all the others. The bundled clip is replaced by its first 6 s here."""
    from typer.testing import CliRunner

    import nertz.vision.referee_cli as referee_cli
    from nertz.cli import app

    real = referee_cli.sample_path
    monkeypatch.setattr(referee_cli, "sample_path", lambda name, *a: clip if name == "clip.mp4" else real(name, *a))
    r = CliRunner().invoke(app, ["referee", "--call", "red@2"])
    assert r.exit_code == 0, r.output
    assert "blue has 3 Nertz cards left" not in r.stdout and "green has 0 Nertz" not in r.stdout
    assert "counted from the video: blue" in r.stderr  # not the announced ones
    assert "your call: red@2" in r.stderr and "not used" in r.stderr
    r = CliRunner().invoke(app, ["referee", "--nertz-left", "blue=5", "--json"])
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    result = lines[-1]
    assert result["caller"] == "red"  # the announced call, at 59.1 s (after this clip's end)
    assert {n: p["nertz_left"] for n, p in result["players"].items()} == {"red": 0, "blue": 5, "green": 0}


def test_referee_refuses_a_table_made_for_a_larger_frame(tmp_path, clip):
    # the sample's table file (1280x720 pixels) against the same clip at half the size
    small = tmp_path / "small.mp4"
    cap = cv2.VideoCapture(str(clip))
    out = cv2.VideoWriter(str(small), cv2.VideoWriter_fourcc(*"mp4v"), 30, (640, 360))
    for _ in range(10):
        ok, frame = cap.read()
        out.write(cv2.resize(frame, (640, 360)))
    out.release()
    cap.release()
    r = nertz("referee", "--source", str(small), "--table", str(SAMPLE / "table.json"))
    assert r.returncode == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    assert "calibrated on 1280x720 frames and this source's are 640x360" in r.stderr and "nertz calibrate" in r.stderr
    # a table file that does not name its frames' size is judged by where its polygons lie
    unsized = json.loads((SAMPLE / "table.json").read_text())
    del unsized["calibration"]
    (tmp_path / "unsized.json").write_text(json.dumps(unsized))
    r = nertz("referee", "--source", str(small), "--table", str(tmp_path / "unsized.json"))
    assert r.returncode == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    assert "outside this source's 640x360 frames" in r.stderr and "nertz calibrate" in r.stderr


def test_a_table_that_fits_its_frames_passes_and_an_unknown_size_is_not_judged():
    from nertz.referee.files import read_table
    from nertz.referee.table import Table
    from nertz.vision.sources import table_misfit

    tbl = read_table(SAMPLE / "table.json")  # it names its 1280 x 720 frames
    assert table_misfit(tbl, (1280, 720)) is None and table_misfit(tbl, (0, 0)) is None
    assert "calibrated on 1280x720" in table_misfit(tbl, (1280, 360))
    unsized = Table.from_dict({k: v for k, v in tbl.to_dict().items() if k != "calibration"})
    assert "outside" in table_misfit(unsized, (1280, 360))


def test_a_table_calibrated_on_frames_of_another_size_does_not_fit():
    # a table made at 1280 x 720 lies inside a 1920 x 1080 frame, in the wrong place: a table
    # file that names its calibration frames' size (nertz calibrate writes it) must name the
    # source's
    from nertz.referee.files import read_table
    from nertz.referee.table import Table
    from nertz.vision.sources import table_misfit

    data = {k: v for k, v in read_table(SAMPLE / "table.json").to_dict().items() if k != "calibration"}
    tbl = Table.from_dict({**data, "calibration": {"method": "layouts", "frame_size": [1280, 720]}})
    assert table_misfit(tbl, (1280, 720)) is None
    assert "calibrated on 1280x720 frames" in table_misfit(tbl, (1920, 1080))
    assert table_misfit(Table.from_dict(data), (1920, 1080)) is None  # the file does not say


def test_a_zone_reaching_a_little_out_of_the_frame_fits_but_a_shared_area_does_not():
    # the data engine's own table files put the zone of a player at the frame's edge up to
    # 0.12 of the frame out of it (its cascades' room); `nertz referee` refused its own clip
    from nertz.referee.files import read_table
    from nertz.vision.sources import table_misfit

    tbl = read_table(SAMPLE / "table.json")
    name = next(iter(tbl.zones))
    zone = [list(p) for p in tbl.zones[name]]
    zone[0] = [zone[0][0], 720 * 1.15]
    out = tbl.model_copy(update={"zones": {**tbl.zones, name: tuple(tuple(p) for p in zone)}})
    assert table_misfit(out, (1280, 720)) is None
    zone[0] = [zone[0][0], 720 * 1.4]
    far = tbl.model_copy(update={"zones": {**tbl.zones, name: tuple(tuple(p) for p in zone)}})
    assert f"{name}'s zone reaches" in table_misfit(far, (1280, 720))
    shared = [list(p) for p in tbl.shared_area]
    shared[0] = [shared[0][0], 720 * 1.15]
    moved = tbl.model_copy(update={"shared_area": tuple(tuple(p) for p in shared)})
    assert "the shared area reaches" in table_misfit(moved, (1280, 720))


def test_bench_stops_reading_the_source_at_seconds(monkeypatch):
    # with --seconds the rest of the source is not decoded (and not timed)
    from types import SimpleNamespace

    import nertz.vision.sources as sources
    from nertz.vision.bench_cli import bench_pipeline

    read = []

    class Source:
        fps, size = 30.0, (1280, 720)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def __iter__(self):
            for i in range(300):                   # ten seconds of grey frames
                read.append(i)
                yield SimpleNamespace(index=i, t=i / 30, image=np.full((720, 1280, 3), 90, np.uint8))

    monkeypatch.setattr(sources, "open_source", lambda source, **kw: Source())
    f = bench_pipeline("fake", SAMPLE / "table.json", seconds=0.5)
    assert f["frames"] == 16 and len(read) <= 17


def test_bench_times_the_referee_on_a_clip_and_prints_its_figures(clip):
    # two seconds of the sample: a smoke test of the command, not a timing (CI machines are noisy)
    r = nertz("bench", "--source", str(clip), "--table", str(SAMPLE / "table.json"), "--seconds", "2", "--json")
    assert r.returncode == 0, r.stderr
    f = json.loads(r.stdout.strip().splitlines()[-1])
    assert f["cores"] >= 1 and f["frame_size"] == "1280x720" and f["stride"] == 3
    assert f["looks"] == len(range(0, f["frames"], 3)) and f["media_s"] <= 2.1
    r = nertz("bench", "--source", str(clip))
    assert r.returncode == 2 and r.stderr == "error: a table file is needed (--table T.json)\n"


def test_bench_refuses_a_table_made_for_frames_of_another_size(clip, tmp_path):
    """A table file calibrated on other frames (another camera or resolution) was used
    silently: its zones elsewhere in the frames, the figures ("no plays seen") those of no
    real round. It is refused, as nertz referee refuses it."""
    data = json.loads((SAMPLE / "table.json").read_text())
    data["calibration"] = {**data.get("calibration", {}), "frame_size": [640, 360]}
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data))
    r = nertz("bench", "--source", str(clip), "--table", str(other), "--seconds", "0.2")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith(f"error: {other}: the table file was calibrated on 640x360 frames and this "
                               "source's are 1280x720")


@pytest.mark.parametrize("seconds", ["-5", "0", "nan"])
def test_bench_refuses_seconds_that_are_not_positive(seconds):
    r = nertz("bench", "--seconds", seconds)
    assert r.returncode == 2 and r.stderr.startswith(f"error: --seconds {seconds}") and r.stdout == ""


def test_bench_times_a_folder_of_images_by_fps_and_refuses_it_for_a_video(tmp_path, clip):
    """nertz bench had no --fps: a folder of images was timed at 30 fps (its media time, the
    realtime ratio and --seconds wrong for any other rate), where referee and calibrate take
    --fps. It takes it as they do, and refuses it for a video, as referee does."""
    folder = tmp_path / "frames"
    folder.mkdir()
    cap = cv2.VideoCapture(str(clip))
    for i in range(6):
        ok, frame = cap.read()
        assert ok
        cv2.imwrite(str(folder / f"f{i}.png"), frame)
    cap.release()
    r = nertz("bench", "--source", str(folder), "--table", str(SAMPLE / "table.json"), "--fps", "10", "--json")
    assert r.returncode == 0, r.stderr
    f = json.loads(r.stdout.strip().splitlines()[-1])
    assert f["frames"] == 6 and f["media_s"] == 0.5 and "taken as 30 frames" not in r.stderr
    r = nertz("bench", "--source", str(folder), "--table", str(SAMPLE / "table.json"), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["media_s"] == 0.17
    assert "a folder of images, taken as 30 frames a second" in r.stderr and "--fps" in r.stderr
    for args in (["--source", str(clip), "--table", str(SAMPLE / "table.json")], []):
        r = nertz("bench", *args, "--fps", "10")
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr.startswith("error: --fps 10: only a folder of images (or an image) is timed by it; ")


def test_bench_reports_a_missing_source_before_asking_for_a_table():
    r = nertz("bench", "--source", "nosuch.mp4")
    assert r.returncode == 2 and r.stderr.startswith("error: nosuch.mp4: no such file") and r.stderr.count("\n") == 1


def test_bench_text_says_no_plays_seen_rather_than_none(monkeypatch):
    """A few frames with no play in them (a folder, --seconds 1): the latency line printed
    'median None s, max None s (0 plays)'."""
    from typer.testing import CliRunner

    import nertz.vision.bench_cli as bench_cli
    from nertz.cli import app

    figures = {"frames": 2, "looks": 1, "media_s": 0.0, "wall_s": 0.25, "realtime_ratio": None,
               "look_ms_median": 214.1, "event_latency_s_median": None, "event_latency_s_max": None,
               "cores": 2, "load_1min": 0.5, "stride": 3, "frame_size": "1280x720", "plays": 0}
    monkeypatch.setattr(bench_cli, "bench_pipeline", lambda *a, **k: dict(figures))
    r = CliRunner().invoke(app, ["bench", "--source", str(SAMPLE / "clip.mp4"), "--table", str(SAMPLE / "table.json")])
    assert r.exit_code == 0, r.output
    assert "None" not in r.stdout
    assert "event latency after the card lands: no plays seen" in r.stdout
    assert bench_cli.latency_line({**figures, "plays": 3, "event_latency_s_median": 0.4, "event_latency_s_max": 0.9}) \
        == "event latency after the card lands: median 0.4 s, max 0.9 s (3 plays)"


def test_call_seconds_and_counts_are_ascii_digits_only():
    from nertz.referee.errors import NertzError
    from nertz.vision.referee_cli import parse_call, parse_number

    assert parse_call("red@81.2") == ("red", 81.2) and parse_call("a@b@3") == ("a@b", 3.0)
    assert parse_call("red@.5") == ("red", 0.5) and parse_call("red@7.") == ("red", 7.0)
    for bad in ("red@1_0", "red@\u0663", "red@1e2", "red@inf", "red@nan", "red@", "@3", "red@+3", "red@0x10"):
        with pytest.raises(NertzError, match="NAME@SECONDS"):
            parse_call(bad)
    with pytest.raises(NertzError, match="must not be negative"):
        parse_call("red@-5")
    assert parse_number(" 3 ") == 3 and parse_number("-3") == -3
    assert [parse_number(x) for x in ("1_0", "\u0663", "\u00b2", "3.0", "")] == [None] * 5


def test_a_folder_of_images_is_timed_by_fps(tmp_path):
    """A folder of every third frame of the sample round (10 frames a second): with --fps 10 the
    plays and --call are in the round's seconds; without it the folder was taken as 30 fps,
    silently (green's AD at 0.6 s instead of 1.77 s, a call at 5 s 'after the end')."""
    folder = tmp_path / "frames"
    folder.mkdir()
    cap = cv2.VideoCapture(str(SAMPLE / "clip.mp4"))
    for i in range(60 * 3):
        ok, frame = cap.read()
        assert ok
        if i % 3 == 0:
            cv2.imwrite(str(folder / f"f{i // 3:03d}.png"), frame)
    cap.release()
    r = nertz("referee", "--source", str(folder), "--table", str(SAMPLE / "table.json"), "--fps", "10",
              "--call", "red@5.5", "--json")
    assert r.returncode == 0, r.stderr
    assert "after the end of the source" not in r.stderr and "taken as 30 frames" not in r.stderr
    assert "3.3 looks a second" in r.stderr and "give --stride 1" in r.stderr  # (made for about 10)
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    ad = [x["t"] for x in lines if x["type"] == "play" and x["card"] == "AD"]
    assert ad and abs(ad[0] - 1.77) < 0.35, ad
    assert lines[-1]["type"] == "result" and lines[-1]["end_t"] == 5.5
    r = nertz("referee", "--source", str(folder), "--table", str(SAMPLE / "table.json"), "--json")
    assert r.returncode == 0, r.stderr
    assert "a folder of images, taken as 30 frames a second" in r.stderr and "--fps" in r.stderr


def test_realtime_on_a_file_drops_the_frames_the_referee_falls_behind_on(tmp_path, monkeypatch):
    """``--realtime`` paced a file but read every frame however slow the referee was (7.9 s of
    media in 15 s on 2 cores): not as if live. Now the frames it is late for are dropped, as a
    camera's are, and counted on stderr; without --realtime every frame is refereed. The
    clock is a fake one (the sources' ``time``), moved 0.09 s by each frame refereed."""
    from types import SimpleNamespace

    from typer.testing import CliRunner

    from nertz.cli import app
    from nertz.vision import pipeline, sources

    clip = tmp_path / "one_second.mp4"
    cut_sample_clip(clip, 30)
    clock = SimpleNamespace(now=0.0)
    clock.monotonic = lambda: clock.now
    clock.sleep = lambda s: setattr(clock, "now", clock.now + s)
    monkeypatch.setattr(sources, "time", clock)
    stepped = []

    def slow_step(self, index, t, frame):  # 0.09 s a frame: 2.7 times media time, and no models run
        stepped.append(index)
        self.stats.frames += 1
        clock.now += 0.09

    monkeypatch.setattr(pipeline.RefereePipeline, "step", slow_step)
    args = ["referee", "--source", str(clip), "--table", str(SAMPLE / "table.json"), "--json"]
    r = CliRunner().invoke(app, [*args, "--realtime"])
    assert r.exit_code == 0, r.output
    # 0.09 s after frame 0 (frames 1/30 s apart) frame 1 is stale and 2 the newest: 0, 2, 5, 8, ...
    assert stepped[:4] == [0, 2, 5, 8] and len(stepped) < 15
    assert f"--realtime: {30 - len(stepped)} frames dropped" in r.stderr and f"{len(stepped)} seen" in r.stderr
    stepped.clear()
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert stepped == list(range(30)) and "dropped" not in r.stderr


def _interrupted(clip, tmp_path, monkeypatch, raise_at: float, *args: str, sigterm: bool = False):
    """``nertz referee`` on ``clip`` stopped (Ctrl-C, or SIGTERM with ``sigterm``) at the first
    frame at or after ``raise_at`` seconds; returns the CliRunner result."""
    import os
    import signal

    from typer.testing import CliRunner

    from nertz.cli import app
    from nertz.vision import pipeline

    step = pipeline.RefereePipeline.step

    def stopping_step(self, index, t, frame):
        if t >= raise_at:
            if sigterm:
                os.kill(os.getpid(), signal.SIGTERM)
            else:
                raise KeyboardInterrupt
        return step(self, index, t, frame)

    monkeypatch.setattr(pipeline.RefereePipeline, "step", stopping_step)
    before = signal.getsignal(signal.SIGTERM)
    r = CliRunner().invoke(app, ["referee", "--source", str(clip), "--table", str(SAMPLE / "table.json"), *args])
    assert signal.getsignal(signal.SIGTERM) == before  # the run's own handler is put back
    return r


@pytest.mark.parametrize("sigterm", [False, True])
def test_an_interrupted_run_is_scored_as_seen_and_its_video_is_whole(clip, tmp_path, monkeypatch, sigterm):
    """Ctrl-C (or SIGTERM: `timeout`, a service manager) midway: the result line of the part
    seen, with a --call beyond it not applied (it ended the round 'by red's call' with the Nertz
    counts of the time of the stop), a playable --out, and exit status 130 (it was 0, as for a
    whole round; SIGTERM killed the process, its video unplayable and no result printed)."""
    out_video = tmp_path / "annotated.mp4"
    r = _interrupted(clip, tmp_path, monkeypatch, 3.0, "--call", "red@5.5", "--json", "--out", str(out_video),
                     sigterm=sigterm)
    assert r.exit_code == 130, r.output
    assert "stopped at 3.0 s of media" in r.stderr and "not applied: --call red@5.5" in r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    result = lines[-1]
    assert result["type"] == "result" and result["ended"] is None and result["caller"] is None
    assert not any(x["type"] in ("call", "nertz_left") for x in lines)
    cap = cv2.VideoCapture(str(out_video))
    frames = 0
    while cap.read()[0]:
        frames += 1
    cap.release()
    assert 85 <= frames <= 95


def test_a_call_seen_before_the_stop_still_ends_the_round(clip, tmp_path, monkeypatch):
    r = _interrupted(clip, tmp_path, monkeypatch, 4.0, "--call", "red@2", "--nertz-left", "blue=5",
                     "--nertz-left", "green=6", "--json")
    assert r.exit_code == 130, r.output
    assert "not applied" not in r.stderr
    result = json.loads(r.stdout.splitlines()[-1])
    assert result["ended"] == "call" and result["caller"] == "red" and result["end_t"] == 2.0
    assert result["players"]["blue"]["nertz_left"] == 5


def test_the_overlay_video_keeps_a_rate_that_is_not_whole(tmp_path):
    """A 29.97 fps camera and a folder of images at 0.5 fps: the overlay video was written at
    int(round(fps)) frames a second (30, and 0: no video), its times drifting from the source's."""
    import importlib.util

    from nertz.datasets.video import open_writer

    codecs = ["mp4v"] + (["h264"] if importlib.util.find_spec("av") is not None else [])  # (PyAV: the video extra)
    for codec in codecs:
        for fps in (30000 / 1001, 0.5):
            path = tmp_path / f"v{fps:.2f}-{codec}.mp4"
            w = open_writer(path, fps, (64, 48), codec=codec)
            for _ in range(3):
                w.write(np.zeros((48, 64, 3), np.uint8))
            w.close()
            cap = cv2.VideoCapture(str(path))
            assert cap.get(cv2.CAP_PROP_FPS) == pytest.approx(fps, rel=1e-3), (codec, fps)
            cap.release()


def test_a_table_file_naming_a_player_not_at_this_table_is_warned_of(clip, tmp_path):
    """A table file of another table (here the sample's with a fourth player, yellow, whose zone
    shows the bare table): the plays were given to yellow at full confidence, with no word that
    the table file did not fit. Now a warning once the deal's looks are in."""
    data = json.loads((SAMPLE / "table.json").read_text())
    data["players"].append({"name": "yellow", "back": "#d4a017"})
    data["zones"]["yellow"] = [[340, 20], [800, 20], [800, 200], [340, 200]]
    table = tmp_path / "other.json"
    table.write_text(json.dumps(data))
    r = nertz("referee", "--source", str(clip), "--table", str(table), "--json")
    assert r.returncode == 0, r.stderr
    assert f"warning: no face-up card in the zone of yellow of {table} in the first seconds" in r.stderr
    assert "red" not in r.stderr.split("zone of ")[1].split(" of ")[0]


def test_a_player_without_a_zone_is_warned_of(tmp_path):
    """A hand-edited table file that leaves a player's zone out (zones are optional in the
    contract): that player's cards were given to the others, silently."""
    data = json.loads((SAMPLE / "table.json").read_text())
    del data["zones"]["green"]
    table = tmp_path / "t.json"
    table.write_text(json.dumps(data))
    image = tmp_path / "still.png"
    cap = cv2.VideoCapture(str(SAMPLE / "clip.mp4"))
    ok, frame = cap.read()
    cap.release()
    assert ok
    cv2.imwrite(str(image), frame)
    r = nertz("referee", "--source", str(image), "--table", str(table), "--json")
    assert r.returncode == 0, r.stderr
    assert f"warning: {table} gives no zone to green:" in r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["type"] == "result"


def test_a_folder_of_images_that_cannot_be_listed_is_an_error_line_not_a_traceback(tmp_path, monkeypatch):
    """A folder source this user may not read (permissions) was a PermissionError traceback."""
    from typer.testing import CliRunner

    from nertz.cli import app

    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "f0.png"), np.zeros((720, 1280, 3), np.uint8))
    make_unreadable(folder, monkeypatch)
    try:
        r = CliRunner().invoke(app, ["referee", "--source", str(folder), "--table", str(SAMPLE / "table.json")])
    finally:
        folder.chmod(0o755)
    assert r.exit_code == 2, (r.output, r.exception)
    assert r.stderr.startswith("error: ") and "cannot be read (Permission denied)" in r.stderr, r.stderr
    assert r.stdout == ""


def test_a_video_file_that_cannot_be_read_says_so_not_that_it_is_no_video(tmp_path, clip, monkeypatch):
    """A video file this user may not read was called 'not a video file, or a format OpenCV's
    FFmpeg cannot read': the user would look for a codec problem."""
    from typer.testing import CliRunner

    from nertz.cli import app

    video = tmp_path / "locked.mp4"
    video.write_bytes(clip.read_bytes())
    make_unreadable(video, monkeypatch)
    try:
        r = CliRunner().invoke(app, ["referee", "--source", str(video), "--table", str(SAMPLE / "table.json")])
    finally:
        video.chmod(0o644)
    assert r.exit_code == 2, (r.output, r.exception)
    assert r.stderr == f"error: {video}: cannot be read (Permission denied)\n", r.stderr
