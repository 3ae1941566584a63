"""scu_guard round 14: a doing forbidden to a class of person ("Trainees must not operate the chainsaw", "Casual
staff must not drive the minibus", "Swimmers under 16 must not use the diving board"), done by a person the claim
names and a cited record puts in that class. Real WordNet 3.0 data and real spaCy parses; sentences written for
these tests, none is in the labelled sets. Each break has near misses that must stay OK: the record puts the person
in another class, denies the class word, gives an age at the bound; the claim does another act or the act to
another thing, or tells it as no fact."""

from __future__ import annotations

from abilities.scu_guard.classes import class_rule
from abilities.scu_guard.forms import understand
from abilities.scu_guard.roles import describes
from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

CHAINSAW = "Trainees must not operate the chainsaw."
MINIBUS = "Casual staff must not drive the minibus."
DIVING = "Swimmers under 16 must not use the diving board."
KILN = "No student may unload the kiln."

ROSTER = {"c1": "Crew list: Dara Quinn — trainee (week 4). Felix Moreau — lead arborist. Ines Kaur — former trainee, "
                "now climber."}
DRIVERS = {"c1": "Staff register: Pia Lund — casual (weekend bar). Omar Reyes — permanent, driver grade 1."}
POOL = {"c1": "Session sheet: Noor Ahmadi, age 14; Tess Whitfield, age 16."}
POTTERY = {"c1": "Studio list: Hamid Sultani (student, evening class); June Ferris (technician)."}



def test_the_rule_reads_its_class_and_its_event() -> None:
    """The class is the subject's person noun with its narrowing words or an age bound; a group noun alone
    ("Staff must not ...") names everyone, and a clause narrowing the class is not read here."""
    r = class_rule(CHAINSAW)
    assert r is not None and r.noun == "traine" and not r.quals and r.age_below is None
    m = class_rule(MINIBUS)
    assert m is not None and m.quals == frozenset({"casual"})
    d = class_rule(DIVING)
    assert d is not None and d.age_below == 16.0
    assert class_rule(KILN) is not None
    assert class_rule("Staff must not drive the minibus.") is None
    assert class_rule("Trainees who have not passed the assessment must not operate the chainsaw.") is None
    assert class_rule("Trainees must not operate the chainsaw when working alone.") is None


def test_a_named_doer_the_record_puts_in_the_class_breaks_the_rule() -> None:
    assert _v(CHAINSAW, "Dara Quinn operated the chainsaw to fell the leaning birch.", ROSTER) == REJECT
    assert _v(CHAINSAW, "The chainsaw was operated by Dara Quinn at the north gate.", ROSTER) == REJECT
    assert _v(MINIBUS, "Pia Lund drove the minibus to the regatta on Sunday.", DRIVERS) == REJECT
    assert _v(KILN, "Hamid Sultani unloaded the kiln on Thursday night.", POTTERY) == REJECT


def test_an_age_below_the_bound_puts_the_doer_in_the_class() -> None:
    assert _v(DIVING, "Noor Ahmadi used the diving board during the Saturday session.", POOL) == REJECT


def test_the_claims_own_description_counts_with_the_record() -> None:
    assert _v(CHAINSAW, "Dara Quinn, a trainee in her first month, operated the chainsaw.",
              {"c1": "Job sheet: birch felled at the north gate."}) == REJECT


def test_a_record_that_puts_the_doer_elsewhere_keeps_the_rule() -> None:
    """Another class, the class word denied, an age at the bound: nothing is found."""
    assert _v(MINIBUS, "Omar Reyes drove the minibus to the regatta on Sunday.", DRIVERS) == OK
    assert _v(DIVING, "Tess Whitfield used the diving board during the Saturday session.", POOL) == OK
    assert _v(KILN, "June Ferris unloaded the kiln on Thursday night.", POTTERY) == OK
    assert _v(CHAINSAW, "Ines Kaur operated the chainsaw to fell the leaning birch.", ROSTER) != REJECT


def test_another_act_or_thing_or_no_fact_keeps_the_rule() -> None:
    assert _v(MINIBUS, "Pia Lund washed the minibus on Sunday.", DRIVERS) == OK
    assert _v(MINIBUS, "Pia Lund drove the van to the regatta on Sunday.", DRIVERS) == OK
    # the doer is under the bound, so the age reading may still hold it for review; this reading finds nothing
    assert _v(DIVING, "Noor Ahmadi used the shallow slide during the Saturday session.", POOL) != REJECT
    assert _v(MINIBUS, "Pia Lund did not drive the minibus on Sunday.", DRIVERS) == OK


def test_a_course_booked_is_not_yet_held() -> None:
    """A roster's "course booked for May" says the credential is not yet held, like "pending"."""
    form = understand("Only staff who have completed the forklift course may drive the forklift.")
    assert form is not None
    assert describes(form, "forklift course booked for 12 May") is False
