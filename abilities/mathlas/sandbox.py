"""Score an untrusted FunSearch candidate: the program runs confined, the scorer runs here.

The candidate's ``priority`` runs in the shared confined runner (``abilities.confine``: its own
user, mount, PID and network namespaces, a read-only root with only the Python install, no
capabilities, no_new_privs, seccomp, rlimits, a fresh interpreter). The trusted scorer in
``scorers.py`` runs in this process and calls ``priority`` through the session, one call per
element or item, so the score is computed by trusted code from the priorities the candidate
returns. Nothing the candidate prints is parsed: writing a fake result to stdout and exiting
scores nothing.
"""

from __future__ import annotations

import time
from typing import Any

from abilities.confine import CandidateEnded, CandidateError, ConfinementUnavailable, Limits, Session
from abilities.mathlas.scorers import SCORERS

#: Appended to the candidate's source: ``cap_set`` elements travel as JSON lists and the
#: documented signature takes a tuple.
ADAPTERS = {
    "cap_set": "\n\ndef _mathlas_priority(el, n):\n    return priority(tuple(el), n)\n",
    "online_bin_packing": "\n\ndef _mathlas_priority(item, bins):\n    return priority(item, bins)\n",
}


def run_sandboxed(program: str, problem: str, params: dict[str, Any] | None = None, cpu_s: int = 5,
                  wall_s: float = 10.0, mem_mb: int = 512) -> dict[str, Any]:
    """Evaluate ``program`` for ``problem``; never raises for anything the program does.

    ``status`` is ``ok`` (with ``result``), ``error`` (the program raised or returned unusable
    priorities), ``killed`` / ``timeout`` (a limit stopped it) or ``refused`` (the sandbox could
    not be built on this host, so nothing ran).
    """
    started = time.monotonic()
    limits = Limits(cpu_s=cpu_s, wall_s=wall_s, mem_mb=mem_mb)
    session = Session(program + ADAPTERS[problem], "_mathlas_priority", limits)
    out: dict[str, Any]
    try:
        with session:
            result = SCORERS[problem](session.call, dict(params or {}))
        out = {"status": "ok", "result": result}
    except ConfinementUnavailable as exc:
        return {"status": "refused", "error": str(exc), "elapsed_s": round(time.monotonic() - started, 3)}
    except CandidateEnded as exc:
        out = {"status": exc.status, "error": exc.reason, "output_tail": exc.output_tail}
    except CandidateError as exc:
        out = {"status": "error", "error": str(exc)}
    except (TypeError, ValueError, OverflowError, IndexError, KeyError) as exc:  # unusable priorities
        out = {"status": "error", "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    out["isolation"] = session.isolation
    out["elapsed_s"] = round(time.monotonic() - started, 3)
    return out
