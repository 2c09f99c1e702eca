"""Measure the renderer's speed on a simulated round (prints medians; never run by tests).

Usage::

    python -m nertz.datasets.render_bench [--players 3] [--seconds 60] [--start 0]
        [--width 1280 --height 720] [--workers 2] [--seed 5]

Simulates a round (:func:`nertz.datasets.sim.simulate_round`), splits the frames of
``[start, start + seconds)`` at 30 fps into ``workers`` contiguous chunks, renders each chunk
in its own process (each builds the same scene from the seed) and prints the wall time, the
median / mean / 95th-percentile milliseconds per frame and the number of labelled cards.
"""

from __future__ import annotations

import argparse
import time
from multiprocessing import Pool

import numpy as np

__all__ = ["main"]


def _work(args: tuple) -> tuple[float, list[float], list[int]]:
    seed, players, res, t0, lo, hi, fps = args
    from nertz.datasets.render import make_scene, render_frame
    from nertz.datasets.sim import SimSettings, simulate_round

    sim = simulate_round(SimSettings(players=players), seed=seed)
    a = time.perf_counter()
    sc = make_scene([(p["name"], p["back"]) for p in sim.table["players"]], seed, res)
    build = time.perf_counter() - a
    times, cards = [], []
    for f in range(lo, hi):
        st = sim.state_at(t0 + f / fps)
        a = time.perf_counter()
        _, lab = render_frame(sc, st)
        times.append(time.perf_counter() - a)
        cards.append(len(lab["cards"]))
    return build, times, cards


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--start", type=float, default=0.0)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args(argv)
    fps = 30
    n = int(round(a.seconds * fps))
    edges = np.linspace(0, n, a.workers + 1).astype(int)
    jobs = [(a.seed, a.players, (a.width, a.height), a.start, int(edges[i]), int(edges[i + 1]), fps)
            for i in range(a.workers)]
    t = time.perf_counter()
    with Pool(a.workers) as pool:
        out = pool.map(_work, jobs)
    wall = time.perf_counter() - t
    ms = np.concatenate([o[1] for o in out]) * 1000
    nc = np.concatenate([o[2] for o in out])
    print(f"{n} frames {a.width}x{a.height}, {a.players} players, {a.workers} processes: "
          f"wall {wall:.1f} s (incl. simulation and scene builds {max(o[0] for o in out):.1f} s); "
          f"per frame median {np.median(ms):.1f} ms, mean {ms.mean():.1f} ms, "
          f"p95 {np.percentile(ms, 95):.1f} ms; labelled cards per frame median {np.median(nc):.0f}, "
          f"max {nc.max()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
