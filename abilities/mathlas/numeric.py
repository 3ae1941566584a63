"""identify_constant and verify_numeric: PSLQ proposes at low precision, an independent
re-evaluation (sympy, at higher precision, over the digits PSLQ never saw) verifies.

Airtight or nothing: a candidate is reported only when it (1) agrees with every digit the
caller supplied, including a held-out tail PSLQ did not use, (2) evaluates to the same value in
two libraries, and (3) is far simpler than the digits it explains (an Occam margin: a random
integer relation with coefficients of size H over n terms fits about n*log10(H) digits by chance).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import mpmath

from abilities.mathlas import closedform as cf

MAX_VALUE_CHARS = 400
MIN_DIGITS = 6
# A random relation with coefficients of size H over n terms fits about n*log10(H) digits by chance;
# ~200 groups are searched, so the look-elsewhere effect adds log10(200) ~ 2.3 (rounded up)
# to a base margin of 5.
OCCAM_MARGIN = 7.5
DECIMAL_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,4})?$")

# Named atoms of the default basis: name -> closed-form text in the mathlas grammar.
ATOMS: dict[str, str] = {
    "pi": "pi", "pi**2": "pi**2", "pi**3": "pi**3", "pi**4": "pi**4", "e": "e", "e**2": "e**2",
    "log(2)": "log(2)", "log(3)": "log(3)", "log(5)": "log(5)", "log(2)**2": "log(2)**2",
    "zeta(3)": "zeta(3)", "zeta(5)": "zeta(5)", "catalan": "catalan", "euler": "euler",
    "sqrt(2)": "sqrt(2)", "sqrt(3)": "sqrt(3)", "sqrt(5)": "sqrt(5)", "sqrt(pi)": "sqrt(pi)",
    "log(pi)": "log(pi)", "exp(pi)": "exp(pi)", "pi*sqrt(2)": "pi*sqrt(2)", "pi*sqrt(3)": "pi*sqrt(3)",
    "pi*log(2)": "pi*log(2)", "gamma(1/4)": "gamma(1/4)", "khinchin": "khinchin", "glaisher": "glaisher",
}
DEFAULT_BASIS = list(ATOMS)
PAIR_ATOMS = ["pi", "pi**2", "e", "log(2)", "log(3)", "log(5)", "zeta(3)", "catalan", "euler", "sqrt(2)",
              "sqrt(3)", "sqrt(5)", "pi*sqrt(3)", "pi*log(2)"]
TRANSFORMS = ("x", "1/x", "x**2", "sqrt", "log", "exp")
# Atoms tried under the non-identity transforms (all atoms are tried under x itself).
TRANSFORM_ATOMS = ["pi", "pi**2", "e", "log(2)", "log(3)", "zeta(3)", "catalan", "euler", "sqrt(2)", "sqrt(3)",
                   "sqrt(5)", "log(pi)"]


class NumericInputError(ValueError):
    """A value that is not a finite decimal number within the size bound."""


@dataclass(frozen=True)
class DecimalValue:
    """A caller's decimal value, with how many significant digits it carries."""

    text: str
    exact: Decimal
    digits: int
    last_place: int  # the exponent of the last supplied digit: the value is known to +- 10**last_place

    def mpf(self, dps: int) -> mpmath.mpf:
        with mpmath.workdps(dps):
            return mpmath.mpf(self.text)


def parse_decimal(value: str | float | int) -> DecimalValue:
    """Parse and bound a decimal value; reject NaN, infinities and oversized inputs."""
    text = repr(value) if isinstance(value, float) else str(value)
    text = text.strip()
    if len(text) > MAX_VALUE_CHARS:
        raise NumericInputError(f"value has {len(text)} characters; the limit is {MAX_VALUE_CHARS}")
    if not DECIMAL_RE.match(text):
        raise NumericInputError(f"not a finite decimal number: {text[:40]!r}")
    d = Decimal(text)
    if not d.is_finite():
        raise NumericInputError("value must be finite")
    sign, digits, exp = d.as_tuple()
    ds = "".join(map(str, digits)).lstrip("0")
    n = len(ds) if ds else 0
    return DecimalValue(text=text, exact=d, digits=n, last_place=int(exp))


def _atom_node(name: str) -> cf.Node:
    return cf.parse(ATOMS[name])


def _linear_node(const: Fraction, terms: list[tuple[Fraction, cf.Node]]) -> cf.Node:
    node: cf.Node | None = None
    for coef, atom in terms:
        if coef == 0:
            continue
        mag = abs(coef)
        t = atom if mag == 1 else (("div", atom, ("num", Fraction(mag.denominator)))
                                   if mag.numerator == 1 else ("mul", ("num", mag), atom))
        if node is None:
            node = ("neg", t) if coef < 0 else t
        else:
            node = ("sub" if coef < 0 else "add", node, t)
    if const != 0:
        c = ("num", abs(const))
        node = (("neg", c) if const < 0 else c) if node is None else ("sub" if const < 0 else "add", node, c)
    return node if node is not None else ("num", Fraction(0))


def _invert(transform: str, lin: cf.Node, negative: bool) -> cf.Node:
    if transform == "x":
        return lin
    if transform == "1/x":
        return ("div", ("num", Fraction(1)), lin)
    if transform == "x**2":
        root = ("call", "sqrt", lin)
        return ("neg", root) if negative else root
    if transform == "sqrt":
        return ("pow", lin, ("num", Fraction(2)))
    if transform == "log":
        return ("call", "exp", lin)
    return ("call", "log", lin)


def _apply(transform: str, x: mpmath.mpf) -> mpmath.mpf | None:
    if transform == "x":
        return x
    if transform == "1/x":
        return 1 / x if x != 0 else None
    if transform == "x**2":
        return x * x
    if transform == "sqrt":
        return mpmath.sqrt(x) if x > 0 else None
    if transform == "log":
        return mpmath.log(x) if x > 0 else None
    if abs(x) > 300:
        return None
    return mpmath.exp(x)


@dataclass
class Candidate:
    node: cf.Node
    complexity: float
    relation: list[int]
    transform: str
    atoms: list[str]


def _propose(x: DecimalValue, basis: list[str], proposal_digits: int, pairs: bool) -> list[Candidate]:
    """PSLQ at low precision (proposal_digits) over [T(x), 1, atom] per transform, or over atom pairs."""
    out: list[Candidate] = []
    dps = max(proposal_digits + 8, 20)
    with mpmath.workdps(dps):
        xv = x.mpf(dps)
        atom_vals = {a: cf.eval_mpmath(_atom_node(a), dps) for a in basis}
        pair_basis = [a for a in PAIR_ATOMS if a in basis]
        groups: list[tuple[str, tuple[str, ...]]] = []
        if pairs:
            groups.extend(("x", pair) for pair in itertools.combinations(pair_basis, 2))
        else:
            for t in TRANSFORMS:
                groups.append((t, ()))
                groups.extend((t, (a,)) for a in basis if t == "x" or a in TRANSFORM_ATOMS)
        for transform, atoms in groups:
            tv = _apply(transform, xv)
            if tv is None:
                continue
            vec = [tv, mpmath.mpf(1)] + [atom_vals[a] for a in atoms]
            tol = mpmath.mpf(10) ** (-proposal_digits) * max(1, abs(tv))
            try:
                rel = mpmath.pslq(vec, tol=tol, maxcoeff=1000, maxsteps=2000)
            except (ValueError, ZeroDivisionError):
                rel = None
            if not rel or rel[0] == 0:
                continue
            r0 = rel[0]
            const = Fraction(-rel[1], r0)
            terms = [(Fraction(-rel[i + 2], r0), _atom_node(a)) for i, a in enumerate(atoms)]
            if any(c == 0 for c, _ in terms):
                continue  # a smaller group already covers this relation
            lin = _linear_node(const, terms)
            node = _invert(transform, lin, negative=xv < 0)
            complexity = sum(math.log10(abs(r)) for r in rel if r) + len(atoms) + (0 if transform == "x" else 0.5)
            out.append(Candidate(node, complexity, list(rel), transform, list(atoms)))
    return out


def digits_agreed(a: mpmath.mpf, b: mpmath.mpf, cap: int) -> int:
    """How many significant digits two numbers share (relative error), capped."""
    if a == b:
        return cap
    scale = max(abs(a), abs(b))
    if scale == 0:
        return cap
    rel = abs(a - b) / scale
    return int(max(0, min(cap, math.floor(-mpmath.log10(rel)))))


def _consistent(x: DecimalValue, val: mpmath.mpf, dps: int) -> bool:
    """True when the supplied digits could be val rounded or truncated: same sign and
    |val| - |x| in (-1/2, 1) units of the last supplied digit."""
    with mpmath.workdps(dps):
        xv = x.mpf(dps)
        if xv != 0 and val != 0 and (xv > 0) != (val > 0):
            return False
        ulp = mpmath.mpf(10) ** x.last_place
        d = abs(val) - abs(xv)
        return -ulp / 2 < d < ulp


def verify_candidate(x: DecimalValue, node: cf.Node, dps: int) -> dict[str, Any]:
    """Independent check: evaluate with sympy and with mpmath at ``dps``; both must match the value."""
    try:
        v_sym = cf.eval_sympy(node, dps)
        v_mp = cf.eval_mpmath(node, dps)
    except (cf.ClosedFormError, ValueError, TypeError, ZeroDivisionError, OverflowError) as exc:
        return {"ok": False, "reason": f"evaluation failed: {exc}"}
    with mpmath.workdps(dps):
        libs = digits_agreed(v_sym, v_mp, dps)
        agreed = digits_agreed(v_sym, x.mpf(dps), x.digits)
        ok = libs >= dps - 8 and _consistent(x, v_sym, dps)
        return {"ok": ok, "digits_agreed": agreed, "libraries_agree_digits": libs,
                "value": mpmath.nstr(v_sym, min(dps, x.digits + 10))}


def identify_constant(value: str, basis: list[str] | None = None) -> dict[str, Any]:
    """Propose closed forms for a decimal value with PSLQ, keep only independently verified ones."""
    x = parse_decimal(value)
    use_basis = list(basis) if basis else DEFAULT_BASIS
    result: dict[str, Any] = {"query": x.text, "identified": False, "basis": use_basis,
                              "supplied_digits": x.digits, "candidates": [], "best": None}
    if x.digits < MIN_DIGITS:
        result["unidentified_reason"] = (f"only {x.digits} significant digits; at least {MIN_DIGITS} are "
                                         "needed to tell a closed form from chance")
        return result
    if x.exact == 0:
        result["unidentified_reason"] = "zero carries no structure to identify"
        return result
    holdout = max(3, x.digits // 4)
    proposal_digits = x.digits - holdout
    verify_dps = x.digits + 30
    seen: set[str] = set()
    accepted_values: list[str] = []
    rejected = 0
    proposed: list[Candidate] = []
    for pairs in (False, True):
        if pairs and result["candidates"]:
            break  # a single-atom form survived: two-atom forms would only be more complex
        batch = _propose(x, use_basis, proposal_digits, pairs)
        proposed += batch
        rejected += _verify_batch(x, batch, verify_dps, holdout, seen, accepted_values, result)
    if result["candidates"]:
        result["identified"] = True
        result["best"] = result["candidates"][0]["expr"]
    else:
        result["unidentified_reason"] = (
            f"no relation over the basis survived the re-check ({len(proposed)} proposed, {rejected} rejected "
            f"by the held-out {holdout} digits, the two-library re-evaluation or the Occam margin)")
    return result


def _verify_batch(x: DecimalValue, batch: list[Candidate], verify_dps: int, holdout: int, seen: set[str],
                  accepted_values: list[str], result: dict[str, Any]) -> int:
    """Re-check proposals (simplest first); append survivors to result["candidates"]; return rejections."""
    rejected = 0
    for cand in sorted(batch, key=lambda c: (c.complexity, cf.to_text(c.node))):
        text = cf.to_text(cand.node)
        if text in seen:
            continue
        seen.add(text)
        if x.digits - cand.complexity < OCCAM_MARGIN:
            rejected += 1
            continue
        check = verify_candidate(x, cand.node, verify_dps)
        if not check["ok"]:
            rejected += 1
            continue
        if check["value"] in accepted_values:
            continue  # the same number as a simpler accepted form (e.g. exp(log(pi)) after pi)
        accepted_values.append(check["value"])
        result["candidates"].append({
            "expr": text, "display": text, "digits_agreed": check["digits_agreed"],
            "complexity": round(cand.complexity, 3), "provenance": "pslq+independent_sympy_recheck",
            "relation": {"transform": cand.transform, "atoms": cand.atoms, "coefficients": cand.relation},
            "verify": {"dps": verify_dps, "libraries_agree_digits": check["libraries_agree_digits"],
                       "holdout_digits": holdout},
        })
        if len(result["candidates"]) >= 5:
            break
    return rejected


def verify_numeric(value: str, closed_form: str, dps_verify: int = 60,
                   min_digits: int | None = None) -> dict[str, Any]:
    """Check a claimed closed form against a decimal value with two independent evaluators."""
    x = parse_decimal(value)
    node = cf.parse(closed_form)
    need = min_digits if min_digits is not None else max(1, x.digits - 1)
    dps = max(dps_verify, x.digits + 20)
    out: dict[str, Any] = {"value": x.text, "closed_form": cf.to_text(node), "supplied_digits": x.digits,
                           "dps_verify": dps, "min_digits": need}
    check = verify_candidate(x, node, dps)
    if "reason" in check:
        out.update(verdict="UNDETERMINED", reason=check["reason"], digits_agreed=0)
        return out
    out.update(digits_agreed=check["digits_agreed"], closed_form_value=check["value"],
               libraries_agree_digits=check["libraries_agree_digits"])
    if check["libraries_agree_digits"] < dps - 8:
        out.update(verdict="UNDETERMINED", reason="mpmath and sympy disagree on the closed form's value")
    elif not check["ok"]:
        out.update(verdict="REFUTED", reason=f"differs from the value at significant digit "
                   f"{check['digits_agreed'] + 1} of {x.digits}")
    elif x.digits < need:
        out.update(verdict="UNDETERMINED", reason=f"the value carries only {x.digits} digits; {need} requested")
    else:
        out.update(verdict="VERIFIED", reason=f"agrees with all {x.digits} supplied digits; both libraries "
                   f"agree to {check['libraries_agree_digits']} digits")
    return out
