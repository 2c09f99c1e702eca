"""The table file: players (or partnerships) with their back colours, calibrated regions,
and the rules settings of ``shared/RULES.md`` ("Variants").

The format is the contract of ``shared/DESIGN.md``::

    {"players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "#1e4bb3"}],
     "shared_area": [[x, y], ...],            # polygon, image pixels
     "zones": {"red": [[x, y], ...], ...},    # each player's layout, optional
     "rules": {"target": 100, "nertz_pile": 13, ...}}

Every rules key is optional. Additive keys of this project: a player may list its partners
(``"members": ["ann", "bob"]``) when ``rules.partnerships`` is on, and a back ``"pattern"``
name. Other top-level keys (calibration data) are kept and ignored here, but for
``calibration``: when given it must be an object, and its ``frame_size`` (the frames the table
was calibrated on, which the camera's frames must match) ``[width, height]``, two positive whole
numbers.

Validation is strict where a mistake would silently change a score: unknown rules keys,
duplicate names, missing or malformed back colours, two back colours too close to tell
apart, zones that overlap each other or the shared area (a card there would have two places),
and polygons without area or too small to hold a card (:data:`MIN_CARD_FRAME_SHARE`,
:data:`MIN_REGION_PX`) are refused with a :class:`~nertz.referee.errors.TableError` that
says what to fix.
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator

from nertz.referee.errors import TableError
from nertz.referee.jsonvalues import FiniteNumber, JsonBool, WholeNumber, describe_json, whole_number

__all__ = ["Rules", "Player", "Table", "MIN_BACK_DELTA_E", "MAX_ZONE_OVERLAP", "MAX_TARGET", "MIN_CARD_FRAME_SHARE",
           "MIN_REGION_PX", "hex_to_lab", "delta_e", "polygon_overlap"]

MIN_BACK_DELTA_E = 12.0
"""The smallest CIE76 colour difference (Delta E*ab) allowed between two players' back
colours. Below it, the camera cannot tell the decks apart reliably under uneven light
(a just-noticeable difference is about 2.3; warm vs cold light shifts a colour by 5 to 10)."""

MAX_ZONE_OVERLAP = 0.01
"""Largest share of a polygon's area that may overlap another region (zone or shared area)
before the table file is refused: hand-drawn neighbours may touch, a card may not lie in two."""

MAX_TARGET = 1000
"""The largest target score a table file may set (points). RULES.md allows "any positive
number"; a round scores at most 54 cards plus the bonus, and usually 10 to 30, so a match to
1000 already lasts some 50 rounds: a larger target is taken for a mistake (``1e9``, a stray
digit) rather than a match nobody could finish."""

MIN_CARD_FRAME_SHARE = 1 / 1000
"""The least share of the frame's area (``calibration.frame_size``) one card covers in a view
the referee can use: the shared area and each zone must cover at least this much, or no card
fits in them. The smallest face-up card in the first frames of 73 rendered rounds (1280 x 720,
2026-12-07) covers 1/875 of the frame (1054 square pixels), a typical one 1/270."""

MIN_REGION_PX = 16.0
"""The least area (square pixels) of the shared area and of each zone of a table file that
does not say its frame size: a 4 x 4 pixel square. A small floor, as the frames may be small
(a card covers 1/1000 of a 160 x 120 frame, 19 square pixels, at the least); it refuses a
region of a pixel or so, a typo or a corner given twice."""

_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")

Point = tuple[FiniteNumber, FiniteNumber]
"""A point of a polygon ``(x, y)``: two finite JSON numbers (image pixels)."""


class Rules(BaseModel):
    """The rules settings of one table (``shared/RULES.md``, "Variants"); all optional.

    Attributes:
        target: the match ends when a total reaches this (points).
        nertz_pile: cards dealt to each Nertz pile (13; 11 or 12 make it easier to go out).
        nertz_penalty: points lost per card left in one's Nertz pile (2).
        nertz_bonus: points the caller gains (0).
        stock_turn: cards turned from stock to waste at a time (3 or 1).
        jokers: whether each deck holds 2 jokers.
        partnerships: whether owners are partnerships sharing a deck, layout and score.
        tie: ``"both_stay"``: plays of one card to one pile within ``tie_window`` both stay;
            ``"strict"``: such a tie goes to review and only one stays.
        tie_window: seconds within which two arrivals are a tie (default one frame at 30 fps).
        in_air: ``"count"``: plays up to ``in_air_grace`` seconds after the call count;
            ``"return"``: every play after the call is late.
        in_air_grace: seconds after the call during which plays in the air still count.

    Values must have their JSON types (:mod:`nertz.referee.jsonvalues`): numbers are JSON
    numbers, whole numbers JSON integers (not ``"100"``, ``true`` or ``1e9``), booleans
    ``true``/``false`` (not ``"yes"`` or ``1``), and no number is NaN or Infinity.
    ``target`` is at most :data:`MAX_TARGET`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    target: WholeNumber = Field(100, gt=0, le=MAX_TARGET)
    nertz_pile: Annotated[Literal[11, 12, 13], BeforeValidator(whole_number)] = 13
    nertz_penalty: WholeNumber = Field(2, ge=0)
    nertz_bonus: WholeNumber = Field(0, ge=0)
    stock_turn: Annotated[Literal[1, 3], BeforeValidator(whole_number)] = 3
    jokers: JsonBool = False
    partnerships: JsonBool = False
    tie: Literal["both_stay", "strict"] = "both_stay"
    tie_window: FiniteNumber = Field(0.034, ge=0, le=5)
    in_air: Literal["count", "return"] = "count"
    in_air_grace: FiniteNumber = Field(1.0, ge=0, le=60)


class Player(BaseModel):
    """One owner at the table: a player, or a partnership sharing one deck and one score.

    Attributes:
        name: the owner's name, as events name it (``"red"``).
        back: the deck's back colour, ``"#rrggbb"`` (sRGB), as registered at calibration.
        pattern: an optional name of the back's pattern (``"solid"``, ``"diamonds"``, ...).
        members: the partners' own names, when partnerships are on; events may name a
            member, and the play counts for the partnership.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=40)
    back: str
    pattern: str | None = None
    members: tuple[str, ...] = ()

    @field_validator("name")
    @classmethod
    def _name_is_clean(cls, v: str) -> str:
        if v != v.strip() or "@" in v or any(ord(ch) < 32 for ch in v):
            raise ValueError(f"player name {v!r} must have no surrounding spaces, '@' or control characters")
        return v

    @field_validator("back")
    @classmethod
    def _back_is_hex(cls, v: str) -> str:
        if not _HEX.match(v):
            raise ValueError(f"back colour {v!r} must be written '#rrggbb', e.g. '#b3261e'")
        return v.lower()


class Table(BaseModel):
    """A validated table file. Build it with :meth:`from_dict`, which raises
    :class:`~nertz.referee.errors.TableError` with a readable message.

    Attributes:
        players: the owners, at least two, in seating order.
        shared_area: the polygon of the shared area, image pixels ``(x, y)``; optional.
        zones: each owner's layout polygon, image pixels; optional.
        rules: the rules settings.
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    players: tuple[Player, ...] = Field(min_length=2)
    shared_area: tuple[Point, ...] | None = None
    zones: dict[str, tuple[Point, ...]] = Field(default_factory=dict)
    rules: Rules = Field(default_factory=Rules)

    @model_validator(mode="before")
    @classmethod
    def _players_have_backs(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("players"), (list, tuple)):
            for i, p in enumerate(data["players"]):
                if isinstance(p, dict) and not p.get("back"):
                    who = repr(p["name"]) if isinstance(p.get("name"), str) else f"number {i + 1}"
                    raise ValueError(
                        f"player {who} has no back colour: register the deck's back (`nertz calibrate`) or "
                        f"write \"back\": \"#rrggbb\" for it")
        return data

    @model_validator(mode="before")
    @classmethod
    def _calibration_frame_size(cls, data: Any) -> Any:
        # kept as written (an extra key), but checked: a frame size the readers cannot use was
        # silently ignored, and with it the check that the table fits the camera's frames
        cal = data.get("calibration") if isinstance(data, dict) else None
        if cal is None:
            return data
        if not isinstance(cal, dict):
            raise ValueError(f"calibration: must be an object (as nertz calibrate writes it), not {describe_json(cal)}")
        if "frame_size" not in cal:
            return data
        size = cal["frame_size"]
        if not isinstance(size, (list, tuple)):
            found = describe_json(size)
        elif len(size) != 2:
            found = f"a list of {len(size)}"
        else:
            bad = [v for v in size if not (isinstance(v, numbers.Integral) and not isinstance(v, bool) and v > 0)]
            found = f"{describe_json(bad[0])} in it" if bad else None
        if found is not None:
            raise ValueError(f"calibration.frame_size: must be [width, height], two whole numbers of pixels above 0 "
                             f"(the size of the frames the table was calibrated on, e.g. [1280, 720]), not {found}: "
                             "correct it, or remove it")
        return data

    @model_validator(mode="after")
    def _consistent(self) -> "Table":
        names = [p.name for p in self.players]
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise ValueError(f"two players are named {name!r}: names must differ")
            seen.add(name)
        for p in self.players:
            if p.members and not self.rules.partnerships:
                raise ValueError(f"player {p.name!r} lists members but rules.partnerships is off")
            for m in p.members:
                if m in seen:
                    raise ValueError(f"member name {m!r} of {p.name!r} is already used by another player or partner")
                seen.add(m)
        for zone in self.zones:
            if zone not in names:
                raise ValueError(f"zone {zone!r} names no player (players: {', '.join(names)})")
        polygons = dict(self.zones)
        if self.shared_area is not None:
            polygons["shared_area"] = self.shared_area
        least, least_why = _least_region_area(self.model_extra)
        for label, poly in polygons.items():
            if len(poly) < 3:
                raise ValueError(f"polygon {label!r} needs at least 3 points, it has {len(poly)}")
            if not all(math.isfinite(c) for pt in poly for c in pt):
                raise ValueError(f"polygon {label!r} has a point that is not a finite number")
            if _edges_cross(poly):
                raise ValueError(f"polygon {label!r} crosses itself (two of its edges cross): give its corners "
                                 "in order around it")
            if _area(poly) <= 0.0:
                raise ValueError(f"polygon {label!r} has no area (its points lie on one line): redraw it")
            if _area(poly) < least:
                around = "the whole shared area" if label == "shared_area" else f"{label}'s whole layout"
                raise ValueError(f"polygon {label!r} has an area of {_area(poly):.3g} square pixels, too small to hold "
                                 f"a card ({least_why}): redraw it around {around}, in image pixels (nertz "
                                 "calibrate writes it)")
        zone_names = list(self.zones)
        pairs = [(a, b) for i, a in enumerate(zone_names) for b in zone_names[i + 1:]]
        if self.shared_area is not None:
            pairs += [(z, "shared_area") for z in zone_names]
        if pairs:
            shares = polygon_overlap(polygons, pairs)
            for (a, b), share in zip(pairs, shares):
                if share > MAX_ZONE_OVERLAP:
                    what = (f"zone {a!r} overlaps the shared area" if b == "shared_area"
                            else f"zones {a!r} and {b!r} overlap")
                    raise ValueError(
                        f"{what} ({100 * share:.0f} % of the smaller one): redraw them so that every card "
                        f"lies in one region only")
        for i, a in enumerate(self.players):
            for b in self.players[i + 1 :]:
                d = delta_e(a.back, b.back)
                if d < MIN_BACK_DELTA_E:
                    raise ValueError(
                        f"back colours of {a.name!r} ({a.back}) and {b.name!r} ({b.back}) are too close to tell "
                        f"apart (Delta E {d:.1f} < {MIN_BACK_DELTA_E:g}): register a deck with a more different back"
                    )
        return self

    @property
    def names(self) -> list[str]:
        """The owners' names in seating order."""
        return [p.name for p in self.players]

    def owner_of(self, name: str) -> str | None:
        """The owner a name stands for: itself for an owner, its partnership for a member,
        ``None`` for a name that is neither."""
        for p in self.players:
            if name == p.name or name in p.members:
                return p.name
        return None

    @classmethod
    def from_dict(cls, data: Any, source: str = "table file") -> "Table":
        """Validate a parsed table file.

        Args:
            data: the parsed JSON object.
            source: how to name the file in messages.

        Raises:
            TableError: with one line per problem, naming the field.
        """
        if not isinstance(data, dict):
            raise TableError(f"{source}: the table file must be a JSON object with a 'players' list")
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise TableError(f"{source}: " + _describe(exc)) from None

    @classmethod
    def default(cls, names: list[str]) -> "Table":
        """A table for ``names`` with default rules and placeholder back colours, for logs
        scored without a table file (back colours then play no part, but the web page draws
        each player in theirs): a player named after a colour (:data:`COLOUR_NAMES`, "blue")
        gets that colour, the others colours spread round the hue circle."""
        players = [Player(name=n, back=COLOUR_NAMES.get(n.strip().lower()) or _placeholder_colour(i, len(names)))
                   for i, n in enumerate(names)]
        return cls.model_construct(players=tuple(players), shared_area=None, zones={}, rules=Rules())

    def to_dict(self) -> dict[str, Any]:
        """The table as a JSON-ready dict, in the contract format."""
        return self.model_dump(mode="json", exclude_none=True)


def _describe(exc: ValidationError) -> str:
    parts = []
    errors = exc.errors()
    # A player that fails validation also shortens the list; say only what is wrong with it.
    if any(len(e.get("loc", ())) > 1 and e["loc"][0] == "players" for e in errors):
        errors = [e for e in errors if not (e.get("loc") == ("players",) and e.get("type") == "too_short")]
    for err in errors:
        where = ".".join(str(x) for x in err.get("loc", ()) if x not in ("function-after[_consistent()]",))
        msg = err.get("msg", "invalid")
        msg = msg.removeprefix("Value error, ")
        if err.get("type") == "extra_forbidden":
            msg = "unknown key (check the spelling: the README's \"Input formats\" lists the rules keys)"
        elif err.get("type") == "too_short" and err.get("loc") == ("players",):
            found = len(err.get("input") or ())
            msg = f"a table needs at least 2 players, with a name and a back colour each (this one has {found})"
        elif err.get("type") == "less_than_equal" and err.get("loc") == ("rules", "target"):
            msg = (f"{err.get('input')} is more than the largest target, {MAX_TARGET} points (a match to "
                   f"{MAX_TARGET} already lasts some 50 rounds)")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


COLOUR_NAMES = {
    "red": "#b3261e", "blue": "#1e4bb3", "green": "#2e7d32", "yellow": "#d4b106", "purple": "#6a1b9a",
    "orange": "#e65100", "pink": "#d81b60", "brown": "#6d4c41", "black": "#212121", "white": "#f5f5f5",
    "grey": "#757575", "gray": "#757575", "teal": "#00897b", "cyan": "#00acc1",
}
"""Back colours (``#rrggbb``) of the players a table without a table file names after a colour
(:meth:`Table.default`; lower case): the page drew the player "blue" in green."""


def _placeholder_colour(i: int, n: int) -> str:
    import colorsys

    r, g, b = colorsys.hsv_to_rgb(i / max(n, 1), 0.7, 0.7)
    return "#{:02x}{:02x}{:02x}".format(int(r * 255), int(g * 255), int(b * 255))


def _least_region_area(extra: dict[str, Any] | None) -> tuple[float, str]:
    """The least area (square pixels) a region of the table may cover, and why (for the
    message): :data:`MIN_CARD_FRAME_SHARE` of the frame when ``calibration.frame_size`` (in
    ``extra``, the table's extra keys, checked before) gives its size, else
    :data:`MIN_REGION_PX`."""
    cal = (extra or {}).get("calibration")
    size = cal.get("frame_size") if isinstance(cal, dict) else None
    if isinstance(size, (list, tuple)) and len(size) == 2:
        w, h = int(size[0]), int(size[1])
        least = w * h * MIN_CARD_FRAME_SHARE
        return least, f"a card covers {least:.0f} at the least in the {w}x{h} frames of calibration.frame_size"
    return MIN_REGION_PX, f"the least a region may cover is {MIN_REGION_PX:g}; a card covers more"


def _area(poly: Any) -> float:
    """Absolute area of a polygon (shoelace formula), in squared polygon units."""
    n = len(poly)
    return abs(sum(poly[i][0] * poly[(i + 1) % n][1] - poly[(i + 1) % n][0] * poly[i][1] for i in range(n))) / 2


def _edges_cross(poly: Any) -> bool:
    """Whether two edges of a polygon that share no corner cross properly (each one's ends on
    either side of the other's line): a bow-tie, corners given out of order."""
    n = len(poly)

    def side(a: Any, b: Any, c: Any) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    edges = [(poly[i], poly[(i + 1) % n]) for i in range(n)]
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # neighbours through the first corner
            (a, b), (c, d) = edges[i], edges[j]
            if side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0:
                return True
    return False


def _inside(poly: Any, x: Any, y: Any) -> Any:
    """Even-odd (crossing number) point-in-polygon test of points ``(x, y)`` (numpy arrays)."""
    import numpy as np

    p = np.asarray(poly, np.float64).reshape(-1, 2)
    inside = np.zeros(x.shape, bool)
    for (x0, y0), (x1, y1) in zip(p, np.roll(p, -1, axis=0)):
        if y0 == y1:
            continue
        crosses = (y0 > y) != (y1 > y)
        xi = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
        inside ^= crosses & (x < xi)
    return inside


def polygon_overlap(polygons: dict[str, Any], pairs: list[tuple[str, str]], resolution: int = 256) -> list[float]:
    """How much pairs of polygons overlap, as a share of the smaller one's area.

    Each pair is sampled on a grid of cell centres spanning the two polygons, its longer side
    ``resolution`` cells, with an even-odd point-in-polygon test (NumPy only; any simple
    polygon, convex or not): exact enough for a yes/no on overlap at the 1 % of
    :data:`MAX_ZONE_OVERLAP`.

    Args:
        polygons: name -> ``[(x, y), ...]`` (image pixels, or any unit).
        pairs: the ``(name, name)`` pairs to measure.

    Returns:
        for each pair, overlap area / the smaller polygon's area (0..1).
    """
    import numpy as np

    out = []
    for a, b in pairs:
        pa = np.asarray(polygons[a], np.float64).reshape(-1, 2)
        pb = np.asarray(polygons[b], np.float64).reshape(-1, 2)
        lo = np.maximum(pa.min(axis=0), pb.min(axis=0))  # overlap can only lie in both boxes
        hi = np.minimum(pa.max(axis=0), pb.max(axis=0))
        if np.any(hi <= lo):
            out.append(0.0)
            continue
        allp = np.vstack([pa, pb])
        step = float((allp.max(axis=0) - allp.min(axis=0)).max()) / resolution
        xs = np.arange(lo[0] + step / 2, hi[0], step)
        ys = np.arange(lo[1] + step / 2, hi[1], step)
        if len(xs) == 0 or len(ys) == 0:
            out.append(0.0)
            continue
        x, y = np.meshgrid(xs, ys)
        inter = float(np.count_nonzero(_inside(pa, x, y) & _inside(pb, x, y))) * step * step
        out.append(min(inter / max(min(_area(pa.tolist()), _area(pb.tolist())), 1e-12), 1.0))
    return out


def hex_to_lab(colour: str) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB colour written ``"#rrggbb"``.

    Returns:
        ``(L*, a*, b*)``, L* in 0..100.

    The formulas are the standard sRGB -> XYZ (IEC 61966-2-1) -> CIELAB (CIE 1976) ones.
    """
    rgb = [int(colour[i : i + 2], 16) / 255.0 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    x = 0.4124564 * lin[0] + 0.3575761 * lin[1] + 0.1804375 * lin[2]
    y = 0.2126729 * lin[0] + 0.7151522 * lin[1] + 0.0721750 * lin[2]
    z = 0.0193339 * lin[0] + 0.1191920 * lin[1] + 0.9503041 * lin[2]
    xn, yn, zn = 0.95047, 1.0, 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x / xn), f(y / yn), f(z / zn)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: str, b: str) -> float:
    """CIE76 colour difference between two ``"#rrggbb"`` colours (Euclidean in CIELAB)."""
    return math.dist(hex_to_lab(a), hex_to_lab(b))
