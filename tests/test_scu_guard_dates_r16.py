"""scu_guard round 16: calendar and clock windows read of the rule's own event. Three readings: a rule whose verb
only permits or places its event ("Salmon angling is permitted ... only between", "No hunting is allowed ...",
"The sculpture garden is open to visitors only from") is told by the verb its noun of a doing is formed from
("angled", "hunted") or by the state's own verb ("opened"); a time of day is said of the rule's event as a date
is (the rule's verb, its thing in the sentence, no other time on that verb); and the calendar's fixed and
movable named days beyond Christmas and Easter ("Bastille Day", "St Andrew's Day", "Shrove Tuesday"). Real
WordNet 3.0 data and real spaCy parses; sentences written for these tests, none is in the labelled sets. Near
misses that must not be rejected: the event on an allowed day or time, another event on the forbidden day, the
event denied, a planned event that was called off."""

from __future__ import annotations

from abilities.scu_guard import calendar_days, event_words
from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

ANGLING = "Salmon angling is permitted on the upper beat only between 1 April and 30 September."
HUNTING = "No hunting is allowed in the nature reserve between 1 February and 31 July."
GARDEN = "The sculpture garden is open to visitors only from 1 April to 31 October."
HARVEST = "Grape harvesting is permitted in the estate vineyard only between 1 September and 31 October."
DRILLING = "Drilling is prohibited at the quarry face between 1 December and 28 February."
ORDERS = "Food orders must be taken before 22:00."
BELLS = "Bell practice in the tower may be held only between 1 September and 31 May."


def test_the_event_noun_gives_the_verb_that_tells_it() -> None:
    assert event_words.event_keys(ANGLING) == {"angl"}  # "angling" -> angle
    assert event_words.event_keys(GARDEN) == {"open"}
    # a rule whose verb names its event itself needs no other word for it
    assert event_words.event_keys("Hedges may be trimmed only between 1 September and 28 February.") == frozenset()
    # a noun of a thing ("plant") is no doing
    assert not event_words.event_nouns("The plant is closed between 1 December and 31 January.")


def test_a_doing_told_by_the_verb_of_its_noun_on_a_forbidden_day() -> None:
    assert _v(ANGLING, "Two guests angled the upper beat for salmon on 12 October.") == REJECT
    assert _v(HUNTING, "Three men hunted the nature reserve on 20 March.") == REJECT
    assert _v(HARVEST, "We harvested the estate vineyard's Riesling on 4 November.") == REJECT
    assert _v(DRILLING, "The crew drilled the quarry face on 10 January.") == REJECT


def test_the_same_doing_on_an_allowed_day_or_denied_keeps_it() -> None:
    assert _v(ANGLING, "Two guests angled the upper beat for salmon on 12 August.") == OK
    assert _v(HUNTING, "Three men hunted the nature reserve on 20 September.") == OK
    assert _v(HARVEST, "We harvested the estate vineyard's Riesling on 4 October.") == OK
    assert _v(DRILLING, "The crew did not drill the quarry face on 10 January.") == OK


def test_another_event_on_the_forbidden_day_is_no_breach() -> None:
    assert _v(ANGLING, "The upper beat was walked by the bailiff on 12 October; nobody fished.") != REJECT
    assert _v(HUNTING, "The warden surveyed the nature reserve on 20 March for nesting birds.") != REJECT
    assert _v(HARVEST, "The estate vineyard was pruned on 4 November after the last pick.") != REJECT
    assert _v(DRILLING, "The crew drilled the quarry face on 10 March and again on 15 November.") != REJECT


def test_a_state_told_by_its_own_verb() -> None:
    assert _v(GARDEN, "The sculpture garden opened to visitors on Saturday 22 March.") == REJECT
    assert _v(GARDEN, "The sculpture garden opened to visitors on Saturday 5 April.") == OK
    assert _v(GARDEN, "The gardeners mulched the sculpture garden beds on 22 March, before opening day.") != REJECT


def test_a_time_of_day_said_of_the_rules_event() -> None:
    assert _v(ORDERS, "On the quiz night the kitchen took food orders up to 22:40.") == REJECT
    assert _v(ORDERS, "On the quiz night the kitchen took food orders up to 21:40.") == OK


def test_named_days_of_the_calendar() -> None:
    assert calendar_days.fixed_day("April Fools’ Day") == 401
    assert calendar_days.fixed_day("St. Andrew's Day") == 1130
    assert _v(BELLS, "The ringers held bell practice in the tower on Bastille Day 2025.") == REJECT
    assert _v(BELLS, "The ringers held bell practice in the tower on St Andrew's Day 2025.") == OK
    # a plan for the forbidden day, called off: no breach
    assert _v(BELLS, "The bell practice in the tower planned for Bastille Day was cancelled; the ringers met on "
                     "2 September.") != REJECT
