"""Synthetic root-cause-analysis problems and the usual random-walk baseline.

``generate`` builds a microservice dependency graph (``depends_on`` edges), injects one fault,
propagates alerts to dependents with per-edge probabilities and delays, adds noise alerts and
unrelated deploys, and returns the Ken graph, the observations and the truth. The generator's
parameters are deliberately not the scorer's (``scoring.P0/RHO/EPS``). ``pagerank_rank`` is the
personalised-PageRank ranking (MicroRCA-style) used as the baseline.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any


@dataclass
class RcaProblem:
    graph: dict[str, Any]
    observations: list[dict[str, Any]]
    root: str
    t0: int
    services: int


def generate(n: int, seed: int, noise_rate: float = 0.01, deploy_prob: float = 0.5) -> RcaProblem:
    """One RCA problem on ``n`` services (deterministic in ``seed``)."""
    r = random.Random(seed)
    names = [f"entity:svc{i:04d}" for i in range(n)]
    nodes = [{"id": s, "attrs": {"monitored": True, "name": f"service {i}"}} for i, s in enumerate(names)]
    edges: list[dict[str, Any]] = []
    dependents: dict[str, list[str]] = {s: [] for s in names}
    for i in range(1, n):
        k = r.choice((1, 1, 2, 2, 3))
        picks: set[int] = set()
        for _ in range(k):
            j = r.randrange(max(0, i - 30), i) if r.random() < 0.7 else r.randrange(i)
            picks.add(j)
        for j in sorted(picks):
            edges.append({"src": names[i], "dst": names[j], "type": "depends_on"})
            dependents[names[j]].append(names[i])
    roots = [s for s in names if dependents[s]]
    root = r.choice(roots)
    t0 = 10_000 + r.randrange(0, 5_000)
    alerts: dict[str, int] = {}
    if r.random() < 0.9:
        alerts[root] = t0 + r.randrange(0, 30)
    frontier = [(root, t0, 0)]
    affected = {root}
    while frontier:
        cur, t, d = frontier.pop(0)
        if d >= 4:
            continue
        for dep in sorted(dependents[cur]):
            if dep in affected or r.random() > r.uniform(0.5, 0.9):
                continue
            affected.add(dep)
            td = t + r.randrange(10, 90)
            if r.random() < 0.95:
                alerts[dep] = td
            frontier.append((dep, td, d + 1))
    for _ in range(max(1, int(n * noise_rate))):
        s = r.choice(names)
        if s not in alerts:
            alerts[s] = t0 + r.randrange(-600, 600)
    events = []
    if r.random() < deploy_prob:
        events.append((f"event:deploy-{root.split(':')[1]}", root, t0 - r.randrange(60, 1800)))
    for i in range(max(1, int(n * 0.01))):
        s = r.choice(names)
        events.append((f"event:deploy-n{i}-{s.split(':')[1]}", s, t0 + r.randrange(-3600, 600)))
    for eid, target, ts in events:
        nodes.append({"id": eid, "attrs": {"timestamp": ts, "name": f"deploy {target}"}})
        edges.append({"src": eid, "dst": target, "type": "affects"})
    obs = []
    for k, (s, ts) in enumerate(sorted(alerts.items(), key=lambda kv: (kv[1], kv[0]))):
        obs.append({"entity": s, "predicate": "alert", "timestamp": ts,
                    "source": {"doc_id": f"alerts-{seed}", "start": 100 * k, "end": 100 * k + 60,
                               "excerpt": f"ALERT {s.split(':')[1]} error rate above threshold"}})
    return RcaProblem({"nodes": nodes, "edges": edges}, obs, root, t0, n)


def pagerank_rank(p: RcaProblem, alpha: float = 0.85, iters: int = 100) -> list[str]:
    """Personalised PageRank over dependent -> dependency edges, restarting on alerting services.

    Plain power iteration (no scipy): dangling mass and restarts go to the alerting services.
    """
    services = sorted(n["id"] for n in p.graph["nodes"] if n["id"].startswith("entity:"))
    out: dict[str, list[str]] = {s: [] for s in services}
    for e in p.graph["edges"]:
        if e["type"] == "depends_on":
            out[e["src"]].append(e["dst"])
    alerted = sorted({o["entity"] for o in p.observations} & set(services)) or services
    pers = {s: 1.0 / len(alerted) for s in alerted}
    rank = dict.fromkeys(services, 1.0 / len(services))
    for _ in range(iters):
        nxt = {s: (1 - alpha) * pers.get(s, 0.0) for s in services}
        dangling = 0.0
        for s in services:
            if out[s]:
                share = alpha * rank[s] / len(out[s])
                for d in out[s]:
                    nxt[d] += share
            else:
                dangling += alpha * rank[s]
        for s, w in pers.items():
            nxt[s] += dangling * w
        delta = sum(abs(nxt[s] - rank[s]) for s in services)
        rank = nxt
        if delta < 1e-10:
            break
    return sorted(services, key=lambda s: (-rank[s], s))


def service_of(hypothesis_id: str, graph: dict[str, Any]) -> str | None:
    """The service a cda hypothesis blames (``hyp:rc.X`` -> X; ``hyp:ev.E`` -> what E affects)."""
    if hypothesis_id.startswith("hyp:rc."):
        return "entity:" + hypothesis_id[len("hyp:rc."):]
    if hypothesis_id.startswith("hyp:ev."):
        eid = "event:" + hypothesis_id[len("hyp:ev."):]
        for e in graph["edges"]:
            if e["src"] == eid and e["type"] == "affects":
                return e["dst"]
    return None


def ranked_services(verdicts: list[dict[str, Any]], graph: dict[str, Any]) -> list[str]:
    """cda's service ranking: non-refuted verdicts in output order, mapped to services, de-duplicated."""
    out: list[str] = []
    for v in verdicts:
        if v["status"] == "refuted" or v["hypothesis_id"].startswith("goal:"):
            continue
        s = service_of(v["hypothesis_id"], graph)
        if s and s not in out:
            out.append(s)
    return out
