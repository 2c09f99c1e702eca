"""``nertz serve``: the live referee's web service (registered in :mod:`nertz.cli`).

FastAPI and uvicorn are imported only when the command runs, so other commands start fast.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import secrets
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from nertz.referee.errors import NertzError

__all__ = ["serve", "default_db_path", "is_loopback"]


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/nertz/referee.sqlite3`` (``~/.local/share/nertz/...`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "nertz" / "referee.sqlite3"


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def sample_round_dir() -> Path:
    """The bundled sample round (``datasets/samples/round-3p``), replayed when ``nertz serve``
    gets no source: its ground-truth events with its rendered video as the camera view.

    Raises:
        NertzError: the sample is missing (a broken install).
    """
    from importlib import resources

    path = Path(str(resources.files("nertz.datasets").joinpath("samples", "round-3p")))
    if not (path / "events.jsonl").is_file():
        raise NertzError(f"the bundled sample round is missing at {path}: reinstall nertz-referee")
    return path


def _starts_like_json(path: Path) -> bool:
    """Whether ``path`` is a file whose first non-blank byte is ``{``: an event log named
    otherwise (``round.log``, ``events.txt``), not a video (no video file starts so)."""
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:  # not a file (a webcam index, a URL, a folder) or unreadable: not a log
        return False
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise NertzError(f"port {port} on {host} is already in use (choose another with --port)") from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise NertzError(f"no permission to listen on {host}:{port} (ports below 1024 need privileges)") from None
        raise NertzError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(
    source: Annotated[
        Optional[str],
        typer.Option(
            "--source",
            "-s",
            help="Where events come from: an event log (.jsonl, or any file of JSON lines), or a round folder from `nertz synth round` "
            "(events.jsonl, table.json, clip.mp4), replayed in real time; or a camera (webcam index, video file, "
            "stream URL, folder of images) watched by the vision pipeline (needs --table). "
            "Default: the bundled sample round's log.",
        ),
    ] = None,
    table: Annotated[
        Optional[Path], typer.Option("--table", "-t", help="Table file: players, back colours, rules settings.")
    ] = None,
    host: Annotated[str, typer.Option(help="Address to listen on; beyond 127.0.0.1 a table token is required.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port (0: any free port).")] = 8000,
    db: Annotated[
        Optional[Path],
        typer.Option(help="SQLite event store; an existing match in it is resumed. Default: ~/.local/share/nertz/referee.sqlite3."),
    ] = None,
    speed: Annotated[
        float,
        typer.Option(min=0.01, max=1000.0, help="Replay speed of an event-log source, or of a video file or folder of "
                     "images watched as the camera (1 = real time); a webcam or stream runs in real time only."),
    ] = 1.0,
) -> None:
    """Run the live referee and serve its web page, API (/docs) and WebSocket (/ws)."""
    from nertz.cli import fail

    try:
        from nertz.referee.events import parse_event
        from nertz.referee.files import read_table
        from nertz.referee.round import players_in
        from nertz.referee.service.sources import LogReplaySource
        from nertz.referee.store import EventStore
        from nertz.referee.table import Table

        video: Path | None = None
        if source is None:
            source = str(sample_round_dir())
        log: Path | None = Path(source)
        if log.is_dir():
            try:  # before looking for a round's files in it: not 'DIR/events.jsonl: Permission denied'
                next(log.iterdir(), None)
                (log / "events.jsonl").is_file()
            except OSError as exc:
                raise NertzError(f"{source}: the folder cannot be read ({exc.strerror or exc})") from None
        if log.is_dir() and (log / "events.jsonl").is_file():
            # a round folder (nertz synth round): its log, its table, its video as the camera view
            if table is None and (log / "table.json").is_file():
                table = log / "table.json"
            if (log / "clip.mp4").is_file():
                video = log / "clip.mp4"
            log = log / "events.jsonl"
        elif log.suffix.lower() in (".jsonl", ".json", ".ndjson") or _starts_like_json(log):
            if not log.is_file():
                raise NertzError(f"{source}: no such event log")
        else:
            # a camera: webcam index, video file, stream URL or folder of images
            if speed != 1.0:
                from nertz.vision.sources import source_kind

                if source_kind(source) == "live":
                    # its frames come as they happen: the round clock (and so the plays' times,
                    # the in-air grace, the tie window) would run at --speed against them
                    raise NertzError(f"--speed {speed:g}: {source} is a live camera (a webcam or a stream), whose "
                                     "frames come in real time: leave --speed out (it sets the pace of an event log, "
                                     "a video file or a folder of images)")
            if table is None:
                raise NertzError(f"{source}: a camera source needs a table file (--table T.json, from nertz calibrate)")
            from nertz.vision.camera_source import CameraSource

            tbl = read_table(table)
            try:
                camera = CameraSource(source, tbl, speed=speed)
            except ValueError as exc:
                raise NertzError(f"{table}: {exc}") from None
            log = None
        if log is not None:
            src = LogReplaySource(log, speed=speed, video=video)
            tbl = read_table(table) if table is not None else None
            if tbl is None:
                tbl = Table.default(players_in(parse_event(ev) for ev in src.contract_events))
            src.check(tbl)  # a log of other players (or one that does not replay) is refused as `nertz score` refuses it
        else:
            src = camera
        remote = not is_loopback(host)
        sock = _bind(host, port)  # first: a port in use leaves no store behind
        if db is None:
            db = default_db_path()
            db.parent.mkdir(parents=True, exist_ok=True)
        elif not db.parent.is_dir():
            fail(f"--db {db}: no folder {db.parent} to keep the store in (make it first, or give another path)")
        lock_path = Path(f"{db}.lock")
        lock_is_new = not lock_path.exists()
        db_lock = _lock_store(db)  # held while the server runs
        try:
            store = EventStore(db)
        except BaseException:
            # a refused --db (a folder, another program's file) keeps no lock file beside it
            if db_lock is not None:
                db_lock.close()
            if lock_is_new:
                lock_path.unlink(missing_ok=True)
            raise
    except NertzError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{exc.filename or db}: {exc.strerror or exc}")

    import uvicorn

    from nertz.referee.errors import TableError
    from nertz.referee.service.app import create_app
    from nertz.referee.service.live import LiveReferee

    try:
        try:
            live = LiveReferee(store, tbl, src)
        except TableError as exc:
            if log is not None:
                raise
            # the camera watches with the resumed match's table (as last calibrated), not --table's
            raise NertzError(f"{exc} (the match stored in {db} keeps its own table, as last calibrated: "
                             "give another --db to start afresh)") from None
        if log is not None and live.table is not None and live.table.to_dict() != tbl.to_dict():
            # a resumed match keeps its own table: the log must replay against that one
            try:
                src.check(live.table)  # type: ignore[union-attr]
            except NertzError as exc:
                raise NertzError(f"{exc} (the match stored in {db} keeps its own table: give another --db to start afresh)") from None
        if log is None and live.table is not None and set(live.table.names) != set(tbl.names):
            # the camera reports the players of --table: none of its plays would apply to the stored match
            raise NertzError(f"{table}: its players ({', '.join(tbl.names)}) are not those of the match stored in {db} "
                             f"({', '.join(live.table.names)}), which keeps its own table: give another --db to start afresh")
    except NertzError as exc:
        sock.close()
        store.close()
        if db_lock is not None:
            db_lock.close()
        fail(str(exc))
    token = secrets.token_urlsafe(16) if remote else None
    app = create_app(live, token=token)
    bound_port = sock.getsockname()[1]
    shown = socket.gethostname() if host in ("", "0.0.0.0", "::") else host  # "": every address, as 0.0.0.0
    url = f"http://{shown if ':' not in shown else f'[{shown}]'}:{bound_port}/"
    typer.echo(f"nertz referee: match {live.match_no}, round {live.current.number} ({'resumed from' if live.resumed else 'new in'} {db})")
    if log is None:
        typer.echo(f"source: camera {source}" + (f" at speed {speed:g}" if speed != 1.0 else "")
                   + " (the vision pipeline rules what it sees)")
    else:
        typer.echo(f"source: {src.name} {log} at speed {speed:g}" + (f", camera view {video}" if video else ""))
    if token:
        typer.echo(f"table token: {token}")
        typer.echo(f"open {url}?token={token} on the players' devices (the scoreboard alone needs no token)")
    else:
        typer.echo(f"open {url}")
    if store.migrated_from is not None:
        from nertz.referee.store import SCHEMA_VERSION

        typer.echo(f"upgraded the store {db} from schema {store.migrated_from} to {SCHEMA_VERSION} (nothing lost)")
    if live.resumed and table is not None and live.table is not None and live.table.to_dict() != tbl.to_dict():
        typer.echo(f"note: the match stored in {db} keeps its own table, not {table}"
                   + (": the camera watches with its regions and back colours, as last calibrated" if log is None else "")
                   + " (give another --db to start afresh)")
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        ws="websockets-sansio" if _has_sansio() else "auto",
        ws_max_size=64 * 1024,
    )
    server = uvicorn.Server(config)
    app.state.server = server  # the camera view's streams end when it shuts down
    sigterm = _SigtermGuard()
    try:
        server.run(sockets=[sock])
    except _Terminated:
        pass
    finally:
        # uvicorn stops on SIGINT and SIGTERM alike, then sends itself the signal again; with
        # SIGTERM's default action the process died right there, the store unclosed and the
        # newest entries left in the WAL beside it (a copy of the main file alone lacked them)
        sigterm.hold()
        live.stop()
        store.close()
        sock.close()
        if db_lock is not None:
            db_lock.close()
        sigterm.release()


class _Terminated(BaseException):
    """Raised by :class:`_SigtermGuard`'s handler, to unwind :func:`serve` to the store's close."""


class _SigtermGuard:
    """SIGTERM handling for :func:`serve`: while the server runs, SIGTERM raises
    :class:`_Terminated` (uvicorn keeps this handler aside while it serves and calls it once it
    has shut down); while the store closes (:meth:`hold`) it is only noted; :meth:`release`
    puts the previous handler back and, after a SIGTERM, ends the process with it (exit status
    143 in a shell, as before). Does nothing outside the main thread, where no handler can be
    set.
    """

    def __init__(self) -> None:
        self.received = False
        self.active = threading.current_thread() is threading.main_thread()
        if self.active:
            previous = signal.getsignal(signal.SIGTERM)
            self.previous = signal.SIG_DFL if previous is None else previous
            signal.signal(signal.SIGTERM, self._raise)

    def _raise(self, signum: int, frame: Any) -> None:
        self.received = True
        raise _Terminated()

    def _note(self, signum: int, frame: Any) -> None:
        self.received = True

    def hold(self) -> None:
        """Only note a SIGTERM from now on (the store is being closed)."""
        if self.active:
            signal.signal(signal.SIGTERM, self._note)

    def release(self) -> None:
        """Put the previous handler back; re-send a SIGTERM received meanwhile to it."""
        if not self.active:
            return
        signal.signal(signal.SIGTERM, self.previous)
        if self.received:
            sys.stdout.flush()
            sys.stderr.flush()
            signal.raise_signal(signal.SIGTERM)


def _lock_store(db: Path) -> Any:
    """Take the store's lock (``<db>.lock``, an exclusive ``flock``, released when the process
    ends): two servers on one store would write two live rounds into one match. Returns the
    open lock file (keep it); None where ``fcntl`` does not exist (Windows: not checked).

    Raises:
        NertzError: another process holds the lock, or the lock file cannot be created there
            (the message names the store, ``db``, and why: the lock file is no name the user
            typed).
    """
    try:
        import fcntl
    except ImportError:
        return None
    try:
        f = open(Path(f"{db}.lock"), "a+")
    except OSError as exc:
        raise NertzError(f"--db {db}: the store cannot be kept there ({exc.strerror or exc}, making its lock file "
                         f"{Path(f'{db}.lock').name} beside it): give a path in a folder you can write to") from None
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        raise NertzError(f"{db} is in use by another nertz serve: give each table its own --db") from None
    return f


def _has_sansio() -> bool:
    try:
        import uvicorn.protocols.websockets.websockets_sansio_impl  # noqa: F401
    except ImportError:
        return False
    return True
