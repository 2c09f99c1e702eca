"""Speed of the card recogniser on rendered 1280 x 720 frames (medians; ONNX Runtime on the CPU).

``python -m nertz.vision.bench [FRAMES] [SEED] [THREADS]`` prints the median milliseconds per
frame of the detector alone, of identification (classifier on every face crop + back colours),
of both, and per classified card. Frames are rendered first (not timed); each frame is run
three times and the median taken. Only meaningful on an otherwise idle machine.
"""

from __future__ import annotations

import sys
import time

import numpy as np


def main(frames: int = 8, seed: int = 4242, threads: int = 2) -> dict:
    """Measure; returns the medians (ms) and prints them."""
    from nertz.datasets.render import make_scene, render_frame
    from nertz.datasets.sim import SimSettings, simulate_round

    from .detect import CardRecognizer

    rng = np.random.default_rng(seed)
    samples = []
    while len(samples) < frames:
        rnd = simulate_round(SimSettings(players=int(rng.integers(2, 7))), int(rng.integers(1 << 31)))
        scene = make_scene(rnd.table["players"], int(rng.integers(1 << 31)), resolution=(1280, 720))
        for t in rng.uniform(0, rnd.duration, 2):
            samples.append((render_frame(scene, rnd.state_at(float(t)))[0], rnd.table))
    rec = CardRecognizer(table=samples[0][1], threads=threads)
    det_ms, id_ms, per_card = [], [], []
    for frame, _ in samples[:frames]:
        for _ in range(3):
            t0 = time.perf_counter()
            d = rec.detect(frame)
            t1 = time.perf_counter()
            rec.identify(frame, d)
            t2 = time.perf_counter()
            det_ms.append((t1 - t0) * 1e3)
            id_ms.append((t2 - t1) * 1e3)
            nf = int((d.class_id == 0).sum())
            if nf:
                per_card.append((t2 - t1) * 1e3 / nf)
    res = {"frames": frames, "detector_ms": float(np.median(det_ms)), "identify_ms": float(np.median(id_ms)),
           "total_ms": float(np.median(np.add(det_ms, id_ms))),
           "per_face_ms": float(np.median(per_card)) if per_card else float("nan"),
           "faces_per_frame": float(np.median([int((rec.detect(f).class_id == 0).sum()) for f, _ in samples[:frames]]))}
    print(" ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in res.items()))
    return res


if __name__ == "__main__":  # pragma: no cover
    a = [int(x) for x in sys.argv[1:]]
    main(*a)
