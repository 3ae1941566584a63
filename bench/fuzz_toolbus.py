"""Property-based fuzzing of the ToolBus against a real server.

Hypothesis generates frames: JSON-RPC envelopes of every shape (good and broken ids, methods,
params, batches), the params of every method (field names from the pydantic models, values from
hostile JSON: huge integers, NaN/Infinity, big floats, deep nesting, unicode including lone
surrogates), raw garbage, invalid UTF-8 binary frames and deeply nested frames. Each frame is sent
on one connection, followed by a sentinel ``session.whoami``; every reply must be a well-formed
JSON-RPC response (or notification) with the right id and an expected error code, never -32603,
and the connection must stay open.

The bounded mode runs in the test suite (``tests/test_fuzz_toolbus.py``). The long mode:

    PYTHONPATH=. .venv/bin/python bench/fuzz_toolbus.py --minutes 60

starts its own server (or uses ``--url`` with ``--token``), prints counts per error code and
writes ``bench/results/fuzz_toolbus.json`` (``--smoke``: a few seconds, results under
``bench/results/smoke/``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from schemas import toolbus as S  # noqa: E402

#: Codes a hostile frame may get. -32603 (internal) never; -32053 only when storage fails.
EXPECTED_CODES = {-32700, -32600, -32601, -32602, -32001, -32003, -32004, -32009, -32013, -32029, -32050}
NOTIFICATIONS = {"event", "subscription_dropped"}
#: Abilities the fuzzer may name: cheap test ones and one real one; none that sleeps, hangs, waits for
#: a person or emits without bound.
ABILITIES = ["t_noop", "t_fail", "crl_math", "no_such_ability"]
METHODS = sorted(S.METHODS)

# -- values ------------------------------------------------------------------------------------

_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)  # includes lone surrogates
_NUMBERS = st.one_of(
    st.integers(),  # unbounded: 2^63, 2^64, 10^30, negatives
    st.sampled_from([2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**400, -1, 0]),
    st.floats(),  # NaN and infinities too (json.dumps writes NaN/Infinity)
    st.floats(min_value=2.0**53, max_value=1e21),
    st.sampled_from([1e20, -1e20, 1e21, 5e-324, 1.7976931348623157e308]),
)
_SCALARS = st.one_of(st.none(), st.booleans(), _NUMBERS, _TEXT,
                     st.sampled_from(["act_" + "0" * 20, "sub_000000000000", "apr_0000000000000000", "t1", ""]))
JSON_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)), max_leaves=16)


#: A well-formed params object per method: the fuzzer mutates one field, so validation passes often
#: enough to reach the methods themselves (roles, approvals, lookups, the scheduler).
TEMPLATES: dict[str, dict[str, Any]] = {
    "session.authenticate": {"token": "tok-acme-partner"},
    "actions.start": {"ability": "t_noop", "inputs": {}},
    "actions.get": {"action_id": "act_00000000000000000000"},
    "actions.list": {"limit": 5},
    "actions.cancel": {"action_id": "act_00000000000000000000", "reason": "fuzz"},
    "actions.input": {"action_id": "act_00000000000000000000", "request_id": "req_0", "value": 1},
    "actions.accept_update": {"action_id": "act_00000000000000000000", "dependency_id": "act_1"},
    "artifacts.get": {"artifact_id": "art_0"},
    "events.subscribe": {"topic": "fuzz-topic", "last_event_id": 0},
    "events.unsubscribe": {"subscription_id": "sub_000000000000"},
    "approvals.grant": {"approval_id": "apr_0000000000000000", "scope": "call"},
    "approvals.deny": {"approval_id": "apr_0000000000000000"},
    "reflect.trace": {"action_id": "act_00000000000000000000"},
    "reflect.receipts": {"from_seq": 1, "to_seq": 5},
    "reflect.verify": {"from_seq": 1},
    "reflect.proof": {"seq": 1},
    "reflect.replay": {"action_id": "act_00000000000000000000"},
    "datasets.put": {"kind": "corpus", "name": "fuzz", "content": ["a fuzzed line"]},
    "datasets.list": {},
    "datasets.get": {"kind": "corpus", "name": "fuzz"},
}


def _field_names(method: str) -> list[str]:
    model = S.METHODS[method][0]
    return [f.alias or name for name, f in model.model_fields.items()]


@st.composite
def method_params(draw: st.DrawFn, method: str) -> Any:
    """Params for ``method``: mostly the model's own field names with hostile values."""
    shape = draw(st.integers(0, 9))
    if shape == 0:
        return draw(JSON_VALUES)  # not even an object, sometimes
    if shape >= 6:  # a good template with one field given a hostile value (or none at all)
        params = dict(TEMPLATES.get(method, {}))
        if params and shape < 9:
            params[draw(st.sampled_from(sorted(params)))] = draw(JSON_VALUES)
        return params
    params: dict[str, Any] = {}
    for name in _field_names(method):
        if draw(st.booleans()):
            if name == "ability":
                params[name] = draw(st.sampled_from(ABILITIES) | _TEXT)
            elif name == "inputs":
                params[name] = draw(st.dictionaries(_TEXT | st.sampled_from(["n", "goal", "x"]), JSON_VALUES,
                                                    max_size=3) | JSON_VALUES)
            elif name == "budgets":
                params[name] = draw(st.fixed_dictionaries({}, optional={
                    "wall_s": _NUMBERS, "tokens": _NUMBERS, "steps": _NUMBERS}) | JSON_VALUES)
            elif name == "_meta":
                params[name] = draw(st.fixed_dictionaries({}, optional={"traceparent": _TEXT}) | JSON_VALUES)
            else:
                params[name] = draw(JSON_VALUES)
    if shape == 1:
        params[draw(_TEXT)] = draw(JSON_VALUES)  # an unknown member
    return params


# -- frames ------------------------------------------------------------------------------------

_ids = itertools.count(1)
_ARRAY = object()  # "a batch's array reply" in the set of awaited replies


@dataclass
class Frame:
    """What to send, and the ids whose replies must come back."""

    payload: str | bytes
    expect: set[Any] = field(default_factory=set)  # ids that must be answered
    ids: set[Any] = field(default_factory=set)  # every id a reply may carry (plus None)
    kind: str = ""


@st.composite
def _envelope(draw: st.DrawFn) -> tuple[dict[str, Any], Any, bool]:
    """A request object; returns (obj, id, answerable) where answerable means a reply with that id
    must come (a valid id and, for a notification, False)."""
    # mostly well-formed envelopes, so that most frames reach a method's params validation
    method = draw(st.sampled_from(METHODS)) if draw(st.integers(0, 9)) < 8 else draw(_TEXT | JSON_VALUES)
    obj: dict[str, Any] = {}
    jsonrpc = "2.0" if draw(st.integers(0, 9)) < 8 else draw(st.sampled_from(["1.0", 2.0, None, "missing"]))
    if jsonrpc != "missing":
        obj["jsonrpc"] = jsonrpc
    id_kind = draw(st.sampled_from(["int"] * 4 + ["str"] * 3 + ["null", "missing", "bool", "float", "list", "huge"]))
    n = next(_ids)
    rid: Any = {"int": n, "str": f"f{n}", "null": None, "bool": True, "float": n + 0.5, "list": [n],
                "huge": 2**63 + n}.get(id_kind)
    if id_kind != "missing":
        obj["id"] = rid
    if draw(st.integers(0, 19)) > 0:
        obj["method"] = method
    if draw(st.integers(0, 19)) > 0:
        obj["params"] = draw(method_params(method)) if isinstance(method, str) and method in S.METHODS else draw(
            JSON_VALUES)
    for _ in range(draw(st.integers(0, 1))):
        key = draw(_TEXT)
        if key not in ("id", "jsonrpc", "method", "params"):
            obj[key] = draw(JSON_VALUES)
    valid_id = id_kind in ("int", "str", "huge")
    return obj, (rid if valid_id else None), valid_id


def _dump(obj: Any, ascii_only: bool) -> str:
    """JSON text (NaN/Infinity written as such: the server must cope); lone surrogates are escaped
    (``\\ud800``) unless the text can go raw."""
    text = json.dumps(obj, ensure_ascii=False)
    if ascii_only:
        return json.dumps(obj)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj)
    return text


@st.composite
def frames(draw: st.DrawFn) -> Frame:
    kind = draw(st.sampled_from(["request"] * 6 + ["batch", "batch", "deep", "garbage", "binary", "value",
                                                   "empty_batch", "huge_batch"]))
    if kind == "request":
        obj, rid, answerable = draw(_envelope())
        text = _dump(obj, ascii_only=draw(st.booleans()))
        return Frame(text, {rid} if answerable else set(), {rid} if answerable else set(), kind)
    if kind == "batch":
        members = draw(st.lists(_envelope() | JSON_VALUES.map(lambda v: (v, None, False)), min_size=1, max_size=6))
        ids = {rid for _, rid, ok in members if ok}
        return Frame(_dump([m for m, _, _ in members], ascii_only=True), set(), ids, kind)
    if kind == "deep":
        depth = draw(st.sampled_from([65, 100, 500, 900, 999, 1000, 1001, 5000, 100_000]))
        n = next(_ids)
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        head = '{"jsonrpc":"2.0","id":' + str(n) + ',"method":"actions.start","params":{"ability":"t_noop","inputs":{"x":'
        text = head + opener * depth + "1" + closer * depth + "}}}"
        return Frame(text, {n}, {n}, kind)
    if kind == "garbage":
        text = draw(st.text(max_size=40) | st.sampled_from(['{"jsonrpc":"2.0",', "[1,", "nul", '{"id":1', "\x00"]))
        return Frame(text, set(), set(), kind)
    if kind == "binary":
        raw = draw(st.binary(max_size=40)) + b"\xff"  # never valid UTF-8
        return Frame(raw, set(), set(), kind)
    if kind == "value":
        return Frame(_dump(draw(JSON_VALUES), ascii_only=True), set(), set(), kind)
    if kind == "empty_batch":
        return Frame("[]", set(), set(), kind)
    n = next(_ids)
    many = [{"jsonrpc": "2.0", "id": n, "method": "session.whoami"}] * draw(st.integers(101, 150))
    return Frame(json.dumps(many), set(), set(), kind)


# -- checking ----------------------------------------------------------------------------------


class FuzzFailure(AssertionError):
    pass


def check_message(msg: Any, allowed_ids: set[Any]) -> list[int | None]:
    """Validate one reply (object or batch array); returns its error codes (None for a result)."""
    if isinstance(msg, list):
        if not msg:
            raise FuzzFailure("empty array reply")
        return [c for m in msg for c in check_message(m, allowed_ids)]
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
        raise FuzzFailure(f"not a JSON-RPC 2.0 message: {str(msg)[:300]}")
    if "method" in msg:
        if "id" in msg or msg["method"] not in NOTIFICATIONS:
            raise FuzzFailure(f"unexpected notification: {str(msg)[:300]}")
        return []
    keys = set(msg)
    if keys not in ({"jsonrpc", "id", "result"}, {"jsonrpc", "id", "error"}):
        raise FuzzFailure(f"malformed response members {sorted(keys)}")
    if msg["id"] is not None and msg["id"] not in allowed_ids:
        raise FuzzFailure(f"reply with an id nobody sent: {msg['id']!r} (expected {sorted(map(str, allowed_ids))})")
    if "result" in msg:
        return [None]
    err = msg["error"]
    if not isinstance(err, dict) or not isinstance(err.get("code"), int) or not isinstance(err.get("message"), str):
        raise FuzzFailure(f"malformed error object: {str(err)[:300]}")
    if err["code"] not in EXPECTED_CODES:
        raise FuzzFailure(f"unexpected error code {err['code']}: {err.get('message')!r} {str(err.get('data'))[:300]}")
    return [err["code"]]


def _answered(member: Any) -> bool:
    """Does this batch member get a response? Everything but a well-formed notification does."""
    if not isinstance(member, dict) or "id" in member:
        return True
    method, params = member.get("method"), member.get("params", {})
    return not (member.get("jsonrpc") == "2.0" and isinstance(method, str) and method and isinstance(params, dict))


def _expectations(payload: str | bytes) -> tuple[bool, set[Any]]:
    """(whether an array reply must be awaited, the top-level ids a reply may echo) of a frame."""
    try:
        obj = json.loads(payload)
    except (ValueError, RecursionError):
        return False, set()
    members = obj if isinstance(obj, list) else [obj]
    ids = {m["id"] for m in members if isinstance(m, dict) and isinstance(m.get("id"), str | int)
           and not isinstance(m.get("id"), bool)}
    return isinstance(obj, list) and 0 < len(obj) <= 100 and any(_answered(m) for m in obj), ids


class Fuzzer:
    """One ToolBus connection; ``run(frame)`` sends it plus a sentinel and checks every reply."""

    def __init__(self, ws_url: str, token: str, reply_timeout: float = 30.0) -> None:
        self.ws_url, self.token = ws_url, token
        self.reply_timeout = reply_timeout
        self.counts: Counter[str] = Counter()
        self.frames = 0
        self._open()

    def _open(self) -> None:
        from websockets.sync.client import connect

        self._conn = connect(self.ws_url, additional_headers={"Authorization": f"Bearer {self.token}"},
                             max_size=64 * 1024 * 1024, open_timeout=30)
        self.ws = self._conn.__enter__()

    def close(self) -> None:
        self._conn.__exit__(None, None, None)

    def run(self, frame: Frame) -> None:
        """Send ``frame`` and check the replies; after a failure the next frame gets a fresh
        connection (so shrinking is not confused by late replies of the failed one)."""
        try:
            self._run(frame)
        except FuzzFailure as exc:
            self.close()
            self._open()
            raise FuzzFailure(f"{exc} -- frame ({frame.kind}): {str(frame.payload)[:1500]!r}") from None
        except BaseException:
            self.close()
            self._open()
            raise

    def _run(self, frame: Frame) -> None:
        sentinel = f"sentinel-{next(_ids)}"
        self.ws.send(frame.payload)
        self.ws.send(json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "session.whoami", "params": {}}))
        array, echoed = _expectations(frame.payload)
        allowed = frame.ids | echoed | {sentinel}
        waiting: set[Any] = set(frame.expect) | {sentinel}
        if array:
            waiting.add(_ARRAY)
        deadline = time.monotonic() + self.reply_timeout
        while waiting:
            left = deadline - time.monotonic()
            if left <= 0:
                raise FuzzFailure(f"no reply for ids {sorted(map(str, waiting))} to a {frame.kind} frame: "
                                  f"{str(frame.payload)[:300]!r}")
            raw = self.ws.recv(timeout=left)  # ConnectionClosed here fails the run: the socket must stay open
            msg = json.loads(raw)
            codes = check_message(msg, allowed)
            if isinstance(msg, dict) and msg.get("id") == sentinel:
                if "error" in msg and msg["error"]["code"] != -32029:
                    raise FuzzFailure(f"the sentinel whoami failed: {msg['error']}")
                waiting.discard(sentinel)
                continue  # the sentinel's own outcome is not counted
            if isinstance(msg, list):
                waiting.discard(_ARRAY)
            for item in msg if isinstance(msg, list) else [msg]:
                if isinstance(item, dict):
                    waiting.discard(item.get("id"))
            for code in codes:
                self.counts["ok" if code is None else str(code)] += 1
        self.frames += 1


def fuzz_for(fuzzer: Fuzzer, seconds: float, batch: int = 200) -> None:
    """Run hypothesis-generated frames until ``seconds`` have passed (no shrinking: long mode)."""
    end = time.monotonic() + seconds

    @settings(max_examples=batch, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(frames())
    def one(frame: Frame) -> None:
        if time.monotonic() < end:
            fuzzer.run(frame)

    while time.monotonic() < end:
        one()


def main(argv: list[str] | None = None) -> int:
    from bench.spine_common import write_result
    from tests.support import MetisServer

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--smoke", action="store_true", help="a few seconds, results under bench/results/smoke/")
    ap.add_argument("--url", help="ws://HOST:PORT/toolbus of a running server (else one is started)")
    ap.add_argument("--token", default="tok-acme-fuzz", help="token with every role (the started server has it)")
    args = ap.parse_args(argv)
    seconds = 5.0 if args.smoke else args.minutes * 60
    server = None
    with tempfile.TemporaryDirectory() as tmp:
        if args.url is None:
            # the limiter would answer most frames -32029 at fuzzing speed: raise it, keep it on
            server = MetisServer(Path(tmp) / "data", env={"METIS_RATE_PER_S": "100000", "METIS_RATE_BURST": "100000"})
            server.start()
        url = args.url or server.ws_url  # type: ignore[union-attr]
        started = time.monotonic()
        failure = None
        fuzzer = Fuzzer(url, args.token)
        try:
            fuzz_for(fuzzer, seconds)
        except Exception as exc:  # reported, with the counts so far
            failure = f"{type(exc).__name__}: {exc}"
            if server is not None:  # the server's side of it
                log = (server.data_dir.parent / f"{server.data_dir.name}-server.log").read_text(errors="replace")
                print("\n".join(log.splitlines()[-40:]))
        finally:
            fuzzer.close()
            healthy = None
            if server is not None:
                import httpx

                try:
                    healthy = httpx.get(server.http_url + "/healthz", timeout=10).status_code == 200
                finally:
                    server.stop()
        elapsed = time.monotonic() - started
    result = {"frames": fuzzer.frames, "seconds": round(elapsed, 1), "frames_per_s": round(fuzzer.frames / elapsed, 1),
              "replies_by_code": dict(sorted(fuzzer.counts.items())), "failure": failure, "server_healthy": healthy}
    print(f"fuzzed {fuzzer.frames} frames in {elapsed:.0f} s ({result['frames_per_s']}/s); server healthy: {healthy}")
    for code, n in sorted(fuzzer.counts.items()):
        print(f"  {code:>7}  {n}")
    if failure:
        print("FAILURE:", failure)
    path = write_result("fuzz_toolbus", result, smoke=args.smoke)
    print(f"wrote {path}")
    return 1 if failure or healthy is False else 0


if __name__ == "__main__":
    sys.exit(main())
