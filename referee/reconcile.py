"""The back count settles the round: live attribution against the audit.

``shared/RULES.md`` ("Scoring a round"): the cards in the shared area are sorted by back and each
owner gets +1 per own card on the foundations. The live referee attributes every card as it is
played; the audit (:mod:`nertz.vision.audit`, a photo of the foundations turned face down and
spread) counts the backs. ``shared/DESIGN.md`` ("The back count"): the count is the rules' own
definition of ownership, so it is the one scored; the live one is kept for the record and the
differences are reported, play by play where they can be traced.

Pure: counts in, result out; nothing here reads pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .events import Play
from .round import Round
from .scoring import player_score

__all__ = ["Suspect", "OwnerCount", "Reconciliation", "reconcile"]


@dataclass(frozen=True)
class Suspect:
    """A foundation card credited live to an owner the audit found too many cards for.

    Attributes:
        card: the card in notation (``"7S"``).
        pile: the pile number of the live log.
        t: when it was played, seconds.
        credited: the owner it was credited to live.
        likely: the owner the audit found short of cards (``None`` when several are).
        confidence: the live attribution's confidence, 0..1 (1 when the log gave none).
    """

    card: str
    pile: int
    t: float
    credited: str
    likely: str | None
    confidence: float


@dataclass(frozen=True)
class OwnerCount:
    """One owner's line: live and audited foundation cards, and the score from each.

    Attributes:
        live: foundation cards credited by the live attribution.
        audit: face-down cards of the owner's back counted in the shared area.
        nertz_left: cards left in the owner's Nertz pile (as scored).
        live_nertz_left, live_score: the live result's own Nertz count and round score, kept
            for the record as the live referee had them (its ``nertz_left`` events, not the
            count's), points.
        score: the round score by the audit (the one that counts), points.
    """

    live: int
    audit: int
    nertz_left: int
    live_score: int
    score: int
    live_nertz_left: int = 0

    @property
    def difference(self) -> int:
        """``audit - live``: positive when the live referee missed some of this owner's cards."""
        return self.audit - self.live


@dataclass(frozen=True)
class Reconciliation:
    """The round scored by the back count, with the live count beside it.

    Attributes:
        owners: each owner's :class:`OwnerCount`, in seating order.
        suspects: live plays that may have gone to the wrong owner, least confident first.
        caller: the owner whose valid call ended the round, or ``None``.
    """

    owners: dict[str, OwnerCount]
    suspects: tuple[Suspect, ...] = field(default_factory=tuple)
    caller: str | None = None

    @property
    def agrees(self) -> bool:
        """Whether the audit found exactly the live count for every owner."""
        return all(o.difference == 0 for o in self.owners.values())

    def to_json(self) -> dict[str, Any]:
        """The contract's result line scored by the audit, with the live figures kept under
        ``"live"`` and the traced differences under ``"suspects"`` (additive keys)::

            {"type": "result", "caller": "red", "scored_by": "audit",
             "players": {"red": {"foundation": 20, "nertz_left": 0, "score": 20}, ...},
             "live": {"red": {"foundation": 21, "nertz_left": 0, "score": 21}, ...},
             "suspects": [{"card": "7S", "pile": 3, "t": 12.4, "credited": "red",
                           "likely": "blue", "confidence": 0.45}]}
        """
        return {
            "type": "result", "caller": self.caller, "scored_by": "audit",
            "players": {n: {"foundation": o.audit, "nertz_left": o.nertz_left, "score": o.score}
                        for n, o in self.owners.items()},
            "live": {n: {"foundation": o.live, "nertz_left": o.live_nertz_left, "score": o.live_score}
                     for n, o in self.owners.items()},
            "suspects": [{"card": s.card, "pile": s.pile, "t": s.t, "credited": s.credited, "likely": s.likely,
                          "confidence": s.confidence} for s in self.suspects],
        }


def reconcile(rnd: Round, audit_counts: dict[str, int], nertz_left: dict[str, int] | None = None) -> Reconciliation:
    """Score a round by its back count.

    Args:
        rnd: the round as refereed live (its plays carry ``confidence`` where the tracker gave
            one).
        audit_counts: face-down cards per back in the shared area, keyed by player name (as
            :attr:`nertz.vision.audit.AuditResult.counts`); partners' counts are added up for
            their partnership.
        nertz_left: cards left per player (or partnership) to score with; by default the
            round's own ``nertz_left`` events.

    Returns:
        the :class:`Reconciliation`. Owners over-counted live give their least confident plays
        still on the foundations as suspects (as many as the surplus), each naming the owner
        the audit found short when only one is.

    Raises:
        ValueError: a count for a name not at the table, a negative count, or a Nertz count
            above 0 for the owner whose valid call ended the round (``shared/RULES.md``: a
            call is valid only with the Nertz pile empty).
    """
    table = rnd.table
    audit: dict[str, int] = {}
    for name, n in audit_counts.items():
        owner = table.owner_of(name)
        if owner is None:
            raise ValueError(f"audit count for {name!r}, who is not at the table ({', '.join(table.names)})")
        if int(n) < 0:
            raise ValueError(f"audit count for {name!r} is negative ({n})")
        audit[owner] = audit.get(owner, 0) + int(n)
    replay = rnd.replay()
    result = replay.result
    left_given = {}
    for name, n in (nertz_left or {}).items():
        owner = table.owner_of(name)
        if owner is None:
            raise ValueError(f"Nertz count for {name!r}, who is not at the table ({', '.join(table.names)})")
        left_given[owner] = int(n)
    if result.caller is not None and left_given.get(result.caller, 0) > 0:
        raise ValueError(f"a Nertz count of {left_given[result.caller]} for {result.caller}, whose valid call "
                         "ended the round: a valid call means an empty Nertz pile")
    owners: dict[str, OwnerCount] = {}
    for owner, ps in result.players.items():
        left = left_given.get(owner, ps.nertz_left)
        counted = audit.get(owner, 0)
        is_caller = result.caller == owner
        owners[owner] = OwnerCount(
            live=ps.foundation, audit=counted, nertz_left=left, live_score=ps.score,
            score=player_score(counted, left, is_caller=is_caller, rules=table.rules), live_nertz_left=ps.nertz_left)
    short = [n for n, o in owners.items() if o.difference > 0]
    confidence = {(str(ev.card), ev.pile, round(ev.t, 3)): ev.confidence
                  for ev in rnd.events if isinstance(ev, Play)}
    suspects: list[Suspect] = []
    for owner, o in owners.items():
        if o.difference >= 0:
            continue
        placed = [(number, pc, confidence.get((str(pc.card), number, round(pc.t, 3)), 1.0))
                  for number, pile in replay.foundations.piles.items() for pc in pile.cards if pc.owner == owner]
        placed.sort(key=lambda x: (x[2], x[1].t))
        for number, pc, conf in placed[:-o.difference]:
            suspects.append(Suspect(str(pc.card), number, round(pc.t, 3), owner,
                                    short[0] if len(short) == 1 else None, conf))
    suspects.sort(key=lambda s: (s.confidence, s.t))
    return Reconciliation(owners, tuple(suspects), result.caller)
