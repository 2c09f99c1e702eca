import pytest

from nertz.referee.errors import TableError
from nertz.referee.table import Rules, Table, delta_e, hex_to_lab


def base(**over):
    data = {"players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "#1e4bb3"}]}
    data.update(over)
    return data


def test_defaults_are_the_documented_ones():
    rules = Table.from_dict(base()).rules
    assert rules == Rules()
    assert (rules.target, rules.nertz_pile, rules.nertz_penalty, rules.nertz_bonus, rules.stock_turn) == (100, 13, 2, 0, 3)
    assert (rules.jokers, rules.partnerships, rules.tie, rules.in_air) == (False, False, "both_stay", "count")
    assert rules.tie_window == pytest.approx(0.034) and rules.in_air_grace == 1.0


@pytest.mark.parametrize(
    "data, fragment",
    [
        (base(players=[{"name": "red", "back": "#b3261e"}]), "players: a table needs at least 2 players"),
        (base(players=[{"name": "red", "back": "#b3261e"}, {"name": "red", "back": "#1e4bb3"}]), "two players are named"),
        (base(players=[{"name": "red", "back": "#b3261e"}, {"name": "blue"}]), "back"),
        (base(players=[{"name": "red", "back": "red"}, {"name": "blue", "back": "#1e4bb3"}]), "#rrggbb"),
        (base(players=[{"name": "red", "back": "#b3261e"}, {"name": "rouge", "back": "#b5281f"}]), "too close"),
        (base(rules={"targte": 50}), "unknown key"),
        (base(rules={"nertz_pile": 10}), "nertz_pile"),
        (base(rules={"tie": "coin"}), "tie"),
        (base(rules={"target": 0}), "target"),
        (base(zones={"green": [[0, 0], [1, 0], [1, 1]]}), "names no player"),
        (base(shared_area=[[0, 0], [1, 1]]), "at least 3 points"),
        (base(shared_area=[[0, 0], [10, 10], [0, 10], [10, 0]]), "crosses itself"),  # a bow-tie: corners out of order
        ([1, 2], "JSON object"),
        # values must have their JSON types: no strings for numbers or booleans, no booleans for numbers
        (base(rules={"jokers": "yes"}), "rules.jokers: must be true or false, not the text 'yes'"),
        (base(rules={"partnerships": 1}), "rules.partnerships: must be true or false, not 1"),
        (base(rules={"target": "100"}), "rules.target: must be a whole number, not the text '100'"),
        (base(rules={"target": 1e9}), "rules.target: must be a whole number"),
        (base(rules={"target": 10**9}), "more than the largest target, 1000 points"),
        (base(rules={"target": 100.5}), "rules.target: must be a whole number"),
        (base(rules={"stock_turn": True}), "rules.stock_turn: must be a whole number, not true"),
        (base(rules={"nertz_pile": "12"}), "rules.nertz_pile"),
        (base(rules={"nertz_bonus": "25"}), "rules.nertz_bonus: must be a whole number"),
        (base(rules={"tie_window": "0.1"}), "rules.tie_window: must be a number, not the text '0.1'"),
        (base(rules={"tie_window": float("nan")}), "rules.tie_window: NaN is not a finite number"),
        (base(rules={"in_air_grace": float("inf")}), "rules.in_air_grace: Infinity is not a finite number"),
        (base(shared_area=[[0, 0], [10, 0], [10, "10"]]), "shared_area.2.1: must be a number, not the text '10'"),
        # the frame size the camera's frames must have: it was ignored when the readers could not use it
        (base(calibration={"frame_size": "big"}), "calibration.frame_size: must be [width, height], two whole "
                                                  "numbers of pixels above 0"),
        (base(calibration={"frame_size": "big"}), "not the text 'big': correct it, or remove it"),
        (base(calibration={"frame_size": [1280]}), "calibration.frame_size: must be [width, height]"),
        (base(calibration={"frame_size": [1280, 0]}), "not 0 in it"),
        (base(calibration={"frame_size": [1280, 720.5]}), "not 720.5 in it"),
        (base(calibration={"frame_size": [True, 720]}), "not true in it"),
        (base(calibration={"frame_size": None}), "not null"),
        (base(calibration="layouts"), "calibration: must be an object"),
    ],
)
def test_invalid_tables_say_what_to_fix(data, fragment):
    with pytest.raises(TableError) as exc:
        Table.from_dict(data, source="t.json")
    assert fragment in str(exc.value) and str(exc.value).startswith("t.json")


def test_a_region_too_small_to_hold_a_card_is_refused():
    """A shared area of 1 x 1 pixels was accepted: the referee then watched a round in which no
    card could be played (every score 0), at no word of why. A region smaller than a card at
    the table's scale (1/1000 of calibration.frame_size's frame), or than 16 square pixels when
    the table does not say its frame size, is refused, with what to fix."""
    import json
    from pathlib import Path

    pixel = [[640, 360], [641, 360], [641, 361], [640, 361]]
    with pytest.raises(TableError) as exc:
        Table.from_dict(base(shared_area=pixel), source="t.json")
    assert str(exc.value) == (
        "t.json: polygon 'shared_area' has an area of 1 square pixels, too small to hold a card (the least a region "
        "may cover is 16; a card covers more): redraw it around the whole shared area, in image pixels "
        "(nertz calibrate writes it)")
    with pytest.raises(TableError, match="polygon 'red' has an area of 4.5 square pixels.*around red's whole layout"):
        Table.from_dict(base(zones={"red": [[0, 0], [3, 0], [3, 3]]}))
    # at the table's scale: a card covers 1/1000 of the frame at the least (922 square pixels at 1280 x 720)
    cal = {"calibration": {"method": "layouts", "frame_size": [1280, 720]}}
    with pytest.raises(TableError, match="area of 400 square pixels.*a card covers 922 at the least in the "
                                         "1280x720 frames of calibration.frame_size"):
        Table.from_dict(base(shared_area=[[0, 0], [20, 0], [20, 20], [0, 20]], **cal))
    Table.from_dict(base(shared_area=[[0, 0], [40, 0], [40, 30], [0, 30]], **cal))  # 1200: a card fits
    Table.from_dict(base(shared_area=[[0, 0], [10, 0], [10, 10]]))  # 50, no frame size: a small frame's card
    # the project's own table files all load
    root = Path(__file__).resolve().parent.parent
    files = sorted(root.glob("datasets/**/table.json"))
    assert files
    for f in files:
        Table.from_dict(json.loads(f.read_text()), source=str(f))


def test_a_polygon_in_order_is_not_taken_for_a_crossed_one():
    from nertz.referee.table import _edges_cross

    assert not _edges_cross([[0, 0], [10, 0], [10, 10], [0, 10]])
    assert not _edges_cross([[0, 0], [10, 0], [5, 3], [10, 10], [0, 10]])  # concave
    assert _edges_cross([[0, 0], [10, 10], [10, 0], [0, 10]])


def test_partnership_members_map_to_the_owner():
    t = Table.from_dict(base(players=[{"name": "red", "back": "#b3261e", "members": ["ann", "bob"]},
                                      {"name": "blue", "back": "#1e4bb3"}], rules={"partnerships": True}))
    assert t.owner_of("ann") == "red" and t.owner_of("red") == "red" and t.owner_of("zed") is None
    with pytest.raises(TableError, match="partnerships is off"):
        Table.from_dict(base(players=[{"name": "red", "back": "#b3261e", "members": ["ann"]},
                                      {"name": "blue", "back": "#1e4bb3"}]))


def test_cielab_reference_values():
    # sRGB white and black, and a known mid-grey (L* of #777777 is about 50.0).
    assert hex_to_lab("#ffffff")[0] == pytest.approx(100, abs=0.05)
    assert hex_to_lab("#000000")[0] == pytest.approx(0, abs=0.05)
    assert hex_to_lab("#777777")[0] == pytest.approx(50.0, abs=0.3)
    assert delta_e("#b3261e", "#b3261e") == 0
    # The hard pairs of the data engine stay apart: red vs orange, navy vs black.
    assert delta_e("#b3261e", "#e0701e") > 12 and delta_e("#1b2a4a", "#141414") > 12


def test_to_dict_round_trips():
    t = Table.from_dict(base(shared_area=[[0, 0], [10, 0], [10, 10]], rules={"tie": "strict"}, homography=[1, 2]))
    assert Table.from_dict(t.to_dict()) == t


def test_json_numbers_and_booleans_are_taken_as_written():
    from nertz.referee.table import MAX_TARGET

    rules = Table.from_dict(base(rules={"target": MAX_TARGET, "jokers": True, "tie_window": 0, "in_air_grace": 2,
                                        "stock_turn": 1})).rules
    assert (rules.target, rules.jokers, rules.tie_window, rules.in_air_grace, rules.stock_turn) == (MAX_TARGET, True, 0.0, 2.0, 1)
    assert isinstance(rules.tie_window, float) and isinstance(rules.in_air_grace, float)


def test_a_calibration_with_a_usable_frame_size_or_none_is_kept_as_written():
    import numpy as np

    for cal in ({"method": "layouts", "frame_size": [1280, 720]}, {"method": "manual"},
                {"frame_size": [np.int64(1920), np.int64(1080)]}):  # (in-process callers' numbers)
        assert Table.from_dict(base(calibration=cal)).model_extra["calibration"] == cal


def test_a_table_without_a_file_draws_players_named_after_colours_in_those_colours():
    # a log scored or served without --table: the page drew "blue" in green and "green" in blue
    import colorsys

    def hue(hex_colour: str) -> float:
        r, g, b = (int(hex_colour[k:k + 2], 16) / 255 for k in (1, 3, 5))
        return colorsys.rgb_to_hsv(r, g, b)[0] * 360

    t = Table.default(["red", "Blue", "green", "zed"])
    backs = {p.name: p.back for p in t.players}
    assert hue(backs["red"]) < 15 or hue(backs["red"]) > 345
    assert 200 < hue(backs["Blue"]) < 250
    assert 90 < hue(backs["green"]) < 150
    assert backs["zed"].startswith("#") and len(set(backs.values())) == 4
