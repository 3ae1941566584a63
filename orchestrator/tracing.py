"""OpenTelemetry tracing: setup from the standard ``OTEL_*`` variables and the few helpers the
service's hooks call (a span per ToolBus call, per action run and its worker process, per log append).

Off by default. On when ``OTEL_TRACES_EXPORTER`` names an exporter (``otlp``, ``console``, ``jsonl``;
a comma-separated list is allowed) or when ``OTEL_EXPORTER_OTLP_ENDPOINT`` /
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` is set; ``OTEL_SDK_DISABLED=true`` turns it off again. The OTLP
exporter (HTTP/protobuf) reads its own ``OTEL_EXPORTER_OTLP_*`` settings; ``OTEL_SERVICE_NAME``,
``OTEL_RESOURCE_ATTRIBUTES`` and ``OTEL_TRACES_SAMPLER`` work as everywhere. ``jsonl`` writes each
finished span as one JSON line to the file named by ``METIS_TRACES_FILE`` (for tests and debugging).

Trace context (W3C ``traceparent``/``tracestate``) comes from a call's ``params._meta``, else from
the headers of the WebSocket upgrade or the SSE request. It is honoured even with tracing off, so a
client's trace id shows up in the log lines of what its call caused (see ``add_trace_ids``).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import structlog
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

log = structlog.get_logger("metis.tracing")
TRACES_FILE_ENV = "METIS_TRACES_FILE"
_PROPAGATOR = TraceContextTextMapPropagator()
_tracer = trace.get_tracer("metis")  # a proxy: records nothing until setup() installs the SDK provider
_provider: Any = None
_origins: OrderedDict[str, otel_context.Context] = OrderedDict()  # action_id -> context of the call that started it
_MAX_ORIGINS = 65536
_TRACEPARENT = re.compile(r"[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")  # as schemas.toolbus.Meta


def enabled_by_env(env: Mapping[str, str] = os.environ) -> bool:
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporters = env.get("OTEL_TRACES_EXPORTER")
    if exporters is not None:
        return any(e.strip().lower() not in ("", "none") for e in exporters.split(","))
    return bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def enabled() -> bool:
    return _provider is not None


class JsonLinesSpanExporter:
    """Writes each finished span as one JSON line (trace/span/parent ids, name, kind, attributes,
    status, times) to a file, appending; several processes may share the file (one write per line)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()

    def export(self, spans: Any) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        lines = []
        for s in spans:
            ctx = s.get_span_context()
            lines.append(json.dumps({
                "name": s.name, "kind": s.kind.name, "trace_id": f"{ctx.trace_id:032x}",
                "span_id": f"{ctx.span_id:016x}", "parent_id": f"{s.parent.span_id:016x}" if s.parent else None,
                "links": [f"{link.context.span_id:016x}" for link in s.links],
                "attributes": dict(s.attributes or {}), "status": s.status.status_code.name,
                "start_ns": s.start_time, "end_ns": s.end_time,
                "service": (s.resource.attributes or {}).get("service.name"), "pid": os.getpid(),
            }, default=str) + "\n")
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(fd, "".join(lines).encode())
            finally:
                os.close(fd)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def setup(service_name: str = "metis", env: Mapping[str, str] = os.environ, provider: Any = None) -> bool:
    """Install the SDK tracer provider and the exporters the environment names; False when off.
    An embedding program (or a test, with the SDK's in-memory exporter) may pass its own ``provider``."""
    global _provider
    if provider is not None and _provider is None:
        trace.set_tracer_provider(provider)
        _provider = provider
    if _provider is not None or not enabled_by_env(env):
        return _provider is not None
    import sys

    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": env.get("OTEL_SERVICE_NAME") or service_name}))
    names = [n.strip().lower() for n in (env.get("OTEL_TRACES_EXPORTER") or "otlp").split(",")]
    for name in names:
        if name in ("", "none"):
            continue
        if name == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        elif name == "console":  # one JSON object per line on stderr, like every other log line
            provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(
                out=sys.stderr, formatter=lambda span: span.to_json(indent=None) + "\n")))
        elif name == "jsonl":
            path = env.get(TRACES_FILE_ENV)
            if not path:
                raise ValueError(f"OTEL_TRACES_EXPORTER=jsonl needs {TRACES_FILE_ENV}=<file>")
            provider.add_span_processor(BatchSpanProcessor(JsonLinesSpanExporter(path)))  # written off the loop
        else:
            raise ValueError(f"OTEL_TRACES_EXPORTER: unknown exporter {name!r} (otlp, console, jsonl, none)")
    trace.set_tracer_provider(provider)
    _provider = provider
    return True


def flush() -> None:
    if _provider is not None:
        _provider.force_flush(5000)


def shutdown() -> None:
    if _provider is not None:
        _provider.shutdown()


# -- trace context ------------------------------------------------------------------------------


def context_from(carrier: Mapping[str, Any] | None) -> otel_context.Context | None:
    """The W3C context in ``carrier`` (headers or ``_meta``), or None when it holds none valid."""
    if not carrier:
        return None
    tp = carrier.get("traceparent")
    if not isinstance(tp, str):
        return None
    ts = carrier.get("tracestate")
    ctx = _PROPAGATOR.extract({"traceparent": tp, **({"tracestate": ts} if isinstance(ts, str) else {})})
    return ctx if trace.get_current_span(ctx).get_span_context().is_valid else None


def headers_carrier(headers: Mapping[str, str]) -> dict[str, str] | None:
    """``traceparent``/``tracestate`` of a WebSocket upgrade or an HTTP request (None without them)."""
    tp = headers.get("traceparent")
    if not tp:
        return None
    out = {"traceparent": tp}
    if headers.get("tracestate"):
        out["tracestate"] = headers["tracestate"]
    return out


def current_carrier() -> dict[str, str]:
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier)
    return carrier


def add_trace_ids(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """structlog processor: the current trace and span id on every line logged inside a span."""
    ctx = trace.get_current_span().get_span_context()
    if ctx.is_valid:
        event.setdefault("trace_id", f"{ctx.trace_id:032x}")
        event.setdefault("span_id", f"{ctx.span_id:016x}")
    return event


# -- ToolBus calls ------------------------------------------------------------------------------


def begin_call(session: Any, method: str, params: Any) -> tuple[Span, object] | None:
    """Start the span of one ToolBus call and make it current. Its parent is ``params._meta``'s
    context, else the connection's (``session.trace``, from the upgrade headers), which is then also
    copied into ``params._meta`` so the receipts of what the call causes record it."""
    conn = getattr(session, "trace", None)
    meta = params.get("_meta") if isinstance(params, dict) else None
    parent = context_from(meta) if isinstance(meta, dict) else None
    if parent is None and conn is not None:
        parent = context_from(conn)
        if (parent is not None and isinstance(params, dict) and (meta is None or isinstance(meta, dict))
                and _TRACEPARENT.fullmatch(conn["traceparent"])):
            params["_meta"] = {**(meta or {}), **conn}
    if parent is None and _provider is None:
        return None
    span = _tracer.start_span(f"toolbus {method}", context=parent, kind=SpanKind.SERVER,
                              attributes={"rpc.system": "jsonrpc", "rpc.method": method})
    token = otel_context.attach(trace.set_span_in_context(span, parent))
    log.debug("toolbus_call")  # request id, method and trace id come from the context
    return span, token


def end_call(started: tuple[Span, object] | None, outcome: str) -> None:
    if started is None:
        return
    span, token = started
    if outcome != "ok":
        span.set_attribute("rpc.jsonrpc.error_code", outcome)
        span.set_status(Status(StatusCode.ERROR, outcome))
    span.end()
    otel_context.detach(token)  # type: ignore[arg-type]


# -- SSE streams --------------------------------------------------------------------------------


def begin_stream(headers: Mapping[str, str], topic: str) -> Span | None:
    """The span of one SSE stream (open to end), parented by the request's ``traceparent``."""
    parent = context_from(headers_carrier(headers))
    if _provider is None:
        return None
    return _tracer.start_span("sse.stream", context=parent, kind=SpanKind.SERVER,
                              attributes={"http.route": "/streams/{topic}", "metis.topic": topic})


def end_stream(span: Span | None) -> None:
    if span is not None:
        span.end()


# -- action runs --------------------------------------------------------------------------------


def note_start(action_id: str) -> None:
    """Remember the context of the call that starts an action: its runs become children of it."""
    ctx = otel_context.get_current()
    if not trace.get_current_span(ctx).get_span_context().is_valid:
        return
    _origins[action_id] = ctx
    if len(_origins) > _MAX_ORIGINS:  # an action cancelled before it ran never takes its entry
        _origins.popitem(last=False)


def start_run(a: Any) -> Span | None:
    """The span of one run segment of action ``a``, made current for the rest of the calling task
    (the scheduler runs each segment in a task of its own). Parent: the starting call's span, or,
    for a run resumed after a restart, the traceparent recorded with the action."""
    parent = _origins.pop(a.action_id, None) or (context_from({"traceparent": a.traceparent})
                                                   if a.traceparent else None)
    if parent is None and _provider is None:
        return None
    span = _tracer.start_span(f"action.run {a.ability}", context=parent, kind=SpanKind.INTERNAL,
                              attributes={"metis.ability": a.ability, "metis.action_id": a.action_id,
                                          "metis.tenant": a.tenant})
    otel_context.attach(trace.set_span_in_context(span, parent))
    return span


def carry(msg: dict[str, Any]) -> dict[str, Any]:
    """The worker's ``run`` message with the current trace context (``job.trace``) added."""
    carrier = current_carrier()
    if carrier:
        msg["job"]["trace"] = carrier
    return msg


def end_run(span: Span | None, a: Any) -> None:
    if span is None:
        return
    status = str(a.status)
    span.set_attribute("metis.status", status)
    if status == "failed":
        span.set_status(Status(StatusCode.ERROR, (a.error or {}).get("reason", "failed")))
    span.end()


def traced_run(run: Callable[[Any, dict[str, Any]], dict[str, Any]], channel: Any,
               msg: dict[str, Any]) -> dict[str, Any]:
    """In the worker process: ``run(channel, msg)`` inside a span that is a child of the
    orchestrator's run span (context from the run message), flushed before the result goes back."""
    job = msg.get("job") or {}
    parent = context_from(job.get("trace"))
    if _provider is None:
        if parent is None:
            return run(channel, msg)
        token = otel_context.attach(parent)  # tracing off here: the context still reaches log lines
        try:
            return run(channel, msg)
        finally:
            otel_context.detach(token)
    with _tracer.start_as_current_span(f"worker.run {job.get('ability')}", context=parent,
                                       kind=SpanKind.INTERNAL,
                                       attributes={"metis.ability": str(job.get("ability")),
                                                   "metis.action_id": str(job.get("action_id")),
                                                   "process.pid": os.getpid()}) as span:
        result = run(channel, msg)
        span.set_attribute("metis.status", str(result.get("status")))
        if result.get("status") == "failed":
            span.set_status(Status(StatusCode.ERROR, str((result.get("error") or {}).get("reason"))))
    flush()  # the worker may be killed at any time after this
    return result


# -- log appends --------------------------------------------------------------------------------


def instrument_appends(rlog: Any, seconds: Any) -> None:
    """Wrap ``rlog.append`` (every durable append: the scheduler's batches, approvals, reflect,
    datasets): a span per append batch and its latency (submit to durable) in the ``seconds``
    histogram."""
    append: Callable[[list[Any]], Awaitable[list[Any]]] = rlog.append

    async def timed_append(entries: list[Any], *args: Any, **kwargs: Any) -> list[Any]:
        t0 = time.perf_counter()
        if _provider is None:
            records = await append(entries, *args, **kwargs)
            seconds.observe(time.perf_counter() - t0)
            return records
        with _tracer.start_as_current_span("receipts.append", kind=SpanKind.CLIENT,
                                           attributes={"metis.records": len(entries)}) as span:
            records = await append(entries, *args, **kwargs)
            if records:
                span.set_attribute("metis.first_seq", records[0].seq)
                span.set_attribute("metis.last_seq", records[-1].seq)
        seconds.observe(time.perf_counter() - t0)
        return records

    rlog.append = timed_append
