"""The exported schemas (schemas/export.py) are current, deterministic, and describe real messages.

Staleness is checked for the ToolBus/event schemas, the AsyncAPI document, and the ability schemas
whose files are checked in (abilities still in progress by other engineers are not forced in).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from schemas import export
from schemas import toolbus as S

ROOT = Path(__file__).resolve().parents[1]
REGENERATE = "stale: run `python -m schemas.export` and commit schemas/"


def test_toolbus_and_event_schemas_are_current():
    for rel, text in export.toolbus_files().items():
        path = export.JSON_DIR / rel
        assert path.exists(), f"missing {path}: {REGENERATE}"
        assert path.read_text(encoding="utf-8") == text, f"{path} {REGENERATE}"
    on_disk = {p.relative_to(export.JSON_DIR).as_posix() for d in ("toolbus", "events")
               for p in (export.JSON_DIR / d).glob("*.json")}
    assert on_disk == set(export.toolbus_files()), f"left-over files: {REGENERATE}"


def test_asyncapi_document_is_current():
    assert export.ASYNCAPI_FILE.read_text(encoding="utf-8") == export.asyncapi_text(), REGENERATE


def test_checked_in_ability_schemas_are_current():
    from abilities import registry

    names = sorted({p.name.split(".")[0] for p in (export.JSON_DIR / "abilities").glob("*.json")})
    assert names, "no ability schemas checked in"
    importable = [n for n in names if n in registry.available()]
    generated = export.ability_files(importable)
    for name in importable:
        for part in ("inputs", "outputs"):
            rel = f"abilities/{name}.{part}.json"
            assert (export.JSON_DIR / rel).read_text(encoding="utf-8") == generated[rel], f"{rel} {REGENERATE}"


def test_output_is_deterministic():
    assert export.toolbus_files() == export.toolbus_files()
    assert export.asyncapi_text() == export.asyncapi_text()
    for text in export.toolbus_files().values():
        doc = json.loads(text)
        assert json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n" == text


def test_every_method_has_params_and_result_schemas():
    files = export.toolbus_files()
    for method in S.METHODS:
        params = json.loads(files[f"toolbus/{method}.params.json"])
        result = json.loads(files[f"toolbus/{method}.result.json"])
        assert params["$schema"] == export.DIALECT and params["type"] == "object"
        assert params["additionalProperties"] is False  # unknown params are an error
        assert "_meta" in params["properties"]  # trace context is allowed on every call
        assert result["type"] == "object"


def test_ability_schema_equals_abilities_list_schema():
    from abilities import registry

    for name, cls in registry.available().items():
        doc = json.loads(export.ability_files([name])[f"abilities/{name}.inputs.json"])
        for key in ("$schema", "$id", "x-ability"):
            doc.pop(key)
        assert doc == cls.Inputs.model_json_schema()


# -- the schemas describe real messages ------------------------------------------------------------


def _validator(rel: str) -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((export.JSON_DIR / rel).read_text())
    return jsonschema.Draft202012Validator(schema)


def test_params_schemas_accept_good_and_refuse_bad_messages():
    start = _validator("toolbus/actions.start.params.json")
    good = {"ability": "crl_math", "inputs": {"goal": "simplify"}, "topic": "t/1", "budgets": {"wall_s": 5},
            "seed": {"purpose": "p"}, "edges": [{"kind": "bind", "action_id": "act_1"}],
            "idempotency_key": "k", "_meta": {"traceparent": "00-" + "a" * 32 + "-" + "b" * 16 + "-01"}}
    assert not list(start.iter_errors(good))
    S.StartParams.model_validate(good)  # the server's own validation agrees
    for bad in ({"inputs": {}}, {"ability": "x", "nope": 1}, {"ability": "x", "budgets": {"wall_s": 0}},
                {"ability": "x", "edges": [{"kind": "likes", "action_id": "a"}]}, {"ability": "x", "topic": "/bad"}):
        assert list(start.iter_errors(bad)), bad
        with pytest.raises(ValueError):
            S.StartParams.model_validate(bad)


def test_event_schema_accepts_a_real_event_record(tmp_path):
    from orchestrator.events import event_data
    from receipts.log import Entry, ReceiptLog

    log = ReceiptLog(tmp_path)
    log.open()
    try:
        rec = log.append_sync([Entry("event", "action_checkpoint", "acme",
                                     {"ability": "t", "revision": 1, "kind": "plan_delta", "payload": {"i": 1},
                                      "lock": "0123456789abcdef"}, topic="t", action_id="act_1", stream=True)])[0]
    finally:
        log.close()
    data = event_data(rec)
    assert not list(_validator("events/EventData.json").iter_errors(data))
    note = {"subscription_id": "sub_1", "id": rec.seq, "event": rec.name, "data": data}
    assert not list(_validator("events/EventNotification.json").iter_errors(note))


def test_result_schemas_accept_server_shaped_results():
    view = {"action_id": "act_1", "ability": "t", "topic": "act_1", "status": "completed", "revision": 1,
            "created_at": "2026-01-01T00:00:00.000000Z", "budgets": {"wall_s": 300.0, "tokens": None, "steps": None},
            "usage": {"wall_s": 0.1, "steps": 0, "tokens": 0}, "seed_fingerprint": "hmac-v1:0123456789abcdef",
            "edges": [], "outputs": {"ok": True}}
    assert not list(_validator("toolbus/actions.get.result.json").iter_errors(view))
    assert not list(_validator("toolbus/actions.list.result.json").iter_errors({"actions": [view], "next": "act_1"}))
    assert not list(_validator("toolbus/actions.input.result.json").iter_errors({"accepted": True}))
    assert list(_validator("toolbus/actions.input.result.json").iter_errors({"accepted": False}))


# -- AsyncAPI --------------------------------------------------------------------------------------


def _resolve(doc: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = doc
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        return ([node["$ref"]] if isinstance(node.get("$ref"), str) else []) + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_asyncapi_structure_and_refs():
    doc = yaml.safe_load(export.ASYNCAPI_FILE.read_text())
    assert doc["asyncapi"] == "3.0.0"
    assert doc["channels"]["toolbus"]["address"] == "/toolbus"
    assert doc["channels"]["streams"]["address"] == "/streams/{topic}"
    assert set(doc["channels"]["streams"]["parameters"]) == {"topic"}
    assert set(doc["channels"]["streams"]["messages"]) == {
        "action_started", "action_progress", "action_notice", "action_waiting_user", "action_linked",
        "action_checkpoint", "action_completed", "action_partial", "action_failed"}
    refs = _refs(doc)
    assert refs
    for ref in refs:
        _resolve(doc, ref)  # raises KeyError when dangling
    for op_id, op in doc["operations"].items():
        assert op["action"] in ("send", "receive")
        channel = op["channel"]["$ref"]
        for m in op["messages"]:  # AsyncAPI 3: an operation's messages are its channel's messages
            assert m["$ref"].startswith(channel + "/messages/"), op_id
    methods = {op["title"] for op in doc["operations"].values() if op["action"] == "receive"}
    assert methods == set(S.METHODS)


# -- the CLI -----------------------------------------------------------------------------------------


def test_stale_reports_changed_and_missing_files():
    expected = export.generate([])
    some = export.JSON_DIR / "toolbus/actions.get.params.json"
    changed = {**expected, some: expected[some] + " "}
    assert export.stale(changed, prune=False) == ["stale: schemas/json/toolbus/actions.get.params.json"]
    ghost = export.JSON_DIR / "toolbus/nope.params.json"
    assert export.stale({ghost: "{}"}, prune=False) == ["missing: schemas/json/toolbus/nope.params.json"]


def test_check_mode_exits_non_zero_on_a_stale_copy(tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "schemas", copy / "schemas", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    target = copy / "schemas/json/toolbus/actions.start.params.json"
    target.write_text(target.read_text().replace('"maxLength": 64', '"maxLength": 65'))
    (copy / "schemas/json/toolbus/old.result.json").write_text("{}\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy), str(ROOT)]), "METIS_EXTRA_ABILITIES": ""}
    proc = subprocess.run([sys.executable, "-m", "schemas.export", "--check", "--skip-abilities"], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "stale: schemas/json/toolbus/actions.start.params.json" in proc.stderr
    assert "left over: schemas/json/toolbus/old.result.json" in proc.stderr
    assert target.read_text().count('"maxLength": 65') == 1  # --check writes nothing
