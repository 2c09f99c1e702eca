"""The synthetic data engine: simulated Nertz rounds, rendered as labelled camera video and
training images, and the bundled examples and samples (``datasets/examples``,
``datasets/samples``)."""

from pathlib import Path as _Path

from nertz.referee.errors import NertzError as _NertzError


def bundled_file(kind: str, name: str, filename: str) -> _Path:
    """The path of a file shipped with the package: ``datasets/<kind>/<name>/<filename>``
    (``kind`` is ``"examples"`` or ``"samples"``).

    Raises:
        NertzError: the file is missing (a broken install).
    """
    from importlib import resources

    path = _Path(str(resources.files(__name__).joinpath(kind, name, filename)))
    if not path.is_file():
        raise _NertzError(f"the bundled {kind[:-1]} {name}/{filename} is missing: reinstall nertz-referee")
    return path
