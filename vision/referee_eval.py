"""Measure the referee pipeline on rendered rounds against their ground truth.

A rendered round (``nertz synth round``) holds ``clip.mp4``, ``table.json``, ``events.jsonl``
(the truth), ``labels.jsonl`` (or ``labels.jsonl.gz``) and ``result.json``. :func:`compare`
matches the pipeline's plays with the true ones and reports the figures of issue 5's quality
bar:

* plays found with the right card, pile and owner (pile numbers are each side's own: the
  pipeline's piles are mapped to the true ones by the cards they share), times within two
  frames, extra plays; each matched play's time error in frames, predicted minus true
  (``dt_frames``; the command line prints how many fall in each frame of :data:`TIMING_BINS`);
* collisions (the referee's ``collision`` rulings) with the same pile, card, winner and loser;
* whether the round's scores are exact, and how many points they are off (``score_error``:
  the sum over the players of ``|scored - true|``; a wrong owner costs 2, a missed or extra
  play 1, a wrongly rejected pile more).

Command line::

    python -m nertz.vision.referee_eval ROUND_DIR... [--labels] [--stride 3] [--json] [--looks-cache DIR]

``--labels`` looks through the labels (perfect eyes: the tracker and attribution alone);
without it the shipped models look at the video. ``--looks-cache DIR`` keeps the models' looks
of each round (keyed by the round, the stride, whether strips are named and the shipped model
files) and replays them on the next run: a change to the tracker is then measured in a
fraction of the time, with the same figures as a fresh run (the speed figures then time the
replay, not the models). With the models each round also reports how often the cards seen
were named right, look by look, by how much of each card shows (:func:`reading_accuracy`).
Without ``--true-counts`` (the Nertz counts from the video) each round also reports how far
each located Nertz pile lies from the true one, in card widths (:func:`nertz_piles_off`; over
half a card, the pile followed is another).
"""

from __future__ import annotations

import ast
import hashlib
import json
import pickle
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from nertz.referee.errors import NertzError
from nertz.referee.files import read_event_log, read_table
from nertz.referee.round import Round

__all__ = ["READING_BANDS", "TIMING_BINS", "compare", "evaluate_round", "main", "nertz_piles_off", "reading_accuracy"]


def _plays(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("type") == "play"]


def _pile_map(pred: list[dict], truth: list[dict], tol: float = 1.0) -> dict[int, int]:
    votes: Counter = Counter()
    for p in pred:
        for g in truth:
            if g["card"] == p["card"] and abs(g["t"] - p["t"]) <= tol:
                votes[(p["pile"], g["pile"])] += 1
    mapping: dict[int, int] = {}
    used: set[int] = set()
    for (pp, gp), _ in votes.most_common():
        if pp not in mapping and gp not in used:
            mapping[pp] = gp
            used.add(gp)
    return mapping


def _collisions(table: Any, events: list[dict[str, Any]]) -> list[tuple]:
    rnd = Round(table, events)
    out = []
    for r in rnd.rulings:
        j = r.to_json()
        if j.get("kind") == "collision":
            out.append((j.get("pile"), j.get("card"), j.get("winner"), j.get("loser")))
    return out


def compare(table: Any, truth: list[dict[str, Any]], pred: list[dict[str, Any]], fps: float = 30.0,
            result_truth: dict | None = None, result_pred: dict | None = None,
            how: dict[tuple[str, int, str], str] | None = None) -> dict[str, Any]:
    """Figures for one round (see the module docstring). Times in seconds.

    ``how`` maps a predicted play's ``(card, pile, player)`` to the attribution rule that
    named its owner (:attr:`~nertz.vision.tracker.RoundTracker.attributions`); with it the
    result also counts right and wrong owners per rule (``owner_by_rule``)."""
    tp, pp = _plays(truth), _plays(pred)
    mapping = _pile_map(pp, tp)
    pairs = []
    for i, p in enumerate(pp):
        for j, g in enumerate(tp):
            if g["card"] == p["card"] and mapping.get(p["pile"]) == g["pile"] and abs(g["t"] - p["t"]) <= 1.0:
                pairs.append((abs(g["t"] - p["t"]) - (0.5 if g["player"] == p["player"] else 0.0), i, j))
    pairs.sort()
    mi, mj, matched = set(), set(), []
    for _, i, j in pairs:
        if i not in mi and j not in mj:
            mi.add(i)
            mj.add(j)
            matched.append((pp[i], tp[j]))
    right_owner = sum(p["player"] == g["player"] for p, g in matched)
    dts = [p["t"] - g["t"] for p, g in matched]
    in_two = sum(abs(d) <= 2.0 / fps + 1e-6 for d in dts)
    full = sum(p["player"] == g["player"] and abs(p["t"] - g["t"]) <= 2.0 / fps + 1e-6 for p, g in matched)
    col_t = _collisions(table, truth)
    inv = {v: k for k, v in mapping.items()}
    col_p = [(mapping.get(c[0]), c[1], c[2], c[3]) for c in _collisions(table, pred)]
    col_right = sum(1 for c in col_t if c in col_p)
    out = {
        "plays": len(tp), "predicted": len(pp), "found_card_pile": len(matched),
        "right_owner": right_owner, "within_two_frames": in_two, "all_right": full,
        "extra": len(pp) - len(matched),
        "dt_median_s": round(float(np.median(dts)), 4) if dts else None,
        "dt_frames": [round(d * fps, 2) for d in dts],
        "collisions": len(col_t), "collisions_right": col_right, "collisions_predicted": len(col_p),
        "missed": [f"{g['t']:.2f} {g['player']} {g['card']} pile {g['pile']}" for j, g in enumerate(tp) if j not in mj],
        "wrong_owner": [f"{g['t']:.2f} {g['card']} pile {g['pile']}: {g['player']} (said {p['player']})"
                        for p, g in matched if p["player"] != g["player"]],
        "off_time": [f"{g['t']:.2f} {g['player']} {g['card']} pile {g['pile']}: {(p['t'] - g['t']) * fps:+.1f} frames"
                     for p, g in matched if abs(p["t"] - g["t"]) > 2.0 / fps + 1e-6],
        "extras": [f"{p['t']:.2f} {p['player']} {p['card']} pile {p['pile']}->{mapping.get(p['pile'])}"
                   for i, p in enumerate(pp) if i not in mi],
        "collision_missed": [f"{c[1]} pile {c[0]}: {c[2]} first, {c[3]} takes back" for c in col_t if c not in col_p],
        "collision_wrong": [f"{c[1]} pile {c[0]}: {c[2]} first, {c[3]} takes back" for c in col_p if c not in col_t],
    }
    del inv
    if how is not None:
        by_rule: dict[str, list[int]] = {}
        for p, g in matched:
            rule = how.get((p["card"], p["pile"], p["player"]), "other")
            by_rule.setdefault(rule, [0, 0])[p["player"] != g["player"]] += 1
        out["owner_by_rule"] = {k: {"right": v[0], "wrong": v[1]} for k, v in sorted(by_rule.items())}
        out["wrong_owner"] = [f"{w} [{how.get((p['card'], p['pile'], p['player']), 'other')}]"
                              for w, (p, g) in zip(out["wrong_owner"], [(p, g) for p, g in matched if p["player"] != g["player"]])]
    out["_pairs"] = matched
    if result_truth is not None and result_pred is not None:
        st = {n: v["score"] for n, v in result_truth["players"].items()}
        sp = {n: v["score"] for n, v in result_pred["players"].items()}
        out["scores_truth"], out["scores_pred"] = st, sp
        out["scores_exact"] = st == sp
        out["score_error"] = sum(abs(sp.get(n, 0) - st.get(n, 0)) for n in set(st) | set(sp))
        # the Nertz cards left of every player but the caller (the caller's count is not scored)
        lt = {n: v["nertz_left"] for n, v in result_truth["players"].items()
              if n != result_truth.get("caller") and "nertz_left" in v}
        lp = {n: v.get("nertz_left", 0) for n, v in result_pred["players"].items()}
        out["nertz_left_counts"] = len(lt)
        out["nertz_left_exact"] = sum(lp.get(n, 0) == k for n, k in lt.items())
        out["nertz_left_within_one"] = sum(abs(lp.get(n, 0) - k) <= 1 for n, k in lt.items())
    return out


TIMING_BINS = (-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0)
"""Edges, in frames, of the bins in which ``referee_eval`` counts the matched plays' time errors
(predicted minus true); the bar asks for ``|error| <= 2``."""


def _format_timing(dt_frames: list[float]) -> str:
    """Counts of the signed time errors ``dt_frames`` (frames) in the bins of
    :data:`TIMING_BINS`, and their median."""
    edges = (-np.inf, *TIMING_BINS, np.inf)
    counts = np.histogram(np.asarray(dt_frames, float), bins=edges)[0]
    names = ([f"<{TIMING_BINS[0]:+g}"] + [f"{a:+g}..{b:+g}" for a, b in zip(TIMING_BINS, TIMING_BINS[1:])]
             + [f">{TIMING_BINS[-1]:+g}"])
    return ", ".join(f"{n} {c}" for n, c in zip(names, counts)) + f"; median {np.median(dt_frames):+.2f}"


def _hand_free_t(labels: list[dict[str, Any]], play: dict[str, Any], fps: float) -> float | None:
    """Time of the first frame from the play's landing on in which no hand box overlaps the
    played card (the labels name each card's deck owner), seconds; None if never."""
    from .tracker import boxes_overlap

    for lab in labels[int(play["t"] * fps):]:
        quad = next((c["quad"] for c in lab["cards"] if c["identity"] == play["card"] and c["owner"] == play["player"]
                     and not c["moving"]), None)
        if quad is None:
            continue
        q = np.asarray(quad, np.float32)
        box = np.array([q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()], np.float32)
        hands = np.asarray([h["box"] for h in lab.get("hands", [])], np.float32).reshape(-1, 4)
        if boxes_overlap(box, hands) <= 0.0:
            return float(lab["t"])
    return None


def _latency_after_hand(pairs: list[tuple[dict, dict]], pipe: Any, labels: list[dict[str, Any]],
                        fps: float) -> list[tuple[float, dict]]:
    """For each matched play: media seconds from the hand leaving the card to the look that
    reported the play (the issue's latency figure), with the true play."""
    out = []
    for p, g in pairs:
        reported = pipe.reported_at.get(id(p))
        free = _hand_free_t(labels, g, fps)
        if reported is not None and free is not None:
            out.append((reported - free, g))
    return out


class _RecordedLooks:
    """An observer that replays looks recorded from another (or records them as they come):
    ``looks`` maps a frame index to its :class:`~nertz.vision.tracker.Look`."""

    def __init__(self, looks: dict[int, Any], observer: Any = None) -> None:
        self.looks, self.observer = looks, observer

    def __call__(self, index: int, t: float, frame: np.ndarray) -> Any:
        if index not in self.looks:
            if self.observer is None:
                raise NertzError(f"the looks cache has no look at frame {index}: delete it and run again")
            self.looks[index] = self.observer(index, t, frame)
        return self.looks[index]


READING_BANDS = ((0.95, "whole"), (0.5, "0.5-0.95"), (0.0, "under 0.5"))
"""Bands of a card's visible share (the labels' ``visible``) for :func:`reading_accuracy`."""


def nertz_piles_off(piles: dict[str, tuple[np.ndarray, float]], table: Any,
                    labels: list[dict[str, Any]]) -> dict[str, float]:
    """How far each located Nertz pile lies from the true one, in card widths.

    Args:
        piles: ``{player: (place, width)}``, the located piles (each
            :attr:`nertz.vision.nertz_pile.NertzPileWatch.piles` entry's ``place``, ``(2,)``
            pixels, and ``width``, a card's width in pixels).
        table: the round's :class:`~nertz.referee.table.Table` (zones, shared area).
        labels: the round's per-frame labels (:func:`nertz.vision.observe.read_labels`); the
            first frame's is read: the dealt rows.

    Returns:
        ``{player: distance / width}`` for the located players whose dealt row the first
        labelled frame shows: the true place is the centre of that player's face-up card
        farthest along the player's left (the Nertz pile, as
        :mod:`nertz.vision.nertz_pile` finds it). Over 0.5: the pile followed is another.
    """
    from .nertz_pile import player_left

    if not labels:
        return {}
    out: dict[str, float] = {}
    for player, (place, width) in piles.items():
        left = player_left(table, player)
        ups = [np.asarray(c["quad"], np.float64).mean(axis=0) for c in labels[0].get("cards", [])
               if c.get("owner") == player and c.get("face_up")]
        if left is None or not ups or width <= 0:
            continue
        true = max(ups, key=lambda c: float(c @ left))
        out[player] = round(float(np.linalg.norm(np.asarray(place, np.float64) - true)) / width, 2)
    return out


def reading_accuracy(looks: dict[int, Any], labels: list[dict[str, Any]],
                     max_dist: float = 12.0, sure: float = 0.9) -> dict[str, dict[str, int]]:
    """How often the models named the cards they saw right, look by look.

    Every whole-card sighting (:class:`~nertz.vision.tracker.Sighting` with ``whole``) of every
    look is matched to the most visible face-up card of that frame's labels whose quad centre
    lies within ``max_dist`` pixels of its own (on a pile the top card, not the cards under it;
    none: left out), and counted in the band of that card's visible share
    (:data:`READING_BANDS`). A card lying still is counted once per look, so the
    figures weigh cards by how long they lie in view; they measure the classifiers as the
    referee uses them (the covered-card classifier on cards under a hand, the rectified-card
    classifier on the others), not the plays.

    Args:
        looks: frame index -> :class:`~nertz.vision.tracker.Look` (the models' looks).
        labels: the round's per-frame labels (:func:`~nertz.vision.observe.read_labels`),
            frame ``i`` at index ``i``.
        max_dist: the largest centre distance of a match, frame pixels.
        sure: a wrong reading at least this probable is also counted as ``wrong_sure``.

    Returns:
        band name -> ``{"n", "wrong", "wrong_sure"}`` counts (bands without sightings left out).
    """
    out: dict[str, Counter] = {}
    for lk in looks.values():
        if lk.frame >= len(labels):
            continue
        cards = [c for c in labels[lk.frame].get("cards", []) if c.get("face_up")]
        if not cards:
            continue
        centres = np.array([np.mean(c["quad"], axis=0) for c in cards], np.float32)
        visible = np.array([float(c.get("visible", 1.0)) for c in cards], np.float32)
        for s in lk.faces:
            if not s.whole:
                continue
            dist = np.linalg.norm(centres - np.asarray(s.quad, np.float32).mean(axis=0), axis=1)
            near = np.nonzero(dist <= max_dist)[0]
            if not len(near):
                continue
            j = int(near[np.argmax(visible[near])])  # on a pile: the top card, not those under it
            vis = float(visible[j])
            band = next(name for low, name in READING_BANDS if vis >= low)
            c = out.setdefault(band, Counter())
            c["n"] += 1
            if s.label != cards[j].get("identity", cards[j].get("card")):
                c["wrong"] += 1
                c["wrong_sure"] += s.prob >= sure
    return {name: {k: int(out[name][k]) for k in ("n", "wrong", "wrong_sure")}
            for _, name in READING_BANDS if name in out}


def _format_readings(readings: dict[str, Any]) -> str:
    """One line of :func:`reading_accuracy`'s counts: per band, the share read wrong."""
    return "; ".join(f"visible {band}: {c['wrong']} of {c['n']} wrong ({c['wrong'] / max(c['n'], 1):.3f}), "
                     f"{c['wrong_sure']} of them at p >= 0.9" for band, c in readings.items())


def _labels_file(folder: Path) -> Path:
    """The round's per-frame labels: ``labels.jsonl.gz`` (``nertz synth round --gzip-labels``)
    when present, else ``labels.jsonl`` (the default); a missing file is reported by
    :func:`read_labels`."""
    gz = folder / "labels.jsonl.gz"
    return gz if gz.is_file() else folder / "labels.jsonl"


def _cache_file(cache: str | Path, folder: Path, stride: int, strips: bool = False, observer: str = "") -> Path:
    """The cache file of a round's model looks: named by the round's folder, the stride,
    whether strips were named (:class:`~nertz.vision.observe.ModelObserver`) and a hash of the
    shipped model files (sizes and modification times), the clip's and ``observer`` (the
    observer's :attr:`~nertz.vision.observe.ModelObserver.cache_key`)."""
    from .detect import MODELS

    h = hashlib.sha1(observer.encode())
    for f in sorted(Path(MODELS).glob("*.onnx")) + [folder / "clip.mp4"]:
        st = f.stat()
        h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return Path(cache) / f"{folder.resolve().name}-s{stride}{'-strips' if strips else ''}-{h.hexdigest()[:12]}.pkl"


def evaluate_round(folder: str | Path, use_labels: bool = False, stride: int = 3,
                   nertz_left_from_truth: bool = False, settings: Any = None,
                   looks_cache: str | Path | None = None) -> dict[str, Any]:
    """Referee a rendered round and compare with its truth; returns :func:`compare`'s dict
    plus the pipeline's speed figures.

    Args:
        folder: a ``nertz synth round`` output folder.
        use_labels: look through the labels instead of the models.
        stride: observe every ``stride``-th frame.
        nertz_left_from_truth: give the referee the true Nertz counts; without, it counts
            them from the video as ``nertz referee`` does: from each Nertz pile's top card
            (:mod:`nertz.vision.nertz_pile`), else from the players' spreads after the call
            (:mod:`nertz.vision.spread_count`); the result's ``nertz_by_way`` gives both per
            player beside the true count.
        settings: :class:`~nertz.vision.tracker.TrackerSettings` (default: the defaults).
        looks_cache: a folder keeping the models' looks of each round (see the module
            docstring); ignored with ``use_labels``.

    Raises:
        NertzError: missing or unreadable files.
    """
    from .observe import LabelObserver, read_labels, referee_observer
    from .pipeline import RefereePipeline
    from .sources import open_source

    d = Path(folder)
    table = read_table(d / "table.json")
    read_event_log(d / "events.jsonl")  # validates, with file and line in any error
    truth = [json.loads(line) for line in (d / "events.jsonl").read_text().splitlines() if line.strip()]
    result_truth = json.loads((d / "result.json").read_text())
    labels = read_labels(_labels_file(d))  # before the video: a round without labels fails at once
    # read as `nertz referee` reads a file (the same frame times: the decoder's media time)
    src = open_source(d / "clip.mp4")
    fps = src.fps or 30.0
    if use_labels:
        observer = LabelObserver(labels)
    else:
        observer = referee_observer(table, strips=bool(settings and settings.zone_strips))
    model_observer = observer if hasattr(observer, "classified") else None
    cache_file = None
    if not use_labels:
        looks: dict[int, Any] = {}
        if looks_cache is not None:
            cache_file = _cache_file(looks_cache, d, stride, bool(settings and settings.zone_strips),
                                     getattr(observer, "cache_key", ""))
            looks = pickle.loads(cache_file.read_bytes()) if cache_file.is_file() else {}
        if looks:
            model_observer = None  # replayed: nothing is classified
        observer = _RecordedLooks(looks, model_observer)  # kept for reading_accuracy
    calls = [(e["player"], e["t"]) for e in truth if e.get("type") == "call"]
    pipe = RefereePipeline(table, observer, stride=stride, fps=fps, calls=calls, settings=settings,
                           counts_from_video=not nertz_left_from_truth)
    with src:
        pipe.run((f.index, f.t, f.image) for f in src)
    if cache_file is not None and observer.observer is not None:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_bytes(pickle.dumps(observer.looks))
    left = {e["player"]: e["count"] for e in truth if e.get("type") == "nertz_left"} if nertz_left_from_truth else None
    result_pred = pipe.finish(left)
    how = {(card, pile, player): rule for _, card, pile, player, rule in pipe.tracker.attributions}
    out = compare(table, truth, pipe.events, fps, result_truth, result_pred, how)
    if not nertz_left_from_truth:  # each way of counting the Nertz cards left, against the truth
        lt = {n: v["nertz_left"] for n, v in result_truth["players"].items()
              if n != result_truth.get("caller") and "nertz_left" in v}
        out["nertz_by_way"] = {n: {"pile": pipe.pile_counts.get(n), "spread": pipe.spread_counts.get(n), "true": k}
                               for n, k in lt.items()}
        # the tops the Nertz pile watch read, where its count is wrong (its runs of one card: nertz_pile.top_cards)
        out["nertz_tops_wrong"] = {n: pipe.nertz_piles.tops(n) for n, c in out["nertz_by_way"].items()
                                   if c["pile"] is not None and c["pile"] != c["true"]}
    located = {n: (pile.place, pile.width) for n, pile in pipe.nertz_piles.piles.items()}
    out["nertz_piles_off"] = nertz_piles_off(located, table, labels)
    late = _latency_after_hand(out.pop("_pairs"), pipe, labels, fps)
    lat = [x for x, _ in late]
    # a collision's plays wait for the ruling (the tracker holds a contested pair: ``hold``)
    collided = {(e.get("card"), e.get("pile")) for e in truth if e.get("type") == "ruling" and e.get("kind") == "collision"}
    out["latency_after_hand_s"] = [round(x, 3) for x in lat]
    out["latency_in_collisions"] = [(g.get("card"), g.get("pile")) in collided for _, g in late]
    out["late"] = [f"{g.get('card')} pile {g.get('pile')} {g.get('player')} at {float(g['t']):.2f} s: "
                   f"reported {x:.2f} s after the hand left"
                   f"{' (a collision)' if (g.get('card'), g.get('pile')) in collided else ''}" for x, g in late if x > 0.5]
    out["speed"] = pipe.stats.summary()
    if lat:
        out["speed"]["latency_after_hand_s_median"] = round(float(np.median(lat)), 3)
        out["speed"]["latency_after_hand_s_max"] = round(float(np.max(lat)), 3)
        out["speed"]["latency_after_hand_over_0_5s"] = int(sum(x > 0.5 for x in lat))
    if not use_labels:
        out["readings"] = reading_accuracy(observer.looks, labels)
    if model_observer is not None:
        out["speed"]["faces_classified"] = model_observer.classified
        out["speed"]["faces_reused"] = model_observer.reused
    return out


def _setting(text: str, kind: type) -> Any:
    """A ``--set`` value: ``None`` (or ``null``) for any field, else read as the field's
    default is (a bool from ``1``/``true``/``yes``; a tuple as a Python literal, e.g.
    ``10,5``). Raises ValueError when it cannot be read so."""
    if text.strip().lower() in ("none", "null"):
        return None
    if kind is bool:
        return text.lower() in ("1", "true", "yes")
    if kind is tuple:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError) as exc:
            raise ValueError(f"{text!r} is not a tuple such as 10,5") from exc
        if not isinstance(value, tuple):
            raise ValueError(f"{text!r} is not a tuple such as 10,5")
        return value
    return kind(text)


def main(argv: list[str] | None = None) -> int:
    """The command line of the module docstring; returns the exit status."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m nertz.vision.referee_eval", description=__doc__.split("\n")[0])
    ap.add_argument("rounds", nargs="+")
    ap.add_argument("--labels", action="store_true", help="look through the labels (perfect eyes)")
    ap.add_argument("--stride", type=int, default=3)
    ap.add_argument("--true-counts", action="store_true", help="give the referee the true Nertz counts")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--looks-cache", metavar="DIR", help="keep and replay the models' looks of each round here")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="a TrackerSettings field, e.g. --set rules_prior=1 (repeatable)")
    a = ap.parse_args(argv)
    from .tracker import TrackerSettings

    try:
        fields = {f: type(getattr(TrackerSettings(), f)) for f in TrackerSettings.__dataclass_fields__}
        kv = dict(x.split("=", 1) for x in a.set)
        bad = sorted(set(kv) - set(fields))
        if bad:
            raise ValueError(f"unknown settings {bad}; known: {sorted(fields)}")
        settings = TrackerSettings(**{k: _setting(v, fields[k]) for k, v in kv.items()})
    except ValueError as exc:
        print(f"error: --set: {exc}", file=sys.stderr)
        return 2
    tot: Counter = Counter()
    readings: dict[str, Counter] = {}
    dt_frames: list[float] = []
    latency: list[float] = []
    in_collisions: list[bool] = []
    try:
        for r in a.rounds:
            res = evaluate_round(r, a.labels, a.stride, a.true_counts, settings, a.looks_cache)
            if a.json:
                print(json.dumps({"round": r, **res}))
            else:
                print(f"{r}: plays {res['plays']} predicted {res['predicted']} | card+pile {res['found_card_pile']} "
                      f"owner {res['right_owner']} <=2 frames {res['within_two_frames']} all {res['all_right']} "
                      f"extra {res['extra']} | dt median {res['dt_median_s']} | collisions {res['collisions_right']}/"
                      f"{res['collisions']} (predicted {res['collisions_predicted']}) | scores exact "
                      f"{res.get('scores_exact')} {res.get('scores_pred')} vs {res.get('scores_truth')} | {res['speed']}")
                if "owner_by_rule" in res:
                    print(f"    owner by rule: {res['owner_by_rule']}")
                if "readings" in res:
                    print(f"    readings per look: {_format_readings(res['readings'])}")
                if "nertz_by_way" in res:
                    print("    Nertz cards left (pile / spread / true): " + ", ".join(
                        f"{n} {c['pile']}/{c['spread']}/{c['true']}" for n, c in res["nertz_by_way"].items()))
                for n, tops in res.get("nertz_tops_wrong", {}).items():
                    print(f"    Nertz pile count wrong, {n}'s tops as read: {' '.join(tops)}")
                if res.get("nertz_piles_off"):
                    print("    Nertz piles located, card widths off the true place: " + ", ".join(
                        f"{n} {off}" for n, off in res["nertz_piles_off"].items()))
                for k in ("missed", "wrong_owner", "off_time", "extras", "collision_missed", "collision_wrong", "late"):
                    for line in res[k][:12]:
                        print(f"    {k}: {line}")
            for k in ("plays", "predicted", "found_card_pile", "right_owner", "within_two_frames", "all_right",
                      "extra", "collisions", "collisions_right"):
                tot[k] += res[k]
            tot["rounds"] += 1
            dt_frames += res["dt_frames"]
            latency += res.get("latency_after_hand_s", [])
            in_collisions += res.get("latency_in_collisions", [])
            for band, c in res.get("readings", {}).items():
                readings.setdefault(band, Counter()).update(c)
            tot["scores_exact"] += bool(res.get("scores_exact"))
            tot["score_error"] += res.get("score_error", 0)
            for k in ("nertz_left_counts", "nertz_left_exact", "nertz_left_within_one"):
                tot[k] += res.get(k, 0)
            for off in res.get("nertz_piles_off", {}).values():
                tot["piles_located"] += 1
                tot["piles_located_right"] += off <= 0.5
            for c in res.get("nertz_by_way", {}).values():
                for way in ("pile", "spread"):
                    tot[f"{way}_counted"] += c[way] is not None
                    tot[f"{way}_exact"] += c[way] == c["true"]
    except NertzError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    n = max(tot["plays"], 1)
    print(f"TOTAL rounds {tot['rounds']}: plays {tot['plays']}, all right {tot['all_right'] / n:.3f}, "
          f"card+pile {tot['found_card_pile'] / n:.3f}, owner {tot['right_owner'] / n:.3f}, "
          f"<=2 frames {tot['within_two_frames'] / n:.3f}, extra {tot['extra'] / n:.3f}, "
          f"collisions {tot['collisions_right']}/{tot['collisions']}, scores exact {tot['scores_exact']}/{tot['rounds']}, "
          f"points off {tot['score_error']} (sum over rounds and players of |scored - true|), "
          f"Nertz counts exact {tot['nertz_left_exact']}/{tot['nertz_left_counts']} "
          f"(within one {tot['nertz_left_within_one']})")
    if tot["pile_counted"] or tot["spread_counted"]:
        print(f"TOTAL Nertz counts by way: the pile's top card exact {tot['pile_exact']} of {tot['pile_counted']} "
              f"counted, the spread exact {tot['spread_exact']} of {tot['spread_counted']} counted "
              f"({tot['nertz_left_counts']} to count)")
    if tot["piles_located"]:
        print(f"TOTAL Nertz piles located within half a card of the true place: {tot['piles_located_right']} "
              f"of {tot['piles_located']}")
    if dt_frames:
        print(f"TOTAL times of the matched plays, frames late (-: early): {_format_timing(dt_frames)}")
    if latency:
        lat = np.asarray(latency)
        print(f"TOTAL latency after the hand left the card (media s, {lat.size} plays): median "
              f"{np.median(lat):.3f}, 90th percentile {np.percentile(lat, 90):.3f}, max {lat.max():.3f}; "
              f"over 0.5 s: {int((lat > 0.5).sum())} ({(lat > 0.5).mean():.1%}), of them in collisions "
              f"{int((lat > 0.5)[np.asarray(in_collisions, bool)].sum()) if len(in_collisions) == lat.size else '?'}")
    if readings:
        print(f"TOTAL readings per look: {_format_readings(readings)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
