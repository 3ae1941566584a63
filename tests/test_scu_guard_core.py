"""scu_guard pure core: rule parsing, negation scope, quantities, checks, retrieval, input models."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from abilities.lock import lock_constraints
from abilities.scu_guard.check import coerce_answer, extract_json, is_refusal, run_checks
from abilities.scu_guard.detect import find_contradictions
from abilities.scu_guard.models import Inputs, Outputs
from abilities.scu_guard.prompt import build_prompt
from abilities.scu_guard.quantities import find_quantities, find_times
from abilities.scu_guard.retrieval import retrieve
from abilities.scu_guard.rules import parse_rule

X = ["X rejects null keys.", "Only domain example.com is allowed."]


@pytest.mark.parametrize(
    ("constraint", "kind"),
    [
        ("X rejects null keys.", "forbid"),
        ("Never log access tokens.", "forbid"),
        ("All API requests must use TLS.", "require"),
        ("Only domain example.com is allowed.", "allow_list"),
        ("Clients must retry at most 3 times.", "numeric"),
        ("Deployments are never allowed before 09:00.", "temporal"),
        ("No deployments on Fridays.", "temporal"),
        ("Service A and service B must never be in the same region.", "exclusion"),
        ("Guests may view the dashboard.", "permit"),
    ],
)
def test_rule_kinds(constraint: str, kind: str) -> None:
    assert parse_rule(constraint).kind == kind


def test_numeric_rule_bound_is_normalized() -> None:
    r = parse_rule("The request timeout must not exceed 30 seconds.")
    assert r.bound is not None and r.bound.form == "ceiling" and r.bound.hi == 30.0
    assert r.bound.dim == "duration"


@pytest.mark.parametrize(
    "claim",
    [
        "gmail.com is not allowed; only example.com addresses are permitted.",
        "X does not support null keys.",
        "Null keys are never accepted by X.",
        "Requests from gmail.com will be rejected.",
        "No, X refuses empty keys.",
    ],
)
def test_denying_a_forbidden_item_is_not_a_contradiction(claim: str) -> None:
    assert find_contradictions(claim, X) == []


@pytest.mark.parametrize(
    ("claim", "rule"),
    [
        ("Yes, X supports null keys.", "forbid"),
        ("X permits empty keys.", "forbid"),
        ("X does not reject missing keys.", "forbid"),
        ("Please allow gmail.com for the contractors.", "allow_list"),
        ("Any domain can be used for sign-up.", "allow_list"),
    ],
)
def test_paraphrased_contradictions_fire(claim: str, rule: str) -> None:
    found = find_contradictions(claim, X)
    assert [f.rule for f in found] == [rule]


def test_claim_span_points_into_the_claim() -> None:
    claim = "X keeps insertion order. However, X accepts null keys when asked nicely."
    found = find_contradictions(claim, X)
    assert len(found) == 1
    f = found[0]
    assert claim[f.start:f.end] == f.text
    assert "accepts null keys" in f.text and f.constraint == X[0]


def test_numeric_bounds_with_units_and_words() -> None:
    cons = ["Clients must retry at most 3 times.", "The request timeout must not exceed 30 seconds."]
    assert find_contradictions("Retry up to 10 times.", cons)[0].rule == "numeric_bound"
    assert find_contradictions("The SDK retries five times.", cons)
    assert find_contradictions("Use a 2 minute timeout.", cons)
    assert not find_contradictions("Retry twice with a 20-second timeout.", cons)
    assert not find_contradictions("The SDK never retries more than 3 times.", cons)


def test_floor_bound_and_retention_paraphrase() -> None:
    cons = ["Medical records must be retained for at least 7 years."]
    assert find_contradictions("Medical records can be deleted after 5 years.", cons)
    assert not find_contradictions("Records are kept for 10 years.", cons)


def test_temporal_window_and_weekday() -> None:
    cons = ["Production deployments are never allowed before 09:00.", "No production deployments on Fridays."]
    assert find_contradictions("Production deploys can start at 6am.", cons)[0].rule == "temporal"
    assert find_contradictions("Ship the production deployment on Friday.", cons)
    assert not find_contradictions("Production deploys run after 09:00, Monday to Thursday.", cons)
    assert not find_contradictions("Deploying to production at 07:00 is not allowed.", cons)


def test_mutual_exclusion() -> None:
    cons = ["The primary database and its replica must never be in the same region."]
    assert find_contradictions("The primary runs in eu-west-1 and the replica also runs in eu-west-1.", cons)
    assert find_contradictions("Keep the primary and the replica in the same region.", cons)
    assert not find_contradictions("Place the replica in eu-central-1, since the primary runs in eu-west-1.", cons)
    assert not find_contradictions("Never co-locate the primary and the replica.", cons)


def test_quantities_and_times() -> None:
    text = "Send up to 500 requests per minute and wait 2 hours."
    qs = find_quantities(text, 0, len(text), [])
    assert [q.dim for q in qs] == ["rate", "duration"]
    assert qs[0].form == "ceiling" and qs[1].lo == 7200.0
    ts = find_times("deploy between 09:00 and 17:00", 0, 30)
    assert (ts[0].lo, ts[0].hi) == (540.0, 1020.0)


def test_refusal_and_json_extraction() -> None:
    assert is_refusal("  Not in context. ") and not is_refusal("not in context yet")
    assert extract_json('text {"claim": "a"} more') == {"claim": "a"}
    assert extract_json("no object here") is None
    assert coerce_answer("not in context") == ({"claim": "not in context", "citations": [],
                                                 "constraints_echo": []}, True)
    assert coerce_answer('["a list"]') == (None, False)


def _answer(claim: str, cits: list[str], echo: list[str]) -> dict:
    return {"claim": claim, "citations": cits, "constraints_echo": echo}


def test_checks_follow_the_spec_order() -> None:
    lock = lock_constraints(X)
    ids = ["p1", "p2"]
    assert run_checks(lock, ids, "prose only").reason == "no_json"
    assert run_checks(lock, ids, _answer("not in context", ["zz"], [])).verdict == "REFUSAL"
    # citation scope is checked before the echo, and the echo before contradictions
    r = run_checks(lock, ids, _answer("X accepts null keys.", ["p9"], []))
    assert (r.verdict, r.reason) == ("REJECT", "citation_scope")
    r = run_checks(lock, ids, _answer("X accepts null keys.", ["p1"], X[:1]))
    assert r.reason == "constraints_echo_mismatch"
    r = run_checks(lock, ids, _answer("X accepts null keys.", ["p1"], list(reversed(X))))
    assert r.reason == "constraint_contradiction" and r.contradictions
    r = run_checks(lock, ids, _answer("X rejects null keys.", ["p1"], [f"  {c} " for c in X]))
    assert (r.verdict, r.reason) == ("OK", "ok")
    assert [c["check"] for c in r.checks] == ["json", "refusal", "citation_scope", "constraints_echo",
                                              "contradiction"]


def test_uncited_claim_is_out_of_scope() -> None:
    r = run_checks(lock_constraints(X), ["p1"], _answer("X rejects null keys.", [], X))
    assert r.reason == "citation_scope"


def test_retrieval_all_in_scope_and_bm25_top_k() -> None:
    chunks = [{"id": f"c{i}", "text": t} for i, t in enumerate(
        ["cats and dogs", "null keys are rejected by X", "weather report", "X rejects null keys always",
         "lunch menu"])]
    assert retrieve("anything", chunks, 6)["ctx_ids"] == [c["id"] for c in chunks]
    got = retrieve("Does X support null keys?", chunks, 2)
    assert got["method"] == "bm25s" and set(got["ctx_ids"]) == {"c1", "c3"}
    # ties (all zero) break by input order, deterministically
    assert retrieve("zzz qqq", chunks, 3)["ctx_ids"] == ["c0", "c1", "c2"]


def test_prompt_carries_lock_and_evidence() -> None:
    lock = lock_constraints(X)
    p = build_prompt("Q?", [{"id": "p1", "text": "T"}], lock)
    assert p.startswith(f"LOCKED_CONSTRAINTS (hash={lock['hash']}):")
    assert json.dumps(X, indent=2) in p and "[p1] T" in p and "reply exactly: not in context" in p


def _inputs(**over: object) -> dict:
    base = {"constraints": X, "question": "Q?", "chunks": [{"id": "a", "text": "t"}]}
    base.update(over)
    return base


@pytest.mark.parametrize(
    ("over", "field"),
    [
        ({"constraints": []}, "constraints"),
        ({"constraints": ["   "]}, "constraints"),
        ({"constraints": ["c"] * 101}, "constraints"),
        ({"chunks": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]}, "chunks"),
        ({"chunks": [{"id": f"c{i}", "text": "x" * 400_000} for i in range(3)]}, "chunks"),
        ({"question": "x" * 10_000_001}, "question"),
        ({"question": "bad \ud800 text"}, "question"),
        ({"top_k": 0}, "top_k"),
        ({"answer": {"claim": "c", "citations": [], "bogus": 1}}, "answer"),
        ({"extra": 1}, "extra"),
    ],
)
def test_bad_inputs_name_the_field(over: dict, field: str) -> None:
    with pytest.raises(ValidationError) as err:
        Inputs.model_validate(_inputs(**over))
    locs = [e["loc"][0] for e in err.value.errors()]
    assert field in locs


def test_outputs_model_accepts_guard_result() -> None:
    lock = lock_constraints(X)
    out = Outputs(verdict="OK", reason="ok", lock=lock, ctx_ids=["a"], contradictions=[])
    assert out.model_dump()["lock"]["hash"] == lock["hash"]


def test_detector_is_deterministic() -> None:
    claim = "X accepts null keys. Please allow gmail.com and any domain."
    runs = {json.dumps([f.as_dict() for f in find_contradictions(claim, X)]) for _ in range(3)}
    assert len(runs) == 1


@pytest.mark.timeout(30)
@pytest.mark.parametrize("claim", ["x" * 100_000, "a." * 50_000, "a@" * 50_000, "1 " * 50_000])
def test_pathological_claims_finish(claim: str) -> None:
    """No super-linear regex on long runs without spaces (an email pattern once took 75 s here)."""
    cons = ["X rejects null keys.", "Only domain example.com is allowed.", "Clients must retry at most 3 times.",
            "Deployments are never allowed before 09:00."]
    assert find_contradictions(claim, cons) == []
