"""research through the real server: cited spans from a put corpus, a receipt per query, approved
egress to a real local HTTP provider, denied egress as a conservative result with stubs, bad
input, determinism, and a re-put corpus re-running the action as a new revision."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support import MetisServer, RpcFailure, ToolBus, approved_reviewer, notices, open_request

DOCS = [
    {"doc_id": "pm-101", "title": "Payments outage postmortem",
     "text": "At 10:02 the payments service started returning 5xx errors. The deploy of payments v2.3 had "
             "changed the connection pool size. Rolling back the deploy restored normal latency."},
    {"doc_id": "pm-102", "title": "Inventory sync",
     "text": "Inventory sync ran late on Tuesday. No customer impact was observed. The database was healthy."},
    {"doc_id": "pm-103", "title": "Checkout latency",
     "text": "Checkout latency doubled while payments retried. Web frontend alerts followed checkout."},
    {"doc_id": "pm-104", "title": "Config change",
     "text": "A config change to the orders database raised the lock timeout.\nNothing else changed that day."},
]


class Provider(BaseHTTPRequestHandler):
    calls: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Provider.calls.append({**body, "auth": self.headers.get("Authorization")})
        if "boom" in body["query"]:
            self.send_response(500)
            self.end_headers()
            return
        answer = {"results": [{"doc_id": "ext-7", "start": 0, "end": 30, "score": 9.5, "title": "vendor status",
                               "excerpt": f"vendor status page: {body['query']}"}]}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Provider)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/search"
    httpd.shutdown()


@pytest.fixture(scope="module")
def server(tmp_path_factory, provider) -> Iterator[MetisServer]:
    s = MetisServer(tmp_path_factory.mktemp("research") / "data",
                    env={"METIS_RESEARCH_PROVIDER_URL": provider, "METIS_RESEARCH_PROVIDER_TOKEN": "prov-secret"})
    s.start()
    yield s
    s.stop()


async def put_corpus(tb: ToolBus, name: str, docs: list[dict]) -> dict:
    return await tb.call("datasets.put", {"kind": "corpus", "name": name, "content": docs})


async def receipts(server: MetisServer, action_id: str) -> list[dict]:
    async with ToolBus.connect(server, "reviewer") as rv:
        got = await approved_reviewer(server, rv, "reflect.receipts", {"action_id": action_id})
    return got["receipts"]


async def test_cited_spans_with_a_receipt_per_query_deterministic_by_seed(server):
    queries = ["payments deploy errors", "orders database lock timeout", "kubernetes quota"]
    async with ToolBus.connect(server) as tb:
        put = await put_corpus(tb, "postmortems", DOCS)
        runs = [await tb.run("research", {"queries": queries, "corpus": {"dataset": "postmortems"}, "top_k": 2},
                             seed={"purpose": "same"}) for _ in range(2)]
    (view, events), (again, _) = runs
    assert view["status"] == "completed", view.get("error")
    out = view["outputs"]
    assert out == again["outputs"]  # same seed, same corpus: the same outputs
    assert out["corpus"] == {"dataset": "postmortems", "version": 1, "sha256": put["sha256"], "documents": 4}
    by_id = {d["doc_id"]: d for d in DOCS}
    first, second, third = out["results"]
    assert first["spans"][0]["doc_id"] == "pm-101" and second["spans"][0]["doc_id"] == "pm-104"
    assert third["spans"] == []  # nothing in the corpus: no invented citation
    for span in out["spans"]:
        assert span["excerpt"] == by_id[span["doc_id"]]["text"][span["start"]:span["end"]]
        assert span["source"] == "corpus" and span["score"] > 0
    for result in (first, second):  # the cited sentence carries at least two of the query's words
        words = set(result["query"].lower().split())
        assert len(words & set(result["spans"][0]["excerpt"].lower().rstrip(".").split())) >= 2, result
    assert [s["score"] for s in out["spans"]] == sorted((s["score"] for s in out["spans"]), reverse=True)
    kinds = [e["data"].get("kind") for e in events if e["event"] == "action_checkpoint"]
    assert kinds == ["plan_delta", "verifier_update", "verifier_update", "verifier_update", "boundary_summary"]
    recs = await receipts(server, view["action_id"])
    per_query = [r["payload"] for r in recs if r["name"] == "research_query"]
    assert [q["query"] for q in per_query] == queries
    assert per_query[0]["corpus"]["sha256"] == put["sha256"] and per_query[0]["spans"][0]["doc_id"] == "pm-101"
    assert [r["payload"]["version"] for r in recs if r["name"] == "dataset_read"] == [1]


async def test_granted_egress_calls_the_provider_after_the_approval(server):
    before = len(Provider.calls)
    async with ToolBus.connect(server) as tb:
        await put_corpus(tb, "postmortems", DOCS)
        started = await tb.start("research", {"queries": ["payments 5xx", "checkout latency"],
                                              "corpus": {"dataset": "postmortems"}, "egress": "external"})
        ask = await open_request(tb, started["action_id"])
        assert ask["kind"] == "approval" and ask["egress_class"] == "external" and ask["provider"].startswith("127.0.0.1")
        assert len(Provider.calls) == before  # nothing left the server before the approval
        async with ToolBus.connect(server, "approver") as ap:
            pending = [a for a in (await ap.call("approvals.list", {}))["approvals"]
                       if a.get("action_id") == started["action_id"] and a["status"] == "pending"]
            await ap.call("approvals.grant", {"approval_id": pending[0]["approval_id"], "note": "ok"})
        view = await tb.wait_status(started["action_id"], {"completed", "failed"}, timeout=60)
    out = view["outputs"]
    assert view["status"] == "completed" and out["egress_granted"] is True and not out["conservative"]
    calls = Provider.calls[before:]
    assert [c["query"] for c in calls] == ["payments 5xx", "checkout latency"]
    assert {c["egress_class"] for c in calls} == {"external"} and calls[0]["auth"] == "Bearer prov-secret"
    external = [s for s in out["spans"] if s["source"] == "external"]
    assert len(external) == 2 and external[0]["excerpt"].startswith("vendor status page")
    recs = await receipts(server, view["action_id"])
    assert [r["payload"]["status"] for r in recs if r["name"] == "research_provider_call"] == ["ok", "ok"]
    assert [r["payload"]["granted"] for r in recs if r["name"] == "approval"] == [True]


async def test_denied_egress_is_conservative_with_receipt_stubs_and_no_call(server):
    before = len(Provider.calls)
    async with ToolBus.connect(server) as tb:
        await put_corpus(tb, "postmortems", DOCS)
        view, _ = await tb.run("research", {"queries": ["payments deploy", "vendor incident"],
                                            "corpus": {"dataset": "postmortems"}, "egress": "partner"},
                               answer=lambda payload: {"granted": False})
    out = view["outputs"]
    assert view["status"] == "completed" and out["egress_granted"] is False and out["conservative"]
    assert len(Provider.calls) == before
    assert [s["reason"] for s in out["receipt_stubs"]] == ["egress_denied", "egress_denied"]
    assert [r["external"] for r in out["results"]] == ["denied", "denied"]
    assert out["results"][0]["spans"][0]["doc_id"] == "pm-101"  # local evidence still cited
    assert out["caveats"] and "conservative" in out["caveats"][0]
    recs = await receipts(server, view["action_id"])
    assert [r["payload"]["query_id"] for r in recs if r["name"] == "receipt_stub"] == ["rq-1", "rq-2"]


async def test_a_failing_provider_is_a_stub_not_a_failure(server):
    async with ToolBus.connect(server) as tb:
        await put_corpus(tb, "postmortems", DOCS)
        view, _ = await tb.run("research", {"queries": ["boom payments"], "corpus": {"dataset": "postmortems"},
                                            "egress": "external"}, answer=lambda payload: {"granted": True})
    out = view["outputs"]
    assert view["status"] == "completed" and out["conservative"]
    assert out["receipt_stubs"][0]["reason"] == "provider_error" and out["results"][0]["external"] == "error"


async def test_bad_inputs_are_refused_naming_the_field(server):
    good = {"queries": ["x"], "corpus": {"dataset": "postmortems"}}
    cases = [({**good, "queries": []}, ["inputs", "queries"]),
             ({**good, "queries": ["  "]}, ["inputs", "queries"]),
             ({**good, "top_k": 0}, ["inputs", "top_k"]),
             ({**good, "egress": "world"}, ["inputs", "egress"]),
             ({**good, "corpus": {"dataset": "../x"}}, ["inputs", "corpus", "dataset"]),
             ({**good, "corpus": {"dataset": "p", "version": 0}}, ["inputs", "corpus", "version"]),
             ({**good, "extra": 1}, ["inputs", "extra"]),
             ({"queries": ["x"]}, ["inputs", "corpus"])]
    async with ToolBus.connect(server) as tb:
        for inputs, loc in cases:
            with pytest.raises(RpcFailure) as err:
                await tb.start("research", inputs)
            assert err.value.code == -32602 and loc in [e["loc"] for e in err.value.data["errors"]], inputs
        view, _ = await tb.run("research", {"queries": ["x"], "corpus": {"dataset": "never-put"}})
    assert view["status"] == "failed" and view["error"]["reason"] == "unknown_dataset"


async def test_a_new_corpus_version_re_runs_the_action_as_a_new_revision(server):
    async with ToolBus.connect(server) as tb:
        await put_corpus(tb, "live", DOCS)
        view, _ = await tb.run("research", {"queries": ["lock timeout"], "corpus": {"dataset": "live"}})
        assert view["revision"] == 1 and view["outputs"]["spans"][0]["doc_id"] == "pm-104"
        newer = DOCS + [{"doc_id": "pm-200", "text": "Lock timeout lock timeout: the lock timeout was the root."}]
        put = await put_corpus(tb, "live", newer)
        assert put["version"] == 2
        for _ in range(300):
            v2 = await tb.call("actions.get", {"action_id": view["action_id"]})
            if v2["revision"] == 2 and v2["status"] == "completed":
                break
            await asyncio.sleep(0.1)
        assert v2["revision"] == 2 and v2["status"] == "completed"
        assert v2["outputs"]["corpus"]["version"] == 2 and v2["outputs"]["spans"][0]["doc_id"] == "pm-200"
        manual, _ = await tb.run("research", {"queries": ["lock"], "corpus": {"dataset": "live"}, "refresh": "manual"})
        await put_corpus(tb, "live", newer + [{"doc_id": "pm-300", "text": "lock"}])
        for _ in range(20):
            notes = await notices(tb, manual["topic"], manual["action_id"], "update_available")
            if notes:
                break
        mv = await tb.call("actions.get", {"action_id": manual["action_id"]})
        assert mv["revision"] == 1 and notes[0]["dependency_id"] == "dataset:corpus:live"
        assert notes[0]["revision"] == 3 and notes[0]["held_revision"] == 2
        revised = await tb.call("actions.accept_update", {"action_id": manual["action_id"],
                                                          "dependency_id": "dataset:corpus:live"})
        assert revised["revision"] == 2
        done = await tb.wait_status(manual["action_id"], {"completed"}, timeout=60)
        assert done["outputs"]["corpus"]["version"] == 3



async def test_a_version_put_while_the_action_waits_does_not_change_its_run(server):
    """The run parks on its approval and resumes by replay: it must read the version it started on
    (pinned), not the one put meanwhile; the newer one then comes as its next revision."""
    async with ToolBus.connect(server) as tb:
        await put_corpus(tb, "pinned", DOCS)
        started = await tb.start("research", {"queries": ["lock timeout"], "corpus": {"dataset": "pinned"},
                                              "egress": "partner"})
        await open_request(tb, started["action_id"])
        newer = [{"doc_id": "new-1", "text": "lock timeout everywhere: lock timeout."}] + DOCS
        assert (await put_corpus(tb, "pinned", newer))["version"] == 2
        view, _ = await tb.run("research", {"queries": ["lock timeout"], "corpus": {"dataset": "pinned"}})
        assert view["outputs"]["corpus"]["version"] == 2  # a new action reads the newest
        await tb.call("actions.input", {"action_id": started["action_id"],
                                        "request_id": (await open_request(tb, started["action_id"]))["request_id"],
                                        "value": {"granted": False}})
        end = (await tb.follow(started["topic"], started["action_id"], timeout=60))[-1]
        assert end["event"] == "action_completed", end  # not failed "nondeterministic"
        first = end["data"]["payload"]
        assert end["data"]["revision"] == 1 and first["outputs"]["corpus"]["version"] == 1
        assert first["outputs"]["spans"][0]["doc_id"] == "pm-104"
        for _ in range(100):  # then it is offered the version put while it ran, and re-runs (refresh auto)
            again = await tb.call("actions.get", {"action_id": started["action_id"]})
            if again["revision"] == 2 and again["status"] in ("completed", "waiting_user"):
                break
            await asyncio.sleep(0.1)
        assert again["revision"] == 2
