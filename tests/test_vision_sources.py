"""Frame sources (nertz.vision.sources): tiny videos and image folders written to tmp, fake
captures for the live reopen logic and for a corrupt frame in the middle of a file. No webcam,
no network."""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np
import pytest

from nertz.referee.errors import NertzError
from nertz.vision import sources
from nertz.vision.sources import (Frame, ImageFolderSource, LiveSource, SourceError, VideoFileSource, frame_at,
                                  open_source)

W, H = 64, 48


def _img(i: int) -> np.ndarray:
    img = np.full((H, W, 3), (i * 20) % 256, np.uint8)
    cv2.putText(img, str(i), (8, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 255), 2)
    return img


def _video(path, n: int = 10, fps: float = 10.0) -> str:
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (W, H))
    assert w.isOpened()
    for i in range(n):
        w.write(_img(i))
    w.release()
    return str(path)


def test_video_file_frames_have_media_time(tmp_path):
    path = _video(tmp_path / "clip.avi")
    with open_source(path) as src:
        assert isinstance(src, VideoFileSource) and not src.live
        assert src.fps == pytest.approx(10.0) and src.frame_count == 10 and src.size == (W, H)
        frames = list(src)
    assert [f.index for f in frames] == list(range(10))
    np.testing.assert_allclose([f.t for f in frames], np.arange(10) / 10.0, atol=1e-6)
    assert all(f.image.shape == (H, W, 3) and f.image.dtype == np.uint8 for f in frames)
    # the pictures come out in order: frame 5's grey level
    assert abs(int(frames[5].image[2, 2, 0]) - 100) < 8


@pytest.mark.parametrize("spec, match", [
    (None, "no source given"), ("", "no source given"), ("missing.mp4", "no such file or folder"),
    ("ftp://host/x.mp4", "unknown URL scheme"),
])
def test_bad_specs_are_clear_errors(tmp_path, monkeypatch, spec, match):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceError, match=match) as e:
        open_source(spec)
    assert isinstance(e.value, NertzError)


def test_a_file_that_is_not_a_video_cannot_be_opened(tmp_path):
    junk = tmp_path / "notes.mp4"
    junk.write_bytes(b"hello, not a video" * 20)
    with pytest.raises(SourceError, match="cannot be opened as a video"):
        open_source(junk)


def test_truncated_file_ends_with_a_warning_not_an_error(tmp_path, caplog):
    data = open(_video(tmp_path / "full.avi"), "rb").read()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: int(len(data) * 0.6)])
    with caplog.at_level(logging.WARNING, logger="nertz.vision.sources"):
        with open_source(cut, max_bad_frames=3) as src:
            frames = list(src)
    assert 0 < len(frames) < 10
    assert src.frame_count == 10 and src.skipped >= 1
    assert "truncated" in caplog.text


class FakeCapture:
    """A cv2.VideoCapture double: ``script`` is a list of frames (arrays) or None (a failed read)."""

    def __init__(self, script, opened=True, fps=10.0, count=None):
        self.script = list(script)
        self.opened = opened
        self.fps = fps
        self.count = len(self.script) if count is None else count
        self.pos = 0
        self.released = False

    def isOpened(self):
        return self.opened

    def read(self):
        if self.pos >= len(self.script):
            return False, None
        item = self.script[self.pos]
        self.pos += 1
        return (item is not None), item

    def get(self, prop):
        return {cv2.CAP_PROP_FPS: self.fps, cv2.CAP_PROP_FRAME_COUNT: self.count, cv2.CAP_PROP_FRAME_WIDTH: W,
                cv2.CAP_PROP_FRAME_HEIGHT: H, cv2.CAP_PROP_POS_MSEC: 0.0}.get(prop, 0.0)

    def set(self, prop, value):
        if prop == cv2.CAP_PROP_POS_FRAMES:
            self.pos = int(value)
        return True

    def release(self):
        self.released = True


def test_corrupt_frame_mid_file_is_skipped_with_a_warning(caplog):
    script = [_img(0), _img(1), None, _img(3), _img(4)]
    with caplog.at_level(logging.WARNING, logger="nertz.vision.sources"):
        src = VideoFileSource("fake.mp4", capture_factory=lambda p: FakeCapture(script))
        frames = list(src)
    assert [f.index for f in frames] == [0, 1, 3, 4]
    np.testing.assert_allclose([f.t for f in frames], [0.0, 0.1, 0.3, 0.4])  # index / fps without POS_MSEC
    assert src.skipped == 1 and "frame 2 cannot be decoded" in caplog.text


def test_a_file_cut_before_its_first_frame_is_an_error_not_an_empty_round(caplog):
    """A faststart file cut just after its index announces frames none of which can be read:
    SourceError (the CLI's ``error: ...``, exit 2), not a round of no plays, and no second
    warning about the same frames."""
    with caplog.at_level(logging.WARNING, logger="nertz.vision.sources"):
        src = VideoFileSource("cut.mp4", max_bad_frames=3, capture_factory=lambda p: FakeCapture([None] * 40))
        with pytest.raises(SourceError, match="cut short before its first frame .none of the 40"):
            list(src)
        src.close()
    assert caplog.records == []


def test_live_source_reopens_after_a_drop_out(monkeypatch, caplog):
    monkeypatch.setattr(sources.time, "sleep", lambda s: None)
    caps = iter([FakeCapture([_img(0), _img(1), None]), FakeCapture([], opened=False), FakeCapture([_img(7), _img(8)])])
    with caplog.at_level(logging.WARNING, logger="nertz.vision.sources"):
        src = open_source("0", retries=3, retry_delay=0.5, capture_factory=lambda target: next(caps))
        assert isinstance(src, LiveSource) and src.live and src.frame_count is None
        frames = [next(src) for _ in range(4)]
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert int(frames[2].image[2, 2, 0]) == _img(7)[2, 2, 0]
    ts = [f.t for f in frames]
    assert ts == sorted(ts) and ts[0] >= 0.0
    assert src.reopened == 1
    assert "camera 0: no frame" in caplog.text and "attempt 2 of 3" in caplog.text and "back after 2" in caplog.text


def test_live_source_gives_up_after_bounded_retries(monkeypatch):
    monkeypatch.setattr(sources.time, "sleep", lambda s: None)
    caps = iter([FakeCapture([_img(0), None])] + [FakeCapture([], opened=False)] * 3)
    src = LiveSource("rtsp://cam/stream", retries=3, retry_delay=0.0, capture_factory=lambda t: next(caps))
    next(src)
    with pytest.raises(SourceError, match="stream rtsp://cam/stream dropped out .* after 3 attempts"):
        next(src)


def test_camera_that_cannot_be_opened_is_a_clear_error():
    with pytest.raises(SourceError, match="camera 3 cannot be opened"):
        open_source(3, capture_factory=lambda t: FakeCapture([], opened=False))
    with pytest.raises(SourceError, match="gives no frames"):
        open_source("http://cam/video", capture_factory=lambda t: FakeCapture([None]))


def test_image_folder_in_natural_order_skips_unreadable_images(tmp_path, caplog):
    for i in (1, 2, 10):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), _img(i))
    (tmp_path / "f3.png").write_bytes(b"broken")
    cv2.imwrite(str(tmp_path / "f4.png"), np.zeros((10, 10, 3), np.uint8))  # another size
    (tmp_path / "notes.txt").write_text("ignored")
    with caplog.at_level(logging.WARNING, logger="nertz.vision.sources"):
        with open_source(tmp_path, fps=5) as src:
            assert isinstance(src, ImageFolderSource) and src.frame_count == 5 and src.size == (W, H)
            frames = list(src)
    assert [f.index for f in frames] == [0, 1, 4]  # f1 f2 (f3 broken, f4 other size) f10
    np.testing.assert_allclose([f.t for f in frames], [0.0, 0.2, 0.8])
    assert int(frames[2].image[2, 2, 0]) == _img(10)[2, 2, 0]
    assert src.skipped == 2 and "f3.png: cannot be read" in caplog.text and "f4.png: 10x10" in caplog.text


def test_empty_folder_and_single_image(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="holds no images"):
        open_source(tmp_path / "empty")
    cv2.imwrite(str(tmp_path / "still.jpg"), _img(3))
    frames = list(open_source(str(tmp_path / "still.jpg")))
    assert len(frames) == 1 and isinstance(frames[0], Frame) and frames[0].t == 0.0


def test_realtime_paces_a_file_at_media_time(tmp_path, monkeypatch):
    waits = []
    monkeypatch.setattr(sources.time, "sleep", waits.append)  # no real sleeping: record the waits
    path = _video(tmp_path / "clip.avi", n=5)
    frames = list(open_source(path, realtime=True))
    assert len(frames) == 5 and len(waits) == 4
    # the clock does not move while sleeping is faked: each wait is that frame's media time
    np.testing.assert_allclose(waits, [0.1, 0.2, 0.3, 0.4], atol=0.05)


class FakeClock:
    """Stands for ``time`` in the sources module: ``monotonic()`` is the fake wall clock, which
    ``sleep`` and the consumer (``work``) move on."""

    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s

    def work(self, s: float) -> None:
        self.now += s


@pytest.mark.parametrize("kind", ["video", "folder"])
def test_realtime_drops_the_frames_a_slow_consumer_is_late_for(tmp_path, monkeypatch, kind):
    """``--realtime`` on a file read every frame however slow the referee was (7.9 s of media in
    15 s), never as a live camera, which hands out its newest frame. With ``drop_late`` a frame
    whose next one is already due when the consumer asks is left out (counted), so media time
    follows the wall clock; without it every frame is read, late or not."""
    if kind == "video":
        path = _video(tmp_path / "clip.avi", n=10)  # 10 fps: frame i at i / 10 s
    else:
        path = tmp_path / "frames"
        path.mkdir()
        for i in range(10):
            cv2.imwrite(str(path / f"f{i}.png"), _img(i))
    clock = FakeClock()
    monkeypatch.setattr(sources, "time", clock)
    got = []
    with open_source(path, realtime=True, drop_late=True, fps=10.0 if kind == "folder" else None) as src:
        for f in src:
            got.append((f.index, round(clock.now - 100.0, 2)))
            clock.work(0.27)  # the referee takes 0.27 s a frame: 2.7 times media time
    # wall 0.27: frame 1 (due 0.1) is stale, 2 (due 0.2) is the newest; 0.54: 5; 0.81: 8; 1.08: 9 is past too
    assert got == [(0, 0.0), (2, 0.27), (5, 0.54), (8, 0.81)]
    assert src.dropped == 6 and src.skipped == 0
    clock.now = 100.0
    got = []
    with open_source(path, realtime=True, fps=10.0 if kind == "folder" else None) as src:  # not dropping
        for f in src:
            got.append(f.index)
            clock.work(0.27)
    assert got == list(range(10)) and src.dropped == 0
    clock.now = 100.0
    got = []
    with open_source(path, realtime=True, drop_late=True, fps=10.0 if kind == "folder" else None) as src:
        for f in src:  # a consumer that keeps up waits for each frame, at its media time, and misses none
            got.append((f.index, round(clock.now - 100.0, 2)))
            clock.work(0.05)
    assert got == [(i, i / 10) for i in range(10)] and src.dropped == 0


def test_frame_at_reads_forward_to_the_asked_time(tmp_path):
    path = _video(tmp_path / "clip.avi")
    with open_source(path) as src:
        f = frame_at(src, 0.25)
    assert f.index == 3 and f.t == pytest.approx(0.3)
    with open_source(path) as src, pytest.raises(SourceError, match="ends at 0.90 s"):
        frame_at(src, 5.0)


def test_check_source_says_what_is_wrong_without_opening_anything(tmp_path):
    """``check_source`` refuses what ``open_source`` would refuse before opening (no source, an
    unknown scheme, a missing path) and touches no camera or stream for the rest."""
    from nertz.vision.sources import check_source

    clip = tmp_path / "round.mp4"
    clip.write_bytes(b"not checked: only its existence")
    for ok in (0, "0", " 2 ", "rtsp://cam.local/stream", str(clip), f"file://{clip}", tmp_path):
        check_source(ok)
    for bad, says in ((None, "no source given"), ("  ", "no source given"),
                      ("ftp://host/x.mp4", "unknown URL scheme"), (str(tmp_path / "nope.mp4"), "no such file")):
        with pytest.raises(SourceError, match=says):
            check_source(bad)


class TimedCapture:
    """A cv2.VideoCapture double that reports the decoder's time: ``script`` items are
    ``(image, msec)`` or None (a failed read), read in turn whatever is seeked (as a decoder
    that cannot get past a cut in the file)."""

    def __init__(self, script, count):
        self.script, self.count, self.reads, self.msec = list(script), count, 0, 0.0

    def isOpened(self):
        return True

    def read(self):
        self.reads += 1
        if not self.script:
            return False, None
        item = self.script.pop(0)
        if item is None:
            return False, None
        self.msec = item[1]
        return True, item[0]

    def get(self, prop):
        return {cv2.CAP_PROP_FPS: 10.0, cv2.CAP_PROP_FRAME_COUNT: self.count, cv2.CAP_PROP_FRAME_WIDTH: W,
                cv2.CAP_PROP_FRAME_HEIGHT: H, cv2.CAP_PROP_POS_MSEC: self.msec}.get(prop, 0.0)

    def set(self, prop, value):
        return True

    def release(self):
        pass


def test_a_cut_whose_decoder_hands_back_stale_frames_is_the_end_in_one_warning(caplog):
    """A truncated H.264 file: after the cut each failed read is followed by the last pictures
    again, their time frozen. Before, each stale "success" reset the in-a-row count: hundreds of
    warnings, the same frames refereed again and again to the announced end."""
    good = [(_img(i), 100.0 * i) for i in range(10)]
    stale = [None, (_img(9), 900.0), (_img(9), 900.0)] * 100
    cap = TimedCapture(good + stale, count=310)
    with caplog.at_level(logging.WARNING, logger="nertz.vision.sources"):
        with VideoFileSource("cut.mp4", max_bad_frames=6, capture_factory=lambda p: cap) as src:
            frames = list(src)
    assert [f.index for f in frames] == list(range(10))
    assert cap.reads <= 10 + 6 + 1  # stopped at the cut, not read to the announced end
    warnings = [r.getMessage() for r in caplog.records]
    assert warnings == ["cut.mp4: truncated at frame 10 (1.0 s) of the 310 it announces: the frames after it "
                        "cannot be read; stopping here"]


def test_corrupt_frames_between_frames_whose_time_advances_are_skipped_one_warning_each(caplog):
    script = [(_img(i), 100.0 * i) for i in range(40)]
    script[5] = None
    script[20] = script[21] = None
    cap = TimedCapture(script, count=40)
    with caplog.at_level(logging.WARNING, logger="nertz.vision.sources"):
        frames = list(VideoFileSource("damaged.mp4", max_bad_frames=3, capture_factory=lambda p: cap))
    assert [f.index for f in frames] == [i for i in range(40) if i not in (5, 20, 21)]
    assert [r.getMessage() for r in caplog.records] == [
        "damaged.mp4: frame 5 cannot be decoded (corrupt?); skipped",
        "damaged.mp4: frames 20-21 cannot be decoded (corrupt?); skipped"]


def test_a_truncated_faststart_h264_file_ends_at_the_cut_with_one_warning(tmp_path, caplog):
    """The newcomer's file: the sample round (H.264) remuxed with its index first (faststart, as
    phones and web uploads write it) and cut short: the frames before the cut, then one
    ``truncated at frame N`` warning, not a warning for every frame to the announced end."""
    av = pytest.importorskip("av")
    sample = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "round-3p" / "clip.mp4"
    whole = tmp_path / "faststart.mp4"
    with av.open(str(sample)) as inp, av.open(str(whole), "w", options={"movflags": "faststart"}) as out:
        stream = out.add_stream_from_template(inp.streams.video[0])
        for packet in inp.demux(inp.streams.video[0]):
            if packet.dts is None:
                continue
            if packet.pts * packet.time_base >= 4:  # the first 4 s: 120 frames
                break
            packet.stream = stream
            out.mux(packet)
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    with caplog.at_level(logging.WARNING, logger="nertz.vision.sources"):
        with open_source(cut) as src:
            frames = list(src)
    assert src.frame_count == 120 and 30 < len(frames) < 110
    assert src.skipped <= 25  # the default max_bad_frames
    assert [f.t for f in frames] == sorted({f.t for f in frames})  # time never frozen
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "truncated at frame" in warnings[0], warnings
