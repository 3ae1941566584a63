"""The action dependency graph: edges, cycle rejection, who waits on whom (pure).

Plain adjacency dicts rather than a graph library: the scheduler adds a node (and maybe a few
edges) on every ``actions.start``, so this sits on the hot path and in the server's imports."""

from __future__ import annotations

from collections import deque

EDGE_KINDS = ("dependsOn", "waitFor", "bind", "notify")
#: Edges after which the consumer may not start until the producer is ready.
BLOCKING = ("dependsOn", "waitFor", "bind")

#: node -> neighbour -> edge kinds (in insertion order; the same kind may repeat)
_Adjacency = dict[str, dict[str, list[str]]]


class CycleError(ValueError):
    """Adding these edges would make the actions wait on each other forever."""


class ActionGraph:
    """Nodes are action ids; an edge ``consumer -> producer`` carries its ``kind``."""

    def __init__(self) -> None:
        self._out: _Adjacency = {}  # consumer -> producer -> kinds
        self._in: _Adjacency = {}  # producer -> consumer -> kinds

    def __contains__(self, action_id: object) -> bool:
        return action_id in self._out

    def add_node(self, action_id: str) -> None:
        """Register an action (no-op if known)."""
        if action_id not in self._out:
            self._out[action_id] = {}
            self._in[action_id] = {}

    def add_edge(self, consumer: str, producer: str, kind: str) -> None:
        """One more ``kind`` edge, unchecked (records already accepted, or a spawned child)."""
        self.add_node(consumer)
        self.add_node(producer)
        self._out[consumer].setdefault(producer, []).append(kind)
        self._in[producer].setdefault(consumer, []).append(kind)

    def remove_node(self, action_id: str) -> None:
        """Forget an action and every edge touching it (no-op if unknown)."""
        out = self._out.pop(action_id, None)
        inn = self._in.pop(action_id, None)
        for producer in out or ():
            if producer != action_id:
                self._in[producer].pop(action_id, None)
        for consumer in inn or ():
            if consumer != action_id:
                self._out[consumer].pop(action_id, None)

    def add_action(self, action_id: str, edges: list[tuple[str, str]]) -> None:
        """Add an action with ``(kind, producer_id)`` edges; refuse a cycle of blocking edges."""
        self.add_node(action_id)
        if not edges:
            return
        for kind, producer in edges:
            if kind in BLOCKING and (producer == action_id or self._reaches(producer, action_id)):
                raise CycleError(f"edge {kind} -> {producer} would make {action_id} wait on itself")
        for kind, producer in edges:
            self.add_edge(action_id, producer, kind)

    def _reaches(self, start: str, target: str) -> bool:
        """Whether ``start`` waits (through blocking edges) on ``target``: a BFS over blocking
        edges, skipped when nothing blocks on ``target`` (always so for a freshly started action)."""
        if start not in self._out or not any(
                k in BLOCKING for kinds in self._in[target].values() for k in kinds):
            return False
        seen = {start}
        todo = deque((start,))
        while todo:
            node = todo.popleft()
            for producer, kinds in self._out[node].items():
                if producer in seen or not any(k in BLOCKING for k in kinds):
                    continue
                if producer == target:
                    return True
                seen.add(producer)
                todo.append(producer)
        return False

    def producers(self, action_id: str, kinds: tuple[str, ...] = BLOCKING) -> list[tuple[str, str]]:
        """``(kind, producer)`` pairs this action waits on."""
        out = self._out.get(action_id)
        if not out:
            return []
        return [(k, v) for v, ks in out.items() for k in ks if k in kinds]

    def consumers(self, action_id: str, kinds: tuple[str, ...] = EDGE_KINDS) -> list[tuple[str, str]]:
        """``(kind, consumer)`` pairs that point at this action."""
        inn = self._in.get(action_id)
        if not inn:
            return []
        return [(k, u) for u, ks in inn.items() for k in ks if k in kinds]
