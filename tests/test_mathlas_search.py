"""search_existing_math: corpus size, hybrid RRF ranking, Recall@10 on the shared queries,
add_finding searchable at once, search_formal_math honesty."""

from __future__ import annotations

import json
from pathlib import Path

from abilities.mathlas import retrieve
from abilities.mathlas.formal import search_formal_math
from abilities.mathlas.retrieve import add_finding, builtin_documents, embed, search_existing_math

QUERIES = json.loads((Path(__file__).parent / "data" / "mathlas" / "queries.json").read_text())


def test_corpus_has_at_least_200_distinct_results_with_preconditions():
    docs = builtin_documents()
    assert len(docs) >= 200 and len({d.id for d in docs}) == len(docs)
    assert sum(1 for d in docs if d.preconditions) >= 180


def test_cli_query_finds_banach():
    r = search_existing_math("fixed point of a contraction", 5)
    assert r["results"][0]["name"] == "Banach fixed-point theorem"
    assert set(r["results"][0]["ranks"]) == {"bm25", "dense"}


def test_recall_on_the_shared_queries():
    assert len(QUERIES) >= 60
    r1 = r10 = 0
    for q, expected in QUERIES:
        names = [x["name"] for x in search_existing_math(q, 10)["results"]]
        r1 += names[:1] == [expected]
        r10 += expected in names
    assert r10 / len(QUERIES) >= 0.9 and r1 / len(QUERIES) >= 0.7


def test_hashing_embedder_is_deterministic_and_normalised():
    a, b = embed("compact operator spectrum"), embed("compact operator spectrum")
    assert (a == b).all() and abs(float(a @ a) - 1.0) < 1e-9
    assert float(embed("fixed point theorem") @ embed("fixed points of maps")) > 0.3


def test_add_finding_is_searchable_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHLAS_DATA_DIR", str(tmp_path))
    q = "zorblax lemma on quasi-frobenian hypergraphs"
    assert all(x["provenance"] == "builtin" for x in search_existing_math(q, 5)["results"])
    added = add_finding(name="Zorblax lemma", statement="Every quasi-frobenian hypergraph has a zorblax cover.",
                        slogan="quasi-frobenian hypergraphs admit zorblax covers", field="combinatorics",
                        source="https://example.org/zorblax")
    assert added["added"] is True
    top = search_existing_math(q, 5)["results"][0]
    assert top["name"] == "Zorblax lemma" and top["provenance"] == "web_added"
    again = add_finding(name="Zorblax lemma", statement="Every quasi-frobenian hypergraph has a zorblax cover.",
                        source="https://example.org/zorblax")
    assert again["added"] is False
    lines = (tmp_path / "findings.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["id"] == added["id"]
    assert retrieve.findings_path() == tmp_path / "findings.jsonl"


def test_search_formal_math_is_offline_and_honest():
    r = search_formal_math("contraction mapping fixed point", 3)
    assert r["results"][0]["formal_name"].startswith("ContractingWith")
    assert "offline" in r["reach"] and "#check" in r["reach"]
