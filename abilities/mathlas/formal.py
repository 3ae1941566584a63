"""verify_formal and search_formal_math: the real Lean kernel or an honest UNDETERMINED.

A typecheck proves a snippet is well-typed, not that the stated theorem is the right claim for
the AI's problem. ``sorry``/``admit`` are rejected by a comment- and string-stripped source scan
before anything runs (Lean exits 0 on a sorried proof, so the exit code alone would fake-pass),
and again by the kernel's "declaration uses 'sorry'" diagnostic.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

LEAN_TIMEOUT_S = 60
CAVEAT = ("a typecheck proves the snippet is well-typed, not that the stated theorem is the right "
          "applicability claim for your problem (that mapping is the AI's job)")
SORRY_RE = re.compile(r"(?<![A-Za-z0-9_'.])(sorry|admit)(?![A-Za-z0-9_'])")


def strip_comments_and_strings(src: str) -> str:
    """Remove Lean line comments, nested block comments and string literals (keeps newlines)."""
    out: list[str] = []
    i, n, depth = 0, len(src), 0
    while i < n:
        if depth:
            if src.startswith("/-", i):
                depth += 1
                i += 2
            elif src.startswith("-/", i):
                depth -= 1
                i += 2
            else:
                out.append("\n" if src[i] == "\n" else " ")
                i += 1
            continue
        if src.startswith("/-", i):
            depth = 1
            i += 2
        elif src.startswith("--", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src[i] == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


def uses_sorry(src: str) -> list[str]:
    """The sorry/admit tokens left after stripping comments and strings."""
    return SORRY_RE.findall(strip_comments_and_strings(src))


def build_snippet(statement: str, proof: str | None, lean: str | None) -> tuple[str, str]:
    """(mode, source): a full snippet as given, a proof-check declaration, or a statement typecheck."""
    if lean:
        return "snippet", lean
    body = statement.strip()
    imports = [ln for ln in body.splitlines() if ln.strip().startswith("import ")]
    body = "\n".join(ln for ln in body.splitlines() if not ln.strip().startswith("import "))
    header = "\n".join(imports)
    if proof is None:
        return "statement", f"{header}\n#check ({body} : Prop)\n"
    p_imports = [ln for ln in proof.splitlines() if ln.strip().startswith("import ")]
    p_body = [ln for ln in proof.splitlines() if not ln.strip().startswith("import ")]
    header = "\n".join(imports + p_imports)
    indented = "\n".join("  " + ln for ln in p_body)
    return "proof", f"{header}\ntheorem _mathlas_check : {body} :=\n{indented}\n"


def find_lean() -> str | None:
    return shutil.which("lean")


def verify_formal(statement: str, lean: str | None = None, proof: str | None = None) -> dict[str, Any]:
    """Run the real Lean kernel when a toolchain is on PATH; otherwise UNDETERMINED, never a fake pass."""
    mode, src = build_snippet(statement, proof, lean)
    out: dict[str, Any] = {"mode": mode, "caveat": CAVEAT, "checked_source": src}
    bad = uses_sorry(src)
    if bad:
        out.update(verdict="REJECTED", reason=f"the source uses {sorted(set(bad))} outside comments and strings; "
                   "an incomplete proof is never reported as checked", toolchain=None)
        return out
    exe = find_lean()
    if exe is None:
        out.update(verdict="UNDETERMINED", reason="no Lean toolchain on PATH (install elan and a Lean 4 release); "
                   "nothing was checked", toolchain=None)
        return out
    with tempfile.TemporaryDirectory(prefix="mathlas-lean-") as tmp:
        f = Path(tmp) / "Check.lean"
        f.write_text(src, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "ELAN_HOME", "LEAN_PATH", "LANG")}
        try:
            proc = subprocess.run([exe, str(f)], cwd=tmp, capture_output=True, text=True,
                                  timeout=LEAN_TIMEOUT_S, env=env, check=False)
        except subprocess.TimeoutExpired:
            out.update(verdict="UNDETERMINED", reason=f"Lean did not finish within {LEAN_TIMEOUT_S} s", toolchain=exe)
            return out
    log = (proc.stdout + proc.stderr).replace(tmp, "<tmp>")
    out["toolchain"] = exe
    out["kernel_output"] = log[-4000:]
    if "declaration uses 'sorry'" in log:
        out.update(verdict="REJECTED", reason="the kernel reports sorryAx in the declaration")
    elif proc.returncode == 0 and "error" not in log.lower():
        out.update(verdict="VERIFIED_PROOF" if mode == "proof" else "WELL_TYPED",
                   reason="the Lean kernel accepted the source")
    elif re.search(r"unknown (package|module)|file not found|object file .* does not exist", log):
        out.update(verdict="UNDETERMINED", reason="an import the bare toolchain cannot resolve (no Mathlib)")
    else:
        out.update(verdict="REFUTED", reason="the Lean kernel rejected the source; see kernel_output")
    return out


def search_formal_math(query: str, k: int = 10) -> dict[str, Any]:
    """Offline: search the curated Mathlib declaration names attached to the built-in corpus."""
    from abilities.mathlas.retrieve import get_index

    idx = get_index()
    hits = [r for r in idx.search(query, k=len(idx.docs)) if r.get("formal_name")][:k]
    n_formal = sum(1 for d in idx.docs if d.formal)
    return {"query": query, "results": [{"formal_name": r["formal_name"], "informal_name": r["name"],
                                         "statement": r["statement"], "field": r["field"], "score": r["score"]}
                                        for r in hits],
            "reach": (f"offline only: {n_formal} curated Mathlib declaration names from the built-in corpus; no "
                      "Mathlib index and no network. Names drift between Mathlib versions: confirm with #check "
                      "in your own toolchain before relying on one")}
