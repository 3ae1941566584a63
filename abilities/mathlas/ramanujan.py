"""conjecture_relation: PSLQ over a richer basis plus a Ramanujan-Machine-style continued-fraction search.

(a) PSLQ over [x, x^2, 1, a, b, a*b] for pairs of named atoms, solved for x (a quadratic when the
    x^2 coefficient is nonzero); (b) generalized continued fractions a(n) = a0 + a1 n,
    b(n) = b0 + b1 n + b2 n^2 with tiny integer coefficients, matched to x by a Moebius relation
    x = (p L + q)/(r L + s) found with PSLQ; (c) the simple continued fraction of x and its pattern.
Every hit is locked by a deeper re-evaluation (the GCF to depth 4000 at higher precision, closed
forms in sympy) over digits the proposer never saw. Provenance: ``conjectured_relation``, a
numerically verified conjecture, not a proof.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath

from abilities.mathlas import closedform as cf
from abilities.mathlas import contfrac, numeric

RICH_ATOMS = ["pi", "log(2)", "e", "sqrt(2)", "zeta(3)", "catalan", "euler", "sqrt(3)"]
GCF_SHALLOW = 120
GCF_DEEP = 4000


def _num(v: int | Fraction) -> cf.Node:
    f = Fraction(v)
    return ("num", abs(f)) if f >= 0 else ("neg", ("num", abs(f)))


def _lin(terms: list[tuple[int, cf.Node | None]]) -> cf.Node | None:
    """sum c_i * node_i (node None = the constant 1) as an AST, or None when all zero."""
    node: cf.Node | None = None
    for c, atom in terms:
        if c == 0:
            continue
        base = ("num", Fraction(abs(c))) if atom is None else (atom if abs(c) == 1 else ("mul", ("num", Fraction(abs(c))), atom))
        if node is None:
            node = ("neg", base) if c < 0 else base
        else:
            node = ("sub" if c < 0 else "add", node, base)
    return node


def _pslq_rich(x: numeric.DecimalValue, proposal_digits: int) -> list[tuple[cf.Node, float, list[int]]]:
    out = []
    dps = max(proposal_digits + 10, 24)
    with mpmath.workdps(dps):
        xv = x.mpf(dps)
        vals = {a: cf.eval_mpmath(cf.parse(a), dps) for a in RICH_ATOMS}
        groups = [(a,) for a in RICH_ATOMS] + list(itertools.combinations(RICH_ATOMS, 2))
        for g in groups:
            atoms = [cf.parse(a) for a in g]
            vec = [xv, xv * xv, mpmath.mpf(1)] + [vals[a] for a in g]
            if len(g) == 2:
                vec.append(vals[g[0]] * vals[g[1]])
                atoms.append(("mul", atoms[0], atoms[1]))
            elif not g[0].startswith("sqrt"):
                vec.append(vals[g[0]] ** 2)
                atoms.append(("pow", atoms[0], ("num", Fraction(2))))
            tol = mpmath.mpf(10) ** (-proposal_digits) * max(1, abs(xv) ** 2)
            try:
                rel = mpmath.pslq(vec, tol=tol, maxcoeff=200, maxsteps=3000)
            except (ValueError, ZeroDivisionError):
                rel = None
            if not rel or (rel[0] == 0 and rel[1] == 0) or not any(rel[3:]):
                continue
            r0, r1 = rel[0], rel[1]
            if r1 == 0:
                node: cf.Node = numeric._linear_node(
                    Fraction(-rel[2], r0), [(Fraction(-c, r0), at) for c, at in zip(rel[3:], atoms, strict=True)])
            else:
                disc = numeric._linear_node(Fraction(r0 * r0 - 4 * r1 * rel[2]),
                                            [(Fraction(-4 * r1 * c), at) for c, at in zip(rel[3:], atoms, strict=True)])
                root = ("call", "sqrt", disc)
                half = Fraction(1, 2 * r1)
                cands = [numeric._linear_node(Fraction(-r0, 2 * r1), [(half, root)]),
                         numeric._linear_node(Fraction(-r0, 2 * r1), [(-half, root)])]
                node = min(cands, key=lambda n: _safe_dist(n, xv, dps))
            complexity = sum(math.log10(abs(r)) for r in rel if r) + len(g) + (1 if r1 else 0)
            out.append((node, complexity, list(rel)))
    return out


def _safe_dist(node: cf.Node, xv: mpmath.mpf, dps: int) -> mpmath.mpf:
    try:
        return abs(cf.eval_mpmath(node, dps) - xv)
    except cf.ClosedFormError:
        return mpmath.inf


def gcf_value(a: tuple[int, int], b: tuple[int, int, int], depth: int, dps: int) -> mpmath.mpf | None:
    """a(0) + b(1)/(a(1) + b(2)/(a(2) + ...)) evaluated backwards from ``depth``."""
    with mpmath.workdps(dps):
        t = mpmath.mpf(a[0] + a[1] * depth)
        for n in range(depth - 1, -1, -1):
            bn = b[0] + b[1] * (n + 1) + b[2] * (n + 1) ** 2
            if t == 0:
                return None
            t = (a[0] + a[1] * n) + bn / t
        return +t


@cache
def _gcf_catalog() -> list[tuple[tuple[int, int], tuple[int, int, int], float]]:
    """Convergent, irrational-looking GCF limits of the tiny search space (computed once)."""
    out = []
    for a0, a1 in itertools.product(range(0, 4), range(1, 4)):
        for b in itertools.product(range(-1, 3), repeat=3):
            if b == (0, 0, 0):
                continue
            v1 = gcf_value((a0, a1), b, GCF_SHALLOW, 40)
            v2 = gcf_value((a0, a1), b, 2 * GCF_SHALLOW, 40)
            if v1 is None or v2 is None or not mpmath.isfinite(v1) or abs(v1 - v2) > mpmath.mpf(10) ** -28:
                continue
            with mpmath.workdps(40):
                if v2 == 0 or mpmath.pslq([v2, 1], maxcoeff=10**6, tol=mpmath.mpf(10) ** -25):
                    continue  # rational limit: no information
            out.append(((a0, a1), b, float(v2)))
    return out


def _gcf_hits(x: numeric.DecimalValue, proposal_digits: int) -> list[dict[str, Any]]:
    hits = []
    dps = max(proposal_digits + 8, 24)
    with mpmath.workdps(dps):
        xv = x.mpf(dps)
        for a, b, _ in _gcf_catalog():
            L = gcf_value(a, b, GCF_SHALLOW, dps)
            if L is None:
                continue
            tol = mpmath.mpf(10) ** (-proposal_digits) * max(1, abs(xv * L))
            try:
                rel = mpmath.pslq([xv, xv * L, L, mpmath.mpf(1)], tol=tol, maxcoeff=30, maxsteps=1000)
            except (ValueError, ZeroDivisionError):
                rel = None
            if not rel or (rel[0] == 0 and rel[1] == 0) or (rel[2] == 0 and rel[3] == 0):
                continue
            hits.append({"a": a, "b": b, "rel": list(rel)})
    return hits


def _lock_gcf(x: numeric.DecimalValue, hit: dict[str, Any]) -> dict[str, Any] | None:
    """Deeper re-evaluation: the GCF to depth 4000 and 8000 at higher precision, then every supplied digit."""
    dps = x.digits + 25
    deep = gcf_value(hit["a"], hit["b"], GCF_DEEP, dps)
    deeper = gcf_value(hit["a"], hit["b"], 2 * GCF_DEEP, dps)
    if deep is None or deeper is None:
        return None
    c0, c1, c2, c3 = hit["rel"]
    with mpmath.workdps(dps):
        conv = numeric.digits_agreed(deep, deeper, dps)
        if conv < x.digits + 2:
            return None  # the GCF does not converge fast enough to vouch for every supplied digit
        den = c0 + c1 * deeper
        if den == 0:
            return None
        val = -(c2 * deeper + c3) / den
        if abs(val - x.mpf(dps)) >= mpmath.mpf(10) ** x.last_place:
            return None
        agreed = numeric.digits_agreed(val, x.mpf(dps), x.digits)
    a, b = hit["a"], hit["b"]
    gcf_text = f"a(n) = {a[0]} + {a[1]}*n, b(n) = {b[0]} + {b[1]}*n + {b[2]}*n**2"
    return {"kind": "generalized_continued_fraction", "display": f"x = -({c2}*L + {c3})/({c0} + {c1}*L) where L = "
            f"a(0) + b(1)/(a(1) + b(2)/(a(2) + ...)), {gcf_text}", "gcf": {"a": list(a), "b": list(b)},
            "moebius": [c0, c1, c2, c3], "digits_agreed": agreed, "gcf_converged_digits": conv,
            "provenance": "conjectured_relation"}


def simple_continued_fraction(x: numeric.DecimalValue, max_terms: int = 40) -> dict[str, Any]:
    """Terms certified by the supplied digits (common to both ends of the uncertainty interval) and a pattern."""
    dps = x.digits + 10
    with mpmath.workdps(dps):
        terms = contfrac.certified_terms(x.mpf(dps), mpmath.mpf(10) ** x.last_place, dps, max_terms)
    return contfrac.summary(terms)


def conjecture_relation(value: str, max_results: int = 5) -> dict[str, Any]:
    """Richer-basis PSLQ and GCF search for a decimal value; only re-checked relations are returned."""
    x = numeric.parse_decimal(value)
    result: dict[str, Any] = {"query": x.text, "supplied_digits": x.digits, "relations": [],
                              "provenance": "conjectured_relation",
                              "caveat": "numerically verified conjectures over the held-out digits, not proofs"}
    result["continued_fraction"] = simple_continued_fraction(x)
    if x.digits < 12:
        result["note"] = f"only {x.digits} significant digits; at least 12 are needed for a conjecture search"
        return result
    holdout = max(4, x.digits // 3)
    proposal = x.digits - holdout
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    for node, complexity, rel in sorted(_pslq_rich(x, proposal), key=lambda t: (t[1], cf.to_text(t[0]))):
        text = cf.to_text(node)
        if text in seen or x.digits - complexity < numeric.OCCAM_MARGIN:
            continue
        seen.add(text)
        chk = numeric.verify_candidate(x, node, x.digits + 30)
        if chk["ok"] and chk["value"] not in seen:
            seen.add(chk["value"])
            found.append({"kind": "pslq_rich_basis", "expr": text, "display": text, "digits_agreed": chk["digits_agreed"],
                          "relation": rel, "complexity": round(complexity, 3), "provenance": "conjectured_relation"})
    for hit in _gcf_hits(x, proposal):
        if len(found) >= max_results:
            break
        locked = _lock_gcf(x, hit)
        if locked and locked["display"] not in seen:
            seen.add(locked["display"])
            found.append(locked)
    result["relations"] = found[:max_results]
    result["note"] = (f"{len(found)} relation(s) survived the deeper re-evaluation over {holdout} held-out digits"
                      if found else "no relation survived the deeper re-evaluation")
    return result
