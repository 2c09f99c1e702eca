"""The rules of Nertz as pure code: cards, foundations, rulings, rounds, scoring, the match.

No I/O and no pixels: everything here is driven by events (``shared/DESIGN.md``) and can be
replayed from an event log alone.
"""
