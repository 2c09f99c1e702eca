"""``nertz synth round`` and ``nertz synth dataset``, run as a user runs them: the files of a
rendered round, the video read back, the table file, the score reproduced, determinism, and
clear errors for bad input. Renders are tiny (160x90, a round stopped after 1 s: about 5 s of
video) so the file runs in seconds."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from nertz.referee.table import Table

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "datasets" / "samples" / "round-3p"
TINY = ["--players", "2", "--max-duration", "1", "--resolution", "160x90", "--quiet"]


def nertz(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nertz", *args], capture_output=True, text=True, timeout=300,
                          env=env)


def require_art() -> None:
    """Fail (not skip) with the fix when the card-art cache is missing: CI fetches it first."""
    from nertz.datasets import art

    try:
        art.list_designs()
    except art.ArtMissingError as exc:
        pytest.fail(f"these tests need the card-art cache: {exc}")


def read_video(path: Path) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    assert cap.isOpened(), f"cv2.VideoCapture cannot open {path}"
    frames = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    cap.release()
    return frames


@pytest.fixture(scope="module")
def tiny_round(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_art()
    out = tmp_path_factory.mktemp("round") / "r"
    res = nertz("synth", "round", *TINY, "--seed", "3", "--workers", "2", "--out", str(out))
    assert res.returncode == 0, res.stderr
    (out.parent / "stderr.txt").write_text(res.stderr)  # beside the round folder, not in it
    return out


def test_round_writes_its_files(tiny_round: Path) -> None:
    for name in ("clip.mp4", "table.json", "events.jsonl", "result.json", "labels.jsonl", "meta.json"):
        assert (tiny_round / name).is_file() and (tiny_round / name).stat().st_size > 0, name
    meta = json.loads((tiny_round / "meta.json").read_text())
    assert meta["video"]["frames"] == round(meta["video"]["fps"] * (meta["duration"] + 1.0)) + 1  # t = 0 .. end


def test_the_summary_says_how_the_round_ended_in_good_english(tiny_round: Path) -> None:
    text = (tiny_round.parent / "stderr.txt").read_text()
    assert "stopped at the time limit (--max-duration 1 s) with no caller" in text
    for n, noun in re.findall(r"(\d+) (plays?|collisions?)\b", text):
        assert noun.endswith("s") == (n != "1"), f"{n} {noun}"
    assert not list(tiny_round.glob("*partial*"))


def test_the_clip_reads_back_with_every_frame_at_the_right_size(tiny_round: Path) -> None:
    meta = json.loads((tiny_round / "meta.json").read_text())
    frames = read_video(tiny_round / "clip.mp4")
    assert len(frames) == meta["video"]["frames"]
    assert frames[0].shape == (90, 160, 3)
    labels = [json.loads(x) for x in (tiny_round / "labels.jsonl").read_text().splitlines()]
    assert [x["frame"] for x in labels] == list(range(len(frames)))
    assert labels[-1]["t"] == pytest.approx((len(frames) - 1) / 30)
    # the deal: every player's layout lies on the table, labelled inside the frame
    first = labels[0]["cards"]
    assert {c["owner"] for c in first} == {"red", "blue"}
    quads = np.array([c["quad"] for c in first if c["visible"] > 0.5])
    assert len(quads) >= 10
    assert np.all((quads > -5) & (quads < [165, 95]))


def test_the_table_file_validates_and_places_zones_in_the_frame(tiny_round: Path) -> None:
    data = json.loads((tiny_round / "table.json").read_text())
    table = Table.from_dict(data)
    assert table.names == ["red", "blue"]
    assert set(table.zones) == {"red", "blue"}
    assert table.shared_area is not None
    shared = np.array(data["shared_area"], float)
    assert shared[:, 0].mean() == pytest.approx(80, abs=40) and shared[:, 1].mean() == pytest.approx(45, abs=25)
    assert data["rules"]["nertz_pile"] == 13


def test_nertz_score_reproduces_the_result(tiny_round: Path) -> None:
    res = nertz("score", str(tiny_round / "events.jsonl"), "--table", str(tiny_round / "table.json"), "--json")
    assert res.returncode == 0, res.stderr
    result = json.loads(res.stdout.splitlines()[-1])
    assert result == json.loads((tiny_round / "result.json").read_text())


def test_referee_eval_reads_a_round_with_plain_labels(tiny_round: Path) -> None:
    """``nertz synth round`` writes ``labels.jsonl`` unless ``--gzip-labels``: the measuring
    command reads either (it asked for ``labels.jsonl.gz`` only until 2026-12-04)."""
    res = subprocess.run([sys.executable, "-m", "nertz.vision.referee_eval", str(tiny_round), "--labels",
                          "--true-counts", "--json"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    first = json.loads(res.stdout.splitlines()[0])
    truth = [json.loads(x) for x in (tiny_round / "events.jsonl").read_text().splitlines() if x.strip()]
    assert first["round"] == str(tiny_round)
    assert first["plays"] == sum(e.get("type") == "play" for e in truth)


def test_same_seed_same_round_and_frames_serial_or_parallel(tiny_round: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    res = nertz("synth", "round", *TINY, "--seed", "3", "--workers", "1", "--out", str(again))
    assert res.returncode == 0, res.stderr
    assert (again / "events.jsonl").read_text() == (tiny_round / "events.jsonl").read_text()
    assert (again / "labels.jsonl").read_text() == (tiny_round / "labels.jsonl").read_text()
    a, b = read_video(again / "clip.mp4"), read_video(tiny_round / "clip.mp4")
    assert len(a) == len(b)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[len(a) // 2], b[len(b) // 2])
    other = tmp_path / "other"
    res = nertz("synth", "round", *TINY, "--seed", "4", "--workers", "1", "--out", str(other), "--no-labels")
    assert res.returncode == 0, res.stderr
    assert not (other / "labels.jsonl").exists()
    assert not np.array_equal(read_video(other / "clip.mp4")[0], b[0])


@pytest.mark.parametrize("args, message", [
    (["--players", "7"], "players"),
    (["--players", "3", "--partnerships"], "partnerships need an even number"),
    (["--resolution", "big"], "resolution must be WIDTHxHEIGHT"),
    (["--resolution", "63x35"], "at least 64x36"),
    (["--codec", "divx"], "unknown codec"),
    ([*TINY, "--codec", "mp4v", "--crf", "18"], "--crf is x264's rate factor: it needs --codec h264"),  # was ignored
    ([*TINY, "--crf", "28"], "--crf is x264's rate factor: it needs --codec h264"),  # (mp4v is the default codec)
    (["--min-seconds", "90", "--max-seconds", "60"], "must be >= 0 and below"),
    (["--min-seconds", "nan"], "--min-seconds must be a number of seconds, got nan"),  # was "speed must be positive"
    (["--max-duration", "nan", "--resolution", "160x90"], "--max-duration must be a number"),  # was ignored
    (["--illegal-rate", "2"], "illegal-rate"),
    (["--design", "no-such-deck"], "unknown card design"),
])
def test_bad_input_exits_2_with_a_message(tmp_path: Path, args: list[str], message: str) -> None:
    require_art()
    res = nertz("synth", "round", "--out", str(tmp_path / "x"), *args)
    assert res.returncode == 2
    assert message in res.stderr
    assert "Traceback" not in res.stderr
    assert not (tmp_path / "x" / "clip.mp4").exists()


def test_a_window_no_round_fits_does_not_ask_for_a_speed_out_of_range(tmp_path: Path) -> None:
    """--min/--max-seconds 1..3: the speed chosen for the window (89) fits no round, and the
    message said "at speed 89.0; adjust the speed" to a user who gave none (--speed allows 20 at most)."""
    require_art()
    res = nertz("synth", "round", "--players", "2", "--min-seconds", "1", "--max-seconds", "3", "-q",
                "--out", str(tmp_path / "x"))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "adjust the speed" not in res.stderr
    assert "lasted 1..3 s" in res.stderr and "give a longer or wider window, or --speed (0.05..20)" in res.stderr
    assert not (tmp_path / "x" / "clip.mp4").exists()


def test_round_refuses_a_file_or_a_folder_of_other_files_before_simulating(tmp_path: Path) -> None:
    notes = tmp_path / "README.md"
    notes.write_text("mine\n")
    scene = tmp_path / "a"  # a `nertz synth audit` folder
    scene.mkdir()
    for name in ("photo.png", "table.json", "truth.json"):
        (scene / name).write_text("x")
    for out, message in ((notes, "is a file, not a folder"), (scene, "holds files that are not a round's"),
                         (notes / "r", "README.md is a file")):
        res = nertz("synth", "round", *TINY, "--out", str(out))
        assert res.returncode == 2 and message in res.stderr, res.stderr
        assert "Traceback" not in res.stderr and "Errno" not in res.stderr
        assert "round:" not in res.stderr  # refused before the round was simulated
    assert notes.read_text() == "mine\n" and sorted(p.name for p in scene.iterdir()) == [
        "photo.png", "table.json", "truth.json"]


def test_round_refuses_a_resolution_over_8k_before_simulating(tmp_path: Path) -> None:
    """--resolution 8000x5000 was refused only after the round had been simulated (the
    "round: ... rendering N frames at 8000x5000" line came first, and the --out folder was
    made); now up front, with the same message, and nothing is made."""
    res = nertz("synth", "round", "--out", str(tmp_path / "x"), "--resolution", "8000x5000", "--quiet")
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.startswith("error: resolution 8000x5000 is more pixels than 7680x4320 (8K), the largest frame "
                                 "rendered"), res.stderr
    assert "round:" not in res.stderr  # refused before the round was simulated
    assert not (tmp_path / "x").exists()


def test_a_round_folder_is_rendered_again_in_place(tiny_round: Path, tmp_path: Path) -> None:
    """No overwrite flag is needed for a round's own folder: its files are replaced (labels
    too: --no-labels removes the earlier ones, which would not match the new clip)."""
    again = tmp_path / "r"
    shutil.copytree(tiny_round, again)
    (again / "README.md").write_text("notes on this round\n")
    res = nertz("synth", "round", *TINY, "--seed", "4", "--workers", "1", "--no-labels", "--out", str(again))
    assert res.returncode == 0, res.stderr
    assert json.loads((again / "meta.json").read_text())["cli_seed"] == 4
    assert not (again / "labels.jsonl").exists() and (again / "README.md").exists()
    assert (again / "clip.mp4").read_bytes() != (tiny_round / "clip.mp4").read_bytes()


def test_an_interrupted_render_leaves_the_folder_as_it_was(tiny_round: Path, tmp_path: Path) -> None:
    """The clip and labels are written under partial names and renamed when complete: an
    interrupted render leaves no clip.mp4 that looks complete, nor half-replaced files."""
    from nertz.datasets.sim import SimSettings, simulate_round
    from nertz.datasets.video import render_round

    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    sim = simulate_round(SimSettings(players=2, max_duration=1.0), 9)
    again = tmp_path / "r"
    shutil.copytree(tiny_round, again)
    for out in (tmp_path / "new", again):
        with pytest.raises(KeyboardInterrupt):
            render_round(sim, out, resolution=(160, 90), workers=1, progress=interrupt)
        assert not list(out.glob("*partial*"))
    assert not (tmp_path / "new" / "clip.mp4").exists()
    for name in ("clip.mp4", "labels.jsonl", "events.jsonl", "meta.json"):
        assert (again / name).read_bytes() == (tiny_round / name).read_bytes(), name


def test_a_missing_art_cache_is_a_clear_error(tmp_path: Path) -> None:
    env = dict(os.environ, NERTZ_ART_DIR=str(tmp_path / "no-art"))
    res = nertz("synth", "round", "--out", str(tmp_path / "x"), *TINY, env=env)
    assert res.returncode == 2
    assert "bash datasets/fetch_art.sh" in res.stderr and "Traceback" not in res.stderr


def test_dataset_rejects_a_malformed_option(tmp_path: Path) -> None:
    res = nertz("synth", "dataset", "--out", str(tmp_path / "d"), "--option", "novalue")
    assert res.returncode == 2
    assert "KEY=VALUE" in res.stderr


@pytest.mark.parametrize("args, message", [
    (["-x", "nosuch=1"], "unknown --option key nosuch for --kind detect; it takes val_every"),
    (["--kind", "card", "-x", "crops_per_frame=2"], "unknown --option key crops_per_frame for --kind card"),
    (["--kind", "boxes"], "unknown --kind 'boxes'"),
    (["-x", "val_every=0"], "val_every must be at least 1"),
    # a count that is not a whole number was truncated (2.5 -> 2), silently, until 2026-12-07
    (["-x", "frames_per_scene=2.5"], "frames_per_scene must be a whole number, got 2.5"),
    (["-x", "crops_per_frame=true"], "crops_per_frame must be a whole number, got True"),
    (["--kind", "classify", "-x", "cards_per_frame=1.5"], "cards_per_frame must be a whole number"),
    (["-x", "val_every=\"3\""], "val_every must be a whole number, got '3'"),
    # 0 or less was a traceback (cv2.error ... inv_scale_x > 0) from a worker, after the folders were made
    (["-x", "imgsz=0"], "imgsz is a crop side in pixels, 16..2048; got 0"),
    (["--kind", "classify", "-x", "crop=-4"], "crop is a crop side in pixels, 16..2048; got -4"),
    (["--kind", "card", "-x", "crop=100000"], "crop is a crop side in pixels, 16..2048; got 100000"),
    # these failed in a worker with a riddle, after the folders were made, or were taken as they came
    (["--kind", "card", "-x", "jitter_scale=-2"], "jitter_scale is the quads' scale change, 1 +- this, 0..0.5; got -2"),
    (["--kind", "card", "-x", "jitter=7"], "jitter is the quads' corner noise"),  # written, silently
    (["--kind", "card", "-x", "min_visible=2"], "min_visible is a card's visible share, 0..1; got 2"),  # 0 images
    (["--kind", "strip", "-x", "detector_share=3"], "detector_share is the share of the strips"),
    (["-x", "max_canvas_px=-1"], "max_canvas_px is a number of pixels above 0; got -1"),  # "math domain error"
    (["-x", "resolution=5"], "resolution is [WIDTH, HEIGHT] in pixels"),  # "'int' object is not subscriptable"
    (["-x", "resolution=[100000,100000]"], "resolution must be 64x36 to 7680x4320 pixels (8K), got 100000x100000"),
])
def test_dataset_refuses_options_it_would_ignore(tmp_path: Path, args: list[str], message: str) -> None:
    res = nertz("synth", "dataset", "--out", str(tmp_path / "d"), "--images", "2", "--workers", "1",
                "-x", "resolution=[320,180]", *args)
    assert res.returncode == 2 and message in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and res.stdout == ""
    assert not (tmp_path / "d").exists()  # refused before any folder is made


def test_dataset_writes_the_images_asked_for_in_train_and_val(tmp_path: Path) -> None:
    """--images 2 wrote 9 crops, all in val, until 2026-12-07."""
    require_art()
    out = tmp_path / "d"
    res = nertz("synth", "dataset", "--out", str(out), "--images", "2", "--workers", "1",
                "-x", "resolution=[320,180]", "-x", "imgsz=64")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == str(out / "data.yaml")
    assert [len(list((out / "images" / s).glob("*.jpg"))) for s in ("train", "val")] == [1, 1]
    assert "wrote 2 images (1 train, 1 val)" in res.stderr
    res = nertz("synth", "dataset", "--out", str(out), "--images", "2", "-x", "resolution=[320,180]")
    assert res.returncode == 2 and "already holds a set" in res.stderr


def test_synth_commands_do_not_write_into_each_others_folders(tiny_round: Path, tmp_path: Path) -> None:
    res = nertz("synth", "audit", "--out", str(tiny_round), "--resolution", "160x90")
    assert res.returncode == 2 and "holds files that are not an audit scene's" in res.stderr
    res = nertz("synth", "dataset", "--out", str(tiny_round), "--images", "2")
    assert res.returncode == 2 and "holds files that are not a training set's" in res.stderr
    assert not (tiny_round / "photo.png").exists() and not (tiny_round / "images").exists()


def test_the_bundled_sample_round_is_complete_and_scores() -> None:
    names = {p.name for p in SAMPLE.iterdir()}
    assert {"clip.mp4", "table.json", "events.jsonl", "result.json", "README.md"} <= names
    assert sum(p.stat().st_size for p in SAMPLE.iterdir()) < 10e6
    events = [json.loads(x) for x in (SAMPLE / "events.jsonl").read_text().splitlines()]
    table = Table.from_dict(json.loads((SAMPLE / "table.json").read_text()))
    assert len(table.players) == 3
    assert any(e["type"] == "ruling" and e["kind"] == "collision" for e in events)
    # a completed king pile: one pile received every rank, ace to king (no illegal plays here)
    assert not any(e["type"] == "ruling" and e["kind"] == "rejected" and e["reason"] != "collision_loser"
                   for e in events)
    ranks: dict[int, set[str]] = {}
    for e in events:
        if e["type"] == "play":
            ranks.setdefault(e["pile"], set()).add(e["card"][0])
    assert any(len(r) == 13 for r in ranks.values())
    meta = json.loads((SAMPLE / "meta.json").read_text())
    assert 60 <= meta["duration"] <= 90
    cap = cv2.VideoCapture(str(SAMPLE / "clip.mp4"))
    assert cap.isOpened()
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == meta["video"]["frames"]
    assert (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))) == (1280, 720)
    ok, frame = cap.read()
    cap.release()
    assert ok and frame.shape == (720, 1280, 3)
    res = nertz("score", str(SAMPLE / "events.jsonl"), "--table", str(SAMPLE / "table.json"), "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout.splitlines()[-1]) == json.loads((SAMPLE / "result.json").read_text())


def test_a_video_writer_into_a_missing_folder_says_which_folder(tmp_path: Path) -> None:
    from nertz.datasets.video import VideoError, open_writer

    with pytest.raises(VideoError, match="does not exist"):
        open_writer(tmp_path / "nowhere" / "x.mp4", 30, (64, 48), codec="mp4v")


def test_synth_audit_writes_a_photo_that_nertz_audit_reads(tmp_path: Path) -> None:
    """The end-of-round photo a newcomer can try `nertz audit` on: photo, table file and the
    true counts; the audit runs on it (its accuracy is measured by nertz.vision.audit_eval)."""
    require_art()
    out = tmp_path / "a"
    res = nertz("synth", "audit", "--seed", "3", "--resolution", "960x540", "--out", str(out))
    assert res.returncode == 0, res.stderr
    truth = json.loads((out / "truth.json").read_text())
    table = Table.from_dict(json.loads((out / "table.json").read_text()))
    assert set(truth["shared"]) == set(table.names) and cv2.imread(str(out / "photo.png")).shape == (540, 960, 3)
    # seed 3 showed 56 + 8 navy cards until 2026-12-07: no deck holds more than 52
    assert all(truth["shared"][p] + truth["zones"][p] + truth["face_up"] <= 52 for p in table.names)
    res = nertz("audit", str(out / "photo.png"), "--table", str(out / "table.json"), "--json")
    assert res.returncode == 0, res.stderr
    line = json.loads(res.stdout.strip().splitlines()[-1])
    assert line["type"] == "audit" and set(line["counts"]) == set(table.names)
    res = nertz("synth", "audit", "--out", str(tmp_path / "b"), "--resolution", "19x")
    assert res.returncode == 2 and "WIDTHxHEIGHT" in res.stderr and "Traceback" not in res.stderr


def test_dataset_help_says_what_a_classification_set_prints(tmp_path: Path) -> None:
    """The help said "the YAML's path on standard output" for every kind: a classify, card or
    strip set prints its folder (ultralytics takes the folder itself)."""
    require_art()
    out = tmp_path / "c"
    res = nertz("synth", "dataset", "--kind", "card", "--out", str(out), "--images", "2", "--workers", "1",
                "-x", "resolution=[320,180]")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == str(out)
    text = " ".join(nertz("synth", "dataset", "--help").stdout.split())
    assert "for classify, card and strip the set's folder" in text
