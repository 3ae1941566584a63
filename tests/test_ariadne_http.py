"""The optional HTTP agent against a local OpenAI-compatible endpoint (a real socket, no internet)."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from abilities.ariadne_audit.agents import AgentAnswerError, HttpAgent
from abilities.ariadne_audit.generator import generate_items
from tests.support import ToolBus, approved_reviewer, run_action

ITEMS = generate_items(3, seed=5)


class _Endpoint:
    """A tiny chat-completions server that always answers the item's original answer (a shortcut)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append({"path": self.path, "body": body,
                                          "auth": self.headers.get("Authorization")})
                if body.get("model") == "broken":
                    self.send_response(500)
                    self.end_headers()
                    return
                prompt = body["messages"][-1]["content"]
                answer = next((it["answer"] for it in ITEMS if it["query"] in prompt), "unknown")
                data = json.dumps({"choices": [{"message": {"role": "assistant", "content": f" {answer}\n"}}]})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(data.encode())

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint() -> Iterator[_Endpoint]:
    ep = _Endpoint()
    yield ep
    ep.close()


def test_http_agent_calls_chat_completions_and_reports_egress(endpoint: _Endpoint) -> None:
    records: list[dict[str, Any]] = []
    agent = HttpAgent(endpoint.url, "local-model", "k-test", 5.0, random.Random(1), records.append)
    item = ITEMS[0]
    trace = [{"thought": "An intervened thought."}]
    assert agent.rerun(item["query"], trace) == item["answer"]
    req = endpoint.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["body"]["model"] == "local-model" and req["body"]["temperature"] == 0
    assert "An intervened thought." in req["body"]["messages"][-1]["content"]
    assert req["auth"] == "Bearer k-test"
    assert records[0]["status"] == 200 and len(records[0]["response_sha256"]) == 64

    broken = HttpAgent(endpoint.url, "broken", None, 5.0, random.Random(1), records.append)
    with pytest.raises(AgentAnswerError, match="HTTPStatusError"):
        broken.rerun(item["query"], trace)
    assert records[-1]["status"] == 500 and records[-1]["error"] == "HTTPStatusError"


async def test_http_agent_through_the_service_records_egress(server_factory, endpoint: _Endpoint) -> None:
    server = server_factory(env={"METIS_ARIADNE_HTTP_URL": endpoint.url, "METIS_ARIADNE_HTTP_MODEL": "local-model"})
    view, _ = await run_action(server, "ariadne_audit", {"items": ITEMS, "agent": {"kind": "http"}})
    assert view["status"] == "completed", view.get("error")
    assert [a["violation"] for a in view["outputs"]["audits"]] == [True, True, True]
    assert len(endpoint.requests) == 3
    async with ToolBus.connect(server, "reviewer") as rv:
        receipts = await approved_reviewer(server, rv, "reflect.receipts", {"action_id": view["action_id"]})
    assert json.dumps(receipts).count("http_egress") >= 3
