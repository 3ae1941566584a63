"""datasets.put / list / get through the real server: versions, hashes in receipts, chunked uploads,
tenants, validation errors, and cda reading its Ken graph from the store (also after a restart)."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
import rfc8785

from tests.support import ROOT, RpcFailure, ToolBus, approved_reviewer, run_action

SHOP = json.loads((ROOT / "tests/data/cda/checkout.json").read_text())
CDA_INPUTS = {
    "problem": "Why are checkout alerts firing?",
    "observations": [{"entity": "entity:payments", "predicate": "alert", "timestamp": 1000},
                     {"entity": "entity:checkout", "predicate": "alert", "timestamp": 1040},
                     {"entity": "entity:web", "predicate": "alert", "timestamp": 1090}],
}


def sha(content) -> str:
    """The hash a client computes on its own: SHA-256 of the RFC 8785 canonical JSON."""
    return hashlib.sha256(rfc8785.dumps(content)).hexdigest()


def corpus(n: int, salt: str = "") -> list[dict]:
    return [{"doc_id": f"d{i}", "title": f"note {i}",
             "text": f"{salt}incident {i}: payments latency rose after deploy {i % 7}; \"quoted\" é " * 40}
            for i in range(n)]


async def failure(tb: ToolBus, method: str, params: dict) -> RpcFailure:
    with pytest.raises(RpcFailure) as err:
        await tb.call(method, params)
    return err.value


def locs(err: RpcFailure) -> list[list]:
    return [e["loc"] for e in err.data["errors"]]


async def test_versions_hashes_and_the_version_receipt(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        first = await tb.call("datasets.put", {"kind": "ken", "name": "shop-v", "content": SHOP})
        assert first["committed"] and first["version"] == 1 and not first["unchanged"]
        assert first["sha256"] == sha(SHOP)
        again = await tb.call("datasets.put", {"kind": "ken", "name": "shop-v", "content": SHOP})
        assert again["version"] == 1 and again["unchanged"] and again["receipt"] == first["receipt"]
        changed = {**SHOP, "nodes": SHOP["nodes"] + [{"id": "entity:cache", "attrs": {}}]}
        second = await tb.call("datasets.put", {"kind": "ken", "name": "shop-v", "content": changed})
        assert second["version"] == 2 and second["sha256"] == sha(changed) != first["sha256"]
        assert second["items"] == len(changed["nodes"]) + len(changed["edges"])
        listed = await tb.call("datasets.list", {"kind": "ken"})
        mine = [d for d in listed["datasets"] if d["name"] == "shop-v"]
        assert mine[0]["versions"] == 2 and mine[0]["latest"]["sha256"] == second["sha256"]
        old = await tb.call("datasets.get", {"kind": "ken", "name": "shop-v", "version": 1})
        assert old["content"] == SHOP and old["versions"] == [1, 2]
        assert (await tb.call("datasets.get", {"kind": "ken", "name": "shop-v"}))["content"] == changed
        assert not [d for d in (await tb.call("datasets.list", {"kind": "corpus"}))["datasets"] if d["name"] == "shop-v"]
    async with ToolBus.connect(metis_server, "reviewer") as rv:
        seq = second["receipt"]["seq"]
        got = await approved_reviewer(metis_server, rv, "reflect.receipts", {"from_seq": seq, "to_seq": seq})
    rec = got["receipts"][0]
    assert rec["type"] == "receipt" and rec["name"] == "dataset_version" and rec["hash"] == second["receipt"]["hash"]
    assert rec["payload"]["sha256"] == sha(changed) and rec["payload"]["version"] == 2
    body = rfc8785.dumps({k: v for k, v in rec.items() if k != "hash"})
    assert hashlib.sha256(body).hexdigest() == rec["hash"]


async def test_a_large_corpus_goes_up_in_chunks_and_comes_back_in_pages(metis_server):
    docs = corpus(400)
    text = json.dumps(docs)
    assert len(text) > 1_100_000  # more than one ToolBus message can carry
    pieces = [text[i:i + 500_000] for i in range(0, len(text), 500_000)]
    async with ToolBus.connect(metis_server) as tb:
        too_big = await failure(tb, "datasets.put", {"kind": "corpus", "name": "big", "content": docs})
        assert too_big.code == -32013
        ans = await tb.call("datasets.put", {"kind": "corpus", "name": "big", "chunk": {"index": 0, "data": pieces[0]}})
        uid = ans["upload_id"]
        assert not ans["committed"] and ans["next_index"] == 1
        resent = await tb.call("datasets.put", {"kind": "corpus", "name": "big", "upload_id": uid,
                                                "chunk": {"index": 0, "data": pieces[0]}})
        assert resent["next_index"] == 1  # a resent chunk is acknowledged once
        skipped = await failure(tb, "datasets.put", {"kind": "corpus", "name": "big", "upload_id": uid,
                                                     "chunk": {"index": 2, "data": pieces[1]}})
        assert skipped.code == -32602 and locs(skipped) == [["chunk", "index"]]
        for i, piece in enumerate(pieces[1:], 1):
            ans = await tb.call("datasets.put", {"kind": "corpus", "name": "big", "upload_id": uid,
                                                 "chunk": {"index": i, "data": piece, "final": i == len(pieces) - 1}})
        assert ans["committed"] and ans["version"] == 1 and ans["sha256"] == sha(docs) and ans["items"] == 400
        assert ans["chunks"] >= 5  # stored as several log records
        gone = await failure(tb, "datasets.put", {"kind": "corpus", "name": "big", "upload_id": uid,
                                                  "chunk": {"index": 3, "data": "x"}})
        assert gone.code == -32004
        got, offset, pages = "", 0, 0
        while offset is not None:
            page = (await tb.call("datasets.get", {"kind": "corpus", "name": "big", "offset": offset}))["page"]
            got += page["data"]
            offset, pages = page.get("next_offset"), pages + 1
        assert pages > 1 and hashlib.sha256(got.encode()).hexdigest() == ans["sha256"]
        assert json.loads(got) == docs


async def test_another_tenant_can_neither_list_nor_read_nor_continue_an_upload(metis_server):
    async with ToolBus.connect(metis_server) as acme:
        await acme.call("datasets.put", {"kind": "corpus", "name": "secret", "content": corpus(2)})
        up = await acme.call("datasets.put", {"kind": "corpus", "name": "secret2", "chunk": {"index": 0, "data": "["}})
    async with ToolBus.connect(metis_server, tenant="globex") as globex:
        assert [d["name"] for d in (await globex.call("datasets.list", {}))["datasets"]] == []
        assert (await failure(globex, "datasets.get", {"kind": "corpus", "name": "secret"})).code == -32004
        stolen = await failure(globex, "datasets.put", {"kind": "corpus", "name": "secret2", "upload_id": up["upload_id"],
                                                        "chunk": {"index": 1, "data": "]", "final": True}})
        assert stolen.code == -32004
        own = await globex.call("datasets.put", {"kind": "corpus", "name": "secret", "content": corpus(1, "g")})
        assert own["version"] == 1  # same name, its own dataset


async def test_bad_puts_name_the_field_and_roles_are_enforced(metis_server):
    async with ToolBus.connect(metis_server) as tb:
        bad_node = await failure(tb, "datasets.put", {"kind": "ken", "name": "g", "content": {
            "nodes": [{"id": "server:1"}], "edges": []}})
        assert bad_node.code == -32602 and locs(bad_node) == [["content", "nodes", 0, "id"]]
        bad_edge = await failure(tb, "datasets.put", {"kind": "ken", "name": "g", "content": {
            "nodes": [], "edges": [{"src": "entity:a", "dst": "entity:b"}]}})
        assert ["content", "edges", 0, "type"] in locs(bad_edge)
        dup = await failure(tb, "datasets.put", {"kind": "corpus", "name": "c", "content": [
            {"doc_id": "a", "text": "x"}, {"doc_id": "a", "text": "y"}]})
        assert locs(dup) == [["content", 1, "doc_id"]] and "duplicate" in dup.data["errors"][0]["msg"]
        no_text = await failure(tb, "datasets.put", {"kind": "corpus", "name": "c", "content": [{"doc_id": "a"}]})
        assert locs(no_text) == [["content", 0, "text"]]
        up = await tb.call("datasets.put", {"kind": "corpus", "name": "c", "chunk": {"index": 0, "data": "[{\"doc_"}})
        not_json = await failure(tb, "datasets.put", {"kind": "corpus", "name": "c", "upload_id": up["upload_id"],
                                                      "chunk": {"index": 1, "data": "id\": 1", "final": True}})
        assert locs(not_json) == [["chunk", "data"]]
        for params, loc in [({"kind": "ken", "name": "g"}, []),
                            ({"kind": "ken", "name": "g", "content": {}, "chunk": {"index": 0, "data": ""}}, []),
                            ({"kind": "graph", "name": "g", "content": {}}, ["kind"]),
                            ({"kind": "ken", "name": "../etc", "content": {}}, ["name"]),
                            ({"kind": "ken", "name": "g", "chunk": {"index": 0, "data": "x" * 600_000}}, ["chunk", "data"]),
                            ({"kind": "ken", "name": "g", "version": 0}, ["version"])]:
            method = "datasets.get" if "version" in params else "datasets.put"
            err = await failure(tb, method, params)
            assert err.code == -32602 and loc in locs(err), (params, err.data)
        await tb.call("datasets.put", {"kind": "ken", "name": "shop-bad", "content": SHOP})
        missing = await failure(tb, "datasets.get", {"kind": "ken", "name": "shop-bad", "version": 99})
        assert missing.code == -32004 and missing.data["versions"]
        no_name = await failure(tb, "actions.start", {"ability": "cda", "inputs": {**CDA_INPUTS, "ken": {"version": 2}}})
        assert no_name.code == -32602 and ["inputs", "ken", "version"] in locs(no_name)
    async with ToolBus.connect(metis_server, "canvas") as canvas:
        assert (await failure(canvas, "datasets.put", {"kind": "ken", "name": "g", "content": {}})).code == -32003
        await canvas.call("datasets.list", {})
    async with ToolBus.connect(metis_server, "reviewer") as reviewer:
        assert (await failure(reviewer, "datasets.list", {})).code == -32003


async def test_cda_reads_its_graph_from_the_store_even_after_a_restart_without_the_cache(server_factory):
    server = server_factory()
    async with ToolBus.connect(server) as tb:
        put = await tb.call("datasets.put", {"kind": "ken", "name": "shop", "content": SHOP})
    view, _ = await run_action(server, "cda", {**CDA_INPUTS, "ken": {"dataset": "shop"}}, timeout=90)
    assert view["status"] == "completed", view.get("error")
    top = view["outputs"]["verdicts"][0]["hypothesis_id"]
    server.stop()
    shutil.rmtree(server.data_dir / "datasets")  # the cache goes; the log keeps the dataset
    server.start()
    async with ToolBus.connect(server) as tb:
        got = await tb.call("datasets.get", {"kind": "ken", "name": "shop"})
        assert got["content"] == SHOP and got["dataset"]["sha256"] == put["sha256"]
    again, _ = await run_action(server, "cda", {**CDA_INPUTS, "ken": {"dataset": "shop", "version": 1}}, timeout=90)
    assert again["status"] == "completed" and again["outputs"]["verdicts"][0]["hypothesis_id"] == top
    missing, _ = await run_action(server, "cda", {**CDA_INPUTS, "ken": {"dataset": "shop", "version": 7}}, timeout=90)
    assert missing["status"] == "failed" and "no version 7" in missing["error"]["message"]
    async with ToolBus.connect(server, "reviewer") as rv:
        recs = await approved_reviewer(server, rv, "reflect.receipts", {"action_id": again["action_id"]})
    reads = [r["payload"] for r in recs["receipts"] if r["name"] == "dataset_read"]
    assert reads == [{"kind": "ken", "name": "shop", "version": 1, "sha256": put["sha256"],
                      "refresh": "manual", "purpose": "ken"}]
