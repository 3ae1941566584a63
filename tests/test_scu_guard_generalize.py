"""scu_guard general mechanisms added after held-out set v5: conditional (threshold -> rule) constraints,
category and phrase folding, pronoun objects, ordered kinds, digit commas. Sentences differ from the sets."""

from __future__ import annotations

import pytest

from abilities.scu_guard.detect import find_contradictions
from abilities.scu_guard.rules import parse_rule

LOAN = "Loans above 20,000 EUR require a credit committee review."
FREEZE = "Paint must not be applied when the humidity is above 85 %."
LADDER = "Ladders taller than 3 meters require a spotter."


def rules_fired(claim: str, constraints: list[str]) -> list[str]:
    return [f.rule for f in find_contradictions(claim, constraints)]


def test_conditional_rule_reads_trigger_and_consequence() -> None:
    rule = parse_rule(LOAN)
    assert rule.kind == "conditional"
    assert rule.bound is not None and rule.bound.form == "floor" and rule.bound.lo > 20000
    assert rule.then is not None and rule.then.kind == "require" and "committe" in rule.then.obj
    trailing = parse_rule(FREEZE)
    assert trailing.kind == "conditional" and trailing.then is not None and trailing.then.kind == "forbid"
    # a plain bound stays numeric: the comparative is the rule, not a trigger
    assert parse_rule("Monthly spend must stay under 5,000 USD.").kind == "numeric"
    assert parse_rule("Retries must back off for more than 2 seconds.").kind != "conditional"


@pytest.mark.parametrize(
    ("claim", "constraint", "contradicts"),
    [
        ("The 45,000 EUR loan can be signed off without a committee review.", LOAN, True),
        ("Because the loan is 30,000 EUR, the branch manager approves it on their own.", LOAN, True),
        ("The 45,000 EUR loan goes to the credit committee for review.", LOAN, False),
        ("A 5,000 EUR loan needs no committee review.", LOAN, False),  # below the trigger
        ("Apply the paint on Tuesday even though humidity will be 92 %.", FREEZE, True),
        ("Humidity will be 60 %, so painting goes ahead.", FREEZE, False),
        ("We will not paint at 90 % humidity; painting moves to Friday.", FREEZE, False),
        ("The 5 m ladder is used without a spotter.", LADDER, True),
        ("The 2 m ladder is used without a spotter.", LADDER, False),
        ("The 500 cm ladder gets a spotter.", LADDER, False),
    ],
)
def test_conditional_rules(claim: str, constraint: str, contradicts: bool) -> None:
    assert bool(find_contradictions(claim, [constraint])) is contradicts, claim


@pytest.mark.parametrize(
    ("claim", "constraint", "contradicts"),
    [
        ("Residents may keep a dog in the room.", "Residents must not keep pets in their rooms.", True),
        (
            "Residents may not keep a parrot in the room.",
            "Residents must not keep pets in their rooms.",
            False,
        ),
        ("Inquire about the applicant's faith.", "Never ask applicants about their religion.", True),
        ("Ask applicants how old they are.", "Applicants must never be asked about their age.", True),
        (
            "Hard hats are optional on the loading dock.",
            "Drivers must wear hard hats on the loading dock.",
            True,
        ),
        (
            "Drivers may take their helmets off at the dock.",
            "Drivers must wear hard hats on the loading dock.",
            True,
        ),
        (
            "Helmets are worn at all times on the loading dock.",
            "Drivers must wear hard hats on the loading dock.",
            False,
        ),
        ("Customers can bring back an opened app bundle.", "Opened software cannot be returned.", True),
        ("Pay the refund as cash.", "Refunds must be paid only as a voucher.", True),
        (
            "The refund is not paid as cash; it is a voucher.",
            "Refunds must be paid only as a voucher.",
            False,
        ),
        (
            "Approve it as is; the exclusivity clause is fine.",
            "Never approve deals with exclusivity clauses.",
            True,
        ),
        (
            "Forms can be filled in at the front desk but not taken out.",
            "Forms must never leave the front desk.",
            False,
        ),
        ("Members can hold 14 DVDs at once.", "Members may hold at most 12 items at a time.", True),
        (
            "The quarterly budget can grow to 9,200 USD.",
            "The quarterly budget must stay under 8,000 USD.",
            True,
        ),
        (
            "Only red and green tags are used; blue tags are not allowed.",
            "Only red or green tags are allowed.",
            False,
        ),
        ("Blue tags are allowed for urgent parcels.", "Only red or green tags are allowed.", True),
    ],
)
def test_folding_pronouns_and_kinds(claim: str, constraint: str, contradicts: bool) -> None:
    assert bool(find_contradictions(claim, [constraint])) is contradicts, claim


def test_cabin_classes_form_a_kind_in_conditional_rules() -> None:
    rule = "Staff must fly economy class on trips under 4 hours."
    assert rules_fired("Fly business class for the 90 minute trip.", [rule]) == ["conditional"]
    assert rules_fired("Fly economy class for the 90 minute trip.", [rule]) == []
    assert rules_fired("Fly business class for the 9 hour trip.", [rule]) == []


@pytest.mark.parametrize(
    ("claim", "contradicts"),
    [
        ("Flammable drums can be kept in bay C over the weekend.", True),
        ("Flammable drums are kept in bay D only.", False),
        ("Flammable drums must not go to bay C; they stay in bay D.", False),
    ],
)
def test_labelled_places_form_a_kind(claim: str, contradicts: bool) -> None:
    rule = "Flammable drums may only be kept in bay D."
    assert parse_rule(rule).kind == "allow_list"
    assert bool(find_contradictions(claim, [rule])) is contradicts, claim


@pytest.mark.parametrize(
    ("claim", "contradicts"),
    [
        ("The inspector can visit unannounced.", True),
        ("The inspector may come by without notice on Mondays.", True),
        ("The inspector gives 72 hours' notice before a visit.", False),
        ("The inspector never visits without notice.", False),
        ("Signature checks can be skipped for firmware images.", True),
        ("Give the raw interview notes to the partner agency.", True),
        ("Give the raw interview notes to the research team.", False),
    ],
)
def test_dropped_minimum_signatures_and_exceptions(claim: str, contradicts: bool) -> None:
    constraints = [
        "Inspectors must give at least 48 hours' notice before visiting.",
        "Firmware images must be signed.",
        "Never give raw interview notes to anyone outside the research team.",
    ]
    assert bool(find_contradictions(claim, constraints)) is contradicts, claim


@pytest.mark.parametrize(
    ("claim", "contradicts"),
    [
        ("Cleaners can open the evidence lockers after hours.", True),
        ("The evidence lockers may be opened by the night porter.", True),
        ("Custodians open the evidence lockers each morning.", False),
        ("Cleaners never open the evidence lockers.", False),
        ("The evidence lockers are opened by a custodian only.", False),
    ],
)
def test_actions_reserved_to_one_agent(claim: str, contradicts: bool) -> None:
    rule = "Only custodians may open evidence lockers."
    assert parse_rule(rule).kind == "only_agent"
    assert bool(find_contradictions(claim, [rule])) is contradicts, claim


def test_ages_are_not_durations() -> None:
    assert not find_contradictions(
        "The 12-year-old plays with a coach nearby.", ["Matches may last at most 90 minutes."]
    )
    rule = "Players under 14 require a coach on the pitch."
    assert find_contradictions("A 12-year-old player can stay on the pitch without a coach.", [rule])
    assert not find_contradictions("Players aged 15 may stay on the pitch on their own.", [rule])
