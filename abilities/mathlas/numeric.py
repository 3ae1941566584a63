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
from functools import cache
from typing import Any

import mpmath

from abilities.mathlas import closedform as cf
from abilities.mathlas import contfrac

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
    # Gamma at thirds and quarters, the lemniscate constant, polylog and digamma at simple rationals
    "gamma(1/3)": "gamma(1/3)", "gamma(2/3)": "gamma(2/3)", "gamma(3/4)": "gamma(3/4)",
    "gamma(1/4)**2": "gamma(1/4)**2", "lemniscate": "lemniscate",
    "polylog(2, 1/3)": "polylog(2, 1/3)", "polylog(2, 1/4)": "polylog(2, 1/4)",
    "polylog(3, 1/2)": "polylog(3, 1/2)", "polylog(3, 1/3)": "polylog(3, 1/3)",
    "digamma(1/3)": "digamma(1/3)", "digamma(2/3)": "digamma(2/3)", "digamma(1/4)": "digamma(1/4)",
    "digamma(3/4)": "digamma(3/4)", "digamma(1/6)": "digamma(1/6)", "digamma(5/6)": "digamma(5/6)",
}
DEFAULT_BASIS = list(ATOMS)
PAIR_ATOMS = ["pi", "pi**2", "e", "log(2)", "log(2)**2", "log(3)", "log(5)", "zeta(3)", "catalan", "euler", "sqrt(2)",
              "sqrt(3)", "sqrt(5)", "pi*sqrt(3)", "pi*log(2)"]
# Products and quotients of two of these are tried as atoms of their own (the spec's "pairwise products").
PRODUCT_ATOMS = ["pi", "pi**2", "e", "log(2)", "log(3)", "zeta(3)", "catalan", "euler", "sqrt(2)", "sqrt(3)", "gamma(1/4)",
                 "gamma(1/3)"]
# Rational combinations of three of these (5-term relations) are tried last, on values of 15 digits or more.
TRIPLE_ATOMS = ["pi", "pi**2", "e", "log(2)", "log(3)", "log(2)**2", "zeta(3)", "catalan", "euler", "sqrt(2)",
                "sqrt(3)", "pi*sqrt(3)"]
TRIPLE_MIN_DIGITS = 15
WIDE_STAGE_MAX_STEPS = 40  # a small-coefficient relation converges in under 30 steps
MAX_POLY_DEGREE = 4
MAX_POLY_COEFF = 200
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


@cache
def _atom_node(name: str) -> cf.Node:
    """The parsed atom (the AST is an immutable tuple, so every search can share one parse)."""
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
    relation: dict[str, Any]
    method: str = "pslq"


Atom = tuple[str, cf.Node]  # (label, closed form)
Group = tuple[str, tuple[Atom, ...]]  # (transform, atoms) searched by one PSLQ call


def _named(names: list[str]) -> list[Atom]:
    return [(a, _atom_node(a)) for a in names]


def single_groups(basis: list[str]) -> list[Group]:
    """[T(x), 1] and [T(x), 1, atom] for every transform T (all atoms under x itself)."""
    groups: list[Group] = []
    for t in TRANSFORMS:
        groups.append((t, ()))
        groups.extend((t, (atom,)) for atom in _named(basis) if t == "x" or atom[0] in TRANSFORM_ATOMS)
    return groups


def product_groups(basis: list[str]) -> list[Group]:
    """[x, 1, a*b], [x, 1, a/b] and [x, 1, b/a] over pairs of PRODUCT_ATOMS in the basis."""
    groups: list[Group] = []
    for (a, na), (b, nb) in itertools.combinations(_named([n for n in PRODUCT_ATOMS if n in basis]), 2):
        groups.append(("x", ((f"{a}*{b}", ("mul", na, nb)),)))
        groups.append(("x", ((f"{a}/{b}", ("div", na, nb)),)))
        groups.append(("x", ((f"{b}/{a}", ("div", nb, na)),)))
    return groups


def pair_groups(basis: list[str]) -> list[Group]:
    return [("x", pair) for pair in itertools.combinations(_named([a for a in PAIR_ATOMS if a in basis]), 2)]


def triple_groups(basis: list[str]) -> list[Group]:
    return [("x", tri) for tri in itertools.combinations(_named([a for a in TRIPLE_ATOMS if a in basis]), 3)]


def _pslq(x: DecimalValue, groups: list[Group], proposal_digits: int, maxsteps: int = 2000) -> list[Candidate]:
    """PSLQ at low precision (proposal_digits) over [T(x), 1, atoms...] for each group. A relation with
    small coefficients converges in a few dozen steps, so the wide stages cap ``maxsteps`` to save time."""
    out: list[Candidate] = []
    dps = max(proposal_digits + 8, 20)
    with mpmath.workdps(dps):
        xv = x.mpf(dps)
        values: dict[str, mpmath.mpf] = {}
        for transform, atoms in groups:
            tv = _apply(transform, xv)
            if tv is None:
                continue
            for label, node in atoms:
                if label not in values:
                    values[label] = cf.eval_mpmath(node, dps)
            vec = [tv, mpmath.mpf(1)] + [values[label] for label, _ in atoms]
            tol = mpmath.mpf(10) ** (-proposal_digits) * max(1, abs(tv))
            try:
                rel = mpmath.pslq(vec, tol=tol, maxcoeff=1000, maxsteps=maxsteps)
            except (ValueError, ZeroDivisionError):
                rel = None
            if not rel or rel[0] == 0:
                continue
            r0 = rel[0]
            const = Fraction(-rel[1], r0)
            terms = [(Fraction(-rel[i + 2], r0), node) for i, (_, node) in enumerate(atoms)]
            if any(c == 0 for c, _ in terms):
                continue  # a smaller group already covers this relation
            node = _invert(transform, _linear_node(const, terms), negative=xv < 0)
            complexity = sum(math.log10(abs(r)) for r in rel if r) + len(atoms) + (0 if transform == "x" else 0.5)
            out.append(Candidate(node, complexity, {"transform": transform, "atoms": [a for a, _ in atoms],
                                                    "coefficients": list(rel)}))
    return out


def _algebraic(x: DecimalValue, proposal_digits: int) -> list[Candidate]:
    """Minimal-polynomial search: an integer polynomial of degree 2 to MAX_POLY_DEGREE with x as a root."""
    out: list[Candidate] = []
    dps = max(proposal_digits + 8, 20)
    with mpmath.workdps(dps):
        xv = x.mpf(dps)
        for degree in range(2, MAX_POLY_DEGREE + 1):
            try:
                coeffs = mpmath.findpoly(xv, degree, maxcoeff=MAX_POLY_COEFF,
                                         tol=mpmath.mpf(10) ** (-proposal_digits) * max(1, abs(xv) ** degree))
            except (ValueError, ZeroDivisionError):
                coeffs = None
            if not coeffs or len(coeffs) - 1 != degree:
                continue  # no relation, or one of lower degree that an earlier pass already had
            sign = -1 if coeffs[0] < 0 else 1  # a positive leading coefficient reads best
            coeffs = [sign * int(c) for c in coeffs]
            node = _polynomial_root(coeffs, xv)
            if node is None:
                continue
            complexity = sum(math.log10(abs(c)) for c in coeffs if c) + degree
            out.append(Candidate(node, complexity, {"polynomial": coeffs, "degree": degree}, "minimal_polynomial"))
    return out


def _polynomial_root(coeffs: list[int], xv: mpmath.mpf) -> cf.Node | None:
    """The closed form of the real root of ``coeffs`` nearest xv: radicals for degree 2, else polyroot."""
    if coeffs[-1] == 0:
        return None  # x divides the polynomial: not minimal
    if len(coeffs) == 3:
        a, b, c = coeffs
        disc = b * b - 4 * a * c
        if disc <= 0:
            return None
        plus = (-b + mpmath.sqrt(disc)) / (2 * a)
        minus = (-b - mpmath.sqrt(disc)) / (2 * a)
        op = "add" if abs(plus - xv) <= abs(minus - xv) else "sub"
        return ("div", (op, ("num", Fraction(-b)), ("call", "sqrt", ("num", Fraction(disc)))), ("num", Fraction(2 * a)))
    try:
        found = mpmath.polyroots(coeffs, maxsteps=200, extraprec=200)
    except (ZeroDivisionError, mpmath.libmp.NoConvergence):
        return None
    eps = mpmath.mpf(10) ** (-(mpmath.mp.dps // 2))
    roots = sorted(mpmath.re(r) for r in found if abs(mpmath.im(r)) < eps)
    if not roots:
        return None
    k = min(range(len(roots)), key=lambda i: abs(roots[i] - xv)) + 1
    args = [("num", Fraction(k))] + [("num", Fraction(c)) if c >= 0 else ("neg", ("num", Fraction(-c)))
                                     for c in coeffs]
    return ("call", "polyroot", *args)


def _continued_fraction(x: DecimalValue, proposal_digits: int) -> list[Candidate]:
    """A Bessel closed form when the partial quotients certified by the proposal digits are arithmetic."""
    dps = x.digits + 10
    with mpmath.workdps(dps):
        xv = x.mpf(dps)
        radius = abs(xv) * mpmath.mpf(10) ** (1 - proposal_digits)
        terms = contfrac.certified_terms(xv, radius, dps)
    form = contfrac.bessel_form(terms)
    if form is None:
        return []
    return [Candidate(form.node(), form.complexity, {"continued_fraction": contfrac.summary(terms)["terms"],
                                                     "a0": form.a0, "a1": form.a1,
                                                     "step": form.d}, "continued_fraction_pattern")]


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


def _stages(x: DecimalValue, basis: list[str], proposal_digits: int) -> list[tuple[str, int, Any]]:
    """(name, number of searches, proposer) in order of growing complexity; later stages run only when
    every earlier one found nothing."""
    singles, products = single_groups(basis), product_groups(basis)
    pairs, triples = pair_groups(basis), triple_groups(basis) if x.digits >= TRIPLE_MIN_DIGITS else []
    return [
        ("single_atoms", len(singles), lambda: _pslq(x, singles, proposal_digits)),
        ("minimal_polynomial", MAX_POLY_DEGREE - 1, lambda: _algebraic(x, proposal_digits)),
        ("products", len(products), lambda: _pslq(x, products, proposal_digits)),
        ("atom_pairs", len(pairs), lambda: _pslq(x, pairs, proposal_digits, maxsteps=WIDE_STAGE_MAX_STEPS)),
        ("continued_fraction", 1, lambda: _continued_fraction(x, proposal_digits)),
        ("atom_triples", len(triples), lambda: _pslq(x, triples, proposal_digits, maxsteps=WIDE_STAGE_MAX_STEPS)),
    ]


def occam_margin(searches: int) -> float:
    """5 digits plus the look-elsewhere effect of the searches run so far (never below OCCAM_MARGIN)."""
    return max(OCCAM_MARGIN, math.ceil(2 * (5 + math.log10(max(1, searches)))) / 2)


def identify_constant(value: str, basis: list[str] | None = None) -> dict[str, Any]:
    """Propose closed forms for a decimal value, keep only independently verified ones."""
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
    rejected = proposed = searches = 0
    stages_run: list[str] = []
    for name, count, propose in _stages(x, use_basis, proposal_digits):
        if result["candidates"]:
            break  # a simpler stage already explained the value
        if count == 0:
            continue
        searches += count
        stages_run.append(name)
        batch = propose()
        proposed += len(batch)
        rejected += _verify_batch(x, batch, verify_dps, holdout, occam_margin(searches), seen, accepted_values,
                                  result)
    result["search"] = {"stages": stages_run, "searches": searches, "occam_margin": occam_margin(searches)}
    if result["candidates"]:
        result["identified"] = True
        result["best"] = result["candidates"][0]["expr"]
    else:
        result["unidentified_reason"] = (
            f"no relation over the basis survived the re-check ({proposed} proposed, {rejected} rejected "
            f"by the held-out {holdout} digits, the two-library re-evaluation or the Occam margin)")
    return result


def _display(cand: Candidate, text: str) -> str:
    if cand.method == "minimal_polynomial" and cand.relation["degree"] > 2:
        coeffs = cand.relation["polynomial"]
        k = int(cand.node[2][1])
        return f"real root #{k} (from the smallest) of {polynomial_text(coeffs)}"
    return text


def polynomial_text(coeffs: list[int]) -> str:
    """Integer coefficients (highest degree first) as a polynomial in x."""
    deg = len(coeffs) - 1
    parts: list[str] = []
    for i, c in enumerate(coeffs):
        if c == 0:
            continue
        p = deg - i
        mono = "" if p == 0 else ("x" if p == 1 else f"x**{p}")
        mag = abs(c)
        body = str(mag) if not mono else (mono if mag == 1 else f"{mag}*{mono}")
        parts.append(("- " if c < 0 else "+ ") + body if parts else ("-" if c < 0 else "") + body)
    return " ".join(parts)


def _verify_batch(x: DecimalValue, batch: list[Candidate], verify_dps: int, holdout: int, margin: float,
                  seen: set[str], accepted_values: list[str], result: dict[str, Any]) -> int:
    """Re-check proposals (simplest first); append survivors to result["candidates"]; return rejections."""
    rejected = 0
    for cand in sorted(batch, key=lambda c: (c.complexity, cf.to_text(c.node))):
        text = cf.to_text(cand.node)
        if text in seen:
            continue
        seen.add(text)
        if x.digits - cand.complexity < margin:
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
            "expr": text, "display": _display(cand, text), "digits_agreed": check["digits_agreed"],
            "complexity": round(cand.complexity, 3), "provenance": "pslq+independent_sympy_recheck",
            "method": cand.method, "relation": cand.relation,
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
