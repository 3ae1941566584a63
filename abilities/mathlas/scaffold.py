"""applicability_checklist, mapping_scaffold, search_directive: judgment returned as structure.

mathlas never judges whether a result applies: it decomposes the result into atomic
preconditions (curated ones first, then clauses parsed from the statement with cue words and
bracket-aware splitting) and hands them to the AI as questions to falsify.
"""

from __future__ import annotations

import re
from typing import Any

from abilities.mathlas.retrieve import Document, get_index, search_existing_math, tokens

CUES = r"\b(if|suppose|assume|assuming|let|whenever|provided|given|with|where|for every|for all|for each)\b"
ARXIV = {
    "analysis": ["math.CA", "math.FA"], "functional analysis": ["math.FA"], "measure theory": ["math.CA", "math.PR"],
    "probability": ["math.PR"], "statistics": ["math.ST", "stat.TH"], "number theory": ["math.NT"],
    "algebra": ["math.RA", "math.GR"], "linear algebra": ["math.RA", "math.NA"], "combinatorics": ["math.CO"],
    "graph theory": ["math.CO"], "topology": ["math.GN", "math.AT"], "geometry": ["math.DG", "math.MG"],
    "convex geometry": ["math.MG", "math.OC"], "optimization": ["math.OC"], "game theory": ["cs.GT", "math.OC"],
    "complex analysis": ["math.CV"], "differential equations": ["math.CA", "math.DS"], "PDE": ["math.AP"],
    "dynamical systems": ["math.DS"], "harmonic analysis": ["math.CA"], "information theory": ["cs.IT", "math.IT"],
    "logic": ["math.LO"], "computability": ["cs.LO", "math.LO"], "numerical analysis": ["math.NA"],
    "algebraic geometry": ["math.AG"], "order theory": ["math.LO"], "algorithms": ["cs.DS"],
    "machine learning": ["cs.LG", "stat.ML"], "stochastic calculus": ["math.PR"], "calculus of variations": ["math.AP"],
    "mathematical physics": ["math-ph"],
}


def _find_doc(result: str) -> Document | None:
    idx = get_index()
    key = result.strip().lower()
    for d in idx.docs:
        if key in (d.id.lower(), d.name.lower()):
            return d
    return None


def split_clauses(text: str) -> tuple[list[str], str]:
    """Split a statement into hypothesis clauses and a conclusion (bracket-aware, cue-word driven)."""
    depth, cut = 0, None
    low = text.lower()
    for m in re.finditer(r"\bthen\b|,\s*then\b", low):
        depth = low[: m.start()].count("(") - low[: m.start()].count(")")
        if depth == 0:
            cut = m
            break
    hyp, concl = (text[: cut.start()], text[cut.end():]) if cut else ("", text)
    parts: list[str] = []
    buf, depth = "", 0
    for ch_i, ch in enumerate(hyp):
        depth += (ch in "([{") - (ch in ")]}")
        if depth == 0 and (ch in ",;" or hyp[ch_i:ch_i + 5].lower() == " and "):
            parts.append(buf)
            buf = ""
            continue
        buf += ch
    parts.append(buf)
    clauses = []
    for p in parts:
        c = re.sub(CUES, "", p, flags=re.I).strip(" ,.;")
        c = re.sub(r"^(and|that)\s+", "", c).strip()
        if len(c) > 3:
            clauses.append(c)
    return clauses, concl.strip(" .")


def applicability_checklist(result: str, problem: str = "") -> dict[str, Any]:
    """Atomic, problem-specific preconditions of a result, as questions for the AI to mark."""
    doc = _find_doc(result)
    if doc is None:
        hits = search_existing_math(result, 1)["results"]
        doc = _find_doc(hits[0]["id"]) if hits and len(result.split()) <= 8 else None
    statement = doc.statement if doc else result
    parsed, conclusion = split_clauses(statement)
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for src, conds in (("curated", doc.preconditions if doc else []), ("parsed", parsed)):
        for c in conds:
            k = " ".join(tokens(c))
            if not c or k in seen:
                continue
            seen.add(k)
            q = f"In your problem{' (' + problem.strip()[:160] + ')' if problem else ''}, does this hold: {c}?"
            items.append({"id": f"P{len(items) + 1}", "condition": c, "source": src, "question": q,
                          "answer": None, "evidence": None})
    return {"result": doc.name if doc else None, "result_id": doc.id if doc else None, "statement": statement,
            "conclusion": conclusion, "checklist": items,
            "instructions": "mark every item true/false with evidence; the result applies only if every item holds. "
                            "Try to falsify each item: a single false item blocks the conclusion.",
            "note": None if doc else "not a corpus result: the checklist was parsed from the given text only"}


def mapping_scaffold(problem: str, result: str) -> dict[str, Any]:
    """Needs <-> guarantees structure between a problem and a candidate result, with an answer template."""
    chk = applicability_checklist(result, problem)
    sig = sorted(set(tokens(problem)))[:30]
    template = {"objects": {"<symbol in the result>": "<object in your problem>"},
                "preconditions": {i["id"]: {"holds": None, "evidence": ""} for i in chk["checklist"]},
                "conclusion_in_problem_terms": "", "gap": "", "verdict": None}
    questions = [
        "Which objects of your problem play the roles of the result's objects (spaces, maps, sets, constants)?",
        *[i["question"] for i in chk["checklist"]],
        f"Does the conclusion ({chk['conclusion'][:200]}) give what your problem needs, or only part of it?",
        "Which precondition is the most likely to fail, and what would a counterexample look like?",
    ]
    return {"problem_signature": sig, "candidate": {"name": chk["result"], "id": chk["result_id"],
                                                   "statement": chk["statement"]},
            "needs": [i["condition"] for i in chk["checklist"]], "guarantees": chk["conclusion"],
            "questions": questions, "answer_template": template,
            "next_tools": ["verify_numeric for any numeric claim in the mapping",
                           "verify_formal for a Lean statement of the applied instance"]}


def search_directive(problem: str) -> dict[str, Any]:
    """A structured search plan for the AI's own web search (mathlas makes no web call)."""
    hits = search_existing_math(problem, 5)["results"]
    words = [w for w in tokens(problem) if len(w) > 2]
    key = " ".join(dict.fromkeys(words))[:120]
    fields = list(dict.fromkeys(h["field"] for h in hits))
    cats = list(dict.fromkeys(c for f in fields for c in ARXIV.get(f, [])))
    queries = [key] + [f"{h['name']} {key}"[:160] for h in hits[:3]]
    tools = ["search_existing_math", "applicability_checklist", "mapping_scaffold"]
    if re.search(r"\d+\.\d{5,}", problem):
        tools.insert(0, "identify_constant")
    if re.search(r"(-?\d+\s*,\s*){3,}-?\d+", problem):
        tools.insert(0, "identify_sequence")
    return {"problem": problem, "arxiv_queries": [f"all:{q}" for q in dict.fromkeys(queries)],
            "subfields": fields, "arxiv_categories": cats, "named_results": [h["name"] for h in hits],
            "mathlas_tools": tools,
            "after_search": "add each relevant result you find with add_finding (name, statement, source URL); it is "
                            "searchable at once",
            "note": "a plan only: mathlas makes no web request"}
