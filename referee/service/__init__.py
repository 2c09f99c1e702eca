"""The live referee as a web service (``nertz serve``): a FastAPI app around
:class:`~nertz.referee.service.live.LiveReferee`, which keeps a match in the append-only
:class:`~nertz.referee.store.EventStore` and replays it through the rules engine.

Modules: ``app`` (the app factory ``create_app``), ``routers/`` (``/api/round``,
``/api/events``, ``/api/match``, ``/api/table``, ``/api/review``, ``/api/video``, ``/ws``),
``schemas`` (pydantic request and response models), ``deps`` (the live referee and the
table-token check), ``views`` (JSON views of the state), ``sources`` (where events come
from: :class:`~nertz.referee.service.sources.LogReplaySource` today, the camera pipeline
later), ``static/`` (the page: plain HTML, CSS and JavaScript), ``cli`` (the command).
"""
