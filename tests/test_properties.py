"""Property-based tests (hypothesis) of the rules engine's invariants."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from nertz.referee.cards import Card, Rank, Suit
from nertz.referee.round import Round
from tests.conftest import make_table

PLAYERS = ("red", "blue", "green")
RANKS = "A23456789TJQK"
SUITS = "SHDC"


@st.composite
def round_logs(draw, distinct_times: bool = True):
    """A plausible round: mostly legal plays (so piles grow), some illegal ones, collisions,
    an optional call, take-backs and Nertz counts. Returns (rules, events)."""
    rules = draw(st.fixed_dictionaries({}, optional={
        "tie": st.sampled_from(["both_stay", "strict"]),
        "in_air": st.sampled_from(["count", "return"]),
        "nertz_penalty": st.integers(0, 3),
        "nertz_bonus": st.integers(0, 25),
        "jokers": st.booleans(),
    }))
    n = draw(st.integers(1, 60))
    tops: dict[int, str | None] = {}
    events = []
    times = draw(st.lists(st.integers(1, 100_000), min_size=n + 8, max_size=n + 8, unique=distinct_times))
    times = [x / 1000 for x in times]
    for i in range(n):
        player = draw(st.sampled_from(PLAYERS))
        choice = draw(st.integers(0, 9))
        if choice < 6 and tops:
            pile = draw(st.sampled_from(sorted(tops)))
            top = tops[pile]
            nxt = Card.parse(top).next_up() if top else None
            card = str(nxt) if nxt else draw(st.sampled_from([r + s for r in RANKS for s in SUITS]))
        elif choice < 8:
            pile = len(tops) + 1
            card = "A" + draw(st.sampled_from(SUITS))
        else:
            pile = draw(st.integers(1, len(tops) + 2))
            card = draw(st.sampled_from([r + s for r in RANKS for s in SUITS] + ["JK"]))
        if card[0] == "A" and pile not in tops:
            tops[pile] = card  # the generator's guess of the pile's top, to keep most plays legal
        elif tops.get(pile) and card != "JK" and Card.parse(card) == Card.parse(tops[pile]).next_up():
            tops[pile] = card
        events.append({"t": times[i], "type": "play", "player": player, "card": card, "pile": pile})
        if draw(st.integers(0, 9)) == 0:  # a near-simultaneous second copy: a collision or a tie
            other = draw(st.sampled_from([p for p in PLAYERS if p != player]))
            # (+ 1e-6 (i + 1): never exactly another event's time, which the log order breaks)
            events.append({"t": times[i] + draw(st.sampled_from([0.01, 0.02, 0.05, 0.3])) + 1e-6 * (i + 1), "type": "play",
                           "player": other, "card": card, "pile": pile})
    extra = iter(times[n:])
    if draw(st.booleans()):
        events.append({"t": next(extra), "type": "call", "player": draw(st.sampled_from(PLAYERS))})
    if draw(st.booleans()):
        events.append({"t": next(extra), "type": "round_end", "reason": "stuck"})
    for p in PLAYERS:
        if draw(st.booleans()):
            events.append({"t": next(extra), "type": "nertz_left", "player": p, "count": draw(st.integers(0, 13))})
    return rules, events


@settings(max_examples=150, deadline=None)
@given(round_logs())
def test_a_card_is_never_counted_twice(log):
    rules, events = log
    game = Round(make_table(PLAYERS, **rules), events)
    on_piles = Counter()
    for pile in game.replay().foundations.piles.values():
        for c in pile.cards:
            if not c.card.is_joker:
                on_piles[(c.owner, str(c.card))] += 1
    assert all(v == 1 for v in on_piles.values())


@settings(max_examples=150, deadline=None)
@given(round_logs(), st.randoms(use_true_random=False))
def test_log_order_never_changes_the_result_when_times_are_given(log, rnd):
    rules, events = log
    shuffled = list(events)
    rnd.shuffle(shuffled)
    a = Round(make_table(PLAYERS, **rules), events)
    b = Round(make_table(PLAYERS, **rules), shuffled)
    assert a.result == b.result
    assert [r.to_json() for r in a.rulings] == [r.to_json() for r in b.rulings]


@settings(max_examples=150, deadline=None)
@given(round_logs())
def test_accepted_plays_equal_the_cards_on_the_piles(log):
    rules, events = log
    game = Round(make_table(PLAYERS, **rules), events)
    accepted = sum(1 for r in game.rulings if r.kind == "accepted")
    on_piles = sum(len(p.cards) for p in game.replay().foundations.piles.values())
    assert accepted == on_piles == sum(s.foundation for s in game.result.players.values())
    # and every pile is a legal foundation: an ace, then one rank up in one suit
    for pile in game.replay().foundations.piles.values():
        ranks = [int(c.rank) for c in pile.cards]
        assert ranks[0] == int(Rank.ACE)
        assert all(b - a in (0, 1) for a, b in zip(ranks, ranks[1:]))  # 0 only for a tie, both stay
        suits = {c.suit for c in pile.cards if c.suit is not None}
        assert len(suits) <= 1 and (pile.suit is None or suits <= {pile.suit})
        assert all(isinstance(s, Suit) for s in suits)


@settings(max_examples=150, deadline=None)
@given(round_logs())
def test_score_formula(log):
    rules, events = log
    game = Round(make_table(PLAYERS, **rules), events)
    res = game.result
    t = game.table.rules
    for name, s in res.players.items():
        expected = s.foundation + t.nertz_bonus if name == res.caller else s.foundation - t.nertz_penalty * s.nertz_left
        assert s.score == expected
    if res.caller is not None:
        assert res.ended == "call"


@settings(max_examples=150, deadline=None)
@given(round_logs(), st.randoms(use_true_random=False))
def test_pushing_live_equals_replaying_the_log(log, rnd):
    """Events pushed one by one (as the live referee does, mostly in time order, with reads
    in between) end in the same rulings and result as one replay of the whole log."""
    rules, events = log
    ordered = sorted(events, key=lambda e: e["t"])
    if len(ordered) > 3:  # a few late reports, as a tracker makes them
        i = rnd.randrange(len(ordered) - 1)
        ordered[i], ordered[i + 1] = ordered[i + 1], ordered[i]
    live = Round(make_table(PLAYERS, **rules))
    for e in ordered:
        live.push(e)
        if rnd.random() < 0.3:
            live.result  # a read between pushes, as the service does
    whole = Round(make_table(PLAYERS, **rules), ordered)
    assert live.result == whole.result
    assert [r.to_json() for r in live.rulings] == [r.to_json() for r in whole.rulings]
