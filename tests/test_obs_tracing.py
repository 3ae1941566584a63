"""The tracing helpers in-process with the SDK's in-memory exporter: the parent/child chain the
service's hooks build (call -> run -> worker), trace context from _meta and from connection headers,
and the run message carrying the context over the worker pipe."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from orchestrator import tracing
from tests.support import ROOT

EXPORTER = InMemorySpanExporter()


def provider() -> TracerProvider:
    p = TracerProvider()
    p.add_span_processor(SimpleSpanProcessor(EXPORTER))
    return p


def test_call_run_and_worker_spans_chain_through_the_run_message():
    tracing.setup(provider=provider())
    EXPORTER.clear()
    client_trace, client_span = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
    session = SimpleNamespace(trace={"traceparent": f"00-{client_trace}-{client_span}-01"})  # upgrade headers
    params: dict = {"ability": "t_noop", "inputs": {}}
    call = tracing.begin_call(session, "actions.start", params)
    assert params["_meta"]["traceparent"].startswith(f"00-{client_trace}-")  # recorded like _meta
    tracing.note_start("act_1")
    tracing.end_call(call, "ok")

    action = SimpleNamespace(action_id="act_1", ability="t_noop", tenant="acme", traceparent=None,
                             status="completed", error=None)
    run = tracing.start_run(action)
    msg = tracing.carry({"op": "run", "job": {"ability": "t_noop", "action_id": "act_1"}, "inputs": {}})
    assert msg["job"]["trace"]["traceparent"].split("-")[1] == client_trace
    result = tracing.traced_run(lambda channel, m: {"status": "completed"}, None, msg)
    tracing.end_run(run, action)
    assert result == {"status": "completed"}

    spans = {s.name: s for s in EXPORTER.get_finished_spans()}
    call_s, run_s, work_s = spans["toolbus actions.start"], spans["action.run t_noop"], spans["worker.run t_noop"]
    assert call_s.parent.span_id == int(client_span, 16) and call_s.context.trace_id == int(client_trace, 16)
    assert run_s.parent.span_id == call_s.context.span_id
    assert work_s.parent.span_id == run_s.context.span_id
    assert run_s.attributes["metis.status"] == "completed"


def test_meta_wins_over_headers_and_bad_headers_are_not_recorded():
    tracing.setup(provider=provider())
    EXPORTER.clear()
    meta_trace = "11111111111111111111111111111111"
    session = SimpleNamespace(trace={"traceparent": "00-22222222222222222222222222222222-2222222222222222-01"})
    call = tracing.begin_call(session, "session.whoami",
                              {"_meta": {"traceparent": f"00-{meta_trace}-3333333333333333-01"}})
    tracing.end_call(call, "-32602")
    (span,) = EXPORTER.get_finished_spans()
    assert span.context.trace_id == int(meta_trace, 16) and not span.status.is_ok
    params: dict = {}
    bad = SimpleNamespace(trace={"traceparent": "00-XYZ-not-valid"})
    tracing.end_call(tracing.begin_call(bad, "session.whoami", params), "ok")
    assert "_meta" not in params  # an invalid header is neither a parent nor recorded


def test_an_unknown_exporter_is_a_clear_start_up_error(tmp_path):
    out = subprocess.run([sys.executable, "-m", "orchestrator.cli", "serve", "--port", "0", "--data-dir",
                          str(tmp_path / "d")], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "OTEL_TRACES_EXPORTER": "zipkin"})
    assert out.returncode == 2 and "unknown exporter 'zipkin'" in out.stderr
