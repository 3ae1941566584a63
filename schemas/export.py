"""Write the wire format as files: JSON Schema per message, and one AsyncAPI 3.0 document.

``python -m schemas.export`` regenerates ``schemas/json/`` and ``schemas/asyncapi.yaml`` from the
pydantic models (``schemas/toolbus.py`` and every importable ability's ``Inputs``/``Outputs``), so
the files can never say something the code does not. ``--check`` writes nothing and exits 1 when a
checked-in file is stale, missing or left over; ``--skip-abilities`` limits either mode to the
ToolBus/event schemas and the AsyncAPI document (abilities still in progress are left alone).

Output is deterministic: sorted keys, fixed indentation, a final newline, no timestamps.

Layout under ``schemas/json/``::

    toolbus/<method>.params.json     params of each ToolBus method (what the server validates)
    toolbus/<method>.result.json     its result
    toolbus/errors.json              the JSON-RPC error object and the contract's codes
    events/EventData.json            ``data`` of an SSE event / ``params.data`` of an ``event``
    events/EventNotification.json    ``params`` of the ``event`` notification
    events/SubscriptionDropped.json  ``params`` of the ``subscription_dropped`` notification
    events/SubscriptionFailed.json   ``params`` of the ``subscription_failed`` notification
    abilities/<name>.inputs.json     each ability's inputs (as ``abilities.list`` serves them)
    abilities/<name>.outputs.json    and outputs

Some results have no model in ``schemas/toolbus.py`` (the server builds them as dicts); their
shapes are written down here, from ``orchestrator/service.py``, so that clients still get a schema.
They describe, they do not validate.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import models_json_schema

from schemas import toolbus as S

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
JSON_DIR = HERE / "json"
ASYNCAPI_FILE = HERE / "asyncapi.yaml"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
ID_BASE = "https://metis.invalid/schemas/"

# -- result shapes the server builds as plain dicts (see orchestrator/service.py) ----------------


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AbilitiesList(_Result):
    abilities: list[S.AbilityInfo]


class ActionsList(_Result):
    actions: list[S.ActionView]
    next: str | None = Field(None, description="cursor for the next page (pass as `after`); absent on the last page")


class InputAccepted(_Result):
    accepted: Literal[True]


class Artifact(_Result):
    artifact_id: str
    kind: str
    media_type: str
    content: Any


class Subscribed(_Result):
    subscription_id: str


class Ok(_Result):
    ok: Literal[True]


class ApprovalView(_Result):
    """An approval as ``approvals.*`` show it (the tenant is implied by the caller)."""

    approval_id: str
    kind: Literal["reflect", "action_input"]
    scope: str = Field(description='the resource requested: "action:<id>" or "log"')
    requested_by: str = Field(description="subject id of the requester, or the action id for action_input")
    reason: str
    status: Literal["pending", "granted", "denied"]
    created_at: str
    decided_by: str | None = None
    note: str | None = None
    expires_at: float | None = Field(None, description="unix time at which a granted reflect approval lapses")
    action_id: str | None = None
    request_id: str | None = None
    method: str | None = Field(None, description="reflect: the method this approval was requested for")
    params: dict[str, Any] | None = Field(None, description="reflect: the params it was requested for")
    granted_scope: Literal["call", "action", "log"] | None = Field(None, description=(
        "what the grant covers, chosen by the approver: `call` exactly method+params, `action` every "
        "reflect method on the requested action, `log` every reflect call of the requester"))


class ApprovalsList(_Result):
    approvals: list[ApprovalView]


class TraceEntry(BaseModel):
    model_config = ConfigDict(extra="allow")
    seq: int
    ts: str


class Trace(_Result):
    action_id: str
    trace: list[TraceEntry] = Field(description="seq, ts and the fields the ability passed to ctx.trace")


class Receipt(_Result):
    """One log record as a reviewer sees it: the canonical body's fields plus its hash."""

    v: int
    seq: int
    ts: str
    type: str = Field(description="event | receipt | state | trace | artifact | approval | reflect")
    name: str
    tenant: str
    topic: str | None
    action_id: str | None
    ref: str | None
    payload: dict[str, Any]
    prev: str = Field(description="hash of the previous record (64 zeros for record 1)")
    hash: str = Field(description="SHA-256 hex of the record's canonical body")


class Receipts(_Result):
    receipts: list[Receipt]


class SignedTreeHead(_Result):
    tree_size: int
    root_hash: str
    timestamp_ms: int
    key_id: str
    algorithm: Literal["Ed25519"]
    signature: str = Field(description="standard base64 of the 64-byte Ed25519 signature")
    public_key: str | None = Field(None, description="base64 raw public key (convenience; pin the key instead)")


class TreeHead(_Result):
    tree_size: int
    root_hash: str
    signed: SignedTreeHead | None = None


class VerifyResult(_Result):
    ok: bool
    scope: Literal["tenant", "log"] = Field(description=(
        "`tenant` (a reviewer): counts of the caller's tenant only, no tree head; `log` (an operator): "
        "the whole log and its tree head"))
    checked: int
    first_bad_seq: int | None = None
    reason: str | None = None
    tree_head: TreeHead | None = None


class InclusionProof(_Result):
    seq: int
    leaf_index: int
    tree_size: int
    leaf_hash: str
    record_hash: str
    proof: list[str] = Field(description="RFC 9162 audit path, hex, leaf side first")
    tree_head: SignedTreeHead


class ReplayResult(_Result):
    identical: bool
    outputs_hash: str
    replay_hash: str


class RpcErrorObject(BaseModel):
    code: int = Field(description="see the x-codes of this schema")
    message: str
    data: Any = None


class SubscriptionDropped(_Result):
    subscription_id: str
    last_event_id: int
    reason: str


class SubscriptionFailed(_Result):
    """The subscription itself failed (not the client): it has ended; subscribe again to resume."""

    subscription_id: str
    last_event_id: int = Field(description="the last id delivered (or the one subscribed after)")
    error: RpcErrorObject


#: Results that ``schemas.toolbus.METHODS`` leaves as None.
EXTRA_RESULTS: dict[str, type[BaseModel]] = {
    "abilities.list": AbilitiesList,
    "actions.list": ActionsList,
    "actions.input": InputAccepted,
    "artifacts.get": Artifact,
    "events.subscribe": Subscribed,
    "events.unsubscribe": Ok,
    "approvals.list": ApprovalsList,
    "approvals.grant": ApprovalView,
    "approvals.deny": ApprovalView,
    "reflect.trace": Trace,
    "reflect.receipts": Receipts,
    "reflect.verify": VerifyResult,
    "reflect.proof": InclusionProof,
    "reflect.replay": ReplayResult,
}

ERROR_CODES: dict[int, str] = {
    -32700: "parse error", -32600: "invalid request", -32601: "unknown method",
    -32602: "invalid params (pydantic errors in data.errors)", -32603: "internal error",
    -32001: "unauthenticated", -32003: "forbidden (role, or approval required: data.approval_id)",
    -32004: "not found", -32009: "conflict (cycle, idempotency key reused with other params, bad state)",
    -32013: "too large (data.max_bytes or data.max_batch)", -32029: "rate limited",
    -32050: "budget exhausted",
    -32053: "storage unavailable: a durable write failed, nothing was recorded (data.retryable: true)",
}

ROLES: dict[str, list[str]] = {
    "session.authenticate": [], "session.whoami": ["any authenticated caller"],
    "abilities.list": ["any authenticated caller"],
    **{m: ["partner", "canvas"] for m in S.METHODS if m.split(".")[0] in ("actions", "artifacts", "events")},
    **{m: ["approver"] for m in S.METHODS if m.startswith("approvals.")},
    **{m: ["reviewer"] for m in S.METHODS if m.startswith("reflect.")},
    "reflect.verify": ["reviewer (own tenant's counts)", "operator (the whole log, no approval)"],
    "datasets.put": ["partner"], "datasets.list": ["partner", "canvas"], "datasets.get": ["partner", "canvas"],
}

EVENT_NAMES = ("action_started", "action_progress", "action_notice", "action_waiting_user", "action_linked",
               "action_checkpoint", "action_completed", "action_partial", "action_failed")


def result_model(method: str) -> type[BaseModel]:
    return S.METHODS[method][1] or EXTRA_RESULTS[method]


# -- JSON Schema files -------------------------------------------------------------------------


def _dump_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _schema(model: type[BaseModel], mode: Literal["validation", "serialization"], rel: str,
            title: str | None = None) -> dict[str, Any]:
    doc = model.model_json_schema(by_alias=True, mode=mode)
    doc["$schema"] = DIALECT
    doc["$id"] = ID_BASE + rel
    if title:
        doc["title"] = title
    return doc


def toolbus_files() -> dict[str, str]:
    """ToolBus params/results, the error object, and the event messages (always generated)."""
    files: dict[str, str] = {}
    for method, (params, _) in sorted(S.METHODS.items()):
        rel = f"toolbus/{method}.params.json"
        files[rel] = _dump_json(_schema(params, "validation", rel, f"{method} params"))
        rel = f"toolbus/{method}.result.json"
        files[rel] = _dump_json(_schema(result_model(method), "serialization", rel, f"{method} result"))
    err = _schema(RpcErrorObject, "serialization", "toolbus/errors.json", "JSON-RPC error")
    err["x-codes"] = {str(k): v for k, v in ERROR_CODES.items()}
    files["toolbus/errors.json"] = _dump_json(err)
    for model in (S.EventData, S.EventNotification, SubscriptionDropped, SubscriptionFailed):
        rel = f"events/{model.__name__}.json"
        files[rel] = _dump_json(_schema(model, "serialization", rel))
    return files


def ability_files(names: Iterable[str] | None = None) -> dict[str, str]:
    """Inputs/outputs of every importable ability (or only ``names``): what ``abilities.list`` serves."""
    from abilities import registry

    files: dict[str, str] = {}
    available = registry.available()
    for name in sorted(available if names is None else set(names) & set(available)):
        cls = available[name]
        for part, model in (("inputs", cls.Inputs), ("outputs", cls.Outputs)):
            rel = f"abilities/{name}.{part}.json"
            doc = model.model_json_schema()  # the same call as abilities.list
            doc["$schema"] = DIALECT
            doc["$id"] = ID_BASE + rel
            doc["x-ability"] = {"name": cls.name, "version": cls.version}
            files[rel] = _dump_json(doc)
    return files


# -- AsyncAPI 3.0 --------------------------------------------------------------------------------


def _version() -> str:
    try:
        return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "0.0.0"


def _components_schemas() -> tuple[dict[str, Any], dict[tuple[type[BaseModel], str], dict[str, Any]]]:
    wanted: list[tuple[type[BaseModel], Literal["validation", "serialization"]]] = []
    for method, (params, _) in sorted(S.METHODS.items()):
        wanted.append((params, "validation"))
        wanted.append((result_model(method), "serialization"))
    wanted += [(S.EventData, "serialization"), (S.EventNotification, "serialization"),
               (SubscriptionDropped, "serialization"), (SubscriptionFailed, "serialization"),
               (RpcErrorObject, "serialization")]
    seen: set[tuple[type[BaseModel], str]] = set()
    unique = [w for w in wanted if not (w in seen or seen.add(w))]
    refs, top = models_json_schema(unique, ref_template="#/components/schemas/{model}")
    return top.get("$defs", {}), refs  # type: ignore[return-value]


def _envelope(kind: str, method: str | None, body: dict[str, Any] | None) -> dict[str, Any]:
    id_schema = {"type": ["string", "integer", "null"]}
    if kind == "request":
        props = {"jsonrpc": {"const": "2.0"}, "id": id_schema, "method": {"const": method}, "params": body}
        req = ["jsonrpc", "method"]
    elif kind == "notification":
        props = {"jsonrpc": {"const": "2.0"}, "method": {"const": method}, "params": body}
        req = ["jsonrpc", "method", "params"]
    elif kind == "result":
        props = {"jsonrpc": {"const": "2.0"}, "id": id_schema, "result": body}
        req = ["jsonrpc", "id", "result"]
    else:
        props = {"jsonrpc": {"const": "2.0"}, "id": id_schema, "error": body}
        req = ["jsonrpc", "id", "error"]
    return {"type": "object", "properties": props, "required": req, "additionalProperties": False}


def asyncapi_document() -> dict[str, Any]:
    """The AsyncAPI 3.0 document of the ToolBus channel and the SSE channel (server's view)."""
    schemas, refs = _components_schemas()
    toolbus_msgs: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    tb = {"$ref": "#/channels/toolbus"}
    err_ref = {"$ref": "#/channels/toolbus/messages/error"}
    for method, (params, _) in sorted(S.METHODS.items()):
        p_ref = refs[(params, "validation")]
        r_ref = refs[(result_model(method), "serialization")]
        roles = ROLES.get(method, [])
        toolbus_msgs[f"{method}.request"] = {
            "name": method, "title": f"{method} request", "contentType": "application/json",
            "payload": _envelope("request", method, p_ref),
            "correlationId": {"location": "$message.payload#/id"},
        }
        toolbus_msgs[f"{method}.result"] = {
            "name": f"{method}.result", "title": f"{method} result", "contentType": "application/json",
            "payload": _envelope("result", None, r_ref),
            "correlationId": {"location": "$message.payload#/id"},
        }
        operations[method.replace(".", "_")] = {
            "action": "receive", "channel": tb, "title": method,
            "summary": "roles: " + (", ".join(roles) if roles else "none (this call authenticates)"),
            "messages": [{"$ref": f"#/channels/toolbus/messages/{method}.request"}],
            "reply": {"channel": tb, "messages": [{"$ref": f"#/channels/toolbus/messages/{method}.result"}, err_ref]},
        }
    toolbus_msgs["error"] = {
        "name": "error", "title": "error response", "contentType": "application/json",
        "summary": "; ".join(f"{k} {v}" for k, v in ERROR_CODES.items()),
        "payload": _envelope("error", None, refs[(RpcErrorObject, "serialization")]),
        "correlationId": {"location": "$message.payload#/id"},
    }
    toolbus_msgs["event"] = {
        "name": "event", "title": "event notification", "contentType": "application/json",
        "summary": "one log record of a subscribed topic (after events.subscribe)",
        "payload": _envelope("notification", "event", refs[(S.EventNotification, "serialization")]),
    }
    toolbus_msgs["subscription_dropped"] = {
        "name": "subscription_dropped", "title": "subscription dropped", "contentType": "application/json",
        "summary": "the client read too slowly; subscribe again with last_event_id",
        "payload": _envelope("notification", "subscription_dropped", refs[(SubscriptionDropped, "serialization")]),
    }
    toolbus_msgs["subscription_failed"] = {
        "name": "subscription_failed", "title": "subscription failed", "contentType": "application/json",
        "summary": "the subscription itself failed and has ended; subscribe again with last_event_id",
        "payload": _envelope("notification", "subscription_failed", refs[(SubscriptionFailed, "serialization")]),
    }
    operations["event"] = {"action": "send", "channel": tb, "title": "event notifications",
                           "messages": [{"$ref": "#/channels/toolbus/messages/event"},
                                        {"$ref": "#/channels/toolbus/messages/subscription_dropped"},
                                        {"$ref": "#/channels/toolbus/messages/subscription_failed"}]}
    data_ref = refs[(S.EventData, "serialization")]
    sse_msgs = {
        name: {"name": name, "title": name, "contentType": "application/json", "payload": data_ref,
               "summary": "SSE frame: `id: <seq>`, `event: " + name + "`, `data: <EventData JSON>`"}
        for name in EVENT_NAMES
    }
    operations["stream"] = {
        "action": "send", "channel": {"$ref": "#/channels/streams"}, "title": "topic stream",
        "summary": "every event of the topic with seq > Last-Event-ID, in order, then live ones",
        "messages": [{"$ref": f"#/channels/streams/messages/{n}"} for n in EVENT_NAMES],
    }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Metis",
            "version": _version(),
            "description": (
                "Metis runs reasoning abilities as actions. Calls go over the ToolBus (JSON-RPC 2.0 over "
                "WebSocket, one JSON text frame per message, batches allowed); streams are Server-Sent "
                "Events read from the receipt log. Ability inputs/outputs schemas are served by "
                "abilities.list and exported to schemas/json/abilities/. See docs/protocol.md."
            ),
        },
        "defaultContentType": "application/json",
        "servers": {
            "toolbus": {"host": "127.0.0.1:8787", "protocol": "ws", "description": "metis serve (default address)",
                        "security": [{"$ref": "#/components/securitySchemes/bearer"}]},
            "http": {"host": "127.0.0.1:8787", "protocol": "http", "description": "SSE streams",
                     "security": [{"$ref": "#/components/securitySchemes/bearer"},
                                  {"$ref": "#/components/securitySchemes/streamToken"}]},
        },
        "channels": {
            "toolbus": {
                "address": "/toolbus", "title": "ToolBus",
                "description": ("JSON-RPC 2.0. Authenticate with `Authorization: Bearer <token>` on the upgrade "
                                "request or call session.authenticate first. Any params may carry "
                                "`_meta.traceparent` (W3C trace context). Requests of one connection are "
                                "handled concurrently: match responses by `id` (a batch is answered as one "
                                "array in request order). A message nests at most 64 levels (-32600, "
                                "`data.max_depth`). Errors for frames refused before parsing (-32013 too "
                                "large, -32029 rate limited) carry the request's `id` when it appears at the "
                                "top level within the frame's first 4096 characters, else null."),
                "servers": [{"$ref": "#/servers/toolbus"}], "messages": toolbus_msgs,
            },
            "streams": {
                "address": "/streams/{topic}", "title": "topic stream (SSE)",
                "description": ("GET with `Authorization: Bearer <token>` (partner or canvas) or `?token=<stream "
                                "token>`; resume with the `Last-Event-ID` header or `?last_event_id=`. The "
                                "`Metis-Resumed-After` response header names the id after which delivery starts "
                                "(or `earliest`). Heartbeat comment lines keep idle connections open."),
                "parameters": {"topic": {"description": "the action's topic (its action id unless given at start)"}},
                "servers": [{"$ref": "#/servers/http"}], "messages": sse_msgs,
            },
        },
        "operations": operations,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "a token of the tokens file"},
                "streamToken": {"type": "httpApiKey", "name": "token", "in": "query",
                                "description": "short-lived stream token from actions.start (one topic)"},
            },
        },
    }


class _NoAliases(yaml.SafeDumper):
    """Spell every shared node out: anchors/aliases are legal YAML but hard on AsyncAPI tools."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def asyncapi_text() -> str:
    header = "# Generated by `python -m schemas.export` from schemas/toolbus.py: do not edit.\n"
    return header + yaml.dump(asyncapi_document(), Dumper=_NoAliases, sort_keys=True, allow_unicode=True,
                              width=110)


# -- writing and checking -------------------------------------------------------------------------


def generate(abilities: Iterable[str] | None = None) -> dict[Path, str]:
    """Every file this module owns, by absolute path (abilities: all importable, or only ``abilities``)."""
    out = {JSON_DIR / rel: text for rel, text in {**toolbus_files(), **ability_files(abilities)}.items()}
    out[ASYNCAPI_FILE] = asyncapi_text()
    return out


def stale(expected: dict[Path, str], prune: bool = True) -> list[str]:
    """Paths whose content differs from ``expected``, is missing, or (with ``prune``) is left over."""
    problems = []
    for path, text in sorted(expected.items()):
        if not path.exists():
            problems.append(f"missing: {path.relative_to(ROOT)}")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"stale: {path.relative_to(ROOT)}")
    if prune and JSON_DIR.exists():
        for path in sorted(JSON_DIR.rglob("*.json")):
            if path not in expected:
                problems.append(f"left over: {path.relative_to(ROOT)}")
    return problems


def write(expected: dict[Path, str]) -> list[Path]:
    """Write changed files, delete left-over ones; returns what changed."""
    changed = []
    for path, text in sorted(expected.items()):
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    for path in sorted(JSON_DIR.rglob("*.json")):
        if path not in expected:
            path.unlink()
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m schemas.export", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if any file is stale")
    ap.add_argument("--skip-abilities", action="store_true",
                    help="only the ToolBus/event schemas and asyncapi.yaml (ability files are left alone)")
    args = ap.parse_args(argv)
    expected = generate([] if args.skip_abilities else None)
    if args.skip_abilities:  # keep the checked-in ability files out of pruning
        expected.update({p: p.read_text(encoding="utf-8") for p in (JSON_DIR / "abilities").glob("*.json")})
    if args.check:
        problems = stale(expected)
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            print("run: python -m schemas.export", file=sys.stderr)
        return 1 if problems else 0
    for path in write(expected):
        print(f"wrote {path.relative_to(ROOT)}" if path.exists() else f"removed {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
