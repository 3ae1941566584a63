"""The one interface every ability implements, and the context it receives.

An ability is a plain class: a name, a version, pydantic models for its inputs and outputs,
and one synchronous entry point ``run(ctx, inputs)``. The orchestrator runs it inside a
killable worker process, so ``run`` may do heavy, blocking work (sympy, z3, PSLQ) freely.
Everything the ability wants to tell the world goes through the ``ActionContext``: the
orchestrator turns each call into a durable record of the receipt log (and an SSE event).

Adding an ability touches only its own package: subclass ``Ability`` and list the class in
``abilities/registry.py`` (or in the ``metis.abilities`` entry-point group of a plugin package).
"""

from __future__ import annotations

import hashlib
import hmac
import random
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel


class AbilityError(Exception):
    """A clean, expected failure: the action ends ``failed`` with this reason and message.

    ``reason`` is a short machine-readable code (``"invalid_expression"``, ``"no_json"``...).
    Raise it for bad input the pydantic model could not catch; never let user input crash a worker.
    """

    def __init__(self, reason: str, message: str = "", details: Any = None) -> None:
        super().__init__(message or reason)
        self.reason = reason
        self.message = message or reason
        self.details = details


class PartialResult(Exception):
    """Raise to end the action ``partial`` with the outputs computed so far.

    Abilities raise it themselves when ``ctx.should_stop()`` turns true (budget grace) or when
    they know they cannot finish; the outputs still validate against the Outputs model where
    possible and get ``incomplete: true`` added by the orchestrator.
    """

    def __init__(self, outputs: dict[str, Any], reason: str = "budget_exhausted") -> None:
        super().__init__(reason)
        self.outputs = outputs
        self.reason = reason


class BudgetExhausted(Exception):
    """Raised by ``ctx.use`` when a counted budget (steps, tokens) is spent past its grace."""


class ActionContext(Protocol):
    """What an ability may do while it runs. All calls are synchronous and cheap.

    Attributes:
        action_id, topic, tenant, ability, revision: identity of the running action.
        seed: the action's hmac-v1 seed (32 bytes); derive every random choice from it.
        seed_fingerprint: short public id of the seed (safe to show).
        budgets: ``{"wall_s": float|None, "tokens": int|None, "steps": int|None}``.
        lock: ``{"constraints": [...], "hash": str, "hash_full": str}`` when the action's inputs
            carry constraints (service-wide lock and echo), else ``None``.
        dependencies: outputs of ``dependsOn``/``bind`` edges, by action id.
        risk_class: the ``risk_class`` given to ``actions.start`` (low/medium/high/hard) or None.

    Workers get ``METIS_DATA_DIR`` in their environment (the server's data dir, absolute).
    """

    action_id: str
    topic: str
    tenant: str
    ability: str
    revision: int
    seed: bytes
    seed_fingerprint: str
    budgets: dict[str, Any]
    lock: dict[str, Any] | None
    dependencies: dict[str, dict[str, Any]]
    risk_class: str | None

    def checkpoint(self, kind: str, payload: dict[str, Any]) -> None:
        """Emit ``action_checkpoint`` (kind: boundary_summary, plan_delta, verifier_update,
        context_delta, or one the ability's spec adds). Boundary-safe content only."""

    def progress(self, fraction: float, message: str = "") -> None:
        """Emit ``action_progress`` (0.0 .. 1.0)."""

    def notice(self, kind: str, payload: dict[str, Any] | None = None) -> None:
        """Emit ``action_notice`` naming the notice in ``kind``."""

    def receipt(self, kind: str, payload: dict[str, Any]) -> None:
        """Write a receipt (tool call, verifier call, Ken query...) to the log. Not streamed:
        reviewers read receipts with ``reflect.receipts``."""

    def trace(self, payload: dict[str, Any]) -> None:
        """Append to the internal trace (raw reasoning). Only ``reflect.trace`` shows it."""

    def artifact(self, kind: str, content: Any, media_type: str = "application/json") -> str:
        """Store an artifact (summary, bundle, evidence) and return its id for the outputs."""

    def use(self, steps: int = 0, tokens: int = 0) -> None:
        """Charge usage against the budgets. Past the budget the orchestrator starts the grace
        period (``budget_grace`` notice, ``should_stop()`` turns true); past grace it kills the
        worker and the action ends ``partial`` with the last ``save_partial`` outputs."""

    def should_stop(self) -> bool:
        """True once the action is in budget grace (wall time, steps or tokens spent): wrap up and
        return or raise ``PartialResult``. Cancellation kills the worker without warning."""

    def budget_left(self) -> dict[str, float | int | None]:
        """Remaining ``wall_s``, ``tokens`` and ``steps`` (None where unbounded)."""

    def save_partial(self, outputs: dict[str, Any]) -> None:
        """Remember the best outputs so far: if the worker is frozen at the end of the grace
        period, the action ends ``partial`` with these."""

    def metric(self, name: str, value: float) -> None:
        """Record a value of one of the ability's declared ``metrics`` (a counter increment, a
        gauge's value or a histogram observation); the server exports it as
        ``metis_ability_<ability>_<name>``. Not a record: never replay-checked, never shown to clients."""

    def publish(self, outputs: dict[str, Any]) -> None:
        """Make ``outputs`` this action's current outputs before it ends (a revision when they
        differ from the last ones): ``bind`` consumers may start, and those holding an older
        revision get an ``update_available`` notice."""

    def ask(self, kind: str, payload: dict[str, Any], timeout_s: float | None = None) -> Any:
        """Ask the client for input: emits ``action_waiting_user`` with ``{request_id, kind,
        ...payload}`` and blocks until ``actions.input`` answers it. Returns the value.
        Raises ``TimeoutError`` after ``timeout_s`` (default: until the wall budget ends)."""

    def spawn(
        self,
        ability: str,
        inputs: dict[str, Any],
        edge: str = "bind",
        budgets: dict[str, Any] | None = None,
        wait: bool = True,
    ) -> dict[str, Any]:
        """Start a sub-action of the same tenant, linked by ``edge`` (emits ``action_linked``).
        With ``wait`` it blocks until the sub-action ends and returns its ActionView (with
        ``outputs``); otherwise returns the view at once. The sub-action inherits the lock."""

    def rng(self, purpose: str) -> random.Random:
        """A ``random.Random`` seeded from the action's seed and ``purpose`` (deterministic)."""


def derive_rng(seed: bytes, purpose: str) -> random.Random:
    """Deterministic generator for one purpose: HMAC-SHA256(seed, purpose) as the seed."""
    digest = hmac.new(seed, purpose.encode("utf-8"), hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


class Ability(ABC):
    """Base class of every ability. Subclasses set the class attributes and implement ``run``."""

    name: ClassVar[str]
    version: ClassVar[str]
    description: ClassVar[str]
    Inputs: ClassVar[type[BaseModel]]
    Outputs: ClassVar[type[BaseModel]]
    #: Prometheus metrics the ability reports with ``ctx.metric``: ``(name, kind, help)`` with kind
    #: counter, gauge or histogram (names ending in ``_seconds`` get time buckets). No labels.
    metrics: ClassVar[tuple[tuple[str, str, str], ...]] = ()
    #: Modules ``run`` needs that the class itself does not import (sympy, z3, corpora): a worker
    #: imports them before it says ready, the server never does. Keeps the server light (it
    #: imports the class to validate inputs) and a worker's first run as fast as its next.
    preload: ClassVar[tuple[str, ...]] = ()

    def constraints(self, inputs: BaseModel) -> list[str] | None:
        """Constraints this action's inputs carry, to be locked at ingress (service-wide lock
        and echo). Default: none."""
        return None

    @abstractmethod
    def run(self, ctx: ActionContext, inputs: Any) -> BaseModel | dict[str, Any]:
        """Do the work; return the outputs (an ``Outputs`` instance or a dict that validates)."""
