"""Strict JSON value types for the files the referee reads (event logs, table files).

A value written in a file must have the JSON type the contract gives it. Pydantic's lax mode
would read ``"1"`` or ``true`` as the pile number 1, ``"yes"`` as a boolean, ``"100"`` as a
target, and Python's ``json`` module reads ``NaN`` and ``Infinity``; each would let a typo
change a ruling or a score without a word. These annotated types accept:

- :data:`WholeNumber`: a JSON integer (``3``); not ``3.0``, ``"3"``, ``true`` or ``null``;
- :data:`FiniteNumber`: a JSON number (``12.4`` or ``12``); not a string, a boolean, ``null``,
  ``NaN`` or ``Infinity``;
- :data:`OptionalFiniteNumber`: the same, or ``null`` (an omitted time);
- :data:`JsonBool`: ``true`` or ``false`` only.

Python's other integer and real number types (``numpy.int64``, ``numpy.float32``) count as the
numbers they are, so in-process callers (the tracker) need no conversion. Bounds (``ge``,
``le``) are the fields' own, checked after these.

Each validator raises :class:`ValueError` with a message that says what was found, e.g.
``must be a whole number, not the text '1'`` or ``NaN is not a finite number``.
"""

from __future__ import annotations

import math
import numbers
from typing import Annotated, Any

from pydantic import BeforeValidator

__all__ = ["WholeNumber", "FiniteNumber", "OptionalFiniteNumber", "JsonBool", "describe_json", "whole_number",
           "finite_number", "optional_finite_number", "boolean"]


def describe_json(value: Any) -> str:
    """How a decoded JSON value reads in a message: ``the text '1'``, ``true``, ``null``,
    ``NaN``, ``1.5``, ``a list``, ``an object``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, numbers.Real):
        f = float(value)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        return repr(value) if isinstance(value, (int, float)) else str(value)
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _not_finite(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and not math.isfinite(float(value))


def whole_number(value: Any) -> int:
    """``value`` as an ``int`` when it is a JSON integer (a validator).

    Raises:
        ValueError: anything else: a float (``3.0``), a string, a boolean, ``null``.
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if _not_finite(value):
        raise ValueError(f"{describe_json(value)} is not a finite number")
    raise ValueError(f"must be a whole number, not {describe_json(value)}")


def finite_number(value: Any) -> float:
    """``value`` as a ``float`` when it is a finite JSON number (a validator).

    Raises:
        ValueError: NaN or Infinity ("... is not a finite number"), a string, a boolean, ``null``.
    """
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        f = float(value)
        if not math.isfinite(f):
            raise ValueError(f"{describe_json(value)} is not a finite number")
        return f
    raise ValueError(f"must be a number, not {describe_json(value)}")


def optional_finite_number(value: Any) -> float | None:
    """:func:`finite_number`, or ``None`` for ``null``."""
    return None if value is None else finite_number(value)


def boolean(value: Any) -> bool:
    """``value`` when it is ``true`` or ``false`` (a validator).

    Raises:
        ValueError: anything else (``"yes"``, ``1``, ``null``).
    """
    if isinstance(value, bool):
        return value
    raise ValueError(f"must be true or false, not {describe_json(value)}")


WholeNumber = Annotated[int, BeforeValidator(whole_number)]
"""A JSON integer; bounds are the field's (``Field(ge=0)``)."""

FiniteNumber = Annotated[float, BeforeValidator(finite_number)]
"""A finite JSON number (an integer is taken as its float)."""

OptionalFiniteNumber = Annotated[float | None, BeforeValidator(optional_finite_number)]
"""A finite JSON number, or ``null``."""

JsonBool = Annotated[bool, BeforeValidator(boolean)]
"""``true`` or ``false``."""
