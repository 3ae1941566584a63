"""Pydantic models of every ToolBus message: params and results of each method.

These are the single source of the wire format: the ToolBus validates params with them (errors
become JSON-RPC -32602 with pydantic's details), and ``schemas/export.py`` writes their JSON
Schema and the AsyncAPI document from them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

TOPIC_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$"
ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,100}$"
Status = Literal["queued", "waiting", "running", "waiting_user", "completed", "partial", "failed", "cancelled"]
EdgeKind = Literal["dependsOn", "waitFor", "bind", "notify"]
#: Every integer on the wire is bounded: sequence numbers and counters stay within what every JSON
#: client reads exactly (2^53 - 1) and what the log's 64-bit columns hold; beyond it is -32602.
MAX_SEQ = 2**53 - 1
MAX_COUNT = 2**53 - 1
GrantScope = Literal["call", "action", "log"]


class Meta(BaseModel):
    model_config = ConfigDict(extra="allow")
    traceparent: str | None = Field(None, pattern=r"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")


class Params(BaseModel):
    """Base of all params: unknown fields are an error; ``_meta`` (trace context) is allowed."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    meta: Meta | None = Field(None, alias="_meta")


class EmptyParams(Params):
    pass


class AuthenticateParams(Params):
    token: str = Field(min_length=1, max_length=500)


class Budgets(BaseModel):
    model_config = ConfigDict(extra="forbid")
    wall_s: float | None = Field(None, gt=0, le=3600)
    tokens: int | None = Field(None, ge=0, le=MAX_COUNT)
    steps: int | None = Field(None, ge=0, le=MAX_COUNT)


class SeedSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    purpose: str | None = Field(None, max_length=200)


class Edge(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: EdgeKind
    action_id: str = Field(pattern=ID_PATTERN)


class StartParams(Params):
    ability: str = Field(min_length=1, max_length=64)
    inputs: dict[str, Any] = Field(default_factory=dict)
    topic: str | None = Field(None, pattern=TOPIC_PATTERN)
    budgets: Budgets | None = None
    seed: SeedSpec | None = None
    edges: list[Edge] = Field(default_factory=list, max_length=64)
    risk_class: Literal["low", "medium", "high", "hard"] | None = None
    idempotency_key: str | None = Field(None, min_length=1, max_length=200)


class ActionRef(Params):
    action_id: str = Field(pattern=ID_PATTERN)


class ListParams(Params):
    topic: str | None = Field(None, pattern=TOPIC_PATTERN)
    status: Status | None = None
    limit: int = Field(50, ge=1, le=500)
    after: str | None = Field(None, pattern=ID_PATTERN)


class CancelParams(ActionRef):
    reason: str | None = Field(None, max_length=500)


class InputParams(ActionRef):
    request_id: str = Field(pattern=ID_PATTERN)
    value: Any


class AcceptUpdateParams(ActionRef):
    dependency_id: str = Field(pattern=ID_PATTERN)


class ArtifactParams(Params):
    artifact_id: str = Field(pattern=ID_PATTERN)


class SubscribeParams(Params):
    topic: str = Field(pattern=TOPIC_PATTERN)
    last_event_id: int | None = Field(None, ge=0, le=MAX_SEQ)


class UnsubscribeParams(Params):
    subscription_id: str = Field(pattern=ID_PATTERN)


class ApprovalDecision(Params):
    approval_id: str = Field(pattern=ID_PATTERN)
    note: str | None = Field(None, max_length=1000)


class GrantParams(ApprovalDecision):
    scope: GrantScope | None = Field(None, description=(
        "what a reflect grant covers: `call` (default) exactly the method and params requested; "
        "`action` every reflect method on the requested action; `log` every reflect call of the "
        "requester in the tenant. Shown as `granted_scope` by approvals.list."))


class ReceiptsParams(Params):
    action_id: str | None = Field(None, pattern=ID_PATTERN)
    from_seq: int | None = Field(None, ge=1, le=MAX_SEQ)
    to_seq: int | None = Field(None, ge=1, le=MAX_SEQ)

    @model_validator(mode="after")
    def one_form(self) -> ReceiptsParams:
        if (self.action_id is None) == (self.from_seq is None):
            raise ValueError("give either action_id or from_seq (with optional to_seq)")
        return self


class VerifyParams(Params):
    from_seq: int | None = Field(None, ge=1, le=MAX_SEQ)
    to_seq: int | None = Field(None, ge=1, le=MAX_SEQ)


class ProofParams(Params):
    seq: int = Field(ge=1, le=MAX_SEQ)


DatasetKind = Literal["ken", "corpus"]
DATASET_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
MAX_CHUNK_CHARS = 512 * 1024  # with JSON escaping a chunk still fits the 1 MiB frame


class DatasetChunk(BaseModel):
    """One piece of a large dataset's JSON text; index 0 opens an upload, ``final`` commits it."""

    model_config = ConfigDict(extra="forbid")
    index: int = Field(ge=0, le=1023)
    data: str = Field(max_length=MAX_CHUNK_CHARS)
    final: bool = False


class DatasetPutParams(Params):
    kind: DatasetKind
    name: str = Field(pattern=DATASET_NAME_PATTERN)
    content: Any = Field(None, description="the whole dataset (a Ken graph object or a corpus list)")
    chunk: DatasetChunk | None = None
    upload_id: str | None = Field(None, pattern=ID_PATTERN, description="from the answer to chunk 0")

    @model_validator(mode="after")
    def one_form(self) -> DatasetPutParams:
        if (self.content is None) == (self.chunk is None):
            raise ValueError("give either content or chunk")
        return self


class DatasetListParams(Params):
    kind: DatasetKind | None = None


class DatasetGetParams(Params):
    kind: DatasetKind
    name: str = Field(pattern=DATASET_NAME_PATTERN)
    version: int | None = Field(None, ge=1, le=MAX_COUNT)
    offset: int | None = Field(None, ge=0, le=MAX_COUNT, description="character offset of the page to read")


# -- results ------------------------------------------------------------------------------------


class WhoAmI(BaseModel):
    tenant: str
    roles: list[str]


class AbilityInfo(BaseModel):
    name: str
    version: str
    description: str
    inputs_schema: dict[str, Any]
    outputs_schema: dict[str, Any]


class ActionView(BaseModel):
    action_id: str
    ability: str
    topic: str
    status: Status
    revision: int
    created_at: str
    started_at: str | None = None
    ended_at: str | None = None
    budgets: dict[str, Any]
    usage: dict[str, Any]
    seed_fingerprint: str
    edges: list[Edge]
    outputs: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    parent_id: str | None = None
    lock_hash: str | None = None
    pending: list[dict[str, Any]] | None = None  # open action_waiting_user requests (their payloads)


class StreamRef(BaseModel):
    url: str
    token: str


class StartResult(BaseModel):
    action_id: str
    topic: str
    status: Status
    seed_fingerprint: str
    stream: StreamRef


class EventData(BaseModel):
    """``data`` of an SSE event and ``params`` (less subscription_id) of an ``event`` notification."""

    action_id: str
    topic: str
    seq: int = Field(ge=1, le=MAX_SEQ)
    ts: str
    ability: str
    revision: int
    kind: str | None = None
    payload: dict[str, Any]
    receipt_hash: str
    lock: str | None = None


class EventNotification(BaseModel):
    subscription_id: str
    id: int = Field(ge=1, le=MAX_SEQ)
    event: str
    data: EventData


class ReceiptRef(BaseModel):
    seq: int
    hash: str


class DatasetVersion(BaseModel):
    kind: DatasetKind
    name: str
    version: int
    sha256: str = Field(description="SHA-256 hex of the content's canonical JSON (RFC 8785), UTF-8")
    bytes: int
    chars: int
    chunks: int = Field(description="dataset_chunk records holding the content in the log")
    items: int = Field(description="nodes + edges of a Ken graph, documents of a corpus")
    created_by: str
    created_at: str
    receipt: ReceiptRef = Field(description="the dataset_version record (reflect.proof proves it)")


class DatasetPutResult(BaseModel):
    committed: bool = Field(description="false while a chunked upload waits for more chunks")
    upload_id: str | None = None
    next_index: int | None = Field(None, description="the chunk index expected next (uncommitted uploads)")
    unchanged: bool | None = Field(None, description="the content equals the latest version: no new version")
    kind: DatasetKind | None = None
    name: str | None = None
    version: int | None = None
    sha256: str | None = None
    bytes: int | None = None
    chars: int | None = None
    chunks: int | None = None
    items: int | None = None
    created_by: str | None = None
    created_at: str | None = None
    receipt: ReceiptRef | None = None


class DatasetSummary(BaseModel):
    kind: DatasetKind
    name: str
    versions: int
    latest: DatasetVersion


class DatasetList(BaseModel):
    datasets: list[DatasetSummary]


class DatasetPage(BaseModel):
    offset: int
    data: str = Field(description="characters offset .. offset + len(data) of the canonical JSON text")
    total_chars: int
    next_offset: int | None = None


class DatasetGetResult(BaseModel):
    dataset: DatasetVersion
    versions: list[int]
    content: Any = Field(None, description="the content itself when small (no offset given)")
    page: DatasetPage | None = None


METHODS: dict[str, tuple[type[BaseModel], type[BaseModel] | None]] = {
    "session.authenticate": (AuthenticateParams, WhoAmI),
    "session.whoami": (EmptyParams, WhoAmI),
    "abilities.list": (EmptyParams, None),
    "actions.start": (StartParams, StartResult),
    "actions.get": (ActionRef, ActionView),
    "actions.list": (ListParams, None),
    "actions.cancel": (CancelParams, ActionView),
    "actions.input": (InputParams, None),
    "actions.accept_update": (AcceptUpdateParams, ActionView),
    "artifacts.get": (ArtifactParams, None),
    "events.subscribe": (SubscribeParams, None),
    "events.unsubscribe": (UnsubscribeParams, None),
    "approvals.list": (EmptyParams, None),
    "approvals.grant": (GrantParams, None),
    "approvals.deny": (ApprovalDecision, None),
    "reflect.trace": (ActionRef, None),
    "reflect.receipts": (ReceiptsParams, None),
    "reflect.verify": (VerifyParams, None),
    "reflect.proof": (ProofParams, None),
    "reflect.replay": (ActionRef, None),
    "datasets.put": (DatasetPutParams, DatasetPutResult),
    "datasets.list": (DatasetListParams, DatasetList),
    "datasets.get": (DatasetGetParams, DatasetGetResult),
}
