"""Where abilities are found: the built-in ones, plugin entry points, and extra modules.

Abilities are imported lazily, one by name, so that a process only pays for what it uses: the
server imports an ability on its first ``actions.start`` (to validate the inputs), a worker
imports them all before it says ready. ``METIS_EXTRA_ABILITIES`` (comma-separated
``module:ATTR`` where ATTR is a list of Ability classes) adds more, e.g. the test-only abilities
under ``tests/``. Extras and plugins win over a built-in of the same name.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
from collections.abc import Callable
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

_lock = threading.Lock()  # held only for bookkeeping, never across an import
_importing: dict[str, threading.Lock] = {}  # one per built-in: two threads never import the same one twice
_loaded: dict[str, type[Ability] | None] = {}  # built-in name -> class (None: not importable)
_listeners: list[Callable[[type[Ability]], None]] = []
_seen: list[type[Ability]] = []  # every class loaded so far, in load order


def _load(path: str) -> object:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


@cache
def _extras() -> dict[str, type[Ability]]:
    """Plugin entry points and ``METIS_EXTRA_ABILITIES`` (small by nature: loaded at once)."""
    found: dict[str, type[Ability]] = {}
    for ep in entry_points(group="metis.abilities"):
        cls = ep.load()
        found[cls.name] = cls
    extra = os.environ.get("METIS_EXTRA_ABILITIES", "")
    for spec in filter(None, (s.strip() for s in extra.split(","))):
        for cls in _load(spec):  # type: ignore[attr-defined]
            found[cls.name] = cls
    for cls in found.values():
        _announce(cls)
    return found


def _builtin(name: str) -> type[Ability] | None:
    """Import one built-in ability (once). A built-in whose package is missing is None."""
    if name in _loaded:
        return _loaded[name]
    with _lock:
        own = _importing.setdefault(name, threading.Lock())
    with own:  # another ability's import (in another thread) does not wait for this one
        if name in _loaded:
            return _loaded[name]
        cls: type[Ability] | None = None
        try:
            cls = _load(BUILTIN[name])  # type: ignore[assignment]
        except ModuleNotFoundError as exc:
            if not (exc.name or "").startswith(f"abilities.{name}"):
                log.error("ability_import_failed", ability=name, error=str(exc))
        except Exception as exc:  # a broken ability must not take the service down
            log.error("ability_import_failed", ability=name, error=f"{type(exc).__name__}: {exc}")
        _loaded[name] = cls
        if cls is not None:
            _announce(cls)
        return cls


def _announce(cls: type[Ability]) -> None:
    with _lock:  # with on_load's own block: each listener hears of each class exactly once
        _seen.append(cls)
        listeners = list(_listeners)
    for listener in listeners:
        listener(cls)


def on_load(listener: Callable[[type[Ability]], None]) -> Callable[[], None]:
    """Call ``listener(cls)`` for every ability class loaded from now on, and for those already
    loaded (the server declares an ability's metrics and freezes the heap after each import).
    Returns the function that stops the calls."""
    with _lock:
        _listeners.append(listener)
        already = list(_seen)
    for cls in already:
        listener(cls)
    return lambda: _listeners.remove(listener)


def loaded() -> list[type[Ability]]:
    """The ability classes imported so far (nothing is imported)."""
    with _lock:
        return list(_seen)


def names() -> list[str]:
    """Every ability name, sorted, without importing a built-in (they are listed by name)."""
    return sorted(set(BUILTIN) | set(_extras()))


def available() -> dict[str, type[Ability]]:
    """All importable abilities by name (imports every one of them)."""
    found = {n: c for n in BUILTIN if (c := _builtin(n)) is not None}
    found.update(_extras())
    return found


async def get_async(name: str) -> type[Ability] | None:
    """``get`` for the event loop: an ability not imported yet is imported in a thread (its models
    may pull in a library that takes a second to import: the loop keeps serving meanwhile)."""
    if name in _loaded or name not in BUILTIN or name in _extras():
        return get(name)
    return await asyncio.to_thread(get, name)


def get(name: str) -> type[Ability] | None:
    """The ability class named ``name`` (importing only that one), or None."""
    extras = _extras()
    if name in extras:
        return extras[name]
    if name in BUILTIN:
        return _builtin(name)
    return None
