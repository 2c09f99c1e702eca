"""Text reports of a round: its rulings and its scoreboard (pure: strings in, strings out)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .round import Round
from .scoring import RoundResult

if TYPE_CHECKING:
    from .reconcile import Reconciliation

__all__ = ["format_round", "format_scoreboard", "format_time", "format_reconciliation"]


def format_time(t: float | None) -> str:
    """A time in seconds as 8 characters (``'   12.40'``; ``'     end'`` for None)."""
    return f"{t:8.2f}" if t is not None else "     end"


def format_round(game: Round) -> str:
    """A readable report of a round: every ruling, any ``resolve``/``declare`` answer no review
    item asked for (:attr:`~nertz.referee.round.Replay.unused_answers`), then the scoreboard.

    Returns:
        Text lines joined by newlines (no trailing newline).
    """
    replay = game.replay()
    out = []
    for r in replay.rulings:
        mark = {"accepted": "  ok ", "rejected": "  NO ", "collision": "  !! ", "tie": "  == "}.get(r.kind, "  -- ")
        out.append(f"{format_time(r.t)} {mark}{r.message or r.kind}")
    if replay.unused_answers:
        out.append(f"Answers to no review item of this round (ignored): {', '.join(replay.unused_answers)}.")
    out.append("")
    out.append(format_scoreboard(replay.result))
    return "\n".join(out)


def format_scoreboard(res: RoundResult) -> str:
    """How the round ended and the scoreboard (players by score), as text lines."""
    out = []
    if res.ended == "call":
        out.append(f"Round ended by {res.caller}'s call at {res.end_t:.2f} s.")
    elif res.ended == "stuck":
        out.append(f"Round ended with no caller at {res.end_t:.2f} s: every player was stuck.")
    elif res.ended is not None:
        out.append(f"Round ended with no caller at {res.end_t:.2f} s (ended by hand or at a time limit).")
    else:
        out.append("The round has not ended: the scores are provisional.")
    if res.reviews:
        out.append(f"Waiting for review: {', '.join(res.reviews)}.")
    width = max([len("player") + 1, *(len(n) + 2 for n in res.players)])  # fits the header and every name
    out.append("")
    out.append(f"{'player':<{width}}{'foundation':>11}{'nertz left':>12}{'score':>8}")
    for name, s in sorted(res.players.items(), key=lambda kv: -kv[1].score):
        called = " (called)" if name == res.caller else ""
        out.append(f"{name:<{width}}{s.foundation:>11}{s.nertz_left:>12}{s.score:>8}{called}")
    return "\n".join(out)


def format_reconciliation(rec: "Reconciliation", max_suspects: int = 10) -> str:
    """The back count beside the live count, the scoreboard it gives, and (at most
    ``max_suspects`` of) the plays that may have gone to the wrong owner, as text lines
    (``rec``: a :class:`~nertz.referee.reconcile.Reconciliation`)."""
    width = max([len("player") + 1, *(len(n) + 2 for n in rec.owners)])  # fits the header and every name
    out = [f"{'player':<{width}}{'live':>6}{'audit':>7}{'diff':>6}{'nertz left':>12}{'score':>8}{'live score':>12}"]
    for name, o in sorted(rec.owners.items(), key=lambda kv: -kv[1].score):
        called = " (called)" if name == rec.caller else ""
        out.append(f"{name:<{width}}{o.live:>6}{o.audit:>7}{o.difference:>+6}{o.nertz_left:>12}{o.score:>8}"
                   f"{o.live_score:>12}{called}")
    live = sum(o.live for o in rec.owners.values())
    counted = sum(o.audit for o in rec.owners.values())
    if rec.agrees:
        out.append("The back count agrees with the live attribution.")
        return "\n".join(out)
    out.append("Scored by the back count (the rules' own count); the live count is kept for the record.")
    if counted != live:
        out.append(f"The photo shows {counted} foundation card{'s' if counted != 1 else ''} in all, the live referee saw {live}: check that the "
                   "photo is of this round's foundations, all turned face down.")
    if rec.suspects:
        out.append("Live plays that may have gone to the wrong owner (least confident first):")
    for s in rec.suspects[:max_suspects]:
        likely = f": likely {s.likely}'s" if s.likely else ""
        out.append(f"  {format_time(s.t)}  {s.credited} {s.card} on pile {s.pile} (confidence {s.confidence:.2f}){likely}")
    if len(rec.suspects) > max_suspects:
        out.append(f"  ... and {len(rec.suspects) - max_suspects} more (--json lists them all)")
    return "\n".join(out)
