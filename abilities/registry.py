"""Where abilities are found: the built-in five, plugin entry points, and extra modules.

Abilities are imported lazily by name so that a worker only pays for what it runs.
``METIS_EXTRA_ABILITIES`` (comma-separated ``module:ATTR`` where ATTR is a list of Ability
classes) adds more, e.g. the test-only abilities under ``tests/``.
"""

from __future__ import annotations

import importlib
import os
from functools import cache
from importlib.metadata import entry_points

import structlog

from abilities.base import Ability

log = structlog.get_logger("metis.abilities")

BUILTIN: dict[str, str] = {
    "cda": "abilities.cda.ability:CdaAbility",
    "crl_math": "abilities.crl_math.ability:CrlMathAbility",
    "scu_guard": "abilities.scu_guard.ability:ScuGuardAbility",
    "ariadne_audit": "abilities.ariadne_audit.ability:AriadneAuditAbility",
    "mathlas": "abilities.mathlas.ability:MathlasAbility",
    "sandbox": "abilities.sandbox.ability:SandboxAbility",
    "research": "abilities.research.ability:ResearchAbility",
}


def _load(path: str) -> object:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


@cache
def available() -> dict[str, type[Ability]]:
    """All importable abilities by name. A built-in whose package is missing is skipped."""
    found: dict[str, type[Ability]] = {}
    for name, path in BUILTIN.items():
        try:
            found[name] = _load(path)  # type: ignore[assignment]
        except ModuleNotFoundError as exc:
            if not (exc.name or "").startswith(f"abilities.{name}"):
                log.error("ability_import_failed", ability=name, error=str(exc))
        except Exception as exc:  # a broken ability must not take the service down
            log.error("ability_import_failed", ability=name, error=f"{type(exc).__name__}: {exc}")
    for ep in entry_points(group="metis.abilities"):
        cls = ep.load()
        found[cls.name] = cls
    extra = os.environ.get("METIS_EXTRA_ABILITIES", "")
    for spec in filter(None, (s.strip() for s in extra.split(","))):
        for cls in _load(spec):  # type: ignore[attr-defined]
            found[cls.name] = cls
    return found


def get(name: str) -> type[Ability] | None:
    """The ability class named ``name``, or None."""
    return available().get(name)
