"""Fuzzing the service's OpenAPI schema with schemathesis: no input may cause a server error.

Examples per operation are bounded (and derandomised) so that the run is short and the same
every time. The MJPEG stream is left out: without ``frames`` it never ends, by design.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings

from nertz.referee.service.app import create_app
from nertz.referee.service.live import LiveReferee
from nertz.referee.store import EventStore

from conftest import make_table

_DIR = tempfile.TemporaryDirectory(prefix="nertz-fuzz-")
_LIVE = LiveReferee(EventStore(Path(_DIR.name) / "fuzz.db"), make_table(("red", "blue", "green"), target=30))
_APP = create_app(_LIVE)
schema = schemathesis.openapi.from_asgi("/openapi.json", _APP).exclude(path="/api/video/stream.mjpg")


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_server_errors(case: schemathesis.Case) -> None:
    response = case.call()
    assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.status_code} {response.text[:500]}"
