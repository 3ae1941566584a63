"""scu_guard round 15, two readings. First, a count the claim states as a norm of its own ("A kayak may carry up to 3 paddlers" against
"Each kayak may carry at most 2 paddlers"). Such a count is not matched by its noun alone: the claim permits,
calls enough or needs a number of the rule's own things, named with every modifier the rule gives them, for the
rule's own verb or subject. Sentences written for these tests, none is in the labelled sets; real spaCy parses.
Near misses must not be rejected: a second number in the sentence, a supposition ("could", "if"), another kind of
the thing ("holiday days" for "study days"), another event ("sit around the campfire"), a denied norm, a count
inside the bound, a plain report of a count matched by its noun alone.

Second, a rule keeping two acts from one doer ("The same buyer may not both raise a purchase order and approve its
payment"): a claim that names another person for each act keeps it, and is no reason for review. One person
doing both, a pronoun or a role noun for a doer, a reflexive, or one name said twice stays for review."""

from __future__ import annotations

from abilities.scu_guard.combined import forms_for, readings
from tests.scu_guard_support import OK, OTHER_RULE, REJECT
from tests.scu_guard_support import verdict_beside as _v

KAYAK = "Each kayak may carry at most 2 paddlers."
LIBRARY = "No more than 4 library books may be borrowed per member."
GREENHOUSE = "Each greenhouse may hold at most 300 seedlings."
LOANS = "Loan applications must include at least 3 payslips."
TENT = "Each tent may sleep at most 4 scouts."
STUDY = "Apprentices may take at most 10 study days per year."
SCALE = "The same technician may not both calibrate a scale and certify its readings."
ORDER = "The same buyer may not both raise a purchase order and approve its payment."
STORY = "The same editor may not both write a story and approve its publication."
DOSE = "The same nurse may not both prepare a chemotherapy dose and check it."


def _source(rule: str, claim: str) -> list[str]:
    """The sources the guard gives its findings on ``claim`` against ``rule`` beside another rule."""
    rules = [rule, OTHER_RULE]
    return sorted(readings(claim, rules, forms_for(rules)[0]).source.values())


def test_a_permitted_count_beyond_the_bound_breaks_it() -> None:
    assert _v(KAYAK, "A kayak may carry up to 3 paddlers on the lake.") == REJECT
    assert _v(GREENHOUSE, "A greenhouse can hold up to 450 seedlings.") == REJECT
    assert _v(TENT, "Each tent may sleep up to 6 scouts.") == REJECT


def test_a_count_called_fine_or_needed_breaks_it() -> None:
    assert _v(LIBRARY, "Up to 6 library books per member are fine.") == REJECT
    assert _v(LOANS, "Loan applications need at least 2 payslips.") == REJECT
    assert _v(STUDY, "Apprentices may take up to 14 study days per year.") == REJECT


def test_the_finding_is_the_count_read_by_its_norm() -> None:
    assert _source(TENT, "Each tent may sleep up to 6 scouts.") == ["typed numeric_bound/count both"]
    assert _source(TENT, "The tent slept 6 scouts.") != ["typed numeric_bound/count both"]


def test_a_permitted_count_inside_the_bound_keeps_it() -> None:
    assert _v(KAYAK, "A kayak may carry up to 2 paddlers on the lake.") == OK
    assert _v(LOANS, "Loan applications need at least 4 payslips.") == OK


def test_a_denied_norm_keeps_it() -> None:
    assert _v(TENT, "No tent may sleep 6 scouts.") == OK


def test_a_supposition_or_a_second_number_is_no_norm() -> None:
    assert _v(GREENHOUSE, "If the heaters work, a greenhouse could hold up to 450 seedlings.") != REJECT
    assert _v(STUDY, "Apprentices may take up to 14 study days per year if 4 of them are unpaid.") != REJECT


def test_a_norm_someone_said_or_asked_about_is_not_the_claims_own() -> None:
    assert _v(GREENHOUSE, "The old policy said a greenhouse may hold up to 450 seedlings.") != REJECT
    assert _v(GREENHOUSE, "Can a greenhouse hold up to 450 seedlings?") != REJECT


def test_another_kind_of_the_thing_or_another_event_is_no_norm_of_the_rule() -> None:
    assert _v(STUDY, "Apprentices may take up to 14 holiday days per year.") != REJECT
    assert _v(LIBRARY, "Up to 6 reference books per member are fine in the reading room.") != REJECT
    assert _v(TENT, "Up to 6 scouts may sit around the campfire.") != REJECT


def test_a_plain_report_matched_by_its_noun_alone_stays_for_review() -> None:
    assert _v(KAYAK, "The kayak carried 3 paddlers across the lake.") != REJECT


def test_two_named_people_for_the_two_acts_keep_the_rule() -> None:
    assert _v(ORDER, "Lena Vogt raised purchase order 118 and Omar Haddad approved its payment.") == OK
    assert _v(STORY, "Jon Bell wrote the harbour story and Ada Kim approved its publication.") == OK
    assert _v(SCALE, "Abel Moss calibrated scale 7, and its readings were certified by Rita Cho on Monday.") == OK
    assert _v(DOSE, "Nurse Okoye prepared the dose for bed 4 and Nurse Varga checked it.") == OK


def test_one_doer_for_both_acts_is_not_cleared() -> None:
    assert _v(SCALE, "Abel Moss calibrated scale 7 and certified its readings.") != OK
    assert _v(STORY, "Jon Bell wrote the harbour story and approved its publication.") != OK
    assert _v(DOSE, "Nurse Okoye prepared the dose for bed 4 and then checked it.") != OK


def test_a_name_said_twice_a_pronoun_or_a_role_noun_is_not_cleared() -> None:
    assert _v(SCALE, "Abel Moss calibrated scale 7, and the readings were certified by Moss on Monday.") != OK
    assert _v(ORDER, "Lena Vogt raised purchase order 118, and she approved its payment herself.") != OK
    assert _v(ORDER, "Lena Vogt raised purchase order 118 and the finance manager approved its payment.") != OK
