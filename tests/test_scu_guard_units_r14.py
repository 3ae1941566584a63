"""scu_guard round 14: numbers beside a count rule's noun that do not count what the rule bounds. A number that
picks out a whole set ("all nine kayaks were hosed down", "each of the nine kayaks") in a clause whose verb is not
the rule's, a number inside a date ("the 24 June outing"), a count spread over several of the units the rule
bounds one by one ("split between jetties 1, 2 and 3") or put in another place of the rule's kind ("the weaving
room" for "the dye room"), and "half-dozen" read as six. Real spaCy parses; sentences written for these tests,
none is in the labelled sets. Each cleared shape has a near miss that must still be rejected: the rule's own
verb, place or a count over the bound."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

KAYAKS = "No more than 4 kayaks may be launched from a single jetty."
LOOMS = "No more than 3 looms may run in the dye room at the same time."
ESSAYS = "A tutor may mark at most 30 essays per day."
HIVES = "No more than 8 hives may stand in one apiary."



def test_a_whole_set_told_of_another_doing_is_no_count() -> None:
    assert _v(KAYAKS, "All nine kayaks were hosed down after the regatta.") == OK
    assert _v(KAYAKS, "Each of the nine kayaks was hosed down after the regatta.") == OK
    assert _v(LOOMS, "All seven looms were oiled by the technician on Friday.") == OK
    assert _v(ESSAYS, "All 45 essays were returned to the students on Monday.") == OK


def test_the_rules_own_doing_still_breaks_it() -> None:
    assert _v(KAYAKS, "Nine kayaks were launched from the north jetty at dawn.") == REJECT
    assert _v(ESSAYS, "The tutor marked 45 essays on Monday.") == REJECT
    # "all" with the rule's own verb: the set's size is the count the rule bounds
    assert _v("Members may borrow at most 6 books at a time.",
              "All 9 books were borrowed by one member on the same afternoon.") == REJECT


def test_a_count_spread_over_the_rules_units_is_not_one_units_count() -> None:
    assert _v(KAYAKS, "The nine kayaks were split between jetties 1, 2 and 3 for the launch.") == OK
    assert _v(HIVES, "The twelve hives were divided among apiaries A and B.") == OK
    assert _v(HIVES, "Twelve hives stood in the orchard apiary through the winter.") == REJECT


def test_another_place_of_the_rules_kind() -> None:
    assert _v(LOOMS, "Seven looms ran in the weaving room all afternoon.") == OK
    assert _v(LOOMS, "Seven looms ran in the dye room all afternoon.") == REJECT


def test_half_dozen_is_six_and_a_date_counts_nothing() -> None:
    assert _v("No more than 6 tents may be pitched on a single terrace.",
              "The scouts brought a half-dozen tents to the terrace.") == OK
    assert _v("No more than 5 tents may be pitched on a single terrace.",
              "The scouts pitched a half-dozen tents on the upper terrace.") == REJECT
    assert _v("No more than 20 pupils may board the minibus.", "The 24 June outing went ahead with the usual driver.") == OK


def test_a_duration_tied_to_a_time_rule_by_its_unit_alone() -> None:
    """A relative time told of another event ("the crates were stacked the following morning") says nothing
    of the rule's event; the rule's own event at the same time still breaks it."""
    rule = "Fresh fish must be iced within 30 minutes of landing."
    assert _v(rule, "The empty crates were hosed out and stacked in the yard the following morning.") == OK
    assert _v(rule, "Volunteers repainted the harbour railings two days later.") == OK
    assert _v(rule, "The fish landed at 06:00 were iced the following morning.")[0] != OK
