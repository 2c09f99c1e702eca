"""Build step of the card-art cache: crop and render every chosen card design to PNG.

Run by ``datasets/fetch_art.sh`` after it has fetched and unpacked the source packages; it is
not imported at run time. Usage::

    python datasets/art_build.py --src CACHE/src --out CACHE/designs [--force]

For every design in :data:`DESIGNS` it writes ``OUT/<design>/<card>.png`` for the 52 cards
(``AS`` ... ``KC``), ``JK`` (and ``JK2``) where the design has jokers and ``BACK`` where it has a
back, each a ``(STORE_H, STORE_W, 4)`` 8-bit BGRA PNG with the card's own rounded corners
transparent, then ``OUT/<design>/meta.json``. A design whose ``meta.json`` exists is skipped
unless ``--force`` is given, so the step is idempotent and resumable.

SVG is rasterised with ``rsvg-convert`` (librsvg), which draws these files correctly where
cairosvg gets some gradients wrong. Three kinds of source:

- aisleriot sheets (``gnome-cards-data``): one SVG holding a 13 x 5 grid; rows clubs, diamonds,
  hearts, spades (ace to king left to right); row 4 holds the black joker, the red joker and
  the back.
- KDE decks (``kdegames-card-data-kf5``): one SVG element per card, ids ``1_club`` ...
  ``king_spade``, ``back`` and, in some decks, ``joker`` / ``red_joker`` / ``black_joker``.
  ``rsvg-convert --export-id`` renders one element, but librsvg 2.54 often reports an element's
  extents far too large (it includes invisible parts), so the render is cropped to the largest
  opaque component, which is the card.
- single-card SVG files (npm packages).

Every card is resized to the store size (poker aspect, 63 x 88 mm) with ``cv2.INTER_AREA``;
designs drawn at bridge aspect (57 x 89 mm) are therefore stretched about 12 % horizontally.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np

STORE_W, STORE_H = 360, 503  # pixels; 63 x 88 mm at 5.714 px/mm (503 = round(88 * 360 / 63))
RANKS = "A23456789TJQK"
SUITS = "SHDC"
CARDS = [r + s for s in SUITS for r in RANKS]
RENDER_VERSION = 1  # bump when the rendering changes, so that caches are rebuilt

_SHEET_ROWS = "CDHS"  # aisleriot row order
_KDE_RANK = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_KDE_SUIT = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}

AIS = "usr/share/aisleriot/cards"
KDE = "usr/share/carddecks"
KENNARD = "npm/heruka_urgyen-react-playing-cards/package/src/images"
TOUATI = "npm/younestouati-playing-cards-standard-deck/package/cards"

# name -> kind (sheet, kde, files), src (path under --src), index (language of the corner
# indices), novelty (True for designs unlike any deck people play with: full-bleed dark faces,
# cartoon pips, themed art), and for "files" the file-name pattern, joker and back files.
# index language: "en" (A K Q J), "fr" (1 R D V), "de" (A K D B), "ru" (Т К Д В),
# "it" (A R D F).
DESIGNS: dict[str, dict] = {
    # aisleriot sheets (gnome-cards-data)
    "ais-anglo": {"kind": "sheet", "src": f"{AIS}/anglo.svgz", "index": "en"},
    "ais-anglo-poker": {"kind": "sheet", "src": f"{AIS}/anglo_poker.svgz", "index": "en"},
    "ais-anglo-modern": {"kind": "sheet", "src": f"{AIS}/anglo_modern.svgz", "index": "en"},
    "ais-gnomangelo": {"kind": "sheet", "src": f"{AIS}/gnomangelo.svgz", "index": "en"},
    "ais-neoclassical": {"kind": "sheet", "src": f"{AIS}/neoclassical.svgz", "index": "en"},
    "ais-ornamental": {"kind": "sheet", "src": f"{AIS}/ornamental.svgz", "index": "en"},
    "ais-plastic": {"kind": "sheet", "src": f"{AIS}/plastic.svgz", "index": "en"},
    "ais-simplistic": {"kind": "sheet", "src": f"{AIS}/simplistic.svgz", "index": "en"},
    "ais-tango": {"kind": "sheet", "src": f"{AIS}/tango.svgz", "index": "en"},
    "ais-tango-nuevo": {"kind": "sheet", "src": f"{AIS}/tango_nuevo.svgz", "index": "en",
                        "novelty": True},
    "ais-tigullio": {"kind": "sheet", "src": f"{AIS}/tigullio.svgz", "index": "en"},
    "ais-guyenne-classic": {"kind": "sheet", "src": f"{AIS}/guyenne-classic.svgz", "index": "en"},
    "ais-dondorf": {"kind": "sheet", "src": f"{AIS}/dondorf.svgz", "index": "en"},
    "ais-paris": {"kind": "sheet", "src": f"{AIS}/paris.svgz", "index": "en"},
    "ais-bellot": {"kind": "sheet", "src": f"{AIS}/bellot.svgz", "index": "en"},
    "ais-orell": {"kind": "sheet", "src": f"{AIS}/orell.svgz", "index": "en"},
    "ais-atlasnye": {"kind": "sheet", "src": f"{AIS}/atlasnye.svgz", "index": "en"},
    "ais-ancient-french": {"kind": "sheet", "src": f"{AIS}/ancient_french.svgz", "index": "fr"},
    "ais-berlin": {"kind": "sheet", "src": f"{AIS}/berlin.svgz", "index": "de"},
    "ais-rheinland": {"kind": "sheet", "src": f"{AIS}/rheinland.svgz", "index": "de"},
    "ais-lattmann": {"kind": "sheet", "src": f"{AIS}/lattmann.svgz", "index": "de"},
    "ais-tarocco": {"kind": "sheet", "src": f"{AIS}/tarocco.svgz", "index": "it"},
    "ais-slavic-costumes": {"kind": "sheet", "src": f"{AIS}/slavic_costumes.svgz", "index": "ru"},
    # "Атласные": the atlasnye faces with Cyrillic indices
    "ais-atlasnye-ru": {"kind": "sheet", "index": "ru",
                        "src": f"{AIS}/\u0410\u0442\u043b\u0430\u0441\u043d\u044b\u0435.svgz"},
    # KDE decks (kdegames-card-data-kf5); svg-konqi-modern is excluded (not free)
    "kde-standard": {"kind": "kde", "src": f"{KDE}/svg-standard/standard.svgz", "index": "en"},
    "kde-gm-paris": {"kind": "kde", "src": f"{KDE}/svg-gm-paris/paris.svgz", "index": "en"},
    "kde-nicu-white": {"kind": "kde", "src": f"{KDE}/svg-nicu-white/white.svgz", "index": "en"},
    "kde-tigullio-international": {
        "kind": "kde", "index": "en",
        "src": f"{KDE}/svg-tigullio-international/tigullio-international.svgz"},
    "kde-oxygen-white": {"kind": "kde", "src": f"{KDE}/svg-oxygen-white/oxygen-white.svgz",
                         "index": "en"},
    "kde-oxygen-air": {"kind": "kde", "src": f"{KDE}/svg-oxygen-air/oxygen-air.svgz",
                       "index": "en"},
    "kde-oxygen": {"kind": "kde", "src": f"{KDE}/svg-oxygen/oxygen.svgz", "index": "en",
                   "novelty": True},
    "kde-jolly-royal": {"kind": "kde", "src": f"{KDE}/svg-jolly-royal/jolly-royal.svgz",
                        "index": "en", "novelty": True},
    "kde-penguins": {"kind": "kde", "src": f"{KDE}/svg-penguins/penguins.svgz", "index": "en",
                     "novelty": True},
    "kde-ancient-egyptians": {"kind": "kde", "index": "en", "novelty": True,
                              "src": f"{KDE}/svg-ancient-egyptians/Ancient_Egyptians.svgz"},
    # not used: svg-future (hexadecimal indices 0..C), svg-xskat-french (the faces are
    # embedded 72x112 px bitmaps), svg-xskat-german (German suits), svg-dondorf and
    # svg-nicu-ornamental (same art as the aisleriot sheets dondorf and ornamental)
    # single-card SVG files (npm)
    "kennard-2color": {"kind": "files", "src": f"{KENNARD}/2color", "index": "en",
                       "pattern": "{rank}{suit}.svg", "joker": "2J.svg",
                       "back": f"{KENNARD}/back.svg"},
    "kennard-bigface": {"kind": "files", "src": f"{KENNARD}/2color-bf", "index": "en",
                        "pattern": "{rank}{suit}.svg", "joker": "2J.svg",
                        "back": f"{KENNARD}/back.svg"},
    "touati-standard": {"kind": "files", "src": TOUATI, "index": "en",
                        "pattern": "{num}{suitl}.svg", "joker": "joker.svg",
                        "back": None},  # its back.svg has no size
}


def _rsvg(args: list[str], out: Path) -> np.ndarray:
    """Run rsvg-convert with ``args`` writing ``out``; return the PNG as BGRA uint8."""
    cmd = ["rsvg-convert", *args, "-o", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0 or not out.exists():
        raise RuntimeError(f"rsvg-convert failed: {' '.join(cmd)}: {res.stderr.strip()}")
    im = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if im is None or im.ndim != 3 or im.shape[2] != 4:
        raise RuntimeError(f"rsvg-convert wrote no RGBA image for {' '.join(cmd)}")
    return im


def _crop_card(im: np.ndarray) -> np.ndarray:
    """Crop a BGRA render to the bounding box of its largest opaque (alpha > 127) component."""
    mask = (im[..., 3] > 127).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n < 2:
        raise RuntimeError("render is empty (no opaque pixels)")
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[k, :4])
    # include the anti-aliased rim
    x0, y0 = max(x - 1, 0), max(y - 1, 0)
    x1, y1 = min(x + w + 1, im.shape[1]), min(y + h + 1, im.shape[0])
    return im[y0:y1, x0:x1]


def _finish(im: np.ndarray) -> np.ndarray:
    """Resize a cropped BGRA card to the store size and clear any colour where alpha is 0."""
    out = cv2.resize(im, (STORE_W, STORE_H), interpolation=cv2.INTER_AREA)
    out[out[..., 3] == 0] = 0
    return out


def _build_sheet(src: Path, tmp: Path) -> dict[str, np.ndarray]:
    # render so that one grid cell is at least ~1.2x the store width
    sheet = _rsvg(["-w", str(13 * int(STORE_W * 1.2)), str(src)], tmp / "sheet.png")
    h, w = sheet.shape[:2]
    cw, ch = w / 13.0, h / 5.0

    def cell(row: int, col: int) -> np.ndarray:
        y0, y1 = int(round(row * ch)), int(round((row + 1) * ch))
        x0, x1 = int(round(col * cw)), int(round((col + 1) * cw))
        return _crop_card(sheet[y0:y1, x0:x1])

    cards: dict[str, np.ndarray] = {}
    for row, suit in enumerate(_SHEET_ROWS):
        for col, rank in enumerate(RANKS):
            cards[rank + suit] = cell(row, col)
    cards["JK"] = cell(4, 1)  # red joker
    cards["JK2"] = cell(4, 0)  # black joker
    cards["BACK"] = cell(4, 2)
    return cards


def _svg_ids(src: Path) -> set[str]:
    import gzip
    import re

    data = gzip.open(src).read() if src.suffix == ".svgz" else src.read_bytes()
    return set(re.findall(rb'\sid="([^"]+)"', data))


def _build_kde(src: Path, tmp: Path) -> dict[str, np.ndarray]:
    ids = {i.decode() for i in _svg_ids(src)}
    want: dict[str, str] = {}
    for card in CARDS:
        want[card] = f"{_KDE_RANK.get(card[0], card[0])}_{_KDE_SUIT[card[1]]}"
    for key, cand in (("JK", ("red_joker", "joker")), ("JK2", ("black_joker",)),
                      ("BACK", ("back",))):
        for c in cand:
            if c in ids:
                want[key] = c
                break
    missing = [v for k, v in want.items() if v not in ids]
    if missing:
        raise RuntimeError(f"{src}: missing element ids {missing}")
    # librsvg 2.54's --export-id canvas is often many times larger than the element (it counts
    # invisible parts), which makes a full-zoom render of each element slow (minutes per deck)
    # or fail (NoMemory). So each element is first rendered at a small zoom to find where the
    # card lies on that canvas, then at full zoom onto a page (--page-width/--page-height,
    # --left/--top) that holds just the card.
    small = 0.5

    def locate(eid: str, key: str) -> tuple[int, int, int, int]:
        canvas = _rsvg(["-i", eid, "-z", f"{small}", str(src)], tmp / f"{key}_s.png")
        mask = (canvas[..., 3] > 127).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if n < 2:
            raise RuntimeError(f"{src}: element {eid} renders empty")
        k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        x, y, w, h = (int(v) for v in stats[k, :4])
        return x, y, w, h

    # zoom so that the card comes out ~1.2x the store height
    zoom = 1.2 * STORE_H * small / locate(want["AS"], "probe")[3]

    def one(item: tuple[str, str]) -> tuple[str, np.ndarray]:
        key, eid = item
        x, y, w, h = locate(eid, key)
        f = zoom / small
        pad = 3 * f  # the small render is off by up to ~1 px
        args = ["-i", eid, "-z", f"{zoom:.5f}",
                f"--page-width={w * f + 2 * pad:.0f}px", f"--page-height={h * f + 2 * pad:.0f}px",
                f"--left={-(x * f - pad):.1f}px", f"--top={-(y * f - pad):.1f}px", str(src)]
        return key, _crop_card(_rsvg(args, tmp / f"{key}.png"))

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, want.items()))


def _build_files(spec: dict, root: Path, tmp: Path) -> dict[str, np.ndarray]:
    folder = root / spec["src"]
    files: dict[str, Path] = {}
    nums = {"A": "1", "T": "10", "J": "11", "Q": "12", "K": "13"}
    for card in CARDS:
        r, s = card
        name = spec["pattern"].format(rank=r, suit=s, num=nums.get(r, r), suitl=s.lower())
        files[card] = folder / name
    if spec.get("joker"):
        files["JK"] = folder / spec["joker"]
    if spec.get("back"):
        files["BACK"] = root / spec["back"]

    def one(item: tuple[str, Path]) -> tuple[str, np.ndarray]:
        key, path = item
        if not path.exists():
            raise RuntimeError(f"missing card file {path}")
        im = _rsvg(["-h", str(int(STORE_H * 1.2)), str(path)], tmp / f"{key}.png")
        return key, _crop_card(im)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, files.items()))


def build_design(name: str, root: Path, out: Path, force: bool = False) -> bool:
    """Render design ``name`` from the unpacked sources under ``root`` into ``out/name``.

    Returns True if it was (re)built, False if it was already complete. Raises RuntimeError
    when a source is missing or rsvg-convert fails.
    """
    spec = DESIGNS[name]
    dest = out / name
    meta_path = dest / "meta.json"
    stamp = {"render": RENDER_VERSION, "size_px": [STORE_W, STORE_H], **spec}
    if meta_path.exists() and not force:
        try:
            if json.loads(meta_path.read_text()).get("spec") == stamp:
                return False
        except ValueError:
            pass
    src = root / spec["src"]
    if not src.exists():
        raise RuntimeError(f"{name}: source {src} not found (did the fetch step run?)")
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"art-{name}-") as td:
        tmp = Path(td)
        if spec["kind"] == "sheet":
            cards = _build_sheet(src, tmp)
        elif spec["kind"] == "kde":
            cards = _build_kde(src, tmp)
        else:
            cards = _build_files(spec, root, tmp)
    aspects = []
    for key, im in cards.items():
        if key in CARDS:
            aspects.append(im.shape[1] / im.shape[0])
        cv2.imwrite(str(dest / f"{key}.png"), _finish(im))
    meta = {
        "name": name,
        "kind": spec["kind"],
        "source": spec["src"],
        "index": spec["index"],
        "novelty": bool(spec.get("novelty", False)),
        "native_aspect_w_over_h": round(float(np.median(aspects)), 4),
        "cards": sorted(cards),
        "size_px": [STORE_W, STORE_H],
        "spec": stamp,
    }
    meta_path.write_text(json.dumps(meta, indent=1))
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True, type=Path, help="unpacked package root")
    ap.add_argument("--out", required=True, type=Path, help="designs folder to write")
    ap.add_argument("--force", action="store_true", help="rebuild designs already built")
    ap.add_argument("--only", nargs="*", help="build only these designs")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="designs built at once (default: up to 2)")
    args = ap.parse_args(argv)
    names = args.only or list(DESIGNS)
    if not args.only and args.out.is_dir():  # drop designs no longer chosen
        for old in args.out.iterdir():
            if old.is_dir() and old.name not in DESIGNS:
                shutil.rmtree(old)
    unknown = [n for n in names if n not in DESIGNS]
    if unknown:
        print(f"unknown designs: {' '.join(unknown)}", file=sys.stderr)
        return 2

    def one(name: str) -> tuple[str, str | None]:
        try:
            if build_design(name, args.src, args.out, args.force):
                print(f"{name}: built", flush=True)
            return name, None
        except RuntimeError as exc:
            return name, str(exc)

    # designs in parallel too: rsvg-convert runs as a subprocess and OpenCV releases the GIL
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(one, names))
    failed = []
    for name, err in results:
        if err is not None:
            print(f"{name}: FAILED: {err}", file=sys.stderr, flush=True)
            failed.append(name)
    if failed:
        print(f"failed designs: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
