"""Reading a run's history back for replay (orchestrator/history.py): pure, no server."""

from __future__ import annotations

import hashlib
import json

from orchestrator.history import Call, Emit, matches, read_history, same
from receipts.canonical import canonical_json
from receipts.log import Record


class _Log:
    """Builds records the way the scheduler writes them (type, name, payload), in order."""

    def __init__(self) -> None:
        self.records: list[Record] = []

    def add(self, type_: str, name: str, payload: dict) -> Record:
        seq = len(self.records) + 1
        body = canonical_json({"seq": seq, "type": type_, "name": name, "payload": payload})
        rec = Record(seq, type_, name, "acme", "t", "act_1", None, None, body, hashlib.sha256(body).hexdigest())
        self.records.append(rec)
        return rec

    def event(self, name: str, payload: dict, kind: str | None = None) -> Record:
        body = {"ability": "x", "revision": 1, "payload": payload}
        if kind:
            body["kind"] = kind
        return self.add("event", name, body)


def _run_start(log: _Log, deps: dict | None = None) -> None:
    log.add("state", "created", {"view": {"status": "queued"}})
    log.add("state", "running", {"view": {"status": "running"},
                                 "run": {"revision": 1, "deadline": 1e9, "attempt": 1, "start": True, "deps": deps or {}}})
    log.event("action_started", {"seed_fingerprint": "hmac-v1:00"})


def test_steps_in_order_with_answers_expiry_and_spawns():
    log = _Log()
    _run_start(log, {"act_p": {"kind": "dependsOn", "revision": 1, "outputs": {"x": 1}}})
    cp = log.event("action_checkpoint", {"i": 0}, "plan_delta")
    log.add("receipt", "tool_call", {"i": 0})
    log.add("state", "waiting_user", {"view": {"status": "waiting_user"}, "ask": {"request_id": "req_a", "expires_at": 5.0}})
    log.event("action_waiting_user", {"request_id": "req_a", "kind": "question", "question": "q?"})
    log.add("receipt", "input", {"request_id": "req_a", "source": "sub_x", "value": {"v": 42}})
    log.add("state", "running", {"view": {"status": "running"}})
    log.event("action_notice", {"budget": "steps", "limit": 1, "grace_s": 0.5}, "budget_grace")  # the scheduler's
    log.event("action_waiting_user", {"request_id": "req_b", "kind": "question", "question": "again?"})
    log.event("action_notice", {"request_id": "req_b"}, "input_expired")
    log.event("action_linked", {"edge": "bind", "action_id": "act_child", "direction": "consumer", "wait": True})
    log.add("trace", "trace", {"thought": "t"})
    log.add("receipt", "replay", {"identical": True})  # a reviewer's replay: not a step

    h = read_history(log.records)
    assert h.run is not None and h.run["deps"]["act_p"]["outputs"] == {"x": 1}
    kinds = [(type(s).__name__, getattr(s, "method", None) or s.record.name) for s in h.steps]
    assert kinds == [("Emit", "action_checkpoint"), ("Emit", "tool_call"), ("Call", "ask"), ("Call", "ask"),
                     ("Call", "spawn"), ("Emit", "trace")]
    assert isinstance(h.steps[0], Emit) and h.steps[0].record is cp
    ask_a, ask_b, spawn = h.steps[2], h.steps[3], h.steps[4]
    assert isinstance(ask_a, Call) and ask_a.reply == {"value": {"v": 42}} and ask_a.request_id == "req_a"
    assert isinstance(ask_b, Call) and ask_b.reply == {"expired": True}
    assert isinstance(spawn, Call) and spawn.child_id == "act_child" and spawn.reply is None
    assert h.asks["req_a"]["expires_at"] == 5.0
    assert h.open_call() is None  # the last step is an emit: the run was computing


def test_open_call_attempts_and_only_the_current_run():
    log = _Log()
    _run_start(log)
    log.event("action_checkpoint", {"old": True}, "plan_delta")  # a first structure revision's run
    log.add("state", "revised", {"view": {"status": "queued"}})
    log.add("state", "running", {"view": {"status": "running"},
                                 "run": {"revision": 2, "deadline": 1e9, "attempt": 1, "start": True, "deps": {}}})
    log.event("action_checkpoint", {"new": True}, "plan_delta")
    log.add("state", "attempt", {"view": {"status": "running"}, "run": {"revision": 2, "attempt": 2}})
    log.event("action_waiting_user", {"request_id": "req_c", "kind": "approval"})
    h = read_history(log.records)
    assert h.run["revision"] == 2 and h.attempt == 2
    assert [s.record.payload["payload"] for s in h.steps if isinstance(s, Emit)] == [{"new": True}]
    call = h.open_call()
    assert call is not None and call.request_id == "req_c"
    assert h.last_state == "attempt"


def test_no_run_recorded_means_nothing_to_replay():
    log = _Log()
    log.add("state", "created", {"view": {"status": "queued"}})
    h = read_history(log.records)
    assert h.run is None and h.steps == [] and h.open_call() is None


def test_matching_compares_json_values_not_python_types():
    log = _Log()
    rec = log.event("action_checkpoint", {"x": 1e20, "y": [1, 2]}, "plan_delta")
    parsed = json.loads(rec.body)["payload"]  # what a reader of the log gets back
    assert matches(rec, "event", "action_checkpoint", {"payload": {"x": 1e20, "y": [1, 2]}, "kind": "plan_delta"})
    assert not matches(rec, "event", "action_checkpoint", {"payload": {"x": 1e20, "y": [2, 1]}, "kind": "plan_delta"})
    assert not matches(rec, "event", "action_checkpoint", {"payload": {"x": 1e20, "y": [1, 2]}, "kind": "other"})
    assert not matches(rec, "event", "action_progress", {"payload": {"x": 1e20, "y": [1, 2]}, "kind": "plan_delta"})
    assert same(parsed["payload"]["x"], 1e20) and same(100000000000000000000, 1e20)
    assert not same({"a": 1}, {"a": 2})
