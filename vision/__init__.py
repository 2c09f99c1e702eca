"""Frames to observations to events: capture, calibration, card detection, tracking.

Vision never applies scoring rules; it emits events in the contract format of
``shared/DESIGN.md`` for :mod:`nertz.referee`.
"""
