"""nertz-referee: a computer-vision referee for the card game Nertz.

The installable package maps the project's top-level folders to subpackages:
``referee/`` is :mod:`nertz.referee`, ``vision/`` is :mod:`nertz.vision`, ``datasets/`` is
:mod:`nertz.datasets`; this folder holds the ``nertz`` command line.
"""

__version__ = "0.1.0"
