"""JSON views of the live referee's state (the bodies of the ``GET`` endpoints)."""

from __future__ import annotations

import csv
import io
from typing import Any

from nertz.referee.service.live import LiveReferee

__all__ = ["round_view", "match_view", "table_view", "match_csv", "match_export"]


def table_view(live: LiveReferee) -> dict[str, Any]:
    """The table: players with back colours, rules settings, calibrated regions."""
    with live.lock:
        assert live.table is not None
        d = live.table.to_dict()
    return {
        "players": [{"name": p["name"], "back": p["back"], "members": list(p.get("members", []))} for p in d["players"]],
        "rules": d.get("rules", {}),
        "shared_area": d.get("shared_area"),
        "zones": d.get("zones", {}),
    }


def round_view(live: LiveReferee) -> dict[str, Any]:
    """The current round: per-player scores and match totals, the foundations with each
    card's owner, the events (with their ``seq`` and corrections), rulings and reviews."""
    with live.lock:
        assert live.table is not None
        rd = live.current
        replay = live.round.replay()
        res = replay.result
        match = live.match()
        totals = match.totals
        counted = (not rd.closed) and res.ended is not None and len(match.rounds) > sum(1 for r in live.rounds if r.closed)
        closed_totals = dict(totals)
        if not counted and not rd.closed:
            for name, s in res.players.items():
                closed_totals[name] = closed_totals.get(name, 0) + s.score
        counted_owners = {
            live.table.owner_of(ev["player"]) for _, ev in live.effective_events(rd) if ev.get("type") == "nertz_left"
        }
        players = []
        for p in live.table.players:
            s = res.players[p.name]
            players.append(
                {
                    "name": p.name,
                    "back": p.back,
                    "foundation": s.foundation,
                    "nertz_left": s.nertz_left,
                    "nertz_known": p.name in counted_owners,
                    "score": s.score,
                    "called": res.caller == p.name,
                    "total": closed_totals[p.name],
                }
            )
        piles = []
        for number, pile in sorted(replay.foundations.piles.items()):
            top = pile.top
            piles.append(
                {
                    "pile": number,
                    "top": str(top.identity) if top is not None and top.identity is not None else (str(top.card) if top else None),
                    "suit": pile.suit.value if pile.suit is not None else None,
                    "complete": pile.completed,
                    "cards": [
                        {
                            "card": str(c.card),
                            "owner": c.owner,
                            "t": c.t,
                            "as": str(c.identity) if c.card.is_joker and c.identity is not None else None,
                        }
                        for c in pile.cards
                    ],
                }
            )
        events = [
            {"seq": se.seq, "origin": se.origin, "event": se.event, "corrections": rd.corrections.get(se.seq, [])}
            for se in rd.events
        ]
        return {
            "match": live.match_no,
            "round": rd.number,
            "closed": rd.closed,
            "clock": round(live.clock(), 3),
            "speed": rd.speed,
            "source": live.source.name if live.source is not None else None,
            "ended": res.ended,
            "end_t": res.end_t,
            "caller": res.caller,
            "target": live.table.rules.target,
            "players": players,
            "piles": piles,
            "events": events,
            "rulings": [r.to_json() for r in replay.rulings],
            "reviews": live.reviews(),
            "result": res.to_json(),
        }


def match_view(live: LiveReferee) -> dict[str, Any]:
    """The match: every counted round's scores, totals, progress, winner and settlement."""
    with live.lock:
        m = live.match()
        closed = sum(1 for r in live.rounds if r.closed)
        return {
            "match": live.match_no,
            "players": list(m.players),
            "target": m.target,
            "rounds": m.rounds,
            "current_counted": len(m.rounds) > closed,
            "totals": m.totals,
            "rounds_won": m.rounds_won,
            "over": m.is_over,
            "winner": m.winner,
            "leaders": m.leaders,
            "settlement": m.settlement(),
        }


def match_csv(live: LiveReferee) -> str:
    """The match history as CSV: one row per round, a total row, then the settlement."""
    mv = match_view(live)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["round", *mv["players"]])
    for i, r in enumerate(mv["rounds"], start=1):
        w.writerow([i, *(r[n] for n in mv["players"])])
    w.writerow(["total", *(mv["totals"][n] for n in mv["players"])])
    if mv["winner"]:
        w.writerow([])
        w.writerow(["pays", "to", "amount"])
        for n, amount in mv["settlement"].items():
            w.writerow([n, mv["winner"], amount])
    return buf.getvalue()


def match_export(live: LiveReferee) -> dict[str, Any]:
    """The match as one JSON object: table, match summary, and every round's events,
    corrections and rulings (enough to replay it with ``nertz score``)."""
    with live.lock:
        rounds = []
        for rd in live.rounds:
            game = live.round_of(rd)
            rounds.append(
                {
                    "round": rd.number,
                    "closed": rd.closed,
                    "events": [se.event for se in rd.events],
                    "corrections": [c for cs in rd.corrections.values() for c in cs],
                    "effective_events": [ev for _, ev in live.effective_events(rd)],
                    "rulings": [r.to_json() for r in game.rulings],
                    "result": game.result.to_json(),
                }
            )
        return {"table": live.table.to_dict(), "match": match_view(live), "rounds": rounds}  # type: ignore[union-attr]
