"""scu_guard round 17: two readings that keep right claims OK. An action carried on "until" a point, followed by
"only then" / "then" before the other event, puts that other event last, whatever the verb of the first
("scrubbed until ..., and only then was the varnish applied"): "until" there marks no state held off. A bound
scoped to one kind of a thing ("synthetic hair", "outdoor pools") says nothing of a claim whose thing carries
another modifier of the same noun ("the human-hair unit", "the indoor pool"). Real spaCy parses; sentences
written for these tests, none is in the labelled sets. Breaks that stay REJECTed: the other event told first,
and an amount over the bound on the rule's own kind."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

STRIPPED = "Boards are stripped before the varnish goes on."
POOLS = "Outdoor pools are never heated above 28 °C."
OVENS = "Gas ovens in the bakery never run above 250 °C."


def test_an_action_until_a_point_and_only_then_the_other_event_is_not_rejected() -> None:
    assert _v(STRIPPED, "The old paint was stripped from the board until bare wood showed, and only then was the "
                        "varnish brushed on.") == OK
    assert _v(STRIPPED, "The board was stripped with a heat gun until the wood was bare, and then the varnish "
                        "went on.")[0] != "REJECT"


def test_the_other_event_told_first_is_still_rejected() -> None:
    assert _v(STRIPPED, "The varnish went on first, and the board was stripped the following morning.") == REJECT


def test_another_kind_of_the_rules_thing_is_outside_its_scope() -> None:
    assert _v(POOLS, "The indoor pool was heated to 31 °C for the swim club.") == OK


def test_the_rules_own_kind_over_the_bound_is_still_rejected() -> None:
    assert _v(POOLS, "The outdoor pool was heated to 31 °C for the swim club.") == REJECT
    assert _v(OVENS, "The gas oven in the bakery ran at 270 °C all morning.") == REJECT
    assert _v(OVENS, "The new gas oven in the bakery ran at 270 °C all morning.") == REJECT
