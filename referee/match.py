"""The match: rounds added up until a total reaches the target (``shared/RULES.md``, "The match").

- Rounds are played until at least one owner's total reaches or passes ``target`` at the
  end of a round.
- The highest total wins; a tie in totals is broken by the number of rounds won (an owner
  wins a round by scoring best in it alone; a round whose best score is shared is *tied*
  for those who share it, a win for none). Still tied: no single winner
  (:attr:`Match.winner` is ``None``).
- Settling up: the winner wins from each other owner the difference between their totals.
- Only finished rounds count: a :class:`~nertz.referee.scoring.RoundResult` whose round has
  not ended (no valid call, no ``round_end``: its scores are provisional) is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from nertz.referee.scoring import RoundResult

__all__ = ["Match"]


@dataclass
class Match:
    """A match, replayable from its rounds' results.

    Attributes:
        players: the owners, in seating order.
        target: the total that ends the match (points).
        rounds: each round's scores, ``{owner: points}``, in order.
    """

    players: list[str]
    target: int = 100
    rounds: list[dict[str, int]] = field(default_factory=list)

    def add_round(self, result: RoundResult | Mapping[str, int]) -> None:
        """Add one finished round's scores: a :class:`RoundResult`, or ``{owner: points}``
        (taken as a finished round's: the caller vouches that it ended).

        Raises:
            ValueError: the match is already over, the result is of a round that has not
                ended (``result.ended`` is ``None``), or the scores name other owners.
        """
        if self.is_over:
            raise ValueError("the match is over: start a new one")
        if isinstance(result, RoundResult) and result.ended is None:
            raise ValueError("the round has not ended (no valid Nertz call and no round_end): its scores are "
                             "provisional, and a match adds finished rounds only")
        scores = {n: s.score for n, s in result.players.items()} if isinstance(result, RoundResult) else dict(result)
        if set(scores) != set(self.players):
            raise ValueError(f"round scores name {sorted(scores)}, the match has {sorted(self.players)}")
        self.rounds.append({n: int(scores[n]) for n in self.players})

    @classmethod
    def replay(cls, players: Iterable[str], target: int, rounds: Iterable[RoundResult | Mapping[str, int]]) -> "Match":
        """A match rebuilt from its rounds.

        Raises:
            ValueError: as :meth:`add_round`.
        """
        match = cls(list(players), target)
        for r in rounds:
            match.add_round(r)
        return match

    @property
    def totals(self) -> dict[str, int]:
        """Each owner's total over the rounds so far (points)."""
        return {n: sum(r[n] for r in self.rounds) for n in self.players}

    @property
    def rounds_won(self) -> dict[str, int]:
        """How many rounds each owner won: the rounds in which it alone scored best (a
        shared best score is a tie, counted by :attr:`rounds_tied`, not a win)."""
        won = {n: 0 for n in self.players}
        for r in self.rounds:
            best = _best(r)
            if len(best) == 1:
                won[best[0]] += 1
        return won

    @property
    def rounds_tied(self) -> dict[str, int]:
        """How many rounds each owner tied: the rounds whose best score it shared with
        another owner (or more)."""
        tied = {n: 0 for n in self.players}
        for r in self.rounds:
            best = _best(r)
            if len(best) > 1:
                for n in best:
                    tied[n] += 1
        return tied

    @property
    def is_over(self) -> bool:
        """True once some total has reached the target."""
        return any(t >= self.target for t in self.totals.values())

    @property
    def leaders(self) -> list[str]:
        """The owners ranked first: highest total, then most rounds won (several if still tied)."""
        totals, won = self.totals, self.rounds_won
        key = {n: (totals[n], won[n]) for n in self.players}
        best = max(key.values())
        return [n for n in self.players if key[n] == best]

    @property
    def winner(self) -> str | None:
        """The winner once the match is over and the tie-breaks decide one; else ``None``."""
        if not self.is_over:
            return None
        leaders = self.leaders
        return leaders[0] if len(leaders) == 1 else None

    def settlement(self) -> dict[str, int]:
        """What the winner wins from each other owner: the difference of totals (points).

        Returns:
            ``{owner: amount}`` for every owner but the winner; empty while there is no winner.
        """
        winner = self.winner
        if winner is None:
            return {}
        totals = self.totals
        return {n: totals[winner] - totals[n] for n in self.players if n != winner}


def _best(scores: Mapping[str, int]) -> list[str]:
    """The owners with a round's best score (one, or several sharing it)."""
    top = max(scores.values())
    return [n for n, s in scores.items() if s == top]
