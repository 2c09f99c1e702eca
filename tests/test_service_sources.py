"""The replay source: events at their times, and the round's video as the camera view."""

import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from nertz.referee.errors import NertzError
from nertz.referee.service.cli import sample_round_dir
from nertz.referee.service.sources import LogReplaySource

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "round-3p"


def test_default_source_is_the_bundled_sample_round():
    assert sample_round_dir().resolve() == SAMPLE.resolve()


def test_replay_shows_the_video_frame_at_the_round_clock():
    src = LogReplaySource(SAMPLE / "events.jsonl", speed=1000, video=SAMPLE / "clip.mp4")
    assert src.frame() is None  # no clock before the round starts
    now = {"t": 5.0}  # the round clock, seconds: past the first play
    events = src.events(0, lambda: now["t"], threading.Event())
    first = next(events)
    assert first[0] == 0 and first[1]["type"] == "play"

    def decoded(t):
        now["t"] = t
        jpeg = src.frame()
        assert jpeg is not None and jpeg[:2] == b"\xff\xd8"
        return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)

    a, b, a_again = decoded(10.0), decoded(40.0), decoded(10.0)  # forward, then a seek back
    assert a.shape == (540, 960, 3)
    assert np.abs(a.astype(int) - b.astype(int)).mean() > 1  # the table changed in 30 s
    assert np.abs(a.astype(int) - a_again.astype(int)).mean() < 1  # same media time, same frame


def test_a_broken_video_is_a_clear_error(tmp_path):
    bad = tmp_path / "clip.mp4"
    bad.write_bytes(b"not a video")
    with pytest.raises(NertzError, match="cannot be opened as a video"):
        LogReplaySource(SAMPLE / "events.jsonl", video=bad)
