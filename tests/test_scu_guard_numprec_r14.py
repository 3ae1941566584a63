"""scu_guard round 14: amounts and gaps that measure something else than the rule bounds. A date told as
earlier than the one before it ("ten days after the 10 May test") leaves the chain's latest event where it
was; a day inside a stretch the claim names ("every Tuesday through October ... the 28 October visit") is no
second event; what lasts "until" the rule's reference must be the rule's own event or thing. Real spaCy
parses; sentences written for these tests, none is in the labelled sets. Each near miss has a plain breach of
the same rule that must still be rejected."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT, verdict

OTHER = "Records must be kept for 2 years."
DETECTORS = "The smoke detectors must be tested at least once every 14 days."
LEAK = "A reported roof leak must be repaired within 2 working days."
BOARDING = "Boarding must close at least 10 minutes before the ferry departs."


def _v(rule: str, claim: str) -> tuple[str, str]:
    return verdict([rule, OTHER], claim)


def test_a_date_told_as_earlier_keeps_the_chain_in_order() -> None:
    assert _v(DETECTORS, "The detectors were last tested on 20 May, ten days after the 10 May test, "
                         "and the next test is due on 3 June.") == OK
    assert _v(DETECTORS, "The detectors were last tested on 20 May, ten days after the 10 May test, "
                         "and the next test is due on 20 June.") == REJECT
    assert _v(DETECTORS, "The detectors were tested on 10 May and tested again on 20 June.") == REJECT


def test_a_day_inside_a_named_stretch_is_no_second_event() -> None:
    assert _v(LEAK, "The gutters were cleared every Tuesday through October and the roof was patched at the "
                    "28 October visit.") == OK
    assert _v(LEAK, "The leak was reported on Monday 6 October 2025 and repaired on Friday 10 October 2025.") == REJECT


def test_what_lasts_until_the_reference_must_be_the_rules_own() -> None:
    assert _v(BOARDING, "The cars were parked on the upper deck on Friday morning and stayed there until they "
                        "were driven off after the ferry departed.") == OK
    assert _v(BOARDING, "Boarding stayed open right up to the moment the ferry departed.") == REJECT


CAKES = "Wedding cakes must be ordered at least 10 days before the wedding."


def test_a_lead_before_another_event_is_not_the_rules_lead() -> None:
    """A short time before an event the rule does not count from, told of a doing that names nothing of the
    rule's thing or action, is no reading; the rule's own doing (or its thing) before another word for the
    reference still is."""
    assert _v(CAKES, "The cake box was sealed at 11:40, five minutes before the van left the bakery.") != REJECT
    assert _v(CAKES, "The couple ordered the cake four days before the wedding.") == REJECT
    assert _v(CAKES, "The couple ordered the cake four days before the ceremony.") == REJECT
    assert _v("Tenants must be notified at least 48 hours before an inspection.",
              "The tenant got a letter a day before the inspector came.") == REJECT


FILTERS = "Pool-hall water filters must be backwashed at least every 7 days."
FLUES = "North-wing boiler flues must be swept at least every 90 days."


def test_an_amount_of_another_thing_of_the_rules_kind_is_no_breach() -> None:
    """The rule's noun named by a word the rule shares, itself named otherwise ("the spa hall's filters" of
    "pool-hall filters", "the south wing's flues" of "north-wing flues"), is another thing of its kind; the
    rule's own thing, with its words or fewer, and another modifier alone ("the server room" of "guest
    rooms") still break it."""
    assert _v(FILTERS, "The spa hall's filters are only backwashed monthly, while the pool-hall ones are done "
                       "every Sunday.") != REJECT
    assert _v(FLUES, "The south wing's boiler flues are swept every six months.") != REJECT
    assert _v(FILTERS, "The pool hall's filters are only backwashed monthly.") == REJECT
    assert _v(FILTERS, "The water filters are only backwashed monthly.") == REJECT
    assert _v(FLUES, "The north wing's boiler flues are swept every six months.") == REJECT
    assert _v(FLUES, "The boiler flues are swept every six months.") == REJECT
    assert _v("Guest rooms must be kept below 24 °C.", "The server room ran at 30 °C.") == REJECT


def test_feet_and_bare_inches_are_one_length() -> None:
    """ "3 ft 1 in" is 37 inches: the inches written "in", like the preposition, still count; a preposition
    after feet ("3 ft in the shed") is none."""
    rails = "Stair handrails must be fixed at least 900 mm above the tread."
    hedges = "Hedges along the footpath must be kept at most 1.2 m high."
    assert _v(rails, "The handrail on the east stair sits 3 ft 1 in above the treads.") == OK
    assert _v(rails, "The handrail on the east stair sits 2 ft 9 in above the treads.") == REJECT
    assert _v(hedges, "The footpath hedge was trimmed to 3 ft 10 in.") == OK
    assert _v(hedges, "The footpath hedge was left at 4 ft 3 in.") == REJECT
