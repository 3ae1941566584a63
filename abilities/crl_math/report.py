"""Representations G (graph) and N (explanation), the invariant audit (I1..I5) and outputs.

Kept apart from the planners so that simplify, solve and check share one boundary format.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import sympy

from abilities.crl_math import numeric
from abilities.crl_math.domain import Cond, domain, from_relation, implies
from abilities.crl_math.parser import ParseError, evaluated, parse_expr_safe, parse_relation, realify
from abilities.crl_math.rules import CATALOG, UNSAFE
from abilities.crl_math.sets import parse_set, show_set
from abilities.crl_math.trail import Trail, show

RULE_PHRASES = {
    "NORMALIZE": "Evaluate the arithmetic",
    "LOG_EXP_INVERSE": "Use log(exp(u)) = u",
    "REWRITE_QUADRATIC_TO_SQUARE": "Recognise the polynomial under the root as a perfect square",
    "SQRT_OF_SQUARE_REAL": "Over the reals the square root of a square is an absolute value",
    "ABS_SQUARE": "An even power of |u| equals the same power of u",
    "ABS_KNOWN_SIGN": "The sign of the argument of |.| is fixed on the domain",
    "ABS_OVER_SELF_TO_SIGN": "|u|/u is the sign of u, split into the cases u > 0 and u < 0",
    "LOG_POWER": "Bring the exponent out of the logarithm",
    "LOG_PRODUCT": "Split the logarithm of a product",
    "LOG_QUOTIENT": "Split the logarithm of a quotient",
    "COMBINE_FRACTIONS": "Combine the fractions over a common denominator",
    "FACTOR_DIFF_SQUARES": "Factor the difference of squares",
    "FACTOR_POLYNOMIAL": "Factor the polynomials",
    "CANCEL_FACTOR": "Cancel the common factor",
    "DISTRIBUTE": "Distribute the products",
    "COMBINE_LIKE_TERMS": "Combine like terms",
    "TRIG_PYTHAGOREAN": "Apply the Pythagorean identity",
    "MOVE_TERMS": "Move every term to one side",
    "CLEAR_DENOMINATORS": "Clear the denominators",
    "SQUARE_BOTH_SIDES": "Square both sides to remove the radicals",
    "SQUARE_ABS": "Isolate the absolute value and square both sides",
    "EXPONENTIATE_LOGS": "Combine the logarithms and exponentiate",
    "ZERO_PRODUCT": "Solve the polynomial factor by factor",
    "CAS_SOLVE": "Compute candidate roots",
    "CHECK_CANDIDATES": "Check each candidate in the original equation",
    "SUBSTITUTE_EXP": "Substitute y = exp(x/q) and solve for positive y",
    "NO_REWRITE": "No catalog rule makes the expression simpler, so it is kept",
    "DIVIDE_BY_FACTOR": "Divide both sides by a common factor",
    "DENEST_RADICAL": "Denest the square root",
    "ROOT_SUBSTITUTION": "Write x as the square of its root and cancel",
    "TAN_AS_QUOTIENT": "Write tan as sin/cos and cancel",
    "RATIONALIZE_DENOMINATOR": "Multiply by the conjugate and cancel",
    "CRITICAL_POINTS": "Find the critical points (zeros, domain boundaries, sign changes of |.| arguments)",
    "SIGN_CHART": "Test one point per cell and each critical point",
    "HALF_ANGLE_SUBSTITUTION": "Substitute t = tan(u/2) and solve on one period",
    "GENERAL_SOLUTION": "Repeat the period's solutions",
    "PARAMETER_CRITICAL_VALUES": "Find the parameter values where the answer can change",
    "PARAMETER_CASES": "Solve on each piece of the parameter line and merge equal answers",
}


def explanation(trail: Trail, closing: str, closing_steps: list[str]) -> dict[str, Any]:
    """N: one sentence per step, each citing its step id, then a cited closing sentence."""
    sentences: list[tuple[str, list[str]]] = []
    obl = {o.obl_id: o for o in trail.obligations}
    for s in trail.steps:
        phrase = RULE_PHRASES.get(s.rule, f"Apply {s.rule}")
        text = f"{phrase}: {trail.exprs[s.output_expr_id].surface}"
        if s.obligations_added:
            conds = ", ".join(obl[o].cond.text for o in s.obligations_added)
            text += f", which requires {conds}"
        if s.status == "rejected" and s.violation:
            text = f"Step {s.step_id} is rejected ({s.violation['invariant']}): {s.violation['detail']}"
        sentences.append((f"{text} [{s.step_id}].", [s.step_id]))
    if closing:
        cites = closing_steps or [trail.steps[-1].step_id] if trail.steps else []
        tag = "".join(f"[{c}]" for c in cites)
        sentences.append((f"{closing} {tag}.", cites))
    return {
        "text": " ".join(t for t, _ in sentences),
        "citations": [{"sentence": i, "step_ids": c} for i, (_t, c) in enumerate(sentences)],
    }


def graph(trail: Trail) -> nx.DiGraph:
    """G: expressions, steps and obligations as nodes; rewrites_to / requires / witnessed_by edges."""
    g = nx.DiGraph()
    for e in trail.exprs.values():
        g.add_node(e.expr_id, kind="expression", surface=e.surface)
    for o in trail.obligations:
        g.add_node(o.obl_id, kind="obligation", predicate=o.cond.text, status=o.status)
    for w in trail.witnesses:
        g.add_node(w.wit_id, kind="witness", witness_kind=w.kind, payload_hash=w.payload_hash)
    for s in trail.steps:
        g.add_node(s.step_id, kind="step", rule=s.rule, status=s.status)
        for i in s.input_expr_ids:
            g.add_edge(i, s.output_expr_id, kind="rewrites_to", step=s.step_id)
            g.add_edge(i, s.step_id, kind="input_of")
        g.add_edge(s.step_id, s.output_expr_id, kind="produces")
        for o in s.obligations_added:
            g.add_edge(s.step_id, o, kind="requires")
        for w in s.witness_ids:
            g.add_edge(s.step_id, w, kind="witnessed_by")
    return g


def graph_summary(g: nx.DiGraph) -> dict[str, Any]:
    nodes = [{"id": n, **{k: v for k, v in sorted(d.items())}} for n, d in sorted(g.nodes(data=True))]
    edges = [{"source": a, "target": b, "kind": d["kind"]} for a, b, d in sorted(g.edges(data=True))]
    return {"nodes": nodes, "edges": edges}


def audit(
    trail: Trail,
    original_ids: list[str],
    final: sympy.Basic | None,
    conditions: list[Cond],
    mode: str,
    expl: dict[str, Any],
    end_to_end_ok: bool | None,
) -> dict[str, dict[str, Any]]:
    """I1..I5 as ``{ok, detail}``: the auditor's verdict over the finished trail."""
    out: dict[str, dict[str, Any]] = {}
    orig_syms: set[str] = set()
    for i in original_ids:
        orig_syms |= {s.name for s in trail.exprs[i].expr.free_symbols}
    orig_syms |= {n for c in trail.assumptions for n in c.symbols()}
    used = {n for c in conditions for n in c.symbols()}
    if final is not None:
        used |= {s.name for s in final.free_symbols}
    stray = sorted(used - orig_syms)
    bad_steps = [s.step_id for s in trail.steps if s.violation and s.violation["invariant"] == "I1"]
    out["I1"] = {
        "ok": not stray and not bad_steps,
        "detail": "symbols keep their identity; no new symbol appears"
        if not stray and not bad_steps
        else f"symbols not in the input: {stray or bad_steps}",
    }
    # I2: every required obligation is in the conditions, and the original domain is covered
    missing = [o.obl_id for o in trail.required() if not implies(conditions, o.cond, trail.real)]
    uncovered: list[str] = []
    if final is not None:
        carried = [] if isinstance(final, sympy.Equality) else _domain_plain(trail, final)
        for i in original_ids:
            for c in trail.domain_of(i):
                if not implies([*conditions, *carried, *trail.assumptions], c, trail.real):
                    uncovered.append(c.text)
    i2_steps = [s.step_id for s in trail.steps if s.violation and s.violation["invariant"] == "I2"]
    contradicted = [o.obl_id for o in trail.obligations if o.status == "contradicted"]
    ok2 = not missing and not uncovered and not i2_steps and not contradicted and end_to_end_ok is not False
    detail2 = (
        f"{len(trail.obligations)} obligations: {sum(o.status == 'required' for o in trail.obligations)} kept as "
        f"conditions, {sum(o.status == 'discharged' for o in trail.obligations)} discharged"
    )
    if missing:
        detail2 += f"; not in the conditions: {missing}"
    if uncovered:
        detail2 += f"; original domain not covered: {sorted(set(uncovered))}"
    if i2_steps:
        detail2 += f"; steps breaking I2: {i2_steps}"
    if contradicted:
        detail2 += f"; contradicted by the assumptions: {contradicted}"
    if end_to_end_ok is False:
        detail2 += "; the end-to-end check failed"
    out["I2"] = {"ok": ok2, "detail": detail2}
    i3b = [s.step_id for s in trail.steps if s.violation and s.violation["invariant"] == "I3b"]
    i3 = [s.step_id for s in trail.steps if s.violation and s.violation["invariant"] == "I3"]
    ok3 = mode in ("identical", "conditional", "piecewise", "no_solution", "not_equivalent") and (
        mode != "conditional" or bool(conditions)
    )
    ok3 = ok3 and not i3b and not i3
    detail3 = f"equivalence mode '{mode}' declared"
    if conditions:
        detail3 += f" with conditions {[c.text for c in conditions]}"
    detail3 += "; I3b: no sqrt(u^2) -> u without u >= 0" if not i3b else f"; I3b broken by {i3b}"
    if i3:
        detail3 += f"; not equivalent at {i3}"
    out["I3"] = {"ok": ok3, "detail": detail3}
    unwitnessed = [s.step_id for s in trail.steps if not s.witness_ids]
    wit = {w.wit_id: w for w in trail.witnesses}
    weak = [
        s.step_id
        for s in trail.steps
        if (s.rule in UNSAFE or s.obligations_added or s.rule not in CATALOG)
        and s.status == "accepted"
        and not any(wit[w].kind in ("CAS", "RandomTest") and wit[w].ok for w in s.witness_ids)
    ]
    out["I4"] = {
        "ok": not unwitnessed and not weak,
        "detail": f"{len(trail.witnesses)} witnesses over {len(trail.steps)} steps"
        + (f"; without witness: {unwitnessed}" if unwitnessed else "")
        + (f"; unsafe steps without a passing tool witness: {weak}" if weak else ""),
    }
    ids = {s.step_id for s in trail.steps}
    orphan = [c["sentence"] for c in expl["citations"] if not c["step_ids"] or not set(c["step_ids"]) <= ids]
    out["I5"] = {
        "ok": not orphan,
        "detail": f"{len(expl['citations'])} sentences, each citing step ids"
        if not orphan
        else f"sentences without a valid citation: {orphan}",
    }
    return out


def _domain_plain(trail: Trail, expr: sympy.Basic) -> list[Cond]:
    return domain(expr, trail.real)


def end_to_end(trail: Trail, a: sympy.Basic, b: sympy.Basic, conditions: list[Cond], count: int) -> numeric.Comparison:
    """The final RandomTest: the original against the result under the declared conditions."""
    probes = [*domain(a, trail.real), *domain(b, trail.real)] if not isinstance(a, sympy.Equality) else []
    return numeric.compare(a, b, [*trail.assumptions, *conditions], trail.rng("end_to_end"), count, trail.real,
                           probe_from=probes)


def latex(result: sympy.Basic | None, conditions: list[Cond]) -> dict[str, Any]:
    out: dict[str, Any] = {"conditions": [sympy.latex(c.as_relational()) for c in conditions]}
    if result is not None:
        out["result"] = sympy.latex(result) if not isinstance(result, sympy.Equality) else show(result)
    return out



def round_trip(items: list[tuple[str, Any]], real: bool) -> dict[str, Any]:
    """SDS-007 §7's round-trip check: every output string parses back, with our own parser, to
    the object it was printed from (same evaluated expression; same canonical condition)."""
    def norm(e: Any) -> sympy.Basic:
        v = evaluated(e)
        return realify(v) if real else v

    def same(a: sympy.Basic, b: sympy.Basic) -> bool:
        if a == b:
            return True
        if a.has(sympy.Piecewise) or b.has(sympy.Piecewise):
            return False
        return sympy.cancel(sympy.together(a - b)) == 0

    failed: list[str] = []
    for text, obj in items:
        try:
            if isinstance(obj, sympy.Set):
                ok = show_set(parse_set(text)) == show_set(obj)
            elif isinstance(obj, Cond):
                lhs, op, rhs = parse_relation(text, complex_ok=not real)
                ok = [c.key for c in from_relation(lhs, op, rhs, real)] == [obj.key]
            else:
                ok = same(norm(parse_expr_safe(text, complex_ok=not real)), norm(obj))
        except (ParseError, ValueError):  # BadSet is a ValueError
            ok = False
        if not ok:
            failed.append(text)
    return {"ok": not failed, "checked": len(items),
            "detail": "every output string parses back to the object it was printed from" if not failed
            else f"not re-parseable to the same object: {failed}"}
