"""Confined execution of untrusted code, shared by abilities (part of the plugin interface).

``Session(source, entry, limits)`` runs ``source`` in a fresh interpreter inside its own user,
mount, PID and network namespaces, on a read-only root holding only the Python install, with no
capabilities, no_new_privs, a seccomp deny filter and rlimits, and lets trusted code call one of
its functions. Results are the function's return values, checked by trusted code; nothing is
parsed from what the candidate prints. If the jail cannot be built, ``ConfinementUnavailable``
is raised and nothing runs. See docs/security.md for the design and what each layer stops.
"""

from abilities.confine.session import (
    CandidateEnded,
    CandidateError,
    ConfinementUnavailable,
    Limits,
    Session,
)

__all__ = ["CandidateEnded", "CandidateError", "ConfinementUnavailable", "Limits", "Session"]
