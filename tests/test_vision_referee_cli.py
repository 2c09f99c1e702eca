"""``nertz referee`` run as a user runs it, on a short clip cut from the bundled sample round."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest
from conftest import cut_sample_clip

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
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    plays = [(x["player"], x["card"]) for x in lines if x["type"] == "play"]
    assert ("green", "AD") in plays and ("blue", "AS") in plays
    assert any(x["type"] == "ruling" and x.get("kind") == "accepted" for x in lines)
    result = lines[-1]
    assert result["type"] == "result" and result["caller"] == "red"
    assert result["players"]["blue"]["nertz_left"] == 9
    cap = cv2.VideoCapture(str(out_video))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) >= 170
    cap.release()


@pytest.mark.parametrize("args, message", [
    (["--source", "no/such/clip.mp4", "--table", str(SAMPLE / "table.json")], "no/such/clip.mp4"),
    (["--source", "x.mp4"], "a table file is needed"),
    (["--call", "red81"], "NAME@SECONDS"),
    (["--call", "purple@3"], "no player 'purple'"),
    (["--nertz-left", "blue=three"], "NAME=N"),
])
def test_referee_user_mistakes_are_one_error_line_and_status_2(args, message):
    r = nertz("referee", *args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert message in r.stderr and r.stderr.startswith("error: ")


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
