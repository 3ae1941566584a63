"""Typed views of the results the contract defines (plain dicts at run time)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

Status = Literal["queued", "waiting", "running", "waiting_user", "completed", "partial", "failed", "cancelled"]


class WhoAmI(TypedDict):
    tenant: str
    roles: list[str]


class StreamRef(TypedDict):
    url: str
    token: str


class StartResult(TypedDict):
    action_id: str
    topic: str
    status: Status
    seed_fingerprint: str
    stream: StreamRef


class ActionView(TypedDict):
    action_id: str
    ability: str
    topic: str
    status: Status
    revision: int
    created_at: str
    started_at: NotRequired[str]
    ended_at: NotRequired[str]
    budgets: dict[str, Any]
    usage: dict[str, Any]
    seed_fingerprint: str
    edges: list[dict[str, str]]
    outputs: NotRequired[dict[str, Any]]
    error: NotRequired[dict[str, Any]]
    parent_id: NotRequired[str]
    lock_hash: NotRequired[str]
    pending: NotRequired[list[dict[str, Any]]]


class Artifact(TypedDict):
    artifact_id: str
    kind: str
    media_type: str
    content: Any
