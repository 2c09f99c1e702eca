"""Arrival times at frame resolution: when did a new card land on a pile?

The tracker confirms a change on a pile only at a look (every ``stride``-th frame) and only once
hands are out of the way, which is later than the landing. :class:`ArrivalTimer` keeps every
frame of the last few seconds, small and grey, and walks back from the confirming frame over
the new card's quad: a pixel that changed between the pile's old state and its new one votes
"new" in a frame when it is closer there to the new state than to the old one. The arrival is
the earliest frame of the last run of frames in which at least ``on`` of those pixels vote
"new" (gaps of up to ``gap`` frames allowed, for the hand that lets go of the card). This is
the "first frame in which the new card is seen on the pile" of ``shared/DESIGN.md``.
"""

from __future__ import annotations

from collections import deque

import cv2
import numpy as np

from .tracker import PlayCandidate

__all__ = ["ArrivalTimer"]


class ArrivalTimer:
    """A ring buffer of small grey frames and the look-back of the module docstring.

    Args:
        scale: frames are kept at this scale (0.5: a 1280 x 720 frame is kept as 640 x 360).
        seconds: how much history to keep, seconds.
        fps: the source's frame rate (frames per second), to size the buffer.
        on: fraction of the changed pixels that must vote "new" in a frame.
        gap: frames in a row below ``on`` that end the walk back.
    """

    def __init__(self, scale: float = 0.5, seconds: float = 4.0, fps: float = 30.0,
                 on: float = 0.6, gap: int = 6) -> None:
        self.scale = float(scale)
        self.frames: deque[tuple[int, float, np.ndarray]] = deque(maxlen=max(int(seconds * fps), 8))
        self.on = on
        self.gap = gap

    def push(self, index: int, t: float, frame: np.ndarray) -> None:
        """Keep frame ``index`` (time ``t`` seconds; ``(H, W, 3) uint8`` BGR)."""
        small = cv2.resize(frame, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
        self.frames.append((index, t, cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.int16)))

    def _at(self, index: int) -> int | None:
        for i, (fi, _, _) in enumerate(self.frames):
            if fi >= index:
                return i
        return None

    def changed(self, cand: PlayCandidate, threshold: int = 18) -> float | None:
        """Fraction 0..1 of the new card's quad whose grey level differs by more than
        ``threshold`` (0..255) between the pile's old state (``cand.frame_before``) and now: a
        card laid on a pile changes much of it, the same card read differently changes little.
        None when the buffer no longer holds the old frame."""
        if not self.frames:
            return None
        i_old = self._at(max(cand.frame_before, 0))
        if i_old is None or i_old >= len(self.frames) - 1:
            return None
        ref, old = self.frames[-1][2], self.frames[i_old][2]
        mask = np.zeros(ref.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(np.asarray(cand.quad, np.float32).reshape(4, 2) * self.scale).astype(np.int32), 1)
        mask = cv2.erode(mask, np.ones((3, 3), np.uint8)) > 0
        if not mask.any():
            return None
        return float(np.mean(np.abs(ref[mask] - old[mask]) > threshold))

    def __call__(self, cand: PlayCandidate) -> float:
        """The arrival time (seconds) of the change ``cand`` describes; its ``t_seen`` when the
        buffer no longer holds the frames needed."""
        if not self.frames:
            return cand.t_seen
        i_new = len(self.frames) - 1
        i_old = self._at(max(cand.frame_before, 0))
        if i_old is None or i_old >= i_new:
            return cand.t_seen
        ref, old = self.frames[i_new][2], self.frames[i_old][2]
        mask = np.zeros(ref.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(np.asarray(cand.quad, np.float32).reshape(4, 2) * self.scale).astype(np.int32), 1)
        mask = cv2.erode(mask, np.ones((3, 3), np.uint8))
        changed = (mask > 0) & (np.abs(ref - old) > 18)
        if changed.sum() < 8:
            changed = mask > 0
        if not changed.any():
            return cand.t_seen
        r, o = ref[changed], old[changed]
        earliest = i_new
        misses = 0
        for i in range(i_new, i_old, -1):
            g = self.frames[i][2][changed]
            vote = float(np.mean(np.abs(g - r) < np.abs(g - o)))
            if vote >= self.on:
                earliest, misses = i, 0
            else:
                misses += 1
                if misses >= self.gap:
                    break
        return float(self.frames[earliest][1])

