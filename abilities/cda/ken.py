"""Ken: the per-tenant typed knowledge graph and its safe query set.

Only four queries exist (spec §3 safety): ``search``, ``neighborhood``, ``path`` and
``related_by``. Each is capped (result limit, hop limit, visit limit) and returns a
``KenResult`` whose ``receipt()`` is what the ability writes to the log. Adjacency lists are
sorted once at load time, so every query is deterministic and cheap (no per-query sorting of
large neighbourhoods); a token index serves ``search``.
"""

from __future__ import annotations

import bisect
import gzip
import json
import os
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from abilities import datasets
from abilities.cda.models import MAX_INLINE_EDGES, NODE_PREFIXES

NODE_TYPES = tuple(p.rstrip(":") for p in NODE_PREFIXES)
MAX_FILE_EDGES = 2_000_000
MAX_RESULTS = 50
MAX_HOPS = 6
MAX_VISITS = 20_000
COMMON_TOKEN = 1_000
# How a fault/cause flows along an edge type: +1 src -> dst, -1 dst -> src.
PROPAGATION: dict[str, int] = {
    "causes": 1, "affects": 1, "triggers": 1, "changed": 1,
    "depends_on": -1, "calls": -1, "runs_on": -1, "hosted_on": -1, "part_of": -1, "uses": -1,
}
_TOKEN = re.compile(r"[a-z0-9]+")


class KenError(ValueError):
    """Bad graph data or a query outside the safe set; ``reason`` is machine-readable."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass
class KenResult:
    """One query's answer: the ids found, and the receipt payload describing it."""

    op: str
    args: dict[str, Any]
    caps: dict[str, int]
    ids: list[str]
    truncated: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def receipt(self) -> dict[str, Any]:
        return {"op": self.op, "args": self.args, "caps": self.caps, "result_ids": self.ids,
                "truncated": self.truncated, **self.extra}


def _contains(sorted_ids: list[str], nid: str) -> bool:
    i = bisect.bisect_left(sorted_ids, nid)
    return i < len(sorted_ids) and sorted_ids[i] == nid


def node_type(node_id: str) -> str:
    """The type prefix of a node id (``entity``, ``event``, ``metric``, ``hyp``)."""
    return node_id.split(":", 1)[0]


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class Ken:
    """A typed graph: nodes ``entity:/event:/metric:/hyp:`` with attributes, typed edges."""

    def __init__(self) -> None:
        self.g = nx.MultiDiGraph()
        self._out: dict[str, dict[str, list[str]]] = {}
        self._in: dict[str, dict[str, list[str]]] = {}
        self._index: dict[str, list[str]] = {}
        self.fault_down: dict[str, list[str]] = {}
        self.fault_up: dict[str, list[str]] = {}
        self._pending: list[tuple[str, str, str, dict[str, Any]]] = []

    # ------------------------------------------------------------------ building
    @classmethod
    def from_dict(cls, data: dict[str, Any], max_edges: int = MAX_INLINE_EDGES) -> Ken:
        """Build from ``{"nodes": [{id, attrs}], "edges": [{src, dst, type, attrs}]}`` (bounded)."""
        nodes = data.get("nodes") or []
        edges = data.get("edges") or []
        if not isinstance(nodes, list) or not isinstance(edges, list):
            raise KenError("invalid_graph", "graph needs 'nodes' and 'edges' lists")
        if len(edges) > max_edges:
            raise KenError("graph_too_large", f"graph has {len(edges)} edges; the cap is {max_edges}")
        ken = cls()
        for n in nodes:
            nid = n["id"] if isinstance(n, dict) else getattr(n, "id", None)
            attrs = n.get("attrs", {}) if isinstance(n, dict) else getattr(n, "attrs", {})
            ken._add_node(str(nid), dict(attrs or {}))
        for e in edges:
            get = e.get if isinstance(e, dict) else (lambda k, d=None, _e=e: getattr(_e, k, d))
            ken._add_edge(str(get("src")), str(get("dst")), str(get("type")), dict(get("attrs", {}) or {}))
        ken._finish()
        return ken

    @classmethod
    def load(cls, path: Path) -> Ken:
        """Load a graph file (``.json`` or ``.json.gz``) from the tenant's data dir."""
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as fh:
            data = json.load(fh)
        return cls.from_dict(data, max_edges=MAX_FILE_EDGES)

    def _add_node(self, nid: str, attrs: dict[str, Any]) -> None:
        if not nid.startswith(NODE_PREFIXES):
            raise KenError("unknown_node_type",
                           f"unknown node type in {nid!r}: ids start with one of {', '.join(NODE_PREFIXES)}")
        if nid in self.g:
            self.g.nodes[nid].update(attrs)
        else:
            self.g.add_node(nid, **attrs)

    def _add_edge(self, src: str, dst: str, etype: str, attrs: dict[str, Any]) -> None:
        for nid in (src, dst):
            if nid not in self.g:
                self._add_node(nid, {})
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", etype):
            raise KenError("invalid_edge_type", f"edge type {etype!r} is not an identifier")
        self._pending.append((src, dst, etype, {"type": etype, **attrs}))
        self._out.setdefault(src, {}).setdefault(etype, []).append(dst)
        self._in.setdefault(dst, {}).setdefault(etype, []).append(src)
        d = PROPAGATION.get(etype)
        if d == 1:
            self.fault_down.setdefault(src, []).append(dst)
            self.fault_up.setdefault(dst, []).append(src)
        elif d == -1:
            self.fault_down.setdefault(dst, []).append(src)
            self.fault_up.setdefault(src, []).append(dst)

    def _finish(self) -> None:
        self.g.add_edges_from(self._pending)
        self._pending = []
        for table in (self._out, self._in):
            for by_type in table.values():
                for k in by_type:
                    by_type[k] = sorted(set(by_type[k]))
        for table in (self.fault_down, self.fault_up):
            for k in table:
                table[k] = sorted(set(table[k]))
        index: dict[str, set[str]] = {}
        for nid, attrs in self.g.nodes(data=True):
            words = tokens(nid.split(":", 1)[1])
            for key in ("name", "label", "text", "service"):
                if isinstance(attrs.get(key), str):
                    words += tokens(attrs[key])
            for w in set(words):
                index.setdefault(w, set()).add(nid)
        self._index = {w: sorted(ids) for w, ids in index.items()}

    # ------------------------------------------------------------------ access
    def __contains__(self, nid: str) -> bool:
        return nid in self.g

    def attrs(self, nid: str) -> dict[str, Any]:
        return dict(self.g.nodes[nid]) if nid in self.g else {}

    def nodes_of_type(self, ntype: str) -> list[str]:
        return sorted(n for n in self.g.nodes if node_type(n) == ntype)

    def edge_types(self) -> list[str]:
        return sorted({t for by in self._out.values() for t in by})

    def _neighbors(self, nid: str, etype: str | None, direction: str) -> list[str]:
        if direction in ("down", "up"):  # along fault propagation (see PROPAGATION)
            return (self.fault_down if direction == "down" else self.fault_up).get(nid, [])
        tables = {"out": (self._out,), "in": (self._in,), "both": (self._out, self._in)}[direction]
        found: list[str] = []
        for table in tables:
            by = table.get(nid, {})
            if etype is None:
                for t in sorted(by):
                    found.extend(by[t])
            else:
                found.extend(by.get(etype, ()))
        if len(tables) > 1 or etype is None:
            found = sorted(set(found))
        return found

    # ------------------------------------------------------------------ the safe query set
    def search(self, text: str, limit: int = MAX_RESULTS, ntype: str | None = None) -> KenResult:
        """Nodes whose id/name tokens match the query, most matching tokens first."""
        limit = max(1, min(limit, MAX_RESULTS))
        counts: dict[str, int] = {}
        # rarest tokens first; a very common token only re-ranks nodes the rarer ones found
        words = sorted(set(tokens(text)), key=lambda w: (len(self._index.get(w, ())), w))[:32]
        for w in words:
            postings = self._index.get(w, ())
            if counts and len(postings) > COMMON_TOKEN:
                for nid in counts:
                    if _contains(postings, nid):
                        counts[nid] += 1
                continue
            for nid in postings[:MAX_VISITS]:
                if ntype is None or node_type(nid) == ntype:
                    counts[nid] = counts.get(nid, 0) + 1
        ranked = sorted(counts, key=lambda n: (-counts[n], n))
        return KenResult("search", {"text": text[:200], "type": ntype}, {"limit": limit},
                         ranked[:limit], len(ranked) > limit)

    def neighborhood(self, nid: str, hops: int = 1, edge_type: str | None = None,
                     direction: str = "both", limit: int = MAX_RESULTS) -> KenResult:
        """Nodes within ``hops`` of ``nid`` (breadth-first, nearest first, then by id)."""
        self._require(nid)
        hops = max(1, min(hops, MAX_HOPS))
        limit = max(1, min(limit, MAX_RESULTS))
        seen = {nid}
        out: list[str] = []
        frontier = [nid]
        truncated = False
        for _ in range(hops):
            nxt: list[str] = []
            for cur in frontier:
                for nb in self._neighbors(cur, edge_type, direction):
                    if nb not in seen:
                        seen.add(nb)
                        nxt.append(nb)
                if len(seen) > MAX_VISITS:
                    truncated = True
                    break
            nxt.sort()
            out.extend(nxt)
            frontier = nxt
            if truncated or not frontier:
                break
        return KenResult("neighborhood", {"node": nid, "hops": hops, "edge_type": edge_type,
                                          "direction": direction},
                         {"limit": limit, "max_hops": MAX_HOPS, "max_visits": MAX_VISITS},
                         out[:limit], truncated or len(out) > limit)

    def path(self, src: str, dst: str, edge_type: str | None = None, max_hops: int = 3,
             direction: str = "out") -> KenResult:
        """A shortest path src -> dst over ``edge_type`` edges within ``max_hops`` ([] if none)."""
        self._require(src)
        self._require(dst)
        max_hops = max(1, min(max_hops, MAX_HOPS))
        parent: dict[str, str | None] = {src: None}
        q: deque[tuple[str, int]] = deque([(src, 0)])
        found = src == dst
        truncated = False
        while q and not found:
            cur, d = q.popleft()
            if d >= max_hops:
                continue
            for nb in self._neighbors(cur, edge_type, direction):
                if nb not in parent:
                    parent[nb] = cur
                    if nb == dst:
                        found = True
                        break
                    q.append((nb, d + 1))
            if len(parent) > MAX_VISITS:
                truncated = True
                break
        ids: list[str] = []
        if found:
            cur: str | None = dst
            while cur is not None:
                ids.append(cur)
                cur = parent[cur]
            ids.reverse()
        return KenResult("path", {"src": src, "dst": dst, "edge_type": edge_type, "direction": direction},
                         {"max_hops": max_hops, "max_visits": MAX_VISITS}, ids, truncated,
                         {"found": found, "hops": max(0, len(ids) - 1)})

    def related_by(self, nid: str, edge_type: str, direction: str = "out",
                   limit: int = MAX_RESULTS) -> KenResult:
        """Direct neighbours of ``nid`` over one edge type."""
        self._require(nid)
        limit = max(1, min(limit, MAX_RESULTS))
        found = self._neighbors(nid, edge_type, direction)
        return KenResult("related_by", {"node": nid, "edge_type": edge_type, "direction": direction},
                         {"limit": limit}, found[:limit], len(found) > limit)

    def _require(self, nid: str) -> None:
        if not nid.startswith(NODE_PREFIXES):
            raise KenError("unknown_node_type", f"unknown node type in {nid!r}")
        if nid not in self.g:
            raise KenError("unknown_node", f"node {nid!r} is not in Ken")


def data_dir() -> Path:
    """The service data dir as seen by the worker (``METIS_DATA_DIR``, default ``.metis``)."""
    return Path(os.environ.get("METIS_DATA_DIR", ".metis"))


_CACHE: dict[tuple[str, str, float], Ken] = {}


def load_dataset_graph(tenant: str, dataset: str, version: int | None = None,
                       pin: tuple[str, int] | None = None, base: Path | None = None) -> tuple[Ken, dict[str, Any]]:
    """A Ken graph put with ``datasets.put`` (kind ``ken``): the newest version, the run's pinned one,
    or ``version``; returns the graph and what was read (kind, name, version, sha256). Versions are
    immutable, so the graph is cached per version file. Falls back to a file placed by hand under
    ``<data>/ken/<tenant>/`` (older deployments) when no dataset of that name was put."""
    try:
        found = datasets.resolve(tenant, "ken", dataset, version, pin=pin, base=base)
    except datasets.DatasetNotFound as exc:
        if version is None:
            try:
                return load_tenant_graph(tenant, dataset, base), {"kind": "ken", "name": dataset, "legacy_file": True}
            except KenError:
                pass
        raise KenError("unknown_dataset", str(exc)) from None
    key = (tenant, str(found.path), float(found.version))
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = Ken.load(found.path)
    return _CACHE[key], found.describe()


def load_tenant_graph(tenant: str, dataset: str, base: Path | None = None) -> Ken:
    """Load ``<data>/ken/<tenant>/<dataset>.json[.gz]`` (cached per file version)."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", tenant) or not re.fullmatch(r"[A-Za-z0-9_.-]+", dataset) \
            or dataset.startswith("."):
        raise KenError("invalid_dataset", "dataset and tenant names must be plain identifiers")
    root = (base or data_dir()) / "ken" / tenant
    for name in (f"{dataset}.json", f"{dataset}.json.gz"):
        path = root / name
        if path.is_file():
            key = (tenant, str(path), path.stat().st_mtime)
            if key not in _CACHE:
                _CACHE.clear()
                _CACHE[key] = Ken.load(path)
            return _CACHE[key]
    raise KenError("unknown_dataset", f"no Ken dataset {dataset!r} for tenant {tenant!r}")
