"""scu_guard: prohibitions and duties read as one event (the rule's own verb done to the rule's own thing), and
the readings that tell a kept rule from a broken one by grammar. Real spaCy parses; sentences written for
these tests, none is in the labelled sets: the kept wording and the contradicting wording side by side."""

from __future__ import annotations

import pytest

from abilities.scu_guard.events import does_forbidden, drops_required, rule_event
from abilities.scu_guard.judge import read_claim
from tests.scu_guard_support import OK, REJECT, on_whole_claim, verdict

TOUCH = "Visitors must not touch the stalactites."
POST = "Sealed minutes must never be posted on the staff noticeboard."
LABEL = "Every hive must be inspected by the apiarist."
CARRY = "Every tractor must carry a charged extinguisher."


def _forbidden(rule: str, claim: str) -> bool:
    return on_whole_claim(does_forbidden, rule, claim)


def _dropped(rule: str, claim: str) -> bool:
    return on_whole_claim(drops_required, rule, claim)


def test_a_plain_rule_is_read_as_one_event() -> None:
    """Verb, thing with its modifiers, passive or not, doer, place phrases; a scoped rule is no plain event."""
    ev = rule_event(POST)
    assert ev is not None and ev.verb == "post" and ev.passive and ev.doer is None
    assert "seal" in ev.mods and ev.places  # "on the staff noticeboard": a place the claim must name
    assert rule_event(TOUCH) is not None and rule_event(TOUCH).doer == "visitor"
    assert rule_event("Visitors must not touch the stalactites unless a guide is present.") is None
    assert rule_event("Visitors must not touch or photograph the stalactites.") is None


@pytest.mark.parametrize(("rule", "claim", "want"), [
    # the rule's verb, the rule's thing as its object, by the rule's doer, told as a fact
    (TOUCH, "A visitor touched the stalactites.", True),
    (TOUCH, "A visitor did not touch the stalactites.", False),  # negated
    (TOUCH, "A visitor might touch the stalactites.", False),  # modal
    (TOUCH, "The guide said that a visitor touched the stalactites.", False),  # reported by another verb
    (TOUCH, "A visitor touched the plastic stalactites.", False),  # another kind of the thing
    (TOUCH, "A visitor photographed the stalactites.", False),  # another verb
    (POST, "The sealed minutes were posted on the staff noticeboard.", True),
    (POST, "The sealed minutes were posted on the intranet.", False),  # another place
    (POST, "The draft minutes were posted on the staff noticeboard.", False),  # another modifier
])
def test_the_forbidden_event_done_as_a_fact(rule: str, claim: str, want: bool) -> None:
    assert _forbidden(rule, claim) is want


@pytest.mark.parametrize(("rule", "claim", "want"), [
    (CARRY, "Tractor 4 carried an uncharged extinguisher.", True),  # the rule's own modifier denied
    (CARRY, "Tractor 4 carried a charged extinguisher.", False),
    (CARRY, "Tractor 4 did not carry a charged extinguisher.", True),  # the verb denied
    (CARRY, "Tractor 4 could not carry a charged extinguisher if the cab was full.", False),
    (LABEL, "Hive 3 was inspected by a volunteer.", False),  # not denied (the doer is another question)
])
def test_the_required_event_dropped_as_a_fact(rule: str, claim: str, want: bool) -> None:
    assert _dropped(rule, claim) is want


def test_plain_events_decide_the_verdict() -> None:
    """The forbidden event done as a fact rejects; the same thing in a modal or denied clause does not."""
    assert verdict([TOUCH], "On Tuesday a visitor touched the stalactites.") == REJECT
    assert verdict([TOUCH], "No visitor touched the stalactites on Tuesday.") == OK
    assert verdict([CARRY], "Tractor 4 carried an uncharged extinguisher all week.") == REJECT
    assert verdict([CARRY], "Tractor 4 carried a charged extinguisher all week.") == OK


def test_nothing_as_subject_denies_its_clause() -> None:
    """ "Nothing flammable was stored in the loft": nothing did the forbidden thing; "Something" did."""
    rule = "Flammable liquids must not be stored in the loft."
    kept = "Nothing flammable was stored in the loft over the winter."
    assert read_claim(kept).clauses[0].negated
    assert verdict([rule], kept) == OK
    assert not read_claim("Something flammable was stored in the loft.").clauses[0].negated


def test_a_denied_comparative_keeps_a_bound() -> None:
    """ "Nothing departed later than 06:00" for "must depart no later than 06:00" keeps the bound."""
    rule = "Ferries must depart no later than 06:00."
    assert verdict([rule], "Nothing departed later than the first ferry, which sailed at 06:00 sharp.") == OK


@pytest.mark.parametrize(("claim", "want"), [
    # "optional" said of another thing says nothing of the duty
    ("Each saddle came back with its cleaning log; the optional name tag was added only for the pony.", OK),
    # said of the duty itself, it drops it (firmly since round 11: the waiver is predicated of the rule's own words)
    ("Fitting checks are optional for saddles.", REJECT),
])
def test_optional_of_another_thing(claim: str, want: tuple[str, str]) -> None:
    assert verdict(["Saddles must be checked for fit at least every 60 days."], claim) == want


def test_a_coordinated_verb_shares_its_subjects_kind() -> None:
    """ "Head chef Ana Ruiz tasted and seasoned the soup": the second verb's doer is a head chef too, not a
    commis chef, so the doer's kind is read where the doer stands."""
    rule = "Commis chefs must never season the soup."
    assert verdict([rule], "Head chef Ana Ruiz tasted the stock and seasoned the soup for the evening.") == OK
    c = read_claim("Head chef Ana Ruiz tasted the stock and seasoned the soup.").clauses
    assert any("head" in c2.mods.get("chef", set()) for c2 in c if "season" in c2.verbs)
