"""scu_guard typed reading of a roster in a cited chunk: who a named doer is ("Name - role",
"Name (role)", "X holds a permit; Y does not", "holds no ...", "holds only ...", a list under a
heading), so that a reserved action done by a named person is settled (REJECT or OK) instead of
left to review. Real spaCy parses; sentences written for these tests, none is in the labelled sets."""

from __future__ import annotations

import pytest

from abilities.lock import lock_constraints
from abilities.scu_guard.check import run_checks
from abilities.scu_guard.combined import forms_for
from abilities.scu_guard.forms import understand
from abilities.scu_guard.judge import read_claim, roster_role
from abilities.scu_guard.reserved import alternatives


def verdict(constraints: list[str], claim: str, chunks: dict[str, str]) -> tuple[str, str]:
    lock = lock_constraints(constraints)
    answer = {"claim": claim, "citations": list(chunks), "constraints_echo": constraints}
    r = run_checks(lock, list(chunks), answer, forms=forms_for(constraints)[0], chunk_texts=chunks)
    return r.verdict, r.reason


CRANE = "Only operators holding a B7 crane ticket may drive the tower crane."
KILN = "Only the kiln supervisor may fire the glaze kiln."
RIG = "Only a certified rope access technician (IRATA) may abseil the facade."


@pytest.mark.parametrize(("rule", "claim", "chunk", "want"), [
    # the roster denies the credential: "does not" after one who holds it, "holds no", "only" another code
    (CRANE, "Ola Berg drove the tower crane on Monday.",
     "Tickets: Ivo Stan holds a B7 crane ticket; Ola Berg does not.", ("REJECT", "constraint_contradiction")),
    (CRANE, "Ola Berg drove the tower crane on Monday.",
     "Crew: Ola Berg holds only a B2 crane ticket.", ("REJECT", "constraint_contradiction")),
    (CRANE, "Ola Berg drove the tower crane on Monday.",
     "Crew: Ola Berg holds no crane ticket.", ("REJECT", "constraint_contradiction")),
    # the roster gives the credential or the role: the rule is kept, no review
    (CRANE, "The tower crane was driven by Ivo Stan.",
     "Tickets: Ivo Stan holds a B7 crane ticket; Ola Berg does not.", ("OK", "ok")),
    (KILN, "The glaze kiln was fired by Mira Holt.",
     "Studio staff. Mira Holt - kiln supervisor. Dan Roe - glazer.", ("OK", "ok")),
    # "Name - role" with another role outright, the reserved thing named in full
    (KILN, "Dan Roe fired the glaze kiln overnight.",
     "Studio staff. Mira Holt - kiln supervisor. Dan Roe - glazer.", ("REJECT", "constraint_contradiction")),
    # the abbreviation the rule defines is an alternative; "candidate" holds nothing yet
    (RIG, "The facade was abseiled by Kai Moss.",
     "Team. Kai Moss - IRATA level 2. Pia Lund - IRATA candidate, assessment in May.", ("OK", "ok")),
])
def test_a_roster_settles_a_named_doer(rule: str, claim: str, chunk: str, want: tuple[str, str]) -> None:
    assert verdict([rule], claim, {"c1": chunk}) == want


def test_a_roster_that_says_nothing_of_the_credential_leaves_the_name_to_review() -> None:
    """A name a chunk lists without anything about the rule's role or credential stays a suspected finding."""
    assert verdict([CRANE], "Ola Berg drove the tower crane on Monday.",
                   {"c1": "Site diary: Ola Berg arrived at 07:00 with the rebar delivery."}) == \
        ("REVIEW", "suspected_contradiction")


def test_an_ellipsis_after_an_unrelated_statement_denies_nothing() -> None:
    """"Y does not" denies only what the part before it said, and that must be the rule's credential."""
    form = understand(CRANE)
    claim = read_claim("Ola Berg drove the tower crane.", ["Ivo Stan drives a van to site; Ola Berg does not."])
    assert roster_role(form, "ola berg", claim) is None


def test_a_scoped_reserved_action_is_not_settled_by_the_roster_alone() -> None:
    """"approve a refund above $500": whether the claim's refund is in the scope is not the roster's to say."""
    got = verdict(["Only the shift lead may approve a refund above $500."], "Nia Cole approved a refund of $90.",
                  {"c1": "Staff: Tom Fry is the shift lead; Nia Cole is a cashier."})
    assert got[0] != "REJECT"


def test_alternatives_of_the_reserved_doer() -> None:
    alts = alternatives(understand("Only a registered pilot or a member of the rescue team may fly the drone."))
    assert len(alts) == 2 and any("rescu" in a or "rescue" in a for a in alts)


STAGE = "The stage must be cleared before any batten is flown in."


@pytest.mark.parametrize(("claim", "broken"), [
    ("Once the stage was cleared, batten 14 was flown in.", False),
    ("Batten 14 was flown in once the stage was cleared.", False),
    ("Before the stage was cleared, batten 14 was flown in.", True),
    ("After batten 14 was flown in, the stage was cleared.", True),
    ("The stage was cleared after batten 14 was flown in.", True),
])
def test_order_by_a_subordinate_clause(claim: str, broken: bool) -> None:
    """"once/after X, Y" puts X first, "before X, Y" puts Y first, at the head of the sentence or not."""
    from abilities.scu_guard.judge import check_order

    assert bool(check_order([understand(STAGE)], read_claim(claim))) is broken


def test_an_order_with_both_events_named_in_full_is_rejected() -> None:
    """Both events named with their words, in two clauses, the second put first: a sure reading."""
    assert verdict([STAGE], "Batten 14 was flown in before the stage was cleared.", {"c1": "Show report."}) == \
        ("REJECT", "constraint_contradiction")
    assert verdict([STAGE], "Once the stage was cleared, batten 14 was flown in.", {"c1": "Show report."}) == \
        ("OK", "ok")


LOG = {"c1": "Yard log: van VX31 carrying 180 kg of bitumen; van PR08 carrying 40 kg of bitumen."}
HEAVY = "Vans carrying more than 100 kg of bitumen must use the rear gate."


def test_a_list_entry_gives_the_amount_of_the_thing_the_claim_names() -> None:
    """Of a list ("van VX31 ... 180 kg; van PR08 ... 40 kg") only the entry naming the claim's thing counts:
    the light van keeps the rule, the heavy one breaks it on the entry's own amount (a sure reading)."""
    assert verdict([HEAVY], "Van PR08 came in through the front gate.", LOG) == ("OK", "ok")
    assert verdict([HEAVY], "Van VX31 came in through the front gate.", LOG) == ("REJECT", "constraint_contradiction")


def test_a_bound_read_from_the_named_entry() -> None:
    chunks = {"c1": "Register: North Quay, last survey May 2024, load limit 12 tonnes; South Quay, last survey "
                    "June 2025, load limit 60 tonnes."}
    rule = ["Mobile cranes must not be set up on a quay with a load limit below 30 tonnes."]
    assert verdict(rule, "The mobile crane was set up on South Quay.", chunks) == ("OK", "ok")
    assert verdict(rule, "The mobile crane was set up on North Quay.", chunks) == ("REJECT", "constraint_contradiction")


def test_the_next_due_date_against_the_named_entry_of_a_log() -> None:
    """"last checked" of the thing the claim names, and the claim's own "next ... due" date: a firm gap."""
    rule = ["Each ladder must be inspected at least every 30 days."]
    chunks = {"c1": "Ladder log: ladder 14 last inspected on 2 March 2026; ladder 19 last inspected on 20 April 2026."}
    assert verdict(rule, "Ladder 14 is next due for inspection on 30 April 2026.", chunks) == \
        ("REJECT", "constraint_contradiction")
    assert verdict(rule, "Ladder 19 is next due for inspection on 15 May 2026.", chunks) == ("OK", "ok")


def test_a_rule_that_opens_with_its_bound_bounds_the_amount() -> None:
    """"No more than 2 kg of X may be on set" allows half a kilogram and exactly 2 kg, not 3 kg."""
    rule = ["No more than 3 kg of flash powder may be kept in the workshop at any time."]
    chunks = {"c1": "Workshop log."}
    assert verdict(rule, "Half a kilogram of flash powder was kept in the workshop.", chunks) == ("OK", "ok")
    assert verdict(rule, "Exactly 3 kg of flash powder was kept in the workshop.", chunks) == ("OK", "ok")
    assert verdict(rule, "5 kg of flash powder was kept in the workshop.", chunks) == \
        ("REJECT", "constraint_contradiction")


def test_fractions_of_a_unit_and_a_strict_condition() -> None:
    """"three-quarters of an hour" is 45 minutes, and "longer than 45 minutes" leaves 45 minutes out."""
    from abilities.scu_guard import measure

    assert [a.lo for a in measure.find_amounts("It took three-quarters of an hour.")] == [2700.0]
    rule = ["Any lift outage longer than 45 minutes must be reported to the facilities manager."]
    chunks = {"c1": "Lift log."}
    assert verdict(rule, "The outage lasted three-quarters of an hour and was not reported to the facilities manager.",
                   chunks) == ("OK", "ok")
    assert verdict(rule, "The outage lasted two hours and was not reported to the facilities manager.",
                   chunks) == ("REJECT", "constraint_contradiction")


@pytest.mark.parametrize(("text", "seconds"), [
    ("The rollers were washed every second day.", 2 * 86400.0),
    ("The alarm beeps every second.", 1.0),
    ("Filters are changed every third week.", 3 * 7 * 86400.0),
    ("The tanks were checked once each morning.", 86400.0),
])
def test_periods_with_ordinals_and_parts_of_the_day(text: str, seconds: float) -> None:
    from abilities.scu_guard import measure

    assert [(a.lo, a.period) for a in measure.find_amounts(text)] == [(seconds, True)]


def test_once_each_morning_is_too_seldom_for_twice_a_day() -> None:
    assert verdict(["Each aquarium must be checked at least twice a day."],
                   "The aquariums were checked once each morning.", {"c1": "Care log."}) == \
        ("REJECT", "constraint_contradiction")


def test_a_doer_named_by_title_and_surname_is_found_in_the_roster() -> None:
    """"Dr Lind" is the "Dr Eva Lind" of the roster when no one else there is called Lind."""
    rule = ["Only a pharmacist may release controlled drugs."]
    chunks = {"c1": "Staff and roles. Dr Eva Lind - Pharmacist (dispensary). Tom Bek - Porter."}
    assert verdict(rule, "Dr Lind released the controlled drugs for ward 3.", chunks) == ("OK", "ok")
    assert verdict(rule, "Tom Bek released the controlled drugs for ward 3.", chunks) == \
        ("REJECT", "constraint_contradiction")


def test_a_duty_to_act_between_two_times_forbids_the_rest_of_the_day() -> None:
    """"must start between 09:00 and 20:00" is kept by 19:15; a state "must be off between" is a forbidden window."""
    start = understand("Tastings must start between 11:00 and 18:00.")
    assert start.window is not None and (start.window.start, start.window.end) == (18 * 60, 11 * 60)
    off = understand("Music must be off between 23:00 and 07:00.")
    assert off.window is not None and (off.window.start, off.window.end) == (23 * 60, 7 * 60)
    assert verdict(["Tastings must start between 11:00 and 18:00."], "The last tasting started at 17:15.",
                   {"c1": "Cellar diary."}) == ("OK", "ok")
