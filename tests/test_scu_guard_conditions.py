"""Conditional rules: the condition read from a when-clause the parser hangs as a clausal complement, a level
"reached", the stopped event told as having run its course, an amount that measures another rule's condition,
a relative time against a rule that counts from a named event, and conditions the claim shows unmet. Real parses
(spaCy), sentences written for these tests: the contradicting wording and a kept wording beside it."""

from __future__ import annotations

from abilities.scu_guard.conditions import condition_denied, trigger_unmet
from abilities.scu_guard.forms import understand
from tests.scu_guard_support import OK, REJECT, verdict

KITES = "Kite launches must be suspended when sustained wind exceeds 40 km/h."
SMOKE = "If the smoke index reaches 150 µg/m³, outdoor drills must be halted."


def test_when_clause_after_a_passive_duty_is_a_trigger() -> None:
    form = understand(KITES)
    assert form is not None and form.quantity is None
    assert form.trigger is not None and form.trigger.low is not None and form.trigger.strict


def test_a_level_reached_switches_the_rule_on_at_and_above() -> None:
    form = understand("If the river reaches 3 m, the ferry must be halted.")
    assert form is not None and form.trigger is not None
    assert form.trigger.low == 3.0 and form.trigger.high is None


def test_stopped_event_run_its_course_breaks_the_rule() -> None:
    assert verdict([KITES], "The kite launch was completed while the mast showed a sustained 28 knots.") == REJECT
    assert verdict([KITES], "The kite launch was suspended while the mast showed a sustained 28 knots.") == OK
    assert verdict([KITES], "The kite launch was completed while the mast showed a sustained 15 knots.") == OK


def test_level_reached_in_other_units() -> None:
    rules = ["If the cabin temperature reaches 30 °C, boarding must be paused."]
    assert verdict(rules, "Even after the cabin climbed to 88 °F, the crew kept boarding going.") == REJECT
    assert verdict(rules, "The cabin climbed to 80 °F and the crew kept boarding going.") == OK


def test_amounts_on_both_sides_of_the_condition_are_no_ground_to_reject() -> None:
    claim = "The launch went ahead in a 20 km/h breeze that gusted to 50 km/h."
    assert verdict([KITES], claim) != REJECT


def test_parallel_amounts_each_stand_for_their_own_place() -> None:
    rules = ["If visibility is below 2 kilometres, the crossing must be cancelled."]
    claim = "Visibility was 6 km at the north pier and 1 km at the south pier, and both crossings went ahead."
    assert verdict(rules, claim) == REJECT


def test_amount_of_another_rules_condition_is_not_this_bound() -> None:
    rules = ["Drones must not fly above 120 metres.",
             "If visibility is below 3 kilometres, the drone survey must be called off."]
    assert verdict(rules, "With visibility only 2 km, the drone survey was called off for the day.") != REJECT
    assert verdict(rules, "The drone climbed to 2 km before the pilot noticed.") == REJECT


def test_relative_time_against_a_rule_counting_from_an_unnamed_event() -> None:
    rules = ["No cattle may graze a paddock within 14 days after a herbicide application."]
    kept = "The fence in paddock 3 was mended, so the cattle grazed it the next morning."
    assert verdict(rules, kept) == OK
    broken = "The paddock was sprayed with herbicide, and the cattle grazed it the next morning."
    assert verdict(rules, broken) != OK


def test_state_condition_denied_by_the_claim_settles_it() -> None:
    rule = "If blight is found on a plant, that plant must be destroyed within 24 hours."
    form = understand(rule)
    assert form is not None
    assert condition_denied(form, "The spots on row 4 were frost damage, not blight, so the plants stayed two days.")
    assert not condition_denied(form, "Blight was found on row 4, and the plants stayed two days.")
    assert not condition_denied(form, "No blight on row 3, but blight on row 4; the plants stayed two days.")


def test_trigger_amounts_all_outside_settle_it() -> None:
    form = understand("Swimmers under 12 may swim only when a lifeguard is on the deck.")
    assert form is not None and form.trigger is not None
    assert trigger_unmet(form, "Fourteen-year-old Sam and fifteen-year-old Ana swam with no lifeguard present.")
    assert not trigger_unmet(form, "Ten-year-old Sam and fifteen-year-old Ana swam with no lifeguard present.")


def test_smoke_index_reached() -> None:
    form = understand(SMOKE)
    assert form is not None and (form.trigger is None or form.trigger.high is None)
