"""The overlay of ``nertz referee --out``: what the referee saw, drawn on the frame.

Drawing only (no decisions): zones, every card sighted in the last look with its name, every
hand box in the back colour of the player its hand track names (grey: not known yet) with its
forearm's strip, every foundation pile with its number and its top card's owner in that
player's back colour, each player's Nertz pile (where it was located, and the cards left on it
as counted so far) and the latest rulings as a banner.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import cv2
import numpy as np

from nertz.referee.table import Table

from .tracker import Look, RoundTracker

__all__ = ["draw_overlay", "player_colours"]


def player_colours(table: Table) -> dict[str, tuple[int, int, int]]:
    """Each player's back colour as a BGR tuple (0..255)."""
    out = {}
    for p in table.players:
        h = p.back.lstrip("#")
        r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
        out[p.name] = (b, g, r)
    return out


def _text(img: np.ndarray, text: str, org: tuple[int, int], colour: tuple[int, int, int], scale: float = 0.5) -> None:
    """Draw ``text`` on ``img`` (``(H, W, 3) uint8`` BGR, in place) in ``colour`` with a dark
    one-pixel halo, ``org`` its baseline's left end in pixels.

    The halo is the text's own strokes dilated by one pixel: OpenCV advances each Hershey glyph
    by its stroke thickness too, so the same string drawn thicker as an outline runs about 7 %
    wider than the thin text on it (29 pixels on a 390-pixel line), a shifted dark copy at the
    end of every long line."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    (w, h), base = cv2.getTextSize(text, font, scale, 1)
    x, y = org
    height, width = img.shape[:2]
    x0, y0 = max(x - 2, 0), max(y - h - 2, 0)
    x1, y1 = min(x + w + 2, width), min(y + base + 2, height)
    if x1 > x0 and y1 > y0:
        roi = img[y0:y1, x0:x1]
        strokes = np.zeros(roi.shape[:2], np.uint8)
        cv2.putText(strokes, text, (x - x0, y - y0), font, scale, 255, 1, cv2.LINE_AA)
        halo = cv2.dilate(strokes, np.ones((3, 3), np.uint8)).astype(np.float32) / 255.0
        roi[...] = (roi.astype(np.float32) * (1.0 - halo[..., None])).astype(np.uint8)
    cv2.putText(img, text, org, font, scale, colour, 1, cv2.LINE_AA)


def draw_overlay(frame: np.ndarray, table: Table, tracker: RoundTracker, look: Look | None,
                 messages: Sequence[dict[str, Any]] = (), t: float = 0.0,
                 nertz_piles: Mapping[str, tuple[np.ndarray, float, int | None]] | None = None) -> np.ndarray:
    """A copy of ``frame`` (``(H, W, 3) uint8`` BGR) with the overlay.

    Args:
        table: the table file (zones and colours).
        tracker: the tracker (its piles and their owners).
        look: the last look (its sightings are outlined), or None.
        messages: output lines (events and rulings dicts with ``t`` and ``message`` or
            ``type``); those of the last 4 seconds before ``t`` are shown.
        t: the frame's time, seconds.
        nertz_piles: the Nertz piles followed, ``{player: (place, width, left)}``
            (:meth:`nertz.vision.nertz_pile.NertzPileWatch.snapshot`: the place ``(2,)`` and
            the card width in pixels, the cards left counted so far or None): each place is
            circled in its player's colour with that count; None or empty: not drawn.
    """
    img = frame.copy()
    colours = player_colours(table)
    if table.shared_area is not None:
        cv2.polylines(img, [np.round(np.asarray(table.shared_area)).astype(np.int32)], True, (200, 200, 200), 1, cv2.LINE_AA)
    for name, zone in table.zones.items():
        cv2.polylines(img, [np.round(np.asarray(zone)).astype(np.int32)], True, colours.get(name, (255, 255, 255)), 1, cv2.LINE_AA)
    if look is not None:
        for s in look.faces:
            q = np.round(np.asarray(s.quad)).astype(np.int32)
            cv2.polylines(img, [q], True, (0, 220, 255), 1, cv2.LINE_AA)
            _text(img, s.label, (int(q[:, 0].min()), int(q[:, 1].min()) - 2), (0, 220, 255), 0.4)
        hands = np.asarray(look.hands).reshape(-1, 4)
        latest = len(tracker.hand_tracks.players) == len(hands)  # the tracker's last look is this one
        for arm in (tracker.hand_tracks.arms if latest else ()):
            cv2.polylines(img, [np.round(arm).astype(np.int32)], True, (160, 160, 160), 1, cv2.LINE_AA)
        players = tracker.hand_tracks.players if latest else [None] * len(hands)
        for h, who in zip(hands, players):
            x0, y0, x1, y1 = np.round(h).astype(int)
            col = colours.get(who or "", (160, 160, 160))
            cv2.rectangle(img, (x0, y0), (x1, y1), col, 2 if who else 1)
            if who:
                _text(img, who, (int(x0), int(y1) + 14), col, 0.45)
    for pile, label, quad, owner in tracker.pile_tops():
        q = np.round(np.asarray(quad)).astype(np.int32)
        col = colours.get(owner or "", (255, 255, 255))
        cv2.polylines(img, [q], True, col, 3, cv2.LINE_AA)
        c = q.mean(axis=0).astype(int)
        _text(img, f"{pile}:{label}", (int(c[0]) - 18, int(c[1]) + 5), col, 0.55)
    for name, (place, width, n) in (nertz_piles or {}).items():
        col = colours.get(name, (255, 255, 255))
        x, y = (int(round(v)) for v in place)
        r = max(int(round(0.6 * width)), 4)
        cv2.circle(img, (x, y), r, col, 2, cv2.LINE_AA)
        _text(img, f"Nertz {'?' if n is None else n}", (x - r, y + r + 16), col, 0.5)
    recent = [m for m in messages if t - 4.0 <= (m.get("t") or 0.0) <= t][-4:]
    for i, m in enumerate(recent):
        text = m.get("message") or " ".join(str(m.get(k, "")) for k in ("type", "player", "card", "pile"))
        _text(img, f"{m.get('t', 0):6.2f}  {text}"[:110], (10, 24 + 22 * i), (255, 255, 255), 0.55)
    return img
