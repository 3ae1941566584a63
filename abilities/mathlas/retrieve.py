"""search_existing_math: BM25 (bm25s) + a zero-download hashing embedder, fused by Reciprocal Rank Fusion.

The dense channel embeds each result's slogan and name (its meaning, not its notation) with a
signed feature-hashing embedder over words, word bigrams and character trigrams: no model file,
no download, deterministic. BM25 covers name + slogan + statement + field + preconditions.
RRF (Cormack, Clarke & Buettcher 2009) fuses the two rankings without score normalisation.
``add_finding`` appends to a live JSONL corpus that is searchable at once (BM25 + hashing).
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from abilities.mathlas.corpus_data import ROWS

RRF_K = 60
DIM = 1024
STOP = frozenset("""a an the of and or in on at to for by with from is are be as that this it its if then
there their than into any every each all some such which who whose when where what how can may must not no
over under between we our you your one two n x f""".split())
WORD = re.compile(r"[a-z0-9]+")


def _stem(w: str) -> str:
    for suf in ("ations", "ation", "ings", "ing", "ies", "es", "ed", "ly", "s"):
        if len(w) > len(suf) + 3 and w.endswith(suf):
            return w[: -len(suf)] + ("y" if suf == "ies" else "")
    return w


def tokens(text: str) -> list[str]:
    """Lowercase word tokens without stopwords, lightly stemmed (shared by both channels)."""
    return [_stem(w) for w in WORD.findall(text.lower().replace("'", "")) if w not in STOP]


def _h(feature: str) -> tuple[int, float]:
    d = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    v = int.from_bytes(d, "big")
    return v % DIM, (1.0 if (v >> 40) & 1 else -1.0)


def embed(text: str) -> np.ndarray:
    """Hashing embedder: words (weight 1), bigrams (0.5), character trigrams (0.3); L2-normalised."""
    vec = np.zeros(DIM, dtype=np.float64)
    toks = tokens(text)
    feats: list[tuple[str, float]] = [(f"w:{t}", 1.0) for t in toks]
    feats += [(f"b:{a}_{b}", 0.5) for a, b in zip(toks, toks[1:], strict=False)]
    for t in toks:
        padded = f"#{t}#"
        feats += [(f"c:{padded[i:i + 3]}", 0.3) for i in range(len(padded) - 2)]
    for f, w in feats:
        i, s = _h(f)
        vec[i] += s * w
    n = np.linalg.norm(vec)
    return vec / n if n else vec


@dataclass
class Document:
    """One searchable result."""

    id: str
    name: str
    field: str
    slogan: str
    statement: str
    preconditions: list[str]
    formal: str = ""
    provenance: str = "builtin"
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        out = {"id": self.id, "name": self.name, "field": self.field, "slogan": self.slogan,
               "statement": self.statement, "preconditions": self.preconditions,
               "formal_name": self.formal or None, "provenance": self.provenance}
        if self.source:
            out["source"] = self.source
        return out


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def builtin_documents() -> list[Document]:
    """The built-in corpus as Document records."""
    docs = []
    for name, fld, slogan, statement, pre, formal in ROWS:
        docs.append(Document(id=f"builtin:{_slug(name)}", name=name, field=fld, slogan=slogan, statement=statement,
                             preconditions=[p.strip() for p in pre.split(";") if p.strip()], formal=formal))
    return docs


#: The tenant whose live data (findings, FunSearch databases) a call reads and writes; set by the
#: ability for the duration of one action so tenants never see each other's findings.
TENANT: contextvars.ContextVar[str | None] = contextvars.ContextVar("mathlas_tenant", default=None)


def data_dir() -> Path:
    """Where live findings are kept: ``MATHLAS_DATA_DIR``, else ``<METIS_DATA_DIR>/mathlas`` (the
    server's data dir, given to every worker), else ``.metis/mathlas`` under the working directory;
    inside an action, a per-tenant folder below it."""
    if os.environ.get("MATHLAS_DATA_DIR"):
        base = Path(os.environ["MATHLAS_DATA_DIR"])
    else:
        base = Path(os.environ.get("METIS_DATA_DIR", ".metis")) / "mathlas"
    tenant = TENANT.get()
    if tenant is None:
        return base
    return base / "tenants" / re.sub(r"[^A-Za-z0-9_.-]", "_", tenant)


def findings_path(base: Path | None = None) -> Path:
    return (base or data_dir()) / "findings.jsonl"


def load_findings(path: Path) -> list[Document]:
    docs: list[Document] = []
    if not path.is_file():
        return docs
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line from a crash is skipped, never fatal
            docs.append(Document(id=r["id"], name=r["name"], field=r.get("field", ""), slogan=r.get("slogan", ""),
                                 statement=r.get("statement", ""), preconditions=r.get("preconditions", []),
                                 formal=r.get("formal_name") or "", provenance="web_added", source=r.get("source", "")))
    return docs


class HybridIndex:
    """BM25 + hashing-dense index over a fixed list of documents."""

    def __init__(self, docs: list[Document]) -> None:
        self.docs = docs
        corpus_tokens = [tokens(" ".join([d.name, d.name, d.slogan, d.statement, d.field, " ".join(d.preconditions)]))
                         or ["empty"] for d in docs]
        self.bm25 = bm25s.BM25()
        self.bm25.index(corpus_tokens, show_progress=False)
        self.vocab = set(self.bm25.vocab_dict)
        self.dense = np.vstack([embed(f"{d.name}. {d.slogan}") for d in docs])

    def rank_bm25(self, query: str) -> list[int]:
        q = [t for t in tokens(query) if t in self.vocab]
        if not q:
            return []
        scores = np.asarray(self.bm25.get_scores(q), dtype=np.float64)
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return [i for i in order if scores[i] > 0]

    def rank_dense(self, query: str) -> list[int]:
        qv = embed(query)
        if not qv.any():
            return []
        sims = self.dense @ qv
        order = sorted(range(len(sims)), key=lambda i: (-round(float(sims[i]), 12), i))
        return [i for i in order if sims[i] > 0]

    def search(self, query: str, k: int = 10) -> list[dict[str, Any]]:
        b, d = self.rank_bm25(query), self.rank_dense(query)
        fused: dict[int, float] = {}
        ranks: dict[int, dict[str, int | None]] = {}
        for name, lst in (("bm25", b), ("dense", d)):
            for r, i in enumerate(lst, 1):
                fused[i] = fused.get(i, 0.0) + 1.0 / (RRF_K + r)
                ranks.setdefault(i, {"bm25": None, "dense": None})[name] = r
        order = sorted(fused, key=lambda i: (-round(fused[i], 12), i))[:k]
        out = []
        for i in order:
            item = self.docs[i].public()
            item["score"] = round(fused[i], 6)
            item["ranks"] = ranks[i]
            out.append(item)
        return out


_CACHE: dict[tuple[str, int, int], HybridIndex] = {}
_BASE: list[Document] = []
_LOCK = threading.Lock()


def get_index(base: Path | None = None) -> HybridIndex:
    """Built-in corpus plus live findings; rebuilt when the findings file changes (size or mtime)."""
    path = findings_path(base)
    st = path.stat() if path.is_file() else None
    key = (str(path.resolve()), st.st_size if st else -1, st.st_mtime_ns if st else -1)
    with _LOCK:
        if key not in _CACHE:
            if not _BASE:
                _BASE.extend(builtin_documents())
            _CACHE.clear()
            _CACHE[key] = HybridIndex(_BASE + load_findings(path))
        return _CACHE[key]


def search_existing_math(query: str, k: int = 10) -> dict[str, Any]:
    """Hybrid search over the built-in corpus and live findings."""
    idx = get_index()
    results = idx.search(query, k)
    return {"query": query, "k": k, "corpus_size": len(idx.docs), "results": results,
            "method": "bm25(bm25s) + hashing-embedder dense channel, fused by RRF (k=60)",
            "note": "a ranked list of candidates for the AI to judge; run applicability_checklist on the one "
                    "you intend to use" if results else "no document shares terms with the query"}


def add_finding(name: str, statement: str, slogan: str = "", field: str = "", preconditions: list[str] | None = None,
                source: str = "", formal_name: str = "") -> dict[str, Any]:
    """Append a (web-found) result to the live JSONL corpus; it is searchable by the next query."""
    path = findings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(json.dumps([name, statement, source], sort_keys=True).encode()).hexdigest()[:16]
    rec = {"id": f"finding:{digest}", "name": name, "field": field, "slogan": slogan or statement[:200],
           "statement": statement, "preconditions": preconditions or [], "source": source,
           "formal_name": formal_name or None}
    existing = {d.id for d in load_findings(path)}
    if rec["id"] in existing:
        return {"added": False, "id": rec["id"], "reason": "an identical finding is already in the live corpus"}
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return {"added": True, "id": rec["id"], "provenance": "web_added",
            "note": "appended to the live corpus; searchable now through both channels (no model load)"}
