"""Sans-I/O tests of the JSON-RPC 2.0 framing (orchestrator/jsonrpc.py): plain strings in, items out."""

from __future__ import annotations

import json

import pytest

from orchestrator.errors import INVALID_REQUEST, PARSE_ERROR, TOO_LARGE
from orchestrator.jsonrpc import (
    MAX_DEPTH,
    Request,
    encode,
    error_response,
    parse,
    result_response,
    scan_id,
    too_deep,
)

MAX_BYTES = 10_000
MAX_BATCH = 5


def one(text: str | bytes) -> Request | dict:
    items, is_batch = parse(text, MAX_BYTES, MAX_BATCH)
    assert not is_batch and len(items) == 1
    return items[0]


def err_code(item: Request | dict) -> int:
    assert isinstance(item, dict), f"expected an error response, got {item!r}"
    return item["error"]["code"]


@pytest.mark.parametrize("text", ["{", "", "not json", '{"jsonrpc": "2.0",}', "[1,", b"\xff\xfe"])
def test_parse_errors_answer_32700_with_null_id(text):
    item = one(text)
    assert err_code(item) == PARSE_ERROR
    assert item["id"] is None and item["jsonrpc"] == "2.0"


def test_valid_request_with_params():
    item = one('{"jsonrpc":"2.0","id":7,"method":"actions.get","params":{"action_id":"a"}}')
    assert item == Request("actions.get", {"action_id": "a"}, 7, notification=False)


def test_params_default_to_an_empty_object():
    item = one('{"jsonrpc":"2.0","id":"x","method":"session.whoami"}')
    assert isinstance(item, Request) and item.params == {} and item.id == "x"


def test_bytes_frames_are_accepted():
    item = one(b'{"jsonrpc":"2.0","id":1,"method":"m"}')
    assert isinstance(item, Request) and item.method == "m"


@pytest.mark.parametrize("obj,expect_id", [
    (1, None), ("str", None), (None, None), (True, None),
    ({"id": 1, "method": "m"}, 1),  # missing jsonrpc
    ({"jsonrpc": "1.0", "id": 1, "method": "m"}, 1),
    ({"jsonrpc": 2.0, "id": 1, "method": "m"}, 1),
    ({"jsonrpc": "2.0", "id": 1}, 1),  # missing method
    ({"jsonrpc": "2.0", "id": 1, "method": ""}, 1),
    ({"jsonrpc": "2.0", "id": 1, "method": 5}, 1),
    ({"jsonrpc": "2.0", "id": 1, "method": "m", "params": [1, 2]}, 1),  # by-position params
    ({"jsonrpc": "2.0", "id": 1, "method": "m", "params": "x"}, 1),
    ({"jsonrpc": "2.0", "id": 1, "method": "m", "params": None}, 1),
])
def test_invalid_requests_answer_32600(obj, expect_id):
    item = one(json.dumps(obj))
    assert err_code(item) == INVALID_REQUEST
    assert item["id"] == expect_id


@pytest.mark.parametrize("id_", [0, -3, 2**62, "abc", "", None])
def test_accepted_id_types_are_echoed(id_):
    item = one(json.dumps({"jsonrpc": "2.0", "id": id_, "method": "m"}))
    assert isinstance(item, Request) and item.id == id_ and not item.notification


@pytest.mark.parametrize("id_", [True, False, [1], {"a": 1}, 1.5])
def test_rejected_id_types_answer_32600_with_null_id(id_):
    item = one(json.dumps({"jsonrpc": "2.0", "id": id_, "method": "m"}))
    assert err_code(item) == INVALID_REQUEST and item["id"] is None


def test_notification_has_no_id_member():
    item = one('{"jsonrpc":"2.0","method":"events.unsubscribe","params":{"subscription_id":"s"}}')
    assert isinstance(item, Request) and item.notification and item.id is None


def test_explicit_null_id_is_a_request_not_a_notification():
    item = one('{"jsonrpc":"2.0","id":null,"method":"m"}')
    assert isinstance(item, Request) and not item.notification


def test_batch_mixes_requests_errors_and_notifications_in_order():
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "a"},
        {"jsonrpc": "2.0", "method": "b"},
        5,
        {"jsonrpc": "2.0", "id": 2, "method": "c", "params": [1]},
    ]
    items, is_batch = parse(json.dumps(batch), MAX_BYTES, MAX_BATCH)
    assert is_batch and len(items) == 4
    assert isinstance(items[0], Request) and items[0].method == "a"
    assert isinstance(items[1], Request) and items[1].notification
    assert err_code(items[2]) == INVALID_REQUEST and items[2]["id"] is None
    assert err_code(items[3]) == INVALID_REQUEST and items[3]["id"] == 2


def test_empty_batch_is_one_invalid_request_not_a_batch():
    items, is_batch = parse("[]", MAX_BYTES, MAX_BATCH)
    assert not is_batch and len(items) == 1 and err_code(items[0]) == INVALID_REQUEST


def test_batch_size_limit():
    ok = [{"jsonrpc": "2.0", "id": i, "method": "m"} for i in range(MAX_BATCH)]
    items, is_batch = parse(json.dumps(ok), MAX_BYTES, MAX_BATCH)
    assert is_batch and all(isinstance(i, Request) for i in items)
    items, is_batch = parse(json.dumps(ok + ok[:1]), MAX_BYTES, MAX_BATCH)
    assert not is_batch and len(items) == 1 and err_code(items[0]) == TOO_LARGE


def test_oversized_message_is_refused_before_parsing():
    pad = "x" * MAX_BYTES
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"p": pad}})
    item = one(text)
    assert err_code(item) == TOO_LARGE and item["id"] == 1  # read from the frame's first bytes
    # even malformed JSON over the limit is "too large", not "parse error": nothing is parsed
    assert err_code(one("{" * (MAX_BYTES + 1))) == TOO_LARGE


def test_message_exactly_at_the_limit_is_parsed():
    base = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"p": ""}})
    text = base.replace('"p": ""', '"p": "' + "x" * (MAX_BYTES - len(base)) + '"')
    assert len(text) == MAX_BYTES
    assert isinstance(one(text), Request)


def test_size_limit_counts_utf8_bytes_of_text_frames():
    chars = MAX_BYTES // 2  # 2 bytes each in UTF-8: ~2x the limit in bytes, under it in characters
    text = '{"jsonrpc":"2.0","id":1,"method":"m","params":{"p":"' + "é" * chars + '"}}'
    assert len(text) < MAX_BYTES < len(text.encode("utf-8"))
    assert err_code(one(text)) == TOO_LARGE


def test_response_builders_and_compact_encoding():
    assert result_response(3, {"a": 1}) == {"jsonrpc": "2.0", "id": 3, "result": {"a": 1}}
    from orchestrator.errors import RpcError

    err = error_response("x", RpcError(-32602, "bad", {"errors": []}))
    assert err == {"jsonrpc": "2.0", "id": "x", "error": {"code": -32602, "message": "bad", "data": {"errors": []}}}
    assert "data" not in error_response(1, RpcError(-32601, "no"))["error"]
    assert encode({"a": "é", "b": [1, 2]}) == '{"a":"é","b":[1,2]}'


@pytest.mark.parametrize("text,expect", [
    ('{"jsonrpc":"2.0","id":7,"method":"m"}', 7),
    ('{"id": "abc", "params": {"x": 1}}', "abc"),
    ('{"params":{"id":5,"x":[{"id":3}]},"id":"top"}', "top"),  # nested ids are not the request's
    ('{"params":{"id":5}}', None),
    ('{"id": 42, "x": "unterminated', 42),  # a prefix is enough
    ('[{"id":1}]', None),  # a batch has no single id
    ('{"id":true}', None), ('{"id":1.5}', None), ('{"id":[1]}', None), ('{"id":null}', None),
    ("not json at all", None), ("", None),
])
def test_scan_id_reads_only_a_top_level_id(text, expect):
    assert scan_id(text) == expect


def test_scan_id_looks_only_at_the_prefix():
    text = '{"pad":"' + "x" * 5000 + '","id":9}'
    assert scan_id(text) is None and scan_id(text, limit=len(text)) == 9


def test_depth_limit_counts_containers_and_answers_with_the_id():
    ok = {"jsonrpc": "2.0", "id": 5, "method": "m", "params": {"x": 0}}
    inner: object = 0
    for _ in range(MAX_DEPTH - 2):  # request object + params object + these lists = MAX_DEPTH
        inner = [inner]
    ok["params"] = {"x": inner}
    assert not too_deep(ok) and isinstance(one(json.dumps(ok)), Request)
    ok["params"] = {"x": [inner]}
    assert too_deep(ok)
    item = one(json.dumps(ok))
    assert err_code(item) == INVALID_REQUEST and item["id"] == 5 and item["error"]["data"] == {"max_depth": MAX_DEPTH}
    deep = '{"id":"d","jsonrpc":"2.0","method":"m","params":{"x":' + "[" * 100_000 + "]" * 100_000 + "}}"
    items, _ = parse(deep, 1 << 20, MAX_BATCH)  # beyond the interpreter's recursion limit: still an answer
    item = items[0]
    assert err_code(item) == INVALID_REQUEST and item["id"] == "d"
