"""The pure part of a code check: hashing, comparing a result with its expectation, summing up.

No I/O: the ability feeds it what the confined function returned (or raised, or how its process
ended), so every verdict is decided here, by trusted code, from data.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from abilities.sandbox.models import TestCase, TestResult

MAX_RETURNED_JSON = 2000


def canonical(obj: Any) -> str:
    """Sorted keys, no spaces, UTF-8 kept: the text every hash in the outputs is taken over."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=True)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def same(got: Any, want: Any, tol: float) -> bool:
    """JSON equality; numbers compare by value (2 == 2.0) within ``tol``, booleans only with booleans."""
    if isinstance(got, bool) or isinstance(want, bool):
        return type(got) is type(want) and got == want
    if isinstance(got, int | float) and isinstance(want, int | float):
        if isinstance(got, float) and isinstance(want, float) and math.isnan(got) and math.isnan(want):
            return True
        return math.isclose(got, want, rel_tol=tol, abs_tol=tol) if tol else got == want
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(same(g, w, tol) for g, w in zip(got, want, strict=True))
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(same(got[k], want[k], tol) for k in got)
    return type(got) is type(want) and got == want


def _short(text: str, n: int = 120) -> str:
    return text if len(text) <= n else text[:n] + "..."


def judge(test: TestCase, kind: str, detail: Any) -> TestResult:
    """``kind`` is ``value`` (detail: the JSON value), ``raised`` (``"Type: message"``) or
    ``ended`` (detail: ``(status, reason)`` of a killed or timed-out process)."""
    name = test.name or ""
    if kind == "value":
        text = canonical(detail)
        ok = test.raises is None and same(detail, test.expected, test.tolerance)
        if ok:
            message = ""
        elif test.raises is not None:
            message = f"returned {_short(text)}, expected it to raise {test.raises}"
        else:
            message = f"returned {_short(text)}, expected {_short(canonical(test.expected))}"
        return TestResult(name=name, status="passed" if ok else "failed", output_sha256=sha256(canonical({"value": detail})),
                          returned_json=text if len(text) <= MAX_RETURNED_JSON else None, message=message)
    if kind == "raised":
        raised = str(detail)
        etype = raised.split(":", 1)[0]
        ok = test.raises == etype
        message = "" if ok else (f"raised {_short(raised)}" + (f", expected {test.raises}" if test.raises else ""))
        return TestResult(name=name, status="passed" if ok else "failed", raised=raised,
                          output_sha256=sha256(canonical({"raised": raised})), message=message)
    status, reason = detail
    return TestResult(name=name, status="error", output_sha256=sha256(canonical({"ended": status, "reason": reason})),
                      message=f"{status}: {reason}")


def not_run(test: TestCase, why: str) -> TestResult:
    return TestResult(name=test.name or "", status="not_run", message=why)


def counts(results: list[TestResult]) -> dict[str, int]:
    by = {s: sum(r.status == s for r in results) for s in ("passed", "failed", "error", "not_run")}
    return {"total": len(results), "passed": by["passed"], "failed": by["failed"], "errors": by["error"],
            "not_run": by["not_run"]}
