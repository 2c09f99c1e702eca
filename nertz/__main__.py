"""``python -m nertz`` runs the ``nertz`` command."""

from nertz.cli import main

main()
