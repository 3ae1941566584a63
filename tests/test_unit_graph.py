"""The action dependency graph (orchestrator/graph.py): cycle refusal, producers and consumers."""

from __future__ import annotations

import pytest

from orchestrator.graph import BLOCKING, EDGE_KINDS, ActionGraph, CycleError


def chain(n: int, kind: str = "dependsOn") -> ActionGraph:
    """a0 <- a1 <- ... <- a(n-1): each action depends on the previous one."""
    g = ActionGraph()
    g.add_action("a0", [])
    for i in range(1, n):
        g.add_action(f"a{i}", [(kind, f"a{i - 1}")])
    return g


def test_kinds():
    assert EDGE_KINDS == ("dependsOn", "waitFor", "bind", "notify")
    assert BLOCKING == ("dependsOn", "waitFor", "bind")


@pytest.mark.parametrize("kind", BLOCKING)
def test_self_edge_is_a_cycle(kind):
    g = ActionGraph()
    with pytest.raises(CycleError, match="wait on itself"):
        g.add_action("a", [(kind, "a")])
    assert g.producers("a") == []  # nothing of the refused action's edges was added


def test_notify_self_edge_is_not_blocking():
    g = ActionGraph()
    g.add_action("a", [("notify", "a")])
    assert g.producers("a", ("notify",)) == [("notify", "a")]


@pytest.mark.parametrize("kind", BLOCKING)
@pytest.mark.parametrize("length", [2, 3, 10])
def test_longer_cycles_are_refused(kind, length):
    # actions are added one by one; the only way to close a cycle is re-adding an existing id
    # with an edge to its own descendant (the scheduler re-adds on recovery/spawn paths)
    g = chain(length, kind)
    with pytest.raises(CycleError):
        g.add_action("a0", [(kind, f"a{length - 1}")])
    assert g.producers("a0") == []


def test_cycle_through_mixed_blocking_kinds():
    g = ActionGraph()
    g.add_action("a", [])
    g.add_action("b", [("dependsOn", "a")])
    g.add_action("c", [("waitFor", "b")])
    g.add_action("d", [("bind", "c")])
    with pytest.raises(CycleError):
        g.add_action("a", [("bind", "d")])


def test_notify_edges_do_not_make_cycles():
    g = ActionGraph()
    g.add_action("a", [])
    g.add_action("b", [("notify", "a")])
    g.add_action("a", [("dependsOn", "b")])  # b -> a is notify only: no blocking cycle
    assert g.producers("a") == [("dependsOn", "b")]


def test_one_bad_edge_refuses_all_edges_of_the_call():
    g = chain(3)
    g.add_action("x", [])
    with pytest.raises(CycleError):
        g.add_action("a0", [("waitFor", "x"), ("dependsOn", "a2")])
    assert g.producers("a0") == []


def test_diamond_is_not_a_cycle():
    g = ActionGraph()
    g.add_action("root", [])
    g.add_action("l", [("dependsOn", "root")])
    g.add_action("r", [("bind", "root")])
    g.add_action("top", [("dependsOn", "l"), ("waitFor", "r")])
    assert sorted(g.producers("top")) == [("dependsOn", "l"), ("waitFor", "r")]
    assert sorted(g.consumers("root")) == [("bind", "r"), ("dependsOn", "l")]


def test_producers_and_consumers_filter_by_kind():
    g = ActionGraph()
    g.add_action("p", [])
    g.add_action("c", [("dependsOn", "p"), ("bind", "p"), ("notify", "p")])
    assert sorted(g.producers("c")) == [("bind", "p"), ("dependsOn", "p")]  # default: blocking only
    assert g.producers("c", ("notify",)) == [("notify", "p")]
    assert sorted(g.producers("c", EDGE_KINDS)) == [("bind", "p"), ("dependsOn", "p"), ("notify", "p")]
    assert sorted(g.consumers("p")) == [("bind", "c"), ("dependsOn", "c"), ("notify", "c")]
    assert g.consumers("p", ("bind",)) == [("bind", "c")]
    assert g.producers("p") == [] and g.consumers("c") == []


def test_edge_to_unknown_producer_creates_the_node():
    # unknown ids are refused by the scheduler (-32004) before the graph sees them; the graph
    # itself only guards cycles
    g = ActionGraph()
    g.add_action("c", [("waitFor", "ghost")])
    assert g.consumers("ghost") == [("waitFor", "c")]


def test_remove_node_drops_its_edges_both_ways():
    g = chain(3)
    g.add_action("n", [("notify", "a1")])
    g.remove_node("a1")  # a refused start leaves nothing behind
    assert "a1" not in g
    assert g.consumers("a0") == [] and g.producers("a2") == [] and g.producers("n", EDGE_KINDS) == []
    g.add_action("a0", [("dependsOn", "a2")])  # the cycle through a1 is gone with it
    assert g.producers("a0") == [("dependsOn", "a2")]
    g.remove_node("ghost")  # unknown: nothing to do


def test_add_edge_is_unchecked_and_keeps_repeats():
    # recovered records and spawned children are linked as recorded, without a cycle check
    g = ActionGraph()
    g.add_edge("a", "b", "dependsOn")
    g.add_edge("a", "b", "dependsOn")
    g.add_edge("b", "a", "waitFor")
    assert g.producers("a") == [("dependsOn", "b"), ("dependsOn", "b")]
    assert g.consumers("a") == [("waitFor", "b")]
    with pytest.raises(CycleError):
        g.add_action("c", [("bind", "c")])
    assert "c" in g and g.producers("c") == []


def test_long_chain_cycle_check_walks_only_blocking_edges():
    g = chain(2000)  # each add finds no consumer of the new node: no walk at all
    g.add_action("n", [("notify", "a1999")])
    with pytest.raises(CycleError):
        g.add_action("a0", [("waitFor", "a1999")])
    g.add_action("a1999", [("notify", "n")])  # n -> a1999 is notify only
