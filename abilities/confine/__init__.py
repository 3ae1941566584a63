"""Confined execution of untrusted code, shared by abilities (part of the plugin interface).

``Session(source, entry, limits)`` runs ``source`` in a fresh interpreter inside its own user,
mount, PID and network namespaces, on a read-only root holding only the Python install, with no
capabilities, no_new_privs, a seccomp deny filter and rlimits, and lets trusted code call one of
its functions. Results are the function's return values, checked by trusted code; nothing is
parsed from what the candidate prints. If the jail cannot be built, ``ConfinementUnavailable``
is raised and nothing runs. See docs/security.md for the design and what each layer stops.

The names are loaded lazily so that the launcher, which imports ``abilities.confine.seccomp``
before it builds the jail, does not pay for the trusted side's imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from abilities.confine.session import (
        CandidateEnded,
        CandidateError,
        ConfinementUnavailable,
        Limits,
        Session,
    )

__all__ = ["CandidateEnded", "CandidateError", "ConfinementUnavailable", "Limits", "Session"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from abilities.confine import session

        return getattr(session, name)
    raise AttributeError(f"module 'abilities.confine' has no attribute {name!r}")
