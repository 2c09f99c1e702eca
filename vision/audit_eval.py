"""Measure the round audit on rendered audit scenes: ``python -m nertz.vision.audit_eval N SEED
[--res WxH] [--arrangements row,fan,heap] [--method M[,M...]] [--verbose]``
(methods of :data:`nertz.vision.audit.METHODS`, default ``auto``; several: the same scenes
for each).

Renders ``N`` audit scenes (:func:`nertz.datasets.audit_scenes.make_audit_scene`, seeds
``SEED .. SEED + N - 1``; use seeds >= 10000 for held-out figures: the thresholds of
:mod:`nertz.vision.audit` were set on seeds below 1000), audits each frame with its table file,
and prints:

- the share of scenes where every colour's count is exact (shared area and each zone's own
  Nertz leftovers), and where every count is within one card;
- the mean absolute error per (scene, colour, place) count, by arrangement kind present;
- the median time of :func:`nertz.vision.audit.audit` per image (rendering not included);
- the share of scenes whose ``unknown`` and ``face_up`` counts are exact;
- per spread kind (row, fan, heap, zone: a player's Nertz leftovers), the share of spreads
  whose count (and whose count per colour) is exact; each counted card is given to the true
  spread nearest to its strip, so this is a diagnosis, not a contract figure.
"""

from __future__ import annotations

import sys
import time

import numpy as np


def evaluate(n: int, seed: int, resolution=(1920, 1080), arrangements=("row", "fan", "heap"),
             verbose: bool = False, method: str = "auto") -> dict:
    """Run the evaluation; returns the figures as a dict (see the module docstring)."""
    return evaluate_methods(n, seed, resolution, arrangements, verbose, (method,))[method]


def evaluate_methods(n: int, seed: int, resolution=(1920, 1080), arrangements=("row", "fan", "heap"),
                     verbose: bool = False, methods=("auto",)) -> dict:
    """The same for several counting methods (:data:`nertz.vision.audit.METHODS`) on the same
    scenes (each scene rendered once); returns ``{method: figures}``."""
    from nertz.datasets.audit_scenes import make_audit_scene

    from .audit import AuditError, audit

    st = {m: {"exact": 0, "within1": 0, "errs": [], "times": [], "kinds": {},
              "extra": {"unknown": 0, "face_up": 0}} for m in methods}
    for k in range(n):
        sc = make_audit_scene(seed + k, resolution, arrangements=tuple(arrangements))
        for m in methods:
            f = st[m]
            t0 = time.perf_counter()
            try:
                res = audit(sc.frame, sc.table, m)
                counts = res.counts
                zones = {p: res.zones.get(p, {}).get(p, 0) for p in sc.truth.zones}
            except AuditError:
                res = None
                counts = {p: 0 for p in sc.truth.shared}
                zones = {p: 0 for p in sc.truth.zones}
            f["times"].append(time.perf_counter() - t0)
            if res is not None:
                f["extra"]["unknown"] += int(res.unknown == sc.truth.unknown)
                f["extra"]["face_up"] += int(res.face_up == sc.truth.face_up)
            for kind, n_ok, c_ok in _per_spread(sc, res):
                tally = f["kinds"].setdefault(kind, [0, 0, 0])
                tally[0] += 1
                tally[1] += n_ok
                tally[2] += c_ok
            e = [counts[p] - sc.truth.shared[p] for p in sc.truth.shared]
            e += [zones[p] - sc.truth.zones[p] for p in sc.truth.zones]
            e = np.abs(np.array(e))
            f["errs"].extend(e.tolist())
            f["exact"] += int(e.max() == 0)
            f["within1"] += int(e.max() <= 1)
            if verbose:
                present = sorted({g[0] for g in sc.truth.groups})
                print(f"seed {seed + k} {m}: max err {e.max()}  kinds {present}  "
                      f"shared true {sc.truth.shared} got {counts}  zones true {sc.truth.zones} got {zones}",
                      flush=True)
    return {m: {"scenes": n, "exact": f["exact"] / n, "within_one": f["within1"] / n,
                "mae": float(np.mean(f["errs"])), "median_s": float(np.median(f["times"])),
                "unknown_exact": f["extra"]["unknown"] / n, "face_up_exact": f["extra"]["face_up"] / n,
                "spreads": {k: {"n": v[0], "count_exact": v[1] / v[0], "colours_exact": v[2] / v[0]}
                            for k, v in sorted(f["kinds"].items())}}
            for m, f in st.items()}


def _per_spread(sc, res) -> list[tuple[str, int, int]]:
    """``(kind, count exact, count per colour exact)`` for every true spread of a scene."""
    from collections import Counter

    cards = sc.labels["cards"]
    groups = []
    i = 0
    for kind, owners in sc.truth.groups:
        q = np.array([c["quad"] for c in cards[i:i + len(owners)]], np.float64)
        groups.append((kind, owners, q.reshape(-1, 2).mean(axis=0)))
        i += len(owners)
    i += sc.truth.face_up
    for p, m in sc.truth.zones.items():
        if m:
            q = np.array([c["quad"] for c in cards[i:i + m]], np.float64)
            groups.append(("zone", [p] * m, q.reshape(-1, 2).mean(axis=0)))
            i += m
    found: dict[int, list[str]] = {}
    if res is not None and groups:
        by_spread: dict[int, list] = {}
        for s in res.strips:
            by_spread.setdefault(s.spread, []).append(s)
        ctrs = np.array([g[2] for g in groups])
        for ss in by_spread.values():
            c = np.mean([s.quad.mean(axis=0) for s in ss], axis=0)
            j = int(np.argmin(np.hypot(*(ctrs - c).T)))
            found.setdefault(j, []).extend(s.owner for s in ss)
    out = []
    for j, (kind, owners, _) in enumerate(groups):
        f = found.get(j, [])
        want = Counter("unknown" if o.startswith("~") else o for o in owners)
        out.append((kind, int(len(f) == len(owners)), int(Counter(f) == want)))
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry; returns the exit status (2 for bad arguments)."""
    args = list(sys.argv[1:] if argv is None else argv)
    usage = ("usage: python -m nertz.vision.audit_eval N SEED [--res WxH] [--arrangements row,fan,heap] "
             "[--method M[,M...]] [--verbose]")
    verbose = "--verbose" in args
    args = [a for a in args if a != "--verbose"]
    res, arr, method = (1920, 1080), ("row", "fan", "heap"), "auto"
    try:
        if "--method" in args:
            i = args.index("--method")
            method = args[i + 1]
            del args[i:i + 2]
        if "--res" in args:
            i = args.index("--res")
            w, h = args[i + 1].lower().split("x")
            res = (int(w), int(h))
            del args[i:i + 2]
        if "--arrangements" in args:
            i = args.index("--arrangements")
            arr = tuple(args[i + 1].split(","))
            del args[i:i + 2]
        n, seed = int(args[0]), int(args[1])
    except (IndexError, ValueError):
        print(usage, file=sys.stderr)
        return 2
    methods = tuple(method.split(","))
    from .audit import METHODS

    if any(m not in METHODS for m in methods):
        print(f"unknown method in {method!r}; choose from {METHODS}", file=sys.stderr)
        return 2
    for m, r in evaluate_methods(n, seed, res, arr, verbose, methods).items():
        print(f"[{m}] scenes {r['scenes']}  every colour exact {100 * r['exact']:.1f} %  within one card "
              f"{100 * r['within_one']:.1f} %  mean abs error {r['mae']:.2f} cards  "
              f"median audit time {r['median_s']:.2f} s per {res[0]}x{res[1]} image")
        print(f"  unknown count exact in {100 * r['unknown_exact']:.0f} % of scenes, face-up count exact "
              f"in {100 * r['face_up_exact']:.0f} %")
        for k, v in r["spreads"].items():
            print(f"  {k:5s} spreads {v['n']:4d}: count exact {100 * v['count_exact']:.0f} %, "
                  f"count per colour exact {100 * v['colours_exact']:.0f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
