"""Near misses read right (round 13): a business-day gap whose weekday is named with the later date, an
"after that" that points back to the event told first, and a listed name said of another sort of the rule's
subject. Each sentence is new; each pair shows the near miss kept OK and the breach still caught."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT, verdict

REPORT = "A written damage report must be filed within 2 working days of any delivery incident."


def test_working_days_count_on_the_weekday_named_with_the_later_date() -> None:
    # Friday 7 March to Tuesday 11 March is two working days, though four calendar days
    claim = "Her Friday-morning incident on 7 March was written up by Omar on Tuesday 11 March, four days later."
    assert verdict([REPORT], claim) == OK


def test_working_days_past_the_bound_are_still_caught() -> None:
    claim = "His Friday-morning incident on 7 March was written up by Omar on Thursday 13 March."
    assert verdict([REPORT], claim) == REJECT


GATE = "The loading ramp must be raised, and its raised light confirmed in the cab, before the truck pulls away."


def test_after_that_points_back_to_the_event_told_first() -> None:
    claim = "The ramp light showed raised in the cab at 14:02, and only after that did the driver pull away at 14:04."
    assert verdict([GATE], claim) == OK


def test_after_that_with_the_events_swapped_is_a_breach() -> None:
    claim = "The driver pulled away at 14:04, and only after that did the cab confirm the ramp light raised."
    assert verdict([GATE], claim) == REJECT


def test_after_a_clause_of_its_own_is_not_read_as_pointing_back() -> None:
    claim = "The truck pulled away after the ramp was raised and its light confirmed in the cab."
    assert verdict([GATE], claim) == OK


COAT = "Deck-coat mixes may use only RX 40-10 or RX 55-20 resin."


def test_a_name_said_of_another_sort_of_the_rules_subject_is_not_on_its_list() -> None:
    # the hull coat took the other resin: the rule speaks of the deck coat
    assert verdict([COAT], "The hull coat used RX 30-10 and the deck coat RX 55-20.") == OK
    assert verdict([COAT], "The hull coat used RX 30-10 resin.") == OK


def test_the_same_name_said_of_the_rules_own_subject_is_a_breach() -> None:
    assert verdict([COAT], "The deck coat used RX 30-10 and the hull coat RX 55-20.") == REJECT
    assert verdict([COAT], "The deck coat used RX 30-10 resin.") == REJECT
