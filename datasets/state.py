"""What the table holds at one instant: the contract between the simulator and the renderer.

The simulator (:mod:`nertz.datasets.sim`) plays a round in continuous time and can answer
"what lies where at time t" with a :class:`TableState`; the renderer
(:mod:`nertz.datasets.render`) turns a :class:`TableState` into a camera frame and labels.
Neither knows how the other works: the simulator knows nothing of pixels, the renderer
nothing of rules.

Cards are written in the project's notation (``"7S"``, ``"TH"``, ``"JK"``); every card
belongs to a deck, named by its owner (a player or partnership name), which decides its back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["SlotKind", "Slot", "LayoutState", "FoundationState", "InFlight", "TableState", "Withdrawing"]

SlotKind = Literal["nertz", "work", "waste", "stock", "foundation", "aside", "spread"]
"""Where a card can lie.

- ``nertz``: the player's Nertz pile (face down, top card face up).
- ``work``: one of the player's four work piles (``index`` 0..3), cascaded, all face up.
- ``waste``: the player's waste, face up, the top card playable.
- ``stock``: the player's stock, face down, held in one hand or lying by the layout.
- ``foundation``: a foundation in the shared area (``index`` is the pile number).
- ``aside``: completed foundations, turned face down and moved aside in the shared area.
- ``spread``: at round end, the cards left in a player's Nertz pile spread face down in
  their zone for counting.
"""


@dataclass(frozen=True)
class Slot:
    """A place on the table.

    Attributes:
        kind: see :data:`SlotKind`.
        owner: the player whose layout holds it; ``None`` for ``foundation`` and ``aside``.
        index: the work pile (0..3) or the foundation's pile number; 0 otherwise.
    """

    kind: SlotKind
    owner: str | None = None
    index: int = 0


@dataclass
class LayoutState:
    """One player's (or partnership's) private layout. Lists run bottom to top.

    Attributes:
        nertz: the Nertz pile; all face down except the top card.
        work: four work piles, every card face up, the last one exposed.
        stock: face-down cards.
        waste: face-up cards, the last one on top.
        spread: at round end, the Nertz cards spread face down (empty during play).
    """

    nertz: list[str] = field(default_factory=list)
    work: list[list[str]] = field(default_factory=lambda: [[], [], [], []])
    stock: list[str] = field(default_factory=list)
    waste: list[str] = field(default_factory=list)
    spread: list[str] = field(default_factory=list)


@dataclass
class FoundationState:
    """One foundation in the shared area.

    Attributes:
        pile: its pile number (as in the event log).
        cards: ``(card, owner)`` from the bottom (an ace) to the top.
        completed: True once its king is on and it has been turned over and set aside.
    """

    pile: int
    cards: list[tuple[str, str]] = field(default_factory=list)
    completed: bool = False


@dataclass(frozen=True)
class InFlight:
    """Cards being carried by a hand at this instant.

    Attributes:
        cards: the carried cards, bottom to top (one card, or a block moved between work piles).
        owner: whose hand and whose deck.
        src: where they were picked up.
        dst: where they are going.
        progress: 0.0 at pick-up to 1.0 at release (the play's event time is at 1.0).
        face_up: whether the carried cards show their faces.
    """

    cards: tuple[str, ...]
    owner: str
    src: Slot
    dst: Slot
    progress: float
    face_up: bool = True


@dataclass(frozen=True)
class Withdrawing:
    """An empty hand on its way back to rest after letting go of cards.

    Attributes:
        owner: whose hand.
        slot: where it let go (the released cards now lie on top there).
        card: the top card it let go of.
        progress: 0.0 at the release to 1.0 back at rest (minimum-jerk position fraction).
    """

    owner: str
    slot: Slot
    card: str
    progress: float


@dataclass
class TableState:
    """Everything on the table at time ``t``.

    Attributes:
        t: seconds from the start of the round.
        layouts: each owner's layout, by owner name.
        foundations: the shared foundations, in order of creation (completed ones included,
            with ``completed=True``).
        in_flight: cards in hands at this instant (at most one entry per owner).
        idle_hands: owners whose hand is resting over their own zone (not carrying).
        withdrawing: hands going back to rest just after a release (neither carrying nor
            idle).
    """

    t: float
    layouts: dict[str, LayoutState]
    foundations: list[FoundationState] = field(default_factory=list)
    in_flight: list[InFlight] = field(default_factory=list)
    idle_hands: list[str] = field(default_factory=list)
    withdrawing: list[Withdrawing] = field(default_factory=list)
