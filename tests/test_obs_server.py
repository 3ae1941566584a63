"""Observability of a real server subprocess: OpenTelemetry spans linked end to end (client
traceparent -> ToolBus call -> action run -> worker process; append batches), exported both to a file
and over OTLP/HTTP to a small collector named by OTEL_EXPORTER_OTLP_ENDPOINT, trace ids in log lines,
Prometheus types and histograms (parsed with prometheus_client's parser), ability-declared metrics
aggregated from workers, and a shutdown with an SSE client open: every output line is JSON and the
client sees the stream end."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import secrets
import signal
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from prometheus_client.parser import text_string_to_metric_families

from tests.support import MetisServer, ToolBus, approved_reviewer

pytestmark = pytest.mark.timeout(180)


class OtlpReceiver(BaseHTTPRequestHandler):
    """A minimal OTLP/HTTP trace receiver (protobuf), as a collector would be."""

    received: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        request = ExportTraceServiceRequest.FromString(body)
        for rs in request.resource_spans:
            service = next((a.value.string_value for a in rs.resource.attributes if a.key == "service.name"), None)
            for ss in rs.scope_spans:
                for span in ss.spans:
                    self.received.append({"path": self.path, "service": service, "name": span.name,
                                          "trace_id": span.trace_id.hex(), "span_id": span.span_id.hex(),
                                          "parent_id": span.parent_span_id.hex() or None})
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()
        self.wfile.write(ExportTraceServiceResponse().SerializeToString())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def traced_server(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("obs")
    spans = root / "spans.jsonl"
    collector = ThreadingHTTPServer(("127.0.0.1", 0), OtlpReceiver)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    server = MetisServer(root / "data", extra_args=["--log-level", "debug"],
                         env={"OTEL_TRACES_EXPORTER": "jsonl,otlp", "METIS_TRACES_FILE": str(spans),
                              "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{collector.server_port}",
                              "OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_SERVICE_NAME": "metis-test"}).start()
    server.spans = spans  # type: ignore[attr-defined]
    server.log_path = root / "data-server.log"  # type: ignore[attr-defined]
    yield server
    server.stop(kill=True)
    collector.shutdown()


def traceparent() -> tuple[str, str, str]:
    trace_id, span_id = secrets.token_hex(16), secrets.token_hex(8)
    return f"00-{trace_id}-{span_id}-01", trace_id, span_id


def read_spans(path: Path, trace_id: str, *names: str, timeout: float = 20.0) -> list[dict[str, Any]]:
    """The spans of a trace, once one of each name prefix has been exported (spans end in any order)."""
    deadline = time.monotonic() + timeout
    found: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        if path.exists():
            found = [s for s in map(json.loads, path.read_text().splitlines()) if s["trace_id"] == trace_id]
            if all(any(s["name"].startswith(n) for s in found) for n in names):
                return found
        time.sleep(0.2)
    return found


CHAIN = ("toolbus actions.start", "action.run", "worker.run")


def one(spans: list[dict[str, Any]], prefix: str) -> dict[str, Any]:
    named = [s for s in spans if s["name"].startswith(prefix)]
    assert len(named) == 1, (prefix, [s["name"] for s in spans])
    return named[0]


def check_chain(spans: list[dict[str, Any]], client_span: str, ability: str) -> None:
    call = one(spans, "toolbus actions.start")
    run = one(spans, f"action.run {ability}")
    work = one(spans, f"worker.run {ability}")
    assert call["parent_id"] == client_span and call["kind"] == "SERVER"
    assert run["parent_id"] == call["span_id"]
    assert work["parent_id"] == run["span_id"]
    assert work["pid"] != run["pid"] and run["pid"] == call["pid"]  # the worker is another process
    assert run["attributes"]["metis.status"] == "completed" and work["attributes"]["metis.status"] == "completed"


async def test_spans_link_client_call_run_and_worker_from_meta_and_from_upgrade_headers(traced_server):
    tp, trace_id, span_id = traceparent()
    async with ToolBus.connect(traced_server) as tb:
        started = await tb.call("actions.start", {"ability": "t_emit", "inputs": {"n": 2},
                                                  "_meta": {"traceparent": tp}})
        await tb.wait_status(started["action_id"], {"completed"})
    check_chain(read_spans(traced_server.spans, trace_id, *CHAIN), span_id, "t_emit")
    deadline = time.monotonic() + 15  # the same spans reached the OTLP collector named by OTEL_EXPORTER_OTLP_ENDPOINT
    while time.monotonic() < deadline and len([s for s in OtlpReceiver.received if s["trace_id"] == trace_id]) < 3:
        await asyncio.sleep(0.2)
    otlp = {s["name"]: s for s in OtlpReceiver.received if s["trace_id"] == trace_id}
    assert {"toolbus actions.start", "action.run t_emit", "worker.run t_emit"} <= set(otlp)
    assert otlp["worker.run t_emit"]["parent_id"] == otlp["action.run t_emit"]["span_id"]
    assert {s["path"] for s in OtlpReceiver.received} == {"/v1/traces"}
    assert {s["service"] for s in OtlpReceiver.received} == {"metis-test"}

    # the same from the WebSocket upgrade's traceparent header (no _meta), recorded in receipts too
    tp2, trace2, span2 = traceparent()
    headers = {"Authorization": "Bearer tok-acme-partner", "traceparent": tp2, "tracestate": "vendor=1"}
    async with websockets.connect(traced_server.ws_url, additional_headers=headers) as ws:
        tb = ToolBus(ws)
        try:
            started = await tb.call("actions.start", {"ability": "t_noop", "inputs": {}})
            await tb.wait_status(started["action_id"], {"completed"})
        finally:
            tb._reader.cancel()
    check_chain(read_spans(traced_server.spans, trace2, *CHAIN), span2, "t_noop")
    async with ToolBus.connect(traced_server, "reviewer") as rev:  # receipts keep the caller's context
        receipts = await approved_reviewer(traced_server, rev, "reflect.receipts", {"action_id": started["action_id"]})
    assert tp2 in json.dumps(receipts)

    appends = [json.loads(line) for line in traced_server.spans.read_text().splitlines()]
    batches = [s for s in appends if s["name"] == "receipts.append"]
    assert batches and all(s["attributes"]["metis.records"] >= 1 for s in batches)
    assert any("metis.last_seq" in s["attributes"] for s in batches)

    # the trace id is on the log lines written inside the call (debug line per traced call)
    lines = [json.loads(line) for line in traced_server.log_path.read_text().splitlines() if line.strip()]
    assert any(line.get("trace_id") == trace_id and line.get("method") == "actions.start" for line in lines)
    assert any(line.get("trace_id") == trace2 for line in lines)


async def test_metrics_have_prometheus_types_histograms_and_bounded_labels(traced_server):
    async with ToolBus.connect(traced_server) as tb:
        topic = "obs-metrics-" + secrets.token_hex(4)
        got: list[str] = []
        sse_tp, sse_trace, sse_parent = traceparent()

        async def follow() -> None:
            async with httpx.AsyncClient(timeout=30) as client, client.stream(
                    "GET", f"{traced_server.http_url}/streams/{topic}",
                    headers={"Authorization": "Bearer tok-acme-partner", "traceparent": sse_tp}) as resp:
                async for line in resp.aiter_lines():
                    got.append(line)
                    if line.startswith("event: action_completed"):
                        return

        reader = asyncio.create_task(follow())
        await asyncio.sleep(0.5)  # subscribed before the records commit: their delivery is live
        started = await tb.call("actions.start", {"ability": "t_metric", "inputs": {"n": 4}, "topic": topic})
        await tb.wait_status(started["action_id"], {"completed"})
        await asyncio.wait_for(reader, 20)
        failed = await tb.call("actions.start", {"ability": "t_fail", "inputs": {}})
        await tb.wait_status(failed["action_id"], {"failed"})
        await tb.run("t_ask", {"question": "which?"}, answer=lambda p: "that one")
        approval = await tb.start("t_ask", {"kind": "approval", "question": "egress to partner API"})
        await tb.wait_status(approval["action_id"], {"waiting_user"})
        async with ToolBus.connect(traced_server, "approver") as apr:
            pending: list[dict[str, Any]] = []
            for _ in range(100):
                pending = [a for a in (await apr.call("approvals.list"))["approvals"]
                           if a.get("action_id") == approval["action_id"] and a["status"] == "pending"]
                if pending:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)  # a measurable wait
            await apr.call("approvals.grant", {"approval_id": pending[0]["approval_id"], "note": "ok"})
        await tb.wait_status(approval["action_id"], {"completed"})
        graph = json.loads((Path(__file__).parent / "data" / "cda" / "checkout.json").read_text())
        cda = await tb.call("actions.start", {"ability": "cda", "inputs": {
            "problem": "Why are checkout alerts firing?", "ken": {"graph": graph},
            "observations": [{"entity": "entity:payments", "predicate": "alert", "timestamp": 1000},
                             {"entity": "entity:web", "predicate": "alert", "timestamp": 1090}]}})
        await tb.wait_status(cda["action_id"], {"completed"}, timeout=120)
    stream = one(read_spans(traced_server.spans, sse_trace, "sse.stream"), "sse.stream")  # the SSE request's traceparent
    assert stream["parent_id"] == sse_parent and stream["attributes"]["metis.topic"] == topic
    text = httpx.get(traced_server.http_url + "/metrics").text
    families = {f.name: f for f in text_string_to_metric_families(text)}
    for name in ("metis_log_commits", "metis_sse_dropped_subscribers", "metis_storage_failed_commits",
                 "metis_actions_resumed", "metis_actions_ended", "metis_toolbus_requests",
                 "process_cpu_seconds", "python_gc_objects_collected"):
        assert families[name].type == "counter", name
    for name in ("metis_action_duration_seconds", "metis_action_queue_wait_seconds",
                 "metis_log_append_duration_seconds", "metis_sse_delivery_lag_seconds",
                 "metis_toolbus_request_duration_seconds"):
        assert families[name].type == "histogram", name
    assert families["python_info"].type == "gauge" and families["process_resident_memory_bytes"].type == "gauge"
    commits = families["metis_log_commits"].samples[0]
    assert commits.name == "metis_log_commits_total" and commits.value >= 1

    def count(family: str, **labels: str) -> float:
        return sum(s.value for s in families[family].samples
                   if s.name == family + "_count" and all(s.labels.get(k) == v for k, v in labels.items()))

    assert count("metis_action_duration_seconds", ability="t_metric", status="completed") >= 1
    assert count("metis_action_duration_seconds", ability="t_fail", status="failed") >= 1
    assert count("metis_action_queue_wait_seconds", tenant="acme") >= 2
    assert count("metis_log_append_duration_seconds") >= 2
    assert count("metis_sse_delivery_lag_seconds") >= 1
    assert count("metis_action_input_wait_seconds", ability="t_ask", kind="input") >= 1
    assert count("metis_action_input_wait_seconds", ability="t_ask", kind="approval") >= 1
    waited = sum(s.value for s in families["metis_action_input_wait_seconds"].samples
                 if s.name.endswith("_sum") and s.labels.get("kind") == "approval")
    assert waited >= 0.3  # approval latency: asked to granted
    # declared ability metrics, aggregated from the worker process; the undeclared one is dropped
    assert families["metis_ability_t_metric_items"].type == "counter"
    assert families["metis_ability_t_metric_items"].samples[0].value >= 4
    assert families["metis_ability_t_metric_frontier_size"].type == "gauge"
    assert families["metis_ability_t_metric_frontier_size"].samples[0].value == 13
    assert count("metis_ability_t_metric_step_seconds") >= 4
    assert not any("undeclared" in name for name in families)
    # cda's spec section 10 metrics, from a real cda run in a worker process
    assert families["metis_ability_cda_runs"].type == "counter"
    assert families["metis_ability_cda_runs"].samples[0].value >= 1
    for name in ("frontier_size", "ken_query_seconds", "time_to_first_summary_seconds", "citation_coverage"):
        assert families[f"metis_ability_cda_{name}"].type == "histogram"
        assert count(f"metis_ability_cda_{name}") >= 1, name
    assert {"metis_ability_cda_verifier_checks", "metis_ability_cda_verifier_passes",
            "metis_ability_cda_constraints_satisfied", "metis_ability_cda_constraints_violated",
            "metis_ability_cda_partial_runs"} <= set(families)
    allowed = {"ability", "status", "method", "outcome", "tenant", "kind", "le", "quantile", "implementation", "major",
               "minor", "patchlevel", "version", "generation"}
    for fam in families.values():
        for s in fam.samples:
            assert set(s.labels) <= allowed, (fam.name, s.labels)  # no action ids, topics, ...


def garbage_request(port: int) -> None:
    """Something uvicorn itself logs (a warning from the stdlib logger 'uvicorn.error')."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"\x16\x03\x01 not http at all\r\n\r\n")
        s.recv(1024)


async def test_shutdown_ends_sse_streams_cleanly_and_every_line_is_json(traced_server):
    async with ToolBus.connect(traced_server) as tb:
        started = await tb.call("actions.start", {"ability": "t_noop", "inputs": {}})
        await tb.wait_status(started["action_id"], {"completed"})
    garbage_request(traced_server.port)
    lines: list[str] = []
    outcome: dict[str, Any] = {}

    async def follow() -> None:
        try:
            async with httpx.AsyncClient(timeout=30) as client, client.stream(
                    "GET", f"{traced_server.http_url}/streams/{started['topic']}",
                    headers={"Authorization": "Bearer tok-acme-partner"}) as resp:
                async for line in resp.aiter_lines():
                    lines.append(line)
            outcome["end"] = "clean"
        except httpx.HTTPError as exc:
            outcome["end"] = repr(exc)

    reader = asyncio.create_task(follow())
    deadline = time.monotonic() + 15
    while not any(line.startswith("event: action_completed") for line in lines) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    t0 = time.monotonic()
    traced_server.proc.send_signal(signal.SIGTERM)
    await asyncio.wait_for(reader, 20)
    assert outcome["end"] == "clean"
    assert time.monotonic() - t0 < 5
    assert traced_server.proc.wait(20) in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it handled
    text = traced_server.log_path.read_text()
    assert "ASGI callable returned without completing response" not in text
    parsed = []
    for line in text.splitlines():
        if line.strip():
            parsed.append(json.loads(line))  # every line: one JSON object
    assert any(p.get("logger", "").startswith("uvicorn") for p in parsed)  # uvicorn's own lines too
    assert any(p.get("event") == "stopped" for p in parsed)
    assert any(p.get("event") == "worker_output" and p["line"] == "t_metric says hello" for p in parsed)
    assert os.path.getsize(traced_server.spans) > 0
