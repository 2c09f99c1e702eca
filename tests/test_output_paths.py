"""An output path that is an input, or that no writer can write: refused with one ``error:``
line (exit status 2) before anything is opened, the input left as it was (``nertz referee
--source victim.mp4 --out victim.mp4`` overwrote the recording it was reading; ``--out out.txt``
died with PyAV's traceback after the video was opened). A write that fails mid-run is an
``error:`` line too, and the round is still scored."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import cut_sample_clip

from nertz.referee.errors import NertzError
from nertz.referee.files import check_not_an_input, same_file

SAMPLE = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "round-3p"
TABLE = str(SAMPLE / "table.json")


def nertz(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nertz", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    """The sample round's first second, as an mp4v file."""
    path = tmp_path_factory.mktemp("clip") / "victim.mp4"
    cut_sample_clip(path, 30)
    return path


def test_same_file_sees_the_one_file_under_its_other_names(tmp_path):
    a = tmp_path / "a.mp4"
    a.write_bytes(b"x")
    os.link(a, tmp_path / "hard.mp4")
    (tmp_path / "sym.mp4").symlink_to(a)
    (tmp_path / "sub").mkdir()
    for other in ("hard.mp4", "sym.mp4", "./a.mp4", "sub/../a.mp4"):
        assert same_file(a, tmp_path / other), other
    assert not same_file(a, tmp_path / "b.mp4")
    assert same_file(tmp_path / "new.mp4", tmp_path / "sub" / ".." / "new.mp4")  # neither exists: by path
    with pytest.raises(NertzError, match="--out .*hard.mp4 is the same file as --source"):
        check_not_an_input(tmp_path / "hard.mp4", [("--table", None), ("--source", a)])
    check_not_an_input(tmp_path / "other.mp4", [("--source", a), ("--table", None)])  # no error


@pytest.mark.parametrize("out", ["victim.mp4", "./victim.mp4", "hard.mp4", "sym.mp4", "ABS"])
def test_referee_refuses_to_write_its_video_over_the_source(clip, tmp_path, out):
    work = tmp_path / "w"
    work.mkdir()
    victim = work / "victim.mp4"
    victim.write_bytes(clip.read_bytes())
    os.link(victim, work / "hard.mp4")
    (work / "sym.mp4").symlink_to("victim.mp4")
    before = digest(victim)
    r = nertz("referee", "--source", "victim.mp4", "--table", TABLE,
              "--out", str(victim) if out == "ABS" else out, cwd=work)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("error: --out ") and r.stderr.count("\n") == 1
    assert "is the same file as --source" in r.stderr and r.stdout == ""
    assert digest(victim) == before


@pytest.mark.parametrize("out, says", [
    ("out.txt", "no video format for the extension '.txt'"),
    ("noext", "no video format for the extension '(none)'"),
    ("outdir", "a folder"),
    ("outdir/", "a folder"),
    ("nowhere/a.mp4", "does not exist"),  # (as before)
    ("/proc/a.mp4", "cannot be written"),
])
def test_referee_refuses_an_out_it_cannot_write_before_reading_a_frame(clip, tmp_path, out, says):
    (tmp_path / "outdir").mkdir()
    r = nertz("referee", "--source", str(clip), "--table", TABLE, "--out", out, cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and says in r.stderr
    assert r.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outdir"]  # nothing left behind


def test_check_video_out_takes_the_writers_extensions_in_any_case(tmp_path):
    from nertz.datasets.video import VideoError, check_video_out

    for name in ("a.mp4", "b.MP4", "c.mkv", "d.MOV", "e.avi"):
        check_video_out(tmp_path / name)
    kept = tmp_path / "kept.mp4"
    kept.write_bytes(b"an earlier video")
    check_video_out(kept)
    assert kept.read_bytes() == b"an earlier video"       # looked at, not truncated
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.mp4"]  # the probes removed
    with pytest.raises(VideoError, match="extension '.webm'"):
        check_video_out(tmp_path / "x.webm")


def test_a_write_failure_mid_run_is_an_error_line_and_the_round_is_still_scored(clip, tmp_path, monkeypatch):
    """A full disk while the overlay video is written: one error line at once, the round refereed
    to its end and scored, exit status 2 (the video asked for is not whole)."""
    from typer.testing import CliRunner

    import nertz.datasets.video as video
    from nertz.cli import app

    class FullDisk:
        def __init__(self) -> None:
            self.frames = 0

        def write(self, frame: np.ndarray) -> None:
            self.frames += 1
            if self.frames == 5:
                raise video.VideoError("out.mp4: the video cannot be written (No space left on device)")

        def close(self) -> None:
            raise video.VideoError("out.mp4: the video cannot be written (No space left on device)")

    writer = FullDisk()
    monkeypatch.setattr(video, "open_writer", lambda *a, **k: writer)
    r = CliRunner().invoke(app, ["referee", "--source", str(clip), "--table", TABLE, "--call", "red@0.9",
                                 "--nertz-left", "blue=9", "--nertz-left", "green=9", "--json",
                                 "--out", str(tmp_path / "out.mp4")])
    assert r.exit_code == 2, r.output
    assert r.stderr.count("error: ") == 1 and "No space left on device" in r.stderr
    assert "refereed on without it" in r.stderr
    assert writer.frames == 5  # not written on after the failure
    result = json.loads(r.stdout.splitlines()[-1])
    assert result["type"] == "result" and result["caller"] == "red"


def test_audit_refuses_to_draw_over_its_photo(tmp_path):
    photo = tmp_path / "photo.png"
    cv2.imwrite(str(photo), np.full((36, 64, 3), 200, np.uint8))
    before = digest(photo)
    r = nertz("audit", str(photo), "--table", TABLE, "--out", "./photo.png", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("error: --out ") and "the same file as the image" in r.stderr
    assert digest(photo) == before


def test_calibrate_refuses_to_write_the_table_or_preview_over_its_source(clip, tmp_path):
    before = digest(clip)
    r = nertz("calibrate", "--source", str(clip), "--out", str(clip), "--force")
    assert r.returncode == 2 and r.stderr.startswith("error: --out ") and "same file as --source" in r.stderr
    r = nertz("calibrate", "--source", str(clip), "--out", str(tmp_path / "t.json"), "--preview", str(clip))
    assert r.returncode == 2 and r.stderr.startswith("error: --preview ") and "same file as --source" in r.stderr
    assert digest(clip) == before and not (tmp_path / "t.json").exists()


def test_check_video_out_says_when_the_folder_named_is_a_file(tmp_path):
    from nertz.datasets.video import VideoError, check_video_out

    (tmp_path / "t.json").write_text("{}")
    with pytest.raises(VideoError, match="t.json is a file, not a folder"):
        check_video_out(tmp_path / "t.json" / "a.mp4")
