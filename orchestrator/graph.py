"""The action dependency graph (networkx): edges, cycle rejection, who waits on whom (pure)."""

from __future__ import annotations

import networkx as nx

EDGE_KINDS = ("dependsOn", "waitFor", "bind", "notify")
#: Edges after which the consumer may not start until the producer is ready.
BLOCKING = ("dependsOn", "waitFor", "bind")


class CycleError(ValueError):
    """Adding these edges would make the actions wait on each other forever."""


class ActionGraph:
    """Nodes are action ids; an edge ``consumer -> producer`` carries its ``kind``."""

    def __init__(self) -> None:
        self.g = nx.MultiDiGraph()

    def add_action(self, action_id: str, edges: list[tuple[str, str]]) -> None:
        """Add an action with ``(kind, producer_id)`` edges; refuse a cycle of blocking edges."""
        self.g.add_node(action_id)
        blocking = nx.subgraph_view(self.g, filter_edge=lambda u, v, k: self.g[u][v][k]["kind"] in BLOCKING)
        for kind, producer in edges:
            if kind in BLOCKING and (producer == action_id or (
                producer in self.g and nx.has_path(blocking, producer, action_id)
            )):
                raise CycleError(f"edge {kind} -> {producer} would make {action_id} wait on itself")
        for kind, producer in edges:
            self.g.add_edge(action_id, producer, kind=kind)

    def producers(self, action_id: str, kinds: tuple[str, ...] = BLOCKING) -> list[tuple[str, str]]:
        """``(kind, producer)`` pairs this action waits on."""
        return [(k, v) for _, v, k in self.g.out_edges(action_id, data="kind") if k in kinds]

    def consumers(self, action_id: str, kinds: tuple[str, ...] = EDGE_KINDS) -> list[tuple[str, str]]:
        """``(kind, consumer)`` pairs that point at this action."""
        return [(k, u) for u, _, k in self.g.in_edges(action_id, data="kind") if k in kinds]
