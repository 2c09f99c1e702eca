"""Hands and forearms seen from above, as polygons in table millimetres.

A hand is built in its own frame (origin at the middle of the back of the hand, ``+v`` toward
the fingertips, ``+u`` to the right as seen from above), from a palm (rounded), four fingers
and a thumb (capsules), a forearm and, optionally, a sleeve that reaches to the player's edge
of the table. Every vertex carries a height above the cloth (the hand hovers a little, the arm
rises toward the shoulder) so that the renderer can lift it with the camera's parallax.

The drawing itself (shading from a blurred coverage mask, drop shadow, compositing) lives in
:mod:`nertz.datasets.render`; this module only knows shapes and colours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["HandStyle", "HandShape", "hand_shape", "make_hand_style", "SKIN_TONES"]

SKIN_TONES = [(175, 195, 235), (150, 175, 220), (125, 155, 205), (100, 135, 185), (80, 110, 165),
              (60, 85, 130), (45, 62, 95)]
"""BGR skin tones from light to dark."""


@dataclass(frozen=True)
class HandStyle:
    """How one player's hand looks.

    Attributes:
        skin: BGR skin colour.
        sleeve: BGR sleeve colour, or None for a bare forearm.
        sleeve_from: mm from the wrist where the sleeve starts.
        size: scale of the hand (1.0 = palm 84 mm wide).
        right: True for a right hand.
    """

    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int] | None
    sleeve_from: float
    size: float
    right: bool


def make_hand_style(rng: np.random.Generator, right: bool = True) -> HandStyle:
    """Draw a skin tone (with a little variation), a sleeve (70 %) and a hand size (0.9-1.1)."""
    base = np.array(SKIN_TONES[rng.integers(len(SKIN_TONES))], np.float64)
    skin = tuple(int(v) for v in np.clip(base * rng.uniform(0.92, 1.08, 3), 0, 255))
    sleeve = None
    if rng.random() < 0.7:
        sleeve = tuple(int(v) for v in rng.integers(15, 230, 3))
    return HandStyle(skin, sleeve, float(rng.uniform(70, 220)), float(rng.uniform(0.9, 1.1)), right)


@dataclass
class HandShape:
    """A posed hand in table mm.

    Attributes:
        skin: polygons ``(N_i, 2)`` table mm of bare skin, drawn in order.
        skin_h: heights (mm above the cloth) ``(N_i,)`` per polygon vertex.
        sleeve: polygons of the sleeve (may be empty), with ``sleeve_h``.
        hand_only: indices into ``skin`` of the hand proper (palm, fingers, thumb), for the
            hand's label box.
    """

    skin: list[np.ndarray]
    skin_h: list[np.ndarray]
    sleeve: list[np.ndarray]
    sleeve_h: list[np.ndarray]
    hand_only: list[int]
    nails: list[np.ndarray] = None  # type: ignore[assignment]
    nails_h: list[np.ndarray] = None  # type: ignore[assignment]


def _capsule(p0: np.ndarray, p1: np.ndarray, r0: float, r1: float, n: int = 8) -> np.ndarray:
    d = p1 - p0
    L = np.linalg.norm(d) + 1e-9
    ang = np.arctan2(d[1], d[0])
    a1 = ang + np.linspace(-np.pi / 2, np.pi / 2, n)
    a0 = ang + np.linspace(np.pi / 2, 3 * np.pi / 2, n)
    pts1 = p1 + r1 * np.column_stack([np.cos(a1), np.sin(a1)])
    pts0 = p0 + r0 * np.column_stack([np.cos(a0), np.sin(a0)])
    return np.vstack([pts1, pts0])


def _ellipse(c: np.ndarray, a: float, b: float, n: int = 20) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return c + np.column_stack([a * np.cos(t), b * np.sin(t)])


def hand_shape(style: HandStyle, wrist_to_tip_dir: np.ndarray, palm_centre: np.ndarray,
               shoulder: np.ndarray, hover: float, grip: float) -> HandShape:
    """Pose a hand.

    Args:
        style: the player's :class:`HandStyle`.
        wrist_to_tip_dir: ``(2,)`` direction the fingers point, table frame.
        palm_centre: ``(2,)`` table mm under the middle of the back of the hand.
        shoulder: ``(2,)`` table mm (usually beyond the table edge) where the arm goes.
        hover: height of the hand above the cloth, mm.
        grip: 0 (flat, fingers straight) .. 1 (curled around a card: fingers shortened).

    Returns:
        the :class:`HandShape`.
    """
    k = style.size
    v = np.asarray(wrist_to_tip_dir, np.float64)
    v = v / (np.linalg.norm(v) + 1e-9)
    u = np.array([-v[1], v[0]])  # to the right of v seen from above (y down)
    side = -1.0 if style.right else 1.0  # thumb on the left for a right hand (back up)
    c = np.asarray(palm_centre, np.float64)

    def P(uu: float, vv: float) -> np.ndarray:
        return c + k * (uu * u + vv * v)

    skin: list[np.ndarray] = []
    heights: list[np.ndarray] = []
    hand_only: list[int] = []
    # forearm from the wrist to the shoulder point: skin up to the sleeve
    wrist = P(0, -46)
    arm_dir = shoulder - wrist
    arm_len = float(np.linalg.norm(arm_dir)) + 1e-9
    ad = arm_dir / arm_len
    an = np.array([-ad[1], ad[0]])
    cut = min(style.sleeve_from if style.sleeve else arm_len, arm_len)

    def arm_poly(d0: float, d1: float, w0: float, w1: float) -> tuple[np.ndarray, np.ndarray]:
        a0 = wrist + ad * d0
        a1 = wrist + ad * d1
        pts = np.array([a0 - an * w0 / 2, a1 - an * w1 / 2, a1 + an * w1 / 2, a0 + an * w0 / 2])
        hh = hover + (np.array([d0, d1, d1, d0]) / arm_len) * (220.0 - hover)
        return pts, hh

    def width_at(d: float) -> float:
        return k * (56 + 30 * min(d, 300) / 300)

    p, hh = arm_poly(0, cut, width_at(0), width_at(cut))
    skin.append(p)
    heights.append(hh)
    sleeve: list[np.ndarray] = []
    sleeve_h: list[np.ndarray] = []
    if style.sleeve and cut < arm_len:
        p, hh = arm_poly(cut, arm_len, width_at(cut) + 14 * k, width_at(arm_len) + 18 * k)
        sleeve.append(p)
        sleeve_h.append(hh)
    # palm
    hand_only.append(len(skin))
    skin.append(_ellipse(np.zeros(2), 41 * k, 50 * k))
    heights.append(np.full(20, hover + 8.0))
    # thumb
    t0 = P(side * 30, -18)
    t_dir = (side * np.sin(np.deg2rad(35)) * u + np.cos(np.deg2rad(35)) * v)
    t1 = t0 + k * (58 - 18 * grip) * t_dir
    hand_only.append(len(skin))
    skin.append(_capsule(t0, t1, 12 * k, 10 * k))
    heights.append(np.full(16, hover + 4.0))
    # fingers: index next to the thumb
    nails: list[np.ndarray] = []
    nails_h: list[np.ndarray] = []
    lengths = np.array([74, 82, 77, 60]) * (1 - 0.45 * grip)
    widths = np.array([17.5, 18.5, 17.5, 15.0])
    offs = np.array([-27.0, -9.0, 9.0, 26.0]) * -side
    spread = np.deg2rad(np.array([-6.0, -2.0, 2.0, 7.0]) * -side * (1 - grip))
    for L, wdt, o, sp in zip(lengths, widths, offs, spread):
        base = P(o, 36)
        d = np.cos(sp) * v + np.sin(sp) * u
        tip = base + k * L * d
        hand_only.append(len(skin))
        skin.append(_capsule(base, tip, k * wdt / 2, k * wdt / 2 * 0.85))
        heights.append(np.full(16, hover + 5.0))
        if grip < 0.5:  # nails show on straight fingers seen from above
            nc = tip - k * 6.5 * d
            ang = np.arctan2(d[1], d[0])
            e = _ellipse(np.zeros(2), 8.0 * k, 0.32 * wdt * k, 12)
            rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
            nails.append(nc + e @ rot.T)
            nails_h.append(np.full(12, hover + 6.0))
    # translate the palm ellipse (built at the origin in the hand frame)
    R = np.column_stack([u, v]) * k
    skin[hand_only[0]] = c + (skin[hand_only[0]] / k) @ R.T
    return HandShape(skin, heights, sleeve, sleeve_h, hand_only, nails, nails_h)
