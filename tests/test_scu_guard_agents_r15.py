"""scu_guard round 15: reserved-doer rules ("Only licensed riggers may ...") whose doer a record or the claim itself
shows to lack the rule's qualification. Five readings: a name is a name only where the claim writes it capitalised
("the relief officer D. Hale" names no person "relief officer"); a record that says a course or an assessment is
booked or scheduled says the credential is not held yet; a title that opens the sentence ("Steward Paolo served
...") is a description where a cited record uses the word as a common noun; a relative clause on the doer that
defers the credential ("who is partway through her rigging course"); and, for a doer so ruled out, the rule's act
told in WordNet's other words for it ("ran the lathe" for "operate") or by one of the rule's coordinated things
named in full. Real WordNet 3.0 data and real spaCy parses; sentences written for these tests, none is in the
labelled sets. Near misses that must stay OK: the qualified person doing it, the course already passed, the
trainee only watching, a record that gives the credential."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

LATHE = "Only certified machinists may operate the CNC lathe."
BAR = "Only the duty manager may serve alcohol to guests."
GLAZE = "Only licensed glaziers may fit laminated or toughened panes."
WINCH = "Only staff with a current winch certificate may run winch drills."
TOWER = "Tower cranes may be raised only by the lift supervisor."


def test_a_synonym_of_the_rules_verb_done_by_a_ruled_out_doer() -> None:
    # "ran" is a word of the first sense of "operate"; the record puts the doer outside the reserved role
    claim = "The CNC lathe was run by Oskar Lind, our summer intern, for the bracket order."
    assert _v(LATHE, claim, "Workshop staff: O. Lind (summer intern, uncertified).") == REJECT


def test_the_same_verb_done_by_the_qualified_person_or_to_another_thing_keeps_it() -> None:
    claim = "The CNC lathe was run by Oskar Lind for the bracket order."
    assert _v(LATHE, claim, "Workshop staff: O. Lind (certified machinist).") == OK
    # the intern ran the parts washer, not the lathe
    assert _v(LATHE, "Oskar Lind, our summer intern, ran the parts washer all morning.",
              "Workshop staff: O. Lind (summer intern, uncertified).") == OK


def test_a_record_that_says_the_assessment_is_booked() -> None:
    records = "Crew list: Mara Quinn - deckhand, winch certificate assessment booked for May."
    assert _v(WINCH, "Mara Quinn ran the winch drills on Tuesday.", records) == REJECT


def test_a_record_that_says_the_certificate_is_held_keeps_it() -> None:
    records = "Crew list: Mara Quinn - deckhand, winch certificate current to 2027."
    assert _v(WINCH, "Mara Quinn ran the winch drills on Tuesday.", records) == OK
    # held, and only the refresher is ahead
    records = "Crew list: Mara Quinn - deckhand, winch certificate current, refresher booked for May."
    assert _v(WINCH, "Mara Quinn ran the winch drills on Tuesday.", records) == OK


def test_a_title_that_opens_the_sentence_is_a_description() -> None:
    records = "Bar log 21:15: two pints served to table 6 by P. Ferro, steward. Duty manager on break."
    assert _v(BAR, "Steward Paolo served two pints to the guests at table 6 at 21:15.", records) == REJECT


def test_the_reserved_post_opening_the_sentence_keeps_it() -> None:
    records = "Bar log 21:15: two pints served to table 6. Duty manager: R. Ames."
    assert _v(BAR, "Manager Rhea Ames served two pints to the guests at table 6.", records) != REJECT


def test_a_role_named_before_a_name_is_not_the_name() -> None:
    # "lift supervisor" and "trainee" are written in lower case: no chunk reading of them as a person's name
    claim = "The tower crane was raised at 07:40 by trainee slinger Joe Marsh while the lift supervisor was away."
    records = "Lift log 07:40: crane TC-2 raised by J. Marsh (trainee slinger). Lift supervisor off site."
    assert _v(TOWER, claim, records) == REJECT


def test_one_coordinated_thing_named_in_full() -> None:
    claim = "The toughened panes in the shop front were fitted by Len Akers, our handyman."
    assert _v(GLAZE, claim, "Job sheet: panes fitted by L. Akers (handyman).") == REJECT
    assert _v(GLAZE, "The toughened panes in the shop front were fitted by Len Akers.",
              "Job sheet: panes fitted by L. Akers (licensed glazier).") == OK


def test_a_relative_clause_that_defers_the_credential() -> None:
    rule = "Only qualified divers may inspect the dam intake."
    claim = "The dam intake was inspected by Nils Berg, who is partway through his diving qualification."
    assert _v(rule, claim) == REJECT
    booked = "The dam intake was inspected by Nils Berg, whose diving qualification course is booked for June."
    assert _v(rule, booked) == REJECT
    # the course done: who he is now rests on the record (none here), never a sure break
    done = "The dam intake was inspected by Nils Berg, who completed his diving qualification in 2023."
    assert _v(rule, done) != REJECT
    refresher = "The dam intake was inspected by Nils Berg, whose diving qualification refresher is booked for June."
    assert _v(rule, refresher) != REJECT


def test_the_trainee_only_watched() -> None:
    claim = "Oskar Lind operated the CNC lathe while Tim Hale, our apprentice, watched."
    records = "Workshop staff: O. Lind (certified machinist); T. Hale (apprentice)."
    assert _v(LATHE, claim, records) == OK


def test_the_ruled_out_doer_did_another_kind_of_the_thing() -> None:
    records = "Crew list: Mara Quinn - deckhand, winch certificate assessment booked for May."
    claim = "Mara Quinn ran the rope-splicing drills on Tuesday."
    assert _v(WINCH, claim, records) == OK


def test_a_booked_event_that_is_no_course_of_the_doer() -> None:
    rule = "Every boiler must be inspected by the insurer before it is fired."
    claim = "The Elm Street boiler stays cold until the insurer's inspection next week."
    assert _v(rule, claim, "Insurer portal: the inspection for Elm Street is booked for next Tuesday.") != REJECT
