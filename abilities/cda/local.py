"""An in-process ``ActionContext`` for running the cda core without the service.

Used by the benchmark and the pure-core tests: it records checkpoints, receipts, traces and
artifacts in lists, answers ``ask`` from a supplied function, and refuses ``spawn`` (there is no
orchestrator), exactly as a service without those abilities would. Timing of checkpoints is kept
(``first_summary_s``) for the TTFS figure.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable
from typing import Any

from abilities.base import derive_rng


class LocalContext:
    """Records what an ability emits; a deterministic stand-in for the worker context."""

    def __init__(self, seed: bytes = b"\x00" * 32, tenant: str = "local", wall_s: float | None = None,
                 answer: Callable[[str, dict[str, Any]], Any] | None = None, action_id: str = "act_local",
                 dependencies: dict[str, dict[str, Any]] | None = None, revision: int = 1) -> None:
        self.action_id = action_id
        self.topic = "local"
        self.tenant = tenant
        self.ability = "cda"
        self.revision = revision
        self.seed = seed
        self.seed_fingerprint = hashlib.sha256(seed).hexdigest()[:16]
        self.budgets: dict[str, Any] = {"wall_s": wall_s, "tokens": None, "steps": None}
        self.lock: dict[str, Any] | None = None
        self.dependencies = dependencies or {}
        self.events: list[tuple[str, str, dict[str, Any]]] = []
        self.receipts: list[tuple[str, dict[str, Any]]] = []
        self.traces: list[dict[str, Any]] = []
        self.artifacts: dict[str, tuple[str, Any]] = {}
        self.asks: list[tuple[str, dict[str, Any]]] = []
        self.partial: dict[str, Any] | None = None
        self.metrics: dict[str, list[float]] = {}
        self._answer = answer
        self._t0 = time.perf_counter()
        self.first_summary_s: float | None = None
        self.summary_times: list[float] = []
        self.stop = False

    def checkpoint(self, kind: str, payload: dict[str, Any]) -> None:
        json.dumps(payload)
        if kind == "boundary_summary":
            self.summary_times.append(time.perf_counter() - self._t0)
            if self.first_summary_s is None:
                self.first_summary_s = self.summary_times[0]
        self.events.append(("checkpoint", kind, payload))

    def progress(self, fraction: float, message: str = "") -> None:
        self.events.append(("progress", "", {"fraction": fraction, "message": message}))

    def notice(self, kind: str, payload: dict[str, Any] | None = None) -> None:
        self.events.append(("notice", kind, payload or {}))

    def receipt(self, kind: str, payload: dict[str, Any]) -> None:
        json.dumps(payload)
        self.receipts.append((kind, payload))

    def trace(self, payload: dict[str, Any]) -> None:
        self.traces.append(payload)

    def artifact(self, kind: str, content: Any, media_type: str = "application/json") -> str:
        blob = json.dumps(content, sort_keys=True, separators=(",", ":")).encode()
        aid = "art_" + hashlib.sha256(self.seed + kind.encode() + b"\0" + blob).hexdigest()[:24]
        self.artifacts[aid] = (kind, content)
        return aid

    def use(self, steps: int = 0, tokens: int = 0) -> None:
        return None

    def should_stop(self) -> bool:
        return self.stop or (self.budgets["wall_s"] is not None and
                             time.perf_counter() - self._t0 > self.budgets["wall_s"])

    def budget_left(self) -> dict[str, float | int | None]:
        wall = self.budgets["wall_s"]
        return {"wall_s": None if wall is None else max(0.0, wall - (time.perf_counter() - self._t0)),
                "tokens": None, "steps": None}

    def save_partial(self, outputs: dict[str, Any]) -> None:
        self.partial = outputs

    def metric(self, name: str, value: float) -> None:
        self.metrics.setdefault(name, []).append(value)

    def ask(self, kind: str, payload: dict[str, Any], timeout_s: float | None = None) -> Any:
        self.asks.append((kind, payload))
        if self._answer is None:
            raise TimeoutError("no one to answer")
        return self._answer(kind, payload)

    def spawn(self, ability: str, inputs: dict[str, Any], edge: str = "bind",
              budgets: dict[str, Any] | None = None, wait: bool = True) -> dict[str, Any]:
        raise RuntimeError("no orchestrator: sub-actions are unavailable in a local run")

    def rng(self, purpose: str) -> random.Random:
        return derive_rng(self.seed, purpose)

    def checkpoints(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [p for e, k, p in self.events if e == "checkpoint" and (kind is None or k == kind)]
