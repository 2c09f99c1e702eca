"""Accuracy of the automatic calibration (path B, dealt layouts) on rendered round starts.

For each seed: simulate a round (:func:`nertz.datasets.sim.simulate_round`), render its first
frame (the deal) with :func:`nertz.datasets.render.render_frame`, calibrate it with
:func:`nertz.vision.calibrate.calibrate_layouts` (names given in the table's seating order),
and compare with the scene's true table file (:meth:`Scene.table_file`):

- zone and shared-area IoU, measured inside the frame (both polygons filled at frame size);
- whether each zone got the right name (the calibrated zone overlapping the true zone most),
  and whether the seats are in the right clockwise order (a camera turned round the table
  starts the names at another seat: the names then follow ``--players`` from the image's
  bottom, not the truth's first seat);
- back colour: CIE76 Delta E and the back matcher's CIE94 (textiles) distance between the
  registered and the true colour of the player whose true zone it overlaps most (the matcher
  accepts up to 12), and how many registered colours the matcher would give to that player;
- whether the result validates (:class:`nertz.referee.table.Table`).

Run: ``python -m nertz.vision.calibrate_eval --seeds 0-9 --players 2,3,4 [--markers]`` (prints
one line per frame and the medians). Renders at 1280x720; each frame costs about 2 s of CPU.

Measured 2026-12-07 (session 66: seats named from straight down, backs joined to rows after
the faces are grouped), path B, 2-4 players, seeds 0-9: geometry found 29/30, a valid table
file 17/30 (every refusal: a back not seen), backs registered 71/86, 68/71 within the
matcher's distance of the true colour (65 before the backs stopped linking rows), shared-area
IoU median 0.880 (min 0.557), zones 0.888 (min 0.486; 0.207 before), names right 65/86 (the
camera turned round the table starts them at another seat), clockwise order right 29/29.

Measured again (2026-11-30, later), renders with clutter in view (papers, books, coins beside
the layouts), path B, 2-4 players, seeds 0-9: with the stray filter of
:func:`nertz.vision.calibrate._group_detections` (card boxes of odd size or under 0.4
confidence left out) geometry found 29/30, shared-area IoU median 0.876 (min 0.56), zones
0.885 (min 0.21), valid 17/30; without it 28/30, shared 0.860 (min 0.42), valid 16/30. The
figures below are from before the clutter was in view.

Measured (2026-11-30, shipped detector, seeds 0-9, 1280x720):

- path B, 2-4 players (30 frames): layouts found 30/30; shared-area IoU median 0.88 (min
  0.69); zone IoU median 0.89 (min 0.43); seats in the right clockwise order 30/30; backs
  registered 74/90 (the others: a stock held in a hand, not seen: refused with a message),
  68/74 within the matcher's distance (CIE94 12) of the true colour (median 6.5; the rest
  11-31, the scene's light); a valid table file in 16/30 frames (every refusal: a back not seen).
- path B, 5-6 players (seeds 0-4, 10 frames): shared IoU median 0.87, zones 0.72 (min 0.39),
  stocks often given to the neighbour (9/35 colours right): not usable yet.
- path A (``--markers``, 70 mm markers pasted on the table), 2-4 players: 25/30 calibrated (5
  refused: a layout marker out of view or under a hand); shared IoU median 0.993 (min 0.976);
  zone IoU median 0.89; 49/57 colours within the matcher's distance.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

import cv2
import numpy as np

from nertz.referee.table import delta_e, hex_to_lab

from .backs import BackMatcher
from .calibrate import CalibrationError, calibrate_layouts, calibrate_markers, draw_table, finish_table


def iou_in_frame(a: list, b: list, size: tuple[int, int]) -> float:
    """IoU of two polygons (pixels) counted over the frame's pixels only."""
    w, h = size
    ma, mb = np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)
    cv2.fillPoly(ma, [np.round(np.array(a) * 16).astype(np.int32)], 1, shift=4)
    cv2.fillPoly(mb, [np.round(np.array(b) * 16).astype(np.int32)], 1, shift=4)
    union = int(np.count_nonzero(ma | mb))
    return int(np.count_nonzero(ma & mb)) / union if union else 0.0


def paste_markers(frame: np.ndarray, scene, side_mm: float = 70.0) -> np.ndarray:
    """``frame`` with the calibration markers lying flat on the rendered table: ids 0-3 centred
    on the shared area's corners, 10.. in each zone 5 cm below the second work pile (where the
    cascades will grow), each warped through the scene's camera (homography of its four corners)."""
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    g = scene.geometry
    spots = [(i, g.shared[i]) for i in range(4)]
    for k, seat in enumerate(g.seats):
        spots.append((10 + k, seat.to_table(np.array([[seat.slot_x[2], seat.row_y + 44.0 + 50.0]]))[0]))
    out = frame.copy()
    px = 200
    quiet = px // 4
    tile = np.full((px + 2 * quiet, px + 2 * quiet), 255, np.uint8)
    for mid, c in spots:
        tile[quiet:quiet + px, quiet:quiet + px] = cv2.aruco.generateImageMarker(d, int(mid), px)
        h = side_mm * (px + 2 * quiet) / px / 2
        corners_mm = np.array([[c[0] - h, c[1] - h], [c[0] + h, c[1] - h], [c[0] + h, c[1] + h], [c[0] - h, c[1] + h]])
        dst = scene.camera.project(corners_mm).astype(np.float32)
        n = tile.shape[0]
        src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
        m = cv2.getPerspectiveTransform(src, dst)
        warped = cv2.warpPerspective(cv2.cvtColor(tile, cv2.COLOR_GRAY2BGR), m, (frame.shape[1], frame.shape[0]))
        mask = cv2.warpPerspective(np.full((n, n), 255, np.uint8), m, (frame.shape[1], frame.shape[0])) > 127
        out[mask] = warped[mask]
    return out


def evaluate(seed: int, players: int, resolution: tuple[int, int] = (1280, 720), recognizer=None,
             sheet: str | None = None, markers: bool = False) -> dict:
    """Calibrate one rendered deal; the figures described in the module docstring. With
    ``markers``, the ArUco markers are pasted on the table (:func:`paste_markers`) and path A
    (:func:`calibrate_markers`) is measured instead."""
    from nertz.datasets.render import make_scene, render_frame
    from nertz.datasets.sim import SimSettings, simulate_round

    sim = simulate_round(SimSettings(players=players), seed)
    scene = make_scene(sim.table["players"], seed, resolution)
    frame, _ = render_frame(scene, sim.state_at(0.0))
    truth = scene.table_file()
    names = [p["name"] for p in truth["players"]]
    row: dict = {"seed": seed, "players": players, "tilt": None}
    try:
        if markers:
            frame = paste_markers(frame, scene)
            got = calibrate_markers(frame, names, recognizer=recognizer, require_backs=False)
        else:
            got = calibrate_layouts(frame, names, recognizer=recognizer, require_backs=False)
    except CalibrationError as e:
        row["error"] = str(e)
        return row
    if sheet:
        vis = draw_table(frame, got)
        for poly in [truth["shared_area"], *truth["zones"].values()]:
            cv2.polylines(vis, [np.round(np.array(poly)).astype(np.int32)], True, (0, 0, 0), 1)
        cv2.imwrite(sheet, cv2.resize(vis, (960, 540)))
    size = (scene.width, scene.height)
    row["shared_iou"] = round(iou_in_frame(got["shared_area"], truth["shared_area"], size), 3)
    zone_iou, named_right, match = [], 0, {}
    for name, poly in got["zones"].items():
        ious = {t: iou_in_frame(poly, tp, size) for t, tp in truth["zones"].items()}
        best = max(ious, key=ious.get)
        match[name] = best
        named_right += best == name
        zone_iou.append(ious[best])
    row["zone_iou"] = [round(v, 3) for v in zone_iou]
    row["named_right"] = f"{named_right}/{len(names)}"
    # clockwise order: the true seats, read in the calibrated order, are a rotation of the truth's
    seq = [names.index(match[n]) for n in got["zones"]]
    k = len(names)
    row["order_right"] = any(seq == [(r + j) % k for j in range(k)] for r in range(k))
    true_back = {p["name"]: p["back"] for p in truth["players"]}
    matcher = BackMatcher.from_table(truth)
    seen = [p for p in got["players"] if p["back"] is not None]
    row["backs_seen"] = f"{len(seen)}/{len(names)}"
    # colours against the player whose true zone the calibrated zone overlaps most
    row["delta_e76"] = [round(delta_e(p["back"], true_back[match[p["name"]]]), 1) for p in seen]
    row["cie94"] = [round(float(matcher.distances(np.array(hex_to_lab(p["back"])))[names.index(match[p["name"]])]), 1)
                    for p in seen]
    # would the matcher, given the true colours, name each registered colour right?
    row["back_named_right"] = sum(matcher.match_lab(np.array(hex_to_lab(p["back"])))[0] == match[p["name"]]
                                  for p in seen)
    if len(seen) == len(names):
        try:
            finish_table(got)
            row["valid"] = True
        except CalibrationError as e:
            row["valid"] = str(e)
    else:
        row["valid"] = "a back not seen"
    return row


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0-5", help="seed range A-B (inclusive) or list A,B,C")
    ap.add_argument("--players", default="2,3,4", help="player counts, comma-separated")
    ap.add_argument("--sheets", default=None, help="folder for annotated PNGs (calibrated: colours, truth: black)")
    ap.add_argument("--markers", action="store_true", help="paste ArUco markers on the table and measure path A")
    args = ap.parse_args(argv)
    if "-" in args.seeds:
        a, b = map(int, args.seeds.split("-"))
        seeds = list(range(a, b + 1))
    else:
        seeds = [int(s) for s in args.seeds.split(",")]
    from .detect import DETECTOR_ONNX, CardRecognizer

    rec = CardRecognizer(detector=DETECTOR_ONNX, classifier=None, identifier=None)
    rows = []
    for n in [int(x) for x in args.players.split(",")]:
        for s in seeds:
            sheet = f"{args.sheets}/calib_p{n}_s{s}.png" if args.sheets else None
            r = evaluate(s, n, recognizer=rec, sheet=sheet, markers=args.markers)
            rows.append(r)
            print(json.dumps(r), flush=True)
    ok = [r for r in rows if "error" not in r]
    print(f"frames {len(rows)}, geometry found {len(ok)}, valid table file {sum(r.get('valid') is True for r in ok)}",
          file=sys.stderr)
    if ok:
        def med(xs):
            return statistics.median(xs) if xs else float("nan")

        zi = [v for r in ok for v in r["zone_iou"]]
        de = [v for r in ok for v in r["delta_e76"]] or [float("nan")]
        c94 = [v for r in ok for v in r["cie94"]] or [float("nan")]
        seen = sum(int(r["backs_seen"].split("/")[0]) for r in ok)
        total = sum(int(r["backs_seen"].split("/")[1]) for r in ok)
        print(f"backs registered {seen}/{total}; within the matcher's threshold of the true colour "
              f"{sum(r['back_named_right'] for r in ok)}/{seen}", file=sys.stderr)
        print(f"shared IoU median {med([r['shared_iou'] for r in ok]):.3f} min {min(r['shared_iou'] for r in ok):.3f}; "
              f"zone IoU median {med(zi):.3f} min {min(zi):.3f}; "
              f"names right {sum(int(r['named_right'].split('/')[0]) for r in ok)}/"
              f"{sum(int(r['named_right'].split('/')[1]) for r in ok)}, clockwise order right "
              f"{sum(r['order_right'] for r in ok)}/{len(ok)} frames; "
              f"back Delta E76 median {med(de):.1f} max {max(de):.1f}; CIE94 median {med(c94):.1f} max {max(c94):.1f}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
