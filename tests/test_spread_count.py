"""The Nertz cards left counted from the players' spreads (vision/spread_count.py) and the
pipeline's use of it at the round's end.

The rules of the count are tested with fake audits (which strip lies where); one rendered
audit scene checks that the real audit plugs in. Accuracy is measured on rendered rounds by
``python -m nertz.vision.referee_eval ROUND...`` (without ``--true-counts``), not here.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import TWO_ZONE_TABLE, card_quad

from nertz.referee.table import Table
from nertz.vision import spread_count
from nertz.vision.audit import AuditError, AuditResult, Strip
from nertz.vision.observe import LabelObserver
from nertz.vision.pipeline import SPREAD_AFTER_S, RefereePipeline
from nertz.vision.spread_count import count_spreads

TABLE = TWO_ZONE_TABLE
box = card_quad


def result(*strips: tuple) -> AuditResult:
    """An audit result of strips ``(owner, x, y, zone, spread)`` or ``(owner, x, y, zone,
    spread, width)``: the visible part of a card of a row, 12 pixels wide unless given."""
    return AuditResult({"red": 0, "blue": 0}, {"red": {}, "blue": {}}, 0, 0,
                       [Strip(o, box(x, y, *rest[:1] or (12,)), z, s, "model") for o, x, y, z, s, *rest in strips])


def fake_audits(monkeypatch, by_frame: dict[int, AuditResult | None]) -> None:
    """Frames are plain images whose pixel value names their fake audit."""
    def fake(image, table):
        r = by_frame[int(image[0, 0, 0])]
        if r is None:
            raise AuditError("no face-down card of any registered back")
        return r
    monkeypatch.setattr(spread_count, "audit", fake)


def frame(k: int) -> np.ndarray:
    return np.full((72, 128, 3), k, np.uint8)


STOCK = ("red", 850, 600, "red", 9)  # red's stock: one back, there before the call and after


def test_the_stock_is_not_counted_but_a_spread_over_its_place_is(monkeypatch):
    spread = [("red", 400 + 12 * i, 600, "red", 1) for i in range(5)]
    fake_audits(monkeypatch, {
        0: result(STOCK),
        1: result(STOCK, *spread, ("blue", 100, 300, "blue", 2), ("blue", 112, 300, "blue", 2)),
        # a spread of two lying where a back lay before the call is still counted
        2: result(("red", 850, 600, "red", 3), ("red", 862, 600, "red", 3)),
    })
    assert count_spreads([frame(0)], [frame(1)], TABLE) == {"red": 5, "blue": 2}
    assert count_spreads([frame(0)], [frame(2)], TABLE) == {"red": 2, "blue": 0}
    # without the frames before the call the stock counts as a card
    assert count_spreads([], [frame(1)], TABLE) == {"red": 6, "blue": 2}


def test_a_card_found_twice_counts_once(monkeypatch):
    # three strips (x 394-430) and the row's last card, whole (x 430-470), on whose patterned
    # back a second strip is found (x 450-462, inside it)
    row = [("red", 400 + 12 * i, 600, "red", 1) for i in range(3)]
    twice = ("red", 450, 600, "red", 1, 40), ("red", 456, 600, "red", 1, 12)
    fake_audits(monkeypatch, {1: result(*row, *twice), 2: result(*row, ("red", 434, 600, "red", 1, 12))})
    assert count_spreads([], [frame(1)], TABLE)["red"] == 4
    # strips of a row that touch, or overlap by less than SAME_CARD_OVERLAP, are cards of their own
    assert spread_count.SAME_CARD_OVERLAP > 2 / 12
    assert count_spreads([], [frame(2)], TABLE)["red"] == 4


def test_only_own_backs_in_own_zone_count(monkeypatch):
    fake_audits(monkeypatch, {1: result(("blue", 400, 600, "red", 1), ("red", 100, 300, "blue", 2),
                                        ("red", 600, 300, "shared", 3), ("unknown", 500, 600, "red", 1))})
    assert count_spreads([], [frame(1)], TABLE) == {"red": 0, "blue": 0}


def test_the_median_over_frames_is_kept_and_frames_without_backs_are_skipped(monkeypatch):
    row = lambda n: [("red", 400 + 12 * i, 600, "red", 1) for i in range(n)]  # noqa: E731
    fake_audits(monkeypatch, {1: result(*row(4)), 2: result(*row(1)), 3: result(*row(4)), 4: None,
                              5: result(("blue", 100, 300, "blue", 2))})
    assert count_spreads([frame(4)], [frame(1), frame(2), frame(3), frame(4)], TABLE) == {"red": 4, "blue": 0}
    # frames where a player has no card (not spread yet, or all under a hand) are not counted
    assert count_spreads([], [frame(5), frame(5), frame(1)], TABLE) == {"red": 4, "blue": 1}
    assert count_spreads([], [frame(4)], TABLE) == {}  # nothing could be audited
    assert count_spreads([], [], TABLE) == {}


RED_INK, SKIN, PAPER = (45.0, 60.0, 40.0), (70.0, 18.0, 22.0), (95.0, 0.0, 2.0)


def inked(ink, x: float, spread: int = 1) -> Strip:
    """A strip of red's back in red's zone whose ink (CIELAB) is ``ink`` (None: not measured)."""
    return Strip("red", box(x, 600, 12), "red", spread, "model", None if ink is None else np.array(ink))


def test_strips_whose_ink_is_not_the_spreads_are_not_counted(monkeypatch):
    # five cards of a row (their inks a little apart, as light and blur make them), a forearm
    # and a face-up card's paper that the colour map read as a pale red back, one strip unmeasured
    row = [inked(np.add(RED_INK, (3 * i - 6, i - 2, 2 - i)), 400 + 12 * i) for i in range(5)]
    others = [inked(SKIN, 700, 2), inked(SKIN, 712, 2), inked(PAPER, 300, 3), inked(None, 462)]
    assert spread_count.same_ink(row + others) == row + others[3:]
    assert spread_count.same_ink(row + others, radius=None) == row + others
    assert spread_count.same_ink(others[:1] + others[3:]) == others[:1] + others[3:]  # one ink: nothing to compare
    fake_audits(monkeypatch, {1: AuditResult({"red": 0, "blue": 0}, {"red": {}, "blue": {}}, 0, 0, row + others)})
    assert count_spreads([], [frame(1)], TABLE)["red"] == 6
    # more false strips than true ones but spread apart: the cards' ink is still the densest
    fakes = [inked(np.add(SKIN, (0, 8 * i, -8 * i)), 700 + 12 * i, 2) for i in range(7)]
    assert spread_count.same_ink(row + fakes) == row


def test_a_count_is_never_more_than_the_nertz_pile(monkeypatch):
    fake_audits(monkeypatch, {1: result(*[("red", 400 + 12 * i, 600, "red", 1) for i in range(20)])})
    assert count_spreads([], [frame(1)], TABLE)["red"] == 13


def test_no_zones_no_counts(monkeypatch):
    fake_audits(monkeypatch, {1: result(STOCK)})
    bare = Table.from_dict({"players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "#1e4bb3"}],
                            "shared_area": [[0, 0], [900, 0], [900, 700], [0, 700]]})
    assert count_spreads([], [frame(1)], bare) == {}


def test_the_pipeline_counts_the_spreads_after_the_call_for_players_without_a_count(monkeypatch):
    # every frame's one pixel names its audit: 0 during play (the stock), 1 once spread (from
    # 5 s), 2 from 12 s (something else laid there long after the call)
    fake_audits(monkeypatch, {0: result(STOCK), 1: result(STOCK, *[("red", 400 + 12 * i, 600, "red", 1) for i in range(3)]),
                              2: result(*[("red", 400 + 12 * i, 600, "red", 1) for i in range(8)])})
    empty = [{"frame": i, "t": i / 30, "cards": [], "hands": []} for i in range(600)]

    def run(calls, nertz_left=None, count=True, end_s=10.0):
        pipe = RefereePipeline(TABLE, LabelObserver(empty), calls=calls, nertz_left=nertz_left, counts_from_video=count)
        for i in range(int(end_s * 30)):
            t = i / 30
            pipe.step(i, t, frame(0 if t < 5.0 else 1 if t < 12.0 else 2))
        kept = pipe.spread_frames
        return pipe, pipe.finish(), kept

    pipe, res, kept = run([("blue", 4.0)])  # blue calls; red spreads 3 cards from 5 s on
    assert pipe.spread_counts == {"red": 3}
    assert res["players"]["red"]["nertz_left"] == 3
    assert not any(r.kind == "no_count" for r in pipe.round.rulings)
    pipe, res, kept = run([("blue", 4.0)], nertz_left={"red": 7})  # a count given is kept
    assert kept == 0 and pipe.spread_counts == {} and res["players"]["red"]["nertz_left"] == 7
    pipe, res, kept = run([("blue", 4.0)], count=False)
    assert pipe.spread_counts == {} and any(r.kind == "no_count" for r in pipe.round.rulings)
    # the 6 s from 2 s after the call are counted, not what the table shows long after
    pipe, res, kept = run([("blue", 4.0)], end_s=18.0)
    assert pipe.spread_counts == {"red": 3}
    # the frames audited: 3 from the 1.2 s before the call, 10 from the 6 s after SPREAD_AFTER_S
    seen = []
    real = spread_count.audit
    monkeypatch.setattr(spread_count, "audit", lambda image, table: seen.append(int(image[0, 0, 0])) or real(image, table))
    pipe, res, kept = run([("blue", 4.0)], end_s=18.0)
    assert kept == 10 and pipe.spread_frames == 0
    assert sorted(seen) == [0] * 3 + [1] * 10 and pipe.spread_counts == {"red": 3}
    # the source ends before the spreads could be laid out: no count from the video
    pipe, res, kept = run([("blue", 9.0)], end_s=9.0 + SPREAD_AFTER_S - 0.5)
    assert pipe.spread_counts == {}


def test_the_spread_frames_do_not_depend_on_how_the_source_times_its_frames(monkeypatch):
    # a file's frames are timed by the decoder (milliseconds) and the evaluation's by index /
    # fps: the two differ in the last bits, and the frames kept every 0.6 s must not
    seen: dict[str, list[int]] = {}
    empty = [{"frame": i, "t": i / 30, "cards": [], "hands": []} for i in range(400)]
    for clock, t_of in {"index": lambda i: i / 30, "media": lambda i: (i * 1000 / 30) / 1000}.items():
        got = seen.setdefault(clock, [])

        def record(image, table, got=got):
            got.append(int(image[0, 0, 0]) * 256 + int(image[0, 0, 1]))
            return result()
        monkeypatch.setattr(spread_count, "audit", record)
        pipe = RefereePipeline(TABLE, LabelObserver(empty), calls=[("blue", 4.0)])
        for i in range(400):
            f = np.zeros((72, 128, 3), np.uint8)
            f[0, 0, :2] = divmod(i, 256)
            pipe.step(i, t_of(i), f)
        pipe.finish()
    assert seen["index"] == seen["media"]
    after, before = seen["index"][:10], seen["index"][10:]  # the spreads are audited first
    assert after == list(range(180, 360, 18))  # from 6 s (2 s after the call), one every 0.6 s
    assert before == [72, 90, 108]  # the last three of one every 0.6 s until the call at 4 s


@pytest.mark.parametrize("seed", [2])
def test_a_rendered_scene_counts_as_the_audit_of_its_zones(seed):
    from nertz.datasets.audit_scenes import make_audit_scene
    from nertz.vision.audit import audit
    from nertz.vision.audit_strips import STRIPS_ONNX

    if not STRIPS_ONNX.is_file():
        pytest.skip("models/audit_strips.onnx is not shipped")
    sc = make_audit_scene(seed, resolution=(1920, 1080), n_players=2, max_per_player=8, arrangements=("row",),
                          hands=False, extras=False)
    table = Table.from_dict(sc.table)
    res = audit(sc.frame, table)
    assert count_spreads([], [sc.frame], table) == {p: res.zones.get(p, {}).get(p, 0) for p in table.zones}
    assert count_spreads([], [sc.frame], table) == sc.truth.zones  # this scene's zones are counted exactly
    model = [s for s in res.strips if s.how == "model"]
    assert model and all(s.ink is None or s.ink.shape == (3,) for s in model)
    assert sum(s.ink is not None for s in model) >= 0.9 * len(model)  # the strips' inks are measured
