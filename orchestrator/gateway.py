"""The SSE gateway: ``GET /streams/{topic}``, resumable from the log with Last-Event-ID.

Delivery subscribes to the live hub first, then range-reads the log from the requested id
(an index range read, never a scan), then forwards live records with a higher seq: no gap
(anything committed after subscribing is queued) and no duplicate (seq filter).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from orchestrator import tracing
from orchestrator.events import sse_frame
from orchestrator.hub import resume_then_live
from orchestrator.sse_response import SseResponse
from orchestrator.toolbus import bearer
from receipts.log import Record
from schemas.toolbus import MAX_SEQ


def _legacy_frame(rec: Record) -> bytes:
    """The same frame with the pre-Actions event name (``action_started`` -> ``wu_started``)."""
    return sse_frame(rec).replace(b"\nevent: action_", b"\nevent: wu_", 1)


def _tenant_for(request: Request, topic: str) -> str | None:
    service = request.app.state.service
    token = bearer(request.headers) or request.query_params.get("token")
    if not token:
        return None
    principal = service.tokens.authenticate(token)
    if principal is not None:
        return principal.tenant if principal.has("partner", "canvas") else None
    return service.stream_tokens.check(token, topic)


async def stream_endpoint(request: Request) -> Response | SseResponse:
    topic = request.path_params["topic"]
    tenant = _tenant_for(request, topic)
    if tenant is None:
        return JSONResponse({"error": "unauthenticated: Bearer token (partner/canvas) or ?token=<stream token>"},
                            status_code=401)
    raw = request.headers.get("last-event-id") or request.query_params.get("last_event_id")
    after = 0
    if raw not in (None, ""):
        try:
            after = int(raw)
            if not 0 <= after <= MAX_SEQ:
                raise ValueError
        except ValueError:
            return JSONResponse({"error": f"Last-Event-ID must be an integer in 0..{MAX_SEQ}, got {raw[:40]!r}"},
                                status_code=400)
    service, settings = request.app.state.service, request.app.state.settings
    rlog, hub = service.log, service.hub
    retained_from = getattr(rlog, "retained_from", 1)
    resumed_after = "earliest" if raw not in (None, "") and after + 1 < retained_from else str(after)
    legacy = request.query_params.get("aliases") == "wu"
    if legacy and not settings.wu_event_aliases:
        return JSONResponse({"error": "wu_* event aliases are off on this server (metis serve --wu-event-aliases)"},
                            status_code=400)
    frame = _legacy_frame if legacy else sse_frame
    sub = hub.subscribe(tenant, topic, settings.subscriber_buffer)
    service.metrics.sse_subscribers.inc()

    span = tracing.begin_stream(request.headers, topic)

    def ended() -> None:
        hub.unsubscribe(sub)
        service.metrics.sse_subscribers.dec()
        tracing.end_stream(span)

    return SseResponse(  # ends cleanly on client hang-up and on shutdown (on_close ends the subscription)
        lambda sink: resume_then_live(rlog, sub, tenant, topic, after, sink), frame,
        {"Metis-Resumed-After": resumed_after, "Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        ping_s=settings.heartbeat_s, send_timeout_s=settings.send_timeout_s, on_close=sub.close,
        sent=service.metrics.delivery.watch(), on_end=ended,  # sent: SSE delivery lag (orchestrator/observe.py)
        tally=service.metrics.delivery.tally())
