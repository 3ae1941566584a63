"""Pure-core tests of cda: models, DSL, Ken and the z3 constraint system (no sockets)."""

from __future__ import annotations

import random
import time

import pytest
from pydantic import ValidationError

from abilities.cda.dsl import DSLError, ExistsPath, Prefer, Within, parse_clause
from abilities.cda.ken import Ken, KenError
from abilities.cda.models import CDAInputs, CDAOutputs
from abilities.cda.solver import ConstraintSystem, Facts, Hyp

FORMS = [
    "holds(alert(entity:checkout))",
    "not(fault(entity:db-1))",
    "exists path(entity:A ->related_to-> entity:B within 2 hops)",
    "before(event:X, event:Y)",
    "within(event:X, 14d of event:Y)",
    "xor(hyp:A, hyp:B)",
    "value(metric:Cost) <= 5000",
    "use(provider:ModelX) only_if risk <= medium",
    "prefer(root_cause(entity:db)) weight 0.4",
]


@pytest.mark.parametrize("text", FORMS)
def test_every_spec_form_parses_and_round_trips(text: str) -> None:
    parsed = parse_clause(text)
    assert parse_clause(str(parsed)) == parsed


def test_parse_details() -> None:
    w = parse_clause("within(event:X, 14d of event:Y)")
    assert isinstance(w, Within) and w.seconds == 14 * 86400
    p = parse_clause("exists path(entity:a-1->depends_on->entity:b within 3 hops)")
    assert isinstance(p, ExistsPath) and p.src.id == "entity:a-1" and p.edge == "depends_on" and p.hops == 3
    pref = parse_clause("prefer(before(event:a, event:b)) weight 0.25")
    assert isinstance(pref, Prefer) and pref.weight == 0.25


@pytest.mark.parametrize(
    ("text", "line", "column", "expect"),
    [
        ("before(event:X event:Y)", 1, 16, "','"),
        ("holds(alert(entity:x))\n  and", 2, 3, "end of clause"),
        ("within(event:X, 14 of event:Y)", 1, 17, "duration"),
        ("befor(a)", 1, 1, "'before'"),
        ("holds(alert(foo:x))", 1, 13, "entity:"),
    ],
)
def test_parse_errors_name_line_column_and_expectation(text: str, line: int, column: int, expect: str) -> None:
    with pytest.raises(DSLError) as info:
        parse_clause(text)
    err = info.value
    assert (err.line, err.column) == (line, column)
    assert expect in str(err)


def test_inputs_validation_names_the_field() -> None:
    with pytest.raises(ValidationError) as info:
        CDAInputs.model_validate({"problem": "p", "constraints": {"hard": ["holds(a(entity:x))", "before(event:X event:Y)"]}})
    err = info.value.errors()[0]
    assert err["loc"] == ("constraints", "hard", 1)
    assert "line 1, column 16" in err["msg"]
    with pytest.raises(ValidationError) as info:
        CDAInputs.model_validate({"problem": "p", "surprise": 1})
    assert info.value.errors()[0]["loc"] == ("surprise",)
    with pytest.raises(ValidationError) as info:
        CDAInputs.model_validate({"problem": "p", "observations": [{"entity": "thing:x", "predicate": "alert"}]})
    assert "entity:" in str(info.value)


def test_inputs_accept_three_observation_kinds_and_legacy_alias() -> None:
    i = CDAInputs.model_validate({
        "problem": "why", "work_unit_id": "wu-1",
        "observations": [{"doc_id": "d", "start": 0, "end": 4, "excerpt": "boom"}, {"artifact_id": "art-1"},
                         {"entity": "entity:a", "predicate": "alert", "timestamp": 10,
                          "source": {"doc_id": "d", "start": 0, "end": 4}}],
    })
    assert i.action_id == "wu-1"
    assert [type(o).__name__ for o in i.observations] == ["SpanRef", "ArtifactRef", "InlineObservation"]
    assert CDAOutputs(summary_artifact_id="x").display.primary.id_ref == "summary_artifact_id"


def test_inline_graph_cap_is_enforced_before_item_validation() -> None:
    edges = [{"src": "entity:a", "dst": "entity:b", "type": "depends_on"}] * 200_001
    t0 = time.perf_counter()
    with pytest.raises(ValidationError) as info:
        CDAInputs.model_validate({"problem": "p", "ken": {"graph": {"nodes": [], "edges": edges}}})
    assert time.perf_counter() - t0 < 2.0
    assert "cap is 200000" in str(info.value)
    with pytest.raises(ValidationError, match="unknown node type"):
        CDAInputs.model_validate({"problem": "p", "ken": {"graph": {"nodes": [{"id": "server:x"}]}}})


def _chain_graph(n: int, seed: int = 1) -> Ken:
    r = random.Random(seed)
    nodes = [{"id": f"entity:s{i}", "attrs": {"name": f"service {i}"}} for i in range(n)]
    edges = [{"src": f"entity:s{i}", "dst": f"entity:s{r.randrange(i)}", "type": "depends_on"}
             for i in range(1, n) for _ in range(2)]
    return Ken.from_dict({"nodes": nodes, "edges": edges}, max_edges=10**6)


def test_ken_queries_are_typed_capped_and_deterministic() -> None:
    ken = Ken.from_dict({
        "nodes": [{"id": "entity:web", "attrs": {"name": "web frontend"}}, {"id": "entity:db"},
                  {"id": "event:deploy-1", "attrs": {"timestamp": 5}}],
        "edges": [{"src": "entity:web", "dst": "entity:db", "type": "depends_on"},
                  {"src": "event:deploy-1", "dst": "entity:db", "type": "affects"}],
    })
    assert ken.search("frontend").ids == ["entity:web"]
    assert ken.related_by("entity:web", "depends_on").ids == ["entity:db"]
    assert ken.neighborhood("entity:db", 1).ids == ["entity:web", "event:deploy-1"]
    p = ken.path("entity:web", "entity:db", "depends_on", 2)
    assert p.ids == ["entity:web", "entity:db"] and p.extra["found"]
    assert ken.path("entity:db", "entity:web", "depends_on", 2).ids == []
    assert ken.fault_down["entity:db"] == ["entity:web"]
    rec = p.receipt()
    assert rec["op"] == "path" and rec["caps"]["max_hops"] == 2 and rec["result_ids"] == p.ids
    with pytest.raises(KenError) as info:
        ken.neighborhood("entity:nope")
    assert info.value.reason == "unknown_node"
    with pytest.raises(KenError) as info:
        Ken.from_dict({"nodes": [{"id": "person:x"}], "edges": []})
    assert info.value.reason == "unknown_node_type"
    with pytest.raises(KenError) as info:
        Ken.from_dict({"nodes": [], "edges": [{"src": "entity:a", "dst": "entity:b", "type": "x"}] * 11}, max_edges=10)
    assert info.value.reason == "graph_too_large"


def test_ken_query_speed_on_a_large_graph() -> None:
    ken = _chain_graph(20_000)
    r = random.Random(7)
    times = []
    for _ in range(100):
        a, b = f"entity:s{r.randrange(20_000)}", f"entity:s{r.randrange(20_000)}"
        t0 = time.perf_counter()
        ken.search("service 42")
        ken.neighborhood(a, 2)
        ken.path(a, b, "depends_on", 4)
        ken.related_by(a, "depends_on")
        times.append((time.perf_counter() - t0) / 4)
    times.sort()
    assert times[94] < 0.020
    assert len(ken.neighborhood("entity:s0", 3).ids) == 50


def _hyps() -> list[Hyp]:
    return [Hyp("hyp:rc.a", "entity:a", "rc", ["root_cause(entity:a)"], 100),
            Hyp("hyp:rc.b", "entity:b", "rc", ["root_cause(entity:b)"], 300)]


def test_z3_prunes_and_scores_soft_clauses() -> None:
    facts = Facts(times={"event:alert": 200, "event:deploy": 150}, values={"metric:Cost": 4000})
    hard = [("hard[0]", parse_clause("before(hyp:rc.b, event:alert)")),
            ("hard[1]", parse_clause("value(metric:Cost) <= 5000"))]
    soft = [("soft[0]", parse_clause("prefer(root_cause(entity:b)) weight 0.4"), 0.4)]
    cs = ConstraintSystem(hard, soft, facts, _hyps())
    assert cs.contradiction() is None
    assert [c["status"] for c in cs.clause_status()] == ["undetermined", "entailed"]
    assert cs.check_hypothesis("hyp:rc.a") == (True, [])
    ok, core = cs.check_hypothesis("hyp:rc.b")
    assert not ok and "hard[0]" in core and "onset:hyp:rc.b" in core
    assert cs.soft_status("hyp:rc.a") == ["violated"]


def test_z3_contradictions_are_classified_with_a_core() -> None:
    cs = ConstraintSystem([("hard[0]", parse_clause("before(event:a, event:b)")),
                           ("hard[1]", parse_clause("before(event:b, event:a)"))], [], Facts(), _hyps())
    assert cs.contradiction() == {"kind": "constraints_contradict_each_other", "core": ["hard[0]", "hard[1]"]}
    cs = ConstraintSystem([("hard[0]", parse_clause("value(metric:Cost) > 5000"))], [],
                          Facts(values={"metric:Cost": 4000.0}), _hyps())
    assert cs.contradiction() == {"kind": "constraints_contradict_evidence",
                                  "core": ["fact:value(metric:Cost)", "hard[0]"]}


def test_z3_xor_and_closed_world_root_cause() -> None:
    cs = ConstraintSystem([("hard[0]", parse_clause("xor(hyp:rc.a, hyp:rc.b)")),
                           ("hard[1]", parse_clause("not(root_cause(entity:a))"))], [], Facts(), _hyps())
    assert cs.contradiction() is None
    assert not cs.check_hypothesis("hyp:rc.a")[0]
    assert cs.check_hypothesis("hyp:rc.b")[0]
    cs = ConstraintSystem([("hard[0]", parse_clause("use(provider:M) only_if risk <= medium"))], [],
                          Facts(risk=2), _hyps())
    assert cs.clause_status() == [{"clause": "hard[0]", "status": "undetermined"}]


def test_deep_nesting_is_refused_with_a_position() -> None:
    deep = "not(" * 30 + "holds(a(entity:x))" + ")" * 30
    with pytest.raises(DSLError) as info:
        parse_clause(deep)
    assert "nested deeper than 24" in str(info.value) and info.value.column == 100  # the 25th "("
    ok = "not(" * 10 + "holds(a(entity:x))" + ")" * 10
    assert str(parse_clause(ok)).startswith("not(not(")
