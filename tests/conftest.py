"""Shared helpers for the tests: tables and rounds built from short event lists."""

from __future__ import annotations

import os
from typing import Any

import pytest

# No test may reach the network: ultralytics and friends are told so up front.
os.environ.setdefault("YOLO_OFFLINE", "1")

import numpy as np  # noqa: E402

from nertz.referee.round import Round  # noqa: E402
from nertz.referee.table import Table  # noqa: E402

COLOURS = ["#b3261e", "#1e4bb3", "#2e7d32", "#f2c500", "#6a1b9a", "#00838f"]


TWO_ZONE_TABLE = Table.from_dict({
    "players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "#1e4bb3"}],
    "shared_area": [[300, 200], [900, 200], [900, 500], [300, 500]],
    "zones": {"red": [[300, 520], [900, 520], [900, 700], [300, 700]],
              "blue": [[0, 0], [280, 0], [280, 700], [0, 700]]},
})
"""Two players on a 1280 x 720 frame: the shared area in the middle, red's zone below it,
blue's on the left (pixels)."""


def card_quad(x: float, y: float, w: float = 40, h: float = 56) -> np.ndarray:
    """An upright card's ``(4, 2) float32`` quad centred on ``(x, y)``, pixels."""
    return np.array([[x - w / 2, y - h / 2], [x + w / 2, y - h / 2], [x + w / 2, y + h / 2], [x - w / 2, y + h / 2]],
                    np.float32)


def make_table(players: tuple[str, ...] = ("red", "blue"), **rules: Any) -> Table:
    """A valid table for ``players`` with the given rules settings."""
    return Table.from_dict(
        {"players": [{"name": n, "back": COLOURS[i]} for i, n in enumerate(players)], "rules": rules}
    )


def play(t: float, player: str, card: str, pile: int, **extra: Any) -> dict[str, Any]:
    """A play event dict."""
    return {"t": t, "type": "play", "player": player, "card": card, "pile": pile, **extra}


def verdicts(game: Round) -> list[tuple[str, str, str]]:
    """``(player, card, "accepted" or the reject reason)`` for every play ruling, in time order."""
    out = []
    for r in game.rulings:
        if r.kind == "accepted":
            out.append((r.player, r.card, "accepted"))
        elif r.kind == "rejected":
            out.append((r.player, r.card, r.reason))
    return out


@pytest.fixture
def table() -> Table:
    return make_table()


def cut_sample_clip(path: "os.PathLike[str] | str", frames: int) -> None:
    """Write the first ``frames`` frames of the bundled sample round's video to ``path``
    (mp4v, 1280 x 720, 30 fps): short clips for the camera-pipeline tests."""
    from pathlib import Path

    import cv2

    sample = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "round-3p" / "clip.mp4"
    cap = cv2.VideoCapture(str(sample))
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 30, (1280, 720))
    try:
        for _ in range(frames):
            ok, frame = cap.read()
            assert ok, "the sample clip is shorter than asked"
            w.write(frame)
    finally:
        w.release()
        cap.release()


def make_unreadable(path: "os.PathLike[str] | str", monkeypatch: pytest.MonkeyPatch) -> None:
    """Take away every permission on ``path`` (chmod 0; give them back after the test). Root,
    whom permissions do not stop, is stopped as another user would be (PermissionError): from
    listing or opening ``path``, and from looking at anything inside it (a folder that may not
    be searched)."""
    from pathlib import Path

    path = Path(path)
    path.chmod(0)
    if os.geteuid() != 0:
        return
    iterdir, open_, stat = Path.iterdir, Path.open, Path.stat

    def denied(p: Path) -> PermissionError:
        return PermissionError(13, "Permission denied", str(p))

    def no_listing(self: Path):
        if self == path:
            raise denied(self)
        return iterdir(self)

    def no_open(self: Path, *args: Any, **kwargs: Any):
        if self == path:
            raise denied(self)
        return open_(self, *args, **kwargs)

    def no_stat(self: Path, *args: Any, **kwargs: Any):
        if path in self.parents:
            raise denied(self)
        return stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "iterdir", no_listing)
    monkeypatch.setattr(Path, "open", no_open)
    monkeypatch.setattr(Path, "stat", no_stat)
