"""Card art for the synthetic data engine: card faces of many designs, and deck backs.

Faces come from free card designs in Debian and npm packages (``datasets/ASSETS.md`` lists
each one's package, version and licence). They are never committed: ``datasets/fetch_art.sh``
fetches the packages and renders every card to PNG into the art cache (``$NERTZ_ART_DIR`` or
``<repo>/.cache/art``); this module only reads that cache. Backs are generated procedurally
(:func:`make_back`), in any colour, so that each player's deck has its own.

Conventions:

- Card notation as in ``shared/DESIGN.md``: rank ``A23456789TJQK`` + suit ``SHDC`` (``"7S"``,
  ``"TH"``); ``"JK"`` is a joker.
- Images are ``(H, W, 4) uint8`` BGRA (OpenCV channel order, straight alpha); sizes are given
  as OpenCV does, ``(width, height)`` in pixels.
- Every card is a poker-size card, 63 x 88 mm (:data:`CARD_MM`), with corners rounded to
  :data:`CORNER_RADIUS_MM`; alpha is 0 outside the rounded outline. Designs drawn at bridge
  aspect (57 x 89 mm) are stretched to the poker aspect (about 12 % wider).
- Arrays returned from the caches are read-only (``arr.flags.writeable`` is False): copy
  before drawing on them.

Look at the art: ``python -m nertz.datasets.art sheet.png [--designs ...] [--cards ...]`` writes
a contact sheet (:func:`contact_sheet`).

Errors: :class:`ArtMissingError` when the art cache is missing (with the command to run),
:class:`ArtError` for an unknown design, card or back style (both are
:class:`~nertz.referee.errors.NertzError` subclasses).
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Iterable, Sequence

import cv2
import numpy as np

from nertz.referee.errors import NertzError

__all__ = [
    "CARD_MM", "CARD_SIZE", "CORNER_RADIUS_MM", "CARDS", "BACK_STYLES", "PALETTE",
    "HARD_PAIRS", "ArtError", "ArtMissingError", "art_dir", "list_designs", "design_info",
    "load_face", "load_deck", "design_back", "corner_alpha", "make_back", "back_palette",
    "hex_to_bgr", "contact_sheet",
]

CARD_MM = (63.0, 88.0)
"""Card size (width, height) in millimetres: a poker-size card."""
CARD_SIZE = (240, 335)
"""Default face size (width, height) in pixels: 63 x 88 mm at 3.81 px/mm."""
CORNER_RADIUS_MM = 3.2
"""Corner radius of a card in millimetres (1/8 inch, as on common poker decks)."""
RANKS = "A23456789TJQK"
SUITS = "SHDC"
CARDS: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
"""The 52 cards, spades, hearts, diamonds, clubs, ace to king."""

_REPO = Path(__file__).resolve().parent.parent


class ArtError(NertzError, ValueError):
    """Bad input to the art functions: an unknown design, card, back style or colour."""


class ArtMissingError(NertzError, FileNotFoundError):
    """The card-art cache is missing or incomplete (run ``datasets/fetch_art.sh``)."""


# ------------------------------------------------------------------------------------------
# faces


def art_dir() -> Path:
    """The art cache folder: ``$NERTZ_ART_DIR`` if set, else ``<repo>/.cache/art``.

    The folder need not exist; :func:`list_designs` says whether it holds art.
    """
    env = os.environ.get("NERTZ_ART_DIR")
    return Path(env) if env else _REPO / ".cache" / "art"


def _missing(detail: str) -> ArtMissingError:
    return ArtMissingError(
        f"card art not found ({detail}); run `bash datasets/fetch_art.sh` to fetch and render "
        f"it (cache: {art_dir()}; set NERTZ_ART_DIR to use another folder)")


@functools.lru_cache(maxsize=8)
def _manifest(root: Path) -> dict:
    path = root / "manifest.json"
    if not path.is_file():
        raise _missing(f"no {path}")
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise _missing(f"unreadable {path}: {exc}") from None


def list_designs(novelty: bool = True) -> list[str]:
    """Names of the face designs in the art cache, sorted (e.g. ``"ais-anglo"``).

    With ``novelty=False``, leaves out the designs unlike any deck people play with (dark
    full-bleed faces, cartoon pips, themed art: ``design_info(d)["novelty"]``).

    Raises:
        ArtMissingError: the cache is missing or incomplete.
    """
    root = art_dir()
    names = sorted(_manifest(root).get("designs", []))
    if not novelty:
        names = [d for d in names if not _meta(root, d).get("novelty", False)]
    return names


def _check_design(design: str) -> Path:
    designs = list_designs()
    if design not in designs:
        raise ArtError(f"unknown card design {design!r}; available: {', '.join(designs)}")
    return art_dir() / "designs" / design


@functools.lru_cache(maxsize=64)
def _meta(root: Path, design: str) -> dict:
    path = root / "designs" / design / "meta.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise _missing(f"unreadable {path}: {exc}") from None


def design_info(design: str) -> dict:
    """What the cache knows of a design: a dict with ``index`` (language of the corner
    indices: ``"en"`` A K Q J, ``"fr"`` 1 R D V, ``"de"`` A K D B, ``"ru"`` Т К Д В, ``"it"``
    A R D F), ``novelty`` (see :func:`list_designs`), ``kind``
    (``sheet``, ``kde`` or ``files``), ``source`` (file inside its package), ``cards`` (keys
    present, including ``JK``, ``JK2`` and ``BACK`` where the design has them) and
    ``native_aspect_w_over_h`` (width / height as drawn, before the stretch to 63 x 88 mm).

    Raises:
        ArtError: unknown design. ArtMissingError: no art cache.
    """
    _check_design(design)
    info = {"novelty": False, "index": "en", "cards": []}
    info.update(_meta(art_dir(), design))
    return info


@functools.lru_cache(maxsize=16)
def corner_alpha(size: tuple[int, int] = CARD_SIZE) -> np.ndarray:
    """The alpha mask of a card outline: ``(H, W) uint8``, 255 inside, 0 outside.

    ``size`` is ``(W, H)`` in pixels; the corner radius is :data:`CORNER_RADIUS_MM` scaled by
    ``W / 63 mm``. Pixels are anti-aliased by the distance of their centre from the corner
    circle (coverage ~ radius - distance + 0.5, clipped to [0, 1]), so a pixel whose centre
    lies half a pixel or more outside the radius has alpha 0. Read-only array.
    """
    w, h = _size(size)
    r = CORNER_RADIUS_MM * w / CARD_MM[0]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32) + 0.5
    # distance to the nearest corner-circle centre, only in the corner squares
    cx = np.clip(xs, r, w - r)
    cy = np.clip(ys, r, h - r)
    d = np.hypot(xs - cx, ys - cy)
    cov = np.clip(r - d + 0.5, 0.0, 1.0)
    out = np.round(cov * 255.0).astype(np.uint8)
    out.setflags(write=False)
    return out


def _size(size: Sequence[int]) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in size)
    except (TypeError, ValueError):
        raise ArtError(f"size must be (width, height) in pixels, got {size!r}") from None
    if w < 8 or h < 8 or w > 4096 or h > 4096:
        raise ArtError(f"size must be (width, height) of 8..4096 pixels, got {size!r}")
    return w, h


def _check_card(card: str) -> str:
    if not isinstance(card, str) or not (
            card in CARDS or card in ("JK", "JK2", "BACK")):
        raise ArtError(f"not a card: {card!r} (expected rank A23456789TJQK + suit SHDC, e.g. "
                       f"'7S', 'TH', or 'JK')")
    return card


@functools.lru_cache(maxsize=4096)
def _face(root: Path, design: str, card: str, size: tuple[int, int]) -> np.ndarray:
    path = root / "designs" / design / f"{card}.png"
    im = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if im is None:
        if card in ("JK", "JK2", "BACK") and path.parent.is_dir():
            raise ArtError(f"design {design!r} has no {card}")
        raise _missing(f"no {path}")
    if im.ndim != 3 or im.shape[2] != 4:
        raise _missing(f"{path} is not a BGRA PNG")
    w, h = size
    if (im.shape[1], im.shape[0]) != (w, h):
        interp = cv2.INTER_AREA if w < im.shape[1] else cv2.INTER_CUBIC
        im = cv2.resize(im, (w, h), interpolation=interp)
    im[..., 3] = np.minimum(im[..., 3], corner_alpha((w, h)))
    im[im[..., 3] == 0] = 0
    im.setflags(write=False)
    return im


def load_face(design: str, card: str, size: tuple[int, int] = CARD_SIZE) -> np.ndarray:
    """One card face of a design: ``(H, W, 4) uint8`` BGRA, ``size = (W, H)`` pixels.

    ``card`` is a card in the project's notation, ``"JK"`` (the design's joker; ``"JK2"`` is
    its second joker where it has two) or ``"BACK"`` (the design's own back, where it has
    one). Alpha is 0 outside the card's rounded outline (:func:`corner_alpha`). Cached in
    process; the array is read-only.

    Raises:
        ArtError: unknown design or card, or a joker/back the design lacks.
        ArtMissingError: the art cache is missing (run ``datasets/fetch_art.sh``).
    """
    _check_card(card)
    _check_design(design)
    return _face(art_dir(), design, card, _size(size))


def load_deck(design: str, size: tuple[int, int] = CARD_SIZE,
              jokers: bool = True) -> dict[str, np.ndarray]:
    """All faces of a design: the 52 cards (``"AS"`` ... ``"KC"``) and, where the design has a
    joker and ``jokers`` is True, ``"JK"``. Values as :func:`load_face` (read-only arrays).

    Raises:
        ArtError: unknown design. ArtMissingError: the art cache is missing.
    """
    _check_design(design)
    root, sz = art_dir(), _size(size)
    deck = {c: _face(root, design, c, sz) for c in CARDS}
    if jokers and "JK" in _meta(root, design).get("cards", []):
        deck["JK"] = _face(root, design, "JK", sz)
    return deck


def design_back(design: str, size: tuple[int, int] = CARD_SIZE) -> np.ndarray | None:
    """The back drawn by a design's package, ``(H, W, 4) uint8`` BGRA, or None if it has none.

    Raises:
        ArtError: unknown design. ArtMissingError: the art cache is missing.
    """
    _check_design(design)
    if "BACK" not in _meta(art_dir(), design).get("cards", []):
        return None
    return _face(art_dir(), design, "BACK", _size(size))


# ------------------------------------------------------------------------------------------
# backs

BACK_STYLES: tuple[str, ...] = ("solid", "diamonds", "stripes", "checks", "dots", "ornate",
                                "printed")
"""Back styles of :func:`make_back`.

- ``solid``: one colour inside a white border.
- ``diamonds``, ``stripes``, ``checks``, ``dots``: classic two-colour patterns (the colour and a
  light second colour) inside a white border.
- ``ornate``: a symmetric ornamental design (concentric frames, a central medallion, corner
  rosettes, fine lattice), like a casino / Bicycle-style back.
- ``printed``: a back drawn by one of the packaged designs (:func:`design_back`), recoloured
  to the colour; needs the art cache.
"""

PALETTE: dict[str, str] = {
    "red": "#b3261e",
    "blue": "#1e4bb3",
    "green": "#1e7b34",
    "black": "#1c1c1c",
    "orange": "#e8731a",
    "purple": "#6a2c91",
    "navy": "#1b2a4a",
    "teal": "#12808a",
    "gold": "#c9a227",
    "pink": "#d0428a",
    "brown": "#6b3e1f",
}
"""Deck-back colours by name (the name doubles as the player's name in a table file)."""

HARD_PAIRS: tuple[tuple[str, str], ...] = (("red", "orange"), ("navy", "black"))
"""Pairs of back colours that are hard to tell apart under warm or dim light."""


def _have_art() -> bool:
    """Whether the art cache is present (the ``printed`` back style needs it)."""
    try:
        return bool(list_designs())
    except ArtMissingError:
        return False


def hex_to_bgr(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` -> ``(b, g, r)`` ints. Raises ArtError for anything else."""
    c = colour.strip().lstrip("#") if isinstance(colour, str) else ""
    if len(c) != 6:
        raise ArtError(f"colour must be '#rrggbb', got {colour!r}")
    try:
        r, g, b = int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)
    except ValueError:
        raise ArtError(f"colour must be '#rrggbb', got {colour!r}") from None
    return (b, g, r)


def _light_of(bgr: tuple[int, int, int], rng: np.random.Generator) -> tuple[int, int, int]:
    """A light second colour for a pattern: white, cream, or a pale tint of the colour."""
    choice = int(rng.integers(3))
    if choice == 0:
        return (255, 255, 255)
    if choice == 1:
        return (226, 240, 248)  # cream
    return tuple(int(255 - (255 - c) * 0.18) for c in bgr)  # type: ignore[return-value]


def _pattern_mask(style: str, w: int, h: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """Where the light colour goes (float32 0..1, anti-aliased) for a pattern style; ``s`` is
    pixels per millimetre. The colour keeps most of the area so it stays the back's dominant
    colour."""
    ss = 4  # supersampling
    W, H = w * ss, h * ss
    m = np.zeros((H, W), np.uint8)
    if style == "diamonds":
        step = rng.uniform(4.0, 7.0) * s * ss
        lw = max(1, int(round(rng.uniform(0.25, 0.45) * s * ss)))
        n = int((W + H) / step) + 2
        for k in range(-n, n + 1):
            x0 = int(k * step)
            cv2.line(m, (x0, 0), (x0 + H, H), 255, lw, cv2.LINE_8)
            cv2.line(m, (x0, 0), (x0 - H, H), 255, lw, cv2.LINE_8)
    elif style == "stripes":
        step = rng.uniform(2.5, 5.0) * s * ss
        # the perpendicular pitch of 45-degree lines is step / sqrt(2)
        lw = max(1, int(round(step / np.sqrt(2) * rng.uniform(0.15, 0.27))))
        n = int((W + H) / step) + 2
        sign = 1 if rng.random() < 0.5 else -1
        for k in range(-n, n + 1):
            x0 = int(k * step)
            cv2.line(m, (x0, 0), (x0 + sign * H, H), 255, lw, cv2.LINE_8)
    elif style == "checks":
        step = rng.uniform(3.0, 6.0) * s * ss
        yy, xx = np.mgrid[0:H, 0:W]
        # gingham: light where the light bands cross, half-light where one band runs; the bands
        # take a third to a half of the pitch
        frac = rng.uniform(0.33, 0.5)
        bx = ((xx % step) < frac * step).astype(np.float32)
        by = ((yy % step) < frac * step).astype(np.float32)
        mix = 0.8 * bx * by + 0.35 * (bx + by - 2 * bx * by)
        m = np.round(mix * 255).astype(np.uint8)
        return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    elif style == "dots":
        step = rng.uniform(4.0, 7.0) * s * ss
        rad = max(1, int(round(step * rng.uniform(0.16, 0.26))))
        offset = rng.random() < 0.7
        for j, y in enumerate(np.arange(step / 2, H + step, step)):
            dx = step / 2 if (offset and j % 2) else 0.0
            for x in np.arange(dx, W + step, step):
                cv2.circle(m, (int(x), int(y)), rad, 255, -1, cv2.LINE_8)
    else:
        raise ArtError(f"not a pattern style: {style!r}")
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _ornate_mask(w: int, h: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """Light-colour mask of a symmetric ornamental back (like a Bicycle back): a fine lattice,
    inner frames, a central medallion of concentric rings and petals, corner rosettes. The
    drawing is made for one quarter and mirrored, so it has the 2-fold symmetry of real
    backs."""
    ss = 3
    W, H = w * ss, h * ss
    m = np.zeros((H, W), np.uint8)
    S = s * ss
    thin = max(1, int(round(0.25 * S)))
    # fine lattice
    step = rng.uniform(2.2, 3.5) * S
    n = int((W + H) / step) + 2
    for k in range(-n, n + 1):
        x0 = int(k * step)
        cv2.line(m, (x0, 0), (x0 + H, H), 110, thin)
        cv2.line(m, (x0, 0), (x0 - H, H), 110, thin)
    cx, cy = W // 2, H // 2
    # frames
    for inset_mm in (rng.uniform(1.5, 2.5), rng.uniform(4.0, 5.5)):
        i = int(inset_mm * S)
        cv2.rectangle(m, (i, i), (W - 1 - i, H - 1 - i), 255, max(1, int(0.5 * S)))
    # central medallion: an ellipse window cleared, then rings and petals
    ax = (int(rng.uniform(13, 18) * S), int(rng.uniform(18, 26) * S))
    cv2.ellipse(m, (cx, cy), ax, 0, 0, 360, 0, -1)
    for f in (1.0, 0.82, 0.55):
        cv2.ellipse(m, (cx, cy), (int(ax[0] * f), int(ax[1] * f)), 0, 0, 360, 255,
                    max(1, int(0.45 * S)))
    petals = int(rng.integers(8, 17))
    for k in range(petals):
        ang = 2 * np.pi * k / petals
        px = cx + np.cos(ang) * ax[0] * 0.68
        py = cy + np.sin(ang) * ax[1] * 0.68
        cv2.ellipse(m, (int(px), int(py)), (int(1.6 * S), int(3.2 * S)),
                    float(np.degrees(ang)) + 90, 0, 360, 255, -1)
    cv2.circle(m, (cx, cy), int(min(ax) * 0.3), 255, -1)
    cv2.circle(m, (cx, cy), int(min(ax) * 0.18), 0, -1)
    # corner rosettes (drawn top-left, mirrored)
    q = np.zeros_like(m)
    rc = (int(rng.uniform(8, 11) * S), int(rng.uniform(8, 11) * S))
    for rr in (4.0, 2.6, 1.3):
        cv2.circle(q, rc, int(rr * S), 255, max(1, int(0.4 * S)))
    for k in range(8):
        ang = 2 * np.pi * k / 8
        cv2.circle(q, (int(rc[0] + np.cos(ang) * 5.2 * S), int(rc[1] + np.sin(ang) * 5.2 * S)),
                   int(0.8 * S), 255, -1)
    q = np.maximum(q, q[:, ::-1])
    q = np.maximum(q, q[::-1, :])
    m = np.maximum(m, q)
    m = np.maximum(m, m[::-1, ::-1])  # 180-degree symmetry
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


_PRINTED_SOURCES: tuple[str, ...] = (
    "ais-anglo", "ais-bellot", "ais-paris", "ais-guyenne-classic", "ais-rheinland",
    "ais-slavic-costumes", "ais-orell", "ais-gnomangelo", "ais-neoclassical", "ais-tigullio",
    "kde-standard", "kde-oxygen", "kde-jolly-royal",
)
"""Designs whose own back makes a good printed back once recoloured: the ink covers most of
it, and it is no photograph (checked by eye on a contact sheet)."""


def _printed_layer(colour_bgr: tuple[int, int, int], light_bgr: tuple[int, int, int],
                   size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    designs = [d for d in _PRINTED_SOURCES if d in set(list_designs())]
    if not designs:
        raise _missing("no design with a back for the 'printed' style")
    design = designs[int(rng.integers(len(designs)))]
    src = design_back(design, size)
    if src is None:  # pragma: no cover - every listed design has a back
        raise ArtError(f"design {design!r} has no back")
    grey = cv2.cvtColor(np.ascontiguousarray(src[..., :3]), cv2.COLOR_BGR2GRAY)
    grey = grey.astype(np.float32)
    inside = src[..., 3] > 200
    lo, hi = np.percentile(grey[inside], [3, 97]) if inside.any() else (0.0, 255.0)
    t = np.clip((grey - lo) / max(hi - lo, 1.0), 0.0, 1.0)
    # keep the colour dominant: push the tone curve toward the ink
    t = t ** 2.0
    ink = np.array(colour_bgr, np.float32)
    light = np.array(light_bgr, np.float32)
    out = ink * (1.0 - t[..., None]) + light * t[..., None]
    return np.dstack([out, src[..., 3:4].astype(np.float32)])


def make_back(style: str | None, colours: Sequence[str] | str, seed: int,
              size: tuple[int, int] = CARD_SIZE) -> np.ndarray:
    """Draw a deck back: ``(H, W, 4) uint8`` BGRA with ``size = (W, H)`` pixels.

    Args:
        style: one of :data:`BACK_STYLES`, or None for one drawn from ``seed`` (``printed``
            only when the art cache is present).
        colours: the back's colour as ``"#rrggbb"`` (or a list of one or two; the second is
            the light colour of patterns, default white, cream or a pale tint drawn from
            ``seed``). The first colour is the back's dominant colour: the colour a table file
            registers for the deck (``{"name": "red", "back": "#b3261e"}``).
        seed: the same seed, style, colours and size give the same image.
        size: ``(W, H)`` in pixels; the card is 63 x 88 mm, so millimetre features (border,
            pattern pitch) scale with ``W / 63``.

    The white border (0 to 4.5 mm, from ``seed``) and the rounded corners (alpha 0 outside,
    :func:`corner_alpha`) follow real decks. No randomness beyond ``numpy.random.default_rng``.

    Raises:
        ArtError: unknown style, bad colour or size.
        ArtMissingError: ``style="printed"`` without the art cache.
    """
    if isinstance(colours, str):
        colours = [colours]
    colours = list(colours)
    if not 1 <= len(colours) <= 2:
        raise ArtError(f"colours must be one or two '#rrggbb' strings, got {colours!r}")
    ink = hex_to_bgr(colours[0])
    w, h = _size(size)
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, 0xBAC4])
    if style is None:
        styles = [s for s in BACK_STYLES if s != "printed" or _have_art()]
        style = styles[int(rng.integers(len(styles)))]
    if style not in BACK_STYLES:
        raise ArtError(f"unknown back style {style!r}; choose from {', '.join(BACK_STYLES)}")
    light = hex_to_bgr(colours[1]) if len(colours) > 1 else _light_of(ink, rng)
    s = w / CARD_MM[0]  # pixels per mm

    inkf = np.array(ink, np.float32)
    lightf = np.array(light, np.float32)
    if style == "printed":
        layer = _printed_layer(ink, light, (w, h), rng)
        img = layer[..., :3]
    else:
        if style == "solid":
            t = np.zeros((h, w), np.float32)
        elif style == "ornate":
            t = _ornate_mask(w, h, s, rng)
        else:
            t = _pattern_mask(style, w, h, s, rng)
        img = inkf * (1.0 - t[..., None]) + lightf * t[..., None]
        # the white border of real decks (some have none)
        border_mm = float(rng.choice([0.0, 2.5, 3.5, 4.5], p=[0.2, 0.35, 0.3, 0.15]))
        if border_mm > 0:
            b = int(round(border_mm * s))
            inner = np.zeros((h, w), np.uint8)
            rr = max(1, int(round(1.2 * s)))
            cv2.rectangle(inner, (b + rr, b), (w - 1 - b - rr, h - 1 - b), 255, -1)
            cv2.rectangle(inner, (b, b + rr), (w - 1 - b, h - 1 - b - rr), 255, -1)
            for cx, cy in ((b + rr, b + rr), (w - 1 - b - rr, b + rr), (b + rr, h - 1 - b - rr),
                           (w - 1 - b - rr, h - 1 - b - rr)):
                cv2.circle(inner, (cx, cy), rr, 255, -1, cv2.LINE_AA)
            k = inner.astype(np.float32)[..., None] / 255.0
            img = img * k + np.float32(250.0) * (1.0 - k)
    out = np.empty((h, w, 4), np.uint8)
    out[..., :3] = np.clip(np.round(img), 0, 255).astype(np.uint8)
    alpha = corner_alpha((w, h))
    if style == "printed":
        alpha = np.minimum(alpha, np.clip(layer[..., 3], 0, 255).astype(np.uint8))
    out[..., 3] = alpha
    out[out[..., 3] == 0] = 0
    return out


def back_palette(n: int, seed: int, hard_pairs: bool = True) -> list[tuple[str, str, str]]:
    """Pick ``n`` distinct deck backs for a table: ``[(name, "#rrggbb", style), ...]``.

    Names are colour names from :data:`PALETTE`, usable as player names; the hex colour is the
    back's dominant colour as a table file registers it; the style is one of
    :data:`BACK_STYLES` other than ``printed`` unless the art cache is present (draw the back
    with ``make_back(style, [hex], seed)``). With ``hard_pairs``, about half the tables that
    have room include a pair from :data:`HARD_PAIRS` (red vs orange, navy vs black), both
    halves in the same style so only the colour tells them apart.

    Raises:
        ArtError: ``n`` not in 1..len(PALETTE).
    """
    if not isinstance(n, (int, np.integer)) or not 1 <= n <= len(PALETTE):
        raise ArtError(f"n must be 1..{len(PALETTE)} players, got {n!r}")
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, 0x9A1E])
    styles = [s for s in BACK_STYLES if s != "printed" or _have_art()]
    partner = {a: b for a, b in HARD_PAIRS} | {b: a for a, b in HARD_PAIRS}
    chosen: list[str] = []
    pair_style: dict[str, str] = {}
    if hard_pairs:
        for k in rng.permutation(len(HARD_PAIRS)):
            a, b = HARD_PAIRS[int(k)]
            if len(chosen) + 2 <= n and rng.random() < 0.5:
                st = styles[int(rng.integers(len(styles)))]
                chosen += [a, b]
                pair_style[a] = pair_style[b] = st
    names = list(PALETTE)
    spare = []
    for k in rng.permutation(len(names)):
        c = names[int(k)]
        if len(chosen) >= n:
            break
        if c in chosen:
            continue
        if partner.get(c) in chosen:
            spare.append(c)  # no hard pair by chance, only when drawn on purpose
            continue
        chosen.append(c)
    chosen += spare[: n - len(chosen)]  # only when n leaves no choice
    out = []
    for c in chosen[:n]:
        st = pair_style.get(c) or styles[int(rng.integers(len(styles)))]
        out.append((c, PALETTE[c], st))
    order_idx = rng.permutation(len(out))
    return [out[i] for i in order_idx]


# ------------------------------------------------------------------------------------------
# contact sheet


def contact_sheet(path: str | os.PathLike, designs: Iterable[str] | None = None,
                  cards: Sequence[str] = ("AS", "7H", "TD", "QC", "KS", "JK", "BACK"),
                  size: tuple[int, int] = (120, 168), seed: int = 0) -> Path:
    """Write a PNG contact sheet: one row per design (``cards`` of it; a blank where it lacks
    one), then rows of generated backs (every style in a few colours). Cards are composited
    over mid grey so rounded corners show. Returns the path written.

    Raises:
        ArtMissingError: no art cache (backs alone need none: pass ``designs=[]``).
    """
    w, h = _size(size)
    names = list(designs) if designs is not None else list_designs()
    label_w = 190
    pad = 6
    bg = np.full((1, 1, 3), 96, np.uint8)

    def over(img: np.ndarray) -> np.ndarray:
        a = img[..., 3:4].astype(np.float32) / 255.0
        return (img[..., :3] * a + bg * (1.0 - a)).astype(np.uint8)

    def row(label: str, tiles: list[np.ndarray | None]) -> np.ndarray:
        r = np.full((h + 2 * pad, label_w + len(tiles) * (w + pad) + pad, 3), 96, np.uint8)
        cv2.putText(r, label, (6, h // 2 + pad), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255),
                    1, cv2.LINE_AA)
        for i, t in enumerate(tiles):
            if t is not None:
                x = label_w + i * (w + pad)
                r[pad:pad + h, x:x + w] = over(t)
        return r

    rows = []
    for d in names:
        tiles: list[np.ndarray | None] = []
        have = set(design_info(d).get("cards", []))
        for c in cards:
            tiles.append(load_face(d, c, (w, h)) if c in have else None)
        idx = design_info(d).get("index", "")
        rows.append(row(f"{d} [{idx}]", tiles))
    styles = [s for s in BACK_STYLES if s != "printed" or _have_art()]
    cols = ["red", "orange", "navy", "black", "blue", "green", "purple", "teal"]
    for st in styles:
        tiles = [make_back(st, [PALETTE[c]], seed + i, (w, h)) for i, c in enumerate(cols)]
        rows.append(row(f"back: {st}", tiles))  # type: ignore[arg-type]
    width = max(r.shape[1] for r in rows)
    rows = [np.pad(r, ((0, 0), (0, width - r.shape[1]), (0, 0)), constant_values=96)
            for r in rows]
    sheet = np.vstack(rows)
    out = Path(path)
    if not cv2.imwrite(str(out), sheet):
        raise ArtError(f"could not write {out}")
    return out


if __name__ == "__main__":  # pragma: no cover - a tool for looking at the art
    import argparse

    ap = argparse.ArgumentParser(description="Write a contact sheet of the card art.")
    ap.add_argument("out", help="PNG path to write")
    ap.add_argument("--designs", nargs="*", help="designs (default: all)")
    ap.add_argument("--cards", nargs="*", default=["AS", "7H", "TD", "QC", "KS", "JK", "BACK"])
    ap.add_argument("--width", type=int, default=120)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    hh = int(round(a.width * CARD_MM[1] / CARD_MM[0]))
    try:
        print(contact_sheet(a.out, a.designs, a.cards, (a.width, hh), a.seed))
    except NertzError as exc:
        raise SystemExit(f"error: {exc}") from None
