"""scu_guard typed readings of round 9, each a mechanism of the grammar: a doer of another role tied by
grammar to the reserved verb and its thing. Real spaCy parses; sentences written for these tests, none is
in the labelled sets."""

from __future__ import annotations

import pytest

from abilities.scu_guard.judge import read_claim
from tests.scu_guard_support import REJECT, verdict

KILN = "Only the kiln supervisor may fire the glaze kiln."
WASH = "Only staff who have completed affineur training may apply rind washes."


def test_a_doer_is_tied_to_the_verb_it_is_the_subject_or_agent_of() -> None:
    """The reading records, per doer, the verb it does and that verb's own objects."""
    c = read_claim("The glaze kiln was fired by a glazer, and the potter trimmed the bowls.").clauses
    doers = {t: info for cl in c for t, info in cl.doers.items()}
    assert doers["a glazer"][0] == "fir" and "kiln" in doers["a glazer"][1] and doers["a glazer"][2]
    assert doers["a glazer"][3] == "glazer"
    assert doers["the potter"][0] == "trim" and "bowl" in doers["the potter"][1]
    named = read_claim("Mira Holt fired the glaze kiln.").clauses[0].doers
    assert [info[2] for info in named.values()] == [False]  # a bare name gives no role


@pytest.mark.parametrize(("rule", "claim", "want"), [
    # another role, subject or passive agent of the reserved verb, acting on the rule's thing
    (KILN, "The glaze kiln was fired by a glazer on Sunday.", REJECT),
    (KILN, "A studio assistant fired the glaze kiln overnight.", REJECT),
    ("Only a qualified burn boss may ignite a prescribed burn.",
     "The prescribed burn was ignited by a seasonal firefighter.", REJECT),
    # the credential denied outright where the rule reserves the action for "staff" with a credential
    (WASH, "A non-trained seasonal worker applied the cider wash.", REJECT),
])
def test_another_role_doing_the_reserved_action_is_rejected(rule: str, claim: str, want: tuple[str, str]) -> None:
    assert verdict([rule], claim) == want


@pytest.mark.parametrize(("rule", "claim", "chunks"), [
    # another thing than the rule's ("its control panel" is not "a service door")
    ("Only couriers with a locker key card may open a service door.",
     "The engineer opened the locker's control panel.", None),
    # a light verb names no doer: things that "went" somewhere
    ("Only steel, aluminium and copper may go in the metals skip.",
     "Cans and copper pipe went into the metals skip.", None),
    # the doer holds the reserved description under another head noun
    ("Only licensed electricians may rewire the switchboard.",
     "A licensed electrical contractor rewired the switchboard.", None),
    # "staff" with a credential: a doer of another noun may hold it
    (WASH, "Kitchen staff applied the cider wash.", None),
    # the reserved noun with another modifier may be the reserved doer
    (KILN, "The night supervisor fired the glaze kiln.", None),
    # the doer's verb is not the reserved one ("stayed on set from arming")
    ("Only a pyrotechnician may arm a pyrotechnic device.",
     "The fire safety officer stayed on set from arming until every device had been made safe.", None),
    # a cited chunk speaks of the doer's role and the reserved one together
    (KILN, "The glaze kiln was fired by the studio manager.",
     {"k1": "The studio manager is also our kiln supervisor this term."}),
])
def test_a_doer_that_may_hold_the_role_is_not_rejected(rule: str, claim: str, chunks: dict[str, str] | None) -> None:
    assert verdict([rule], claim, chunks)[0] != "REJECT"


def test_the_reserved_doer_keeps_the_rule() -> None:
    assert verdict([KILN], "The glaze kiln was fired by the kiln supervisor.") == ("OK", "ok")


# ---- order of events --------------------------------------------------------------------------------

KILN_ORDER = "The kiln shelves must be vacuumed before the kiln is loaded."


@pytest.mark.parametrize(("claim", "broken"), [
    # a later-marker after the first-mentioned event makes the other one later
    ("The kiln was loaded and the shelves were vacuumed the following morning.", True),
    ("The shelves were vacuumed and the kiln was loaded the following morning.", False),
    ("The kiln was loaded first; the shelves were vacuumed afterwards.", True),
    ("The potter loaded the kiln and then vacuumed the shelves.", True),
    ("The potter vacuumed the shelves and then loaded the kiln.", False),
    # "first" that modifies a noun orders nothing ("on the first firing")
    ("The shelves were vacuumed at 08:00 and the kiln was loaded for the first firing at 09:00.", False),
    # a "before" phrase inside one event's clause that names neither event
    ("The kiln was loaded at 16:55, five minutes before closing.", False),
])
def test_order_told_by_later_markers_and_first(claim: str, broken: bool) -> None:
    from abilities.scu_guard.forms import understand
    from abilities.scu_guard.judge import check_order

    assert bool(check_order([understand(KILN_ORDER)], read_claim(claim))) is broken


def test_an_event_is_located_by_its_verb_not_by_a_doer_both_share() -> None:
    """"The visitor disinfected his boots and then entered barn 2": entering is told at "entered"."""
    rule = "Visitors must not enter the barns without disinfecting their boots."
    assert verdict([rule], "The visitor disinfected his boots and then entered barn 2.")[0] != "REJECT"
    assert verdict([rule], "The visitor entered barn 2 and then disinfected his boots.") == REJECT


def test_a_skipped_first_step_and_a_denied_subject() -> None:
    rule = "Drivers must attend the safety briefing before their first session."
    assert verdict([rule], "Two drivers skipped the safety briefing and went straight out for their first session.") \
        == REJECT
    pond = "Water from the settling pond must be tested before it is discharged."
    assert verdict([pond], "Not one of this month's pond discharges went out untested.")[0] != "REJECT"


def test_an_order_in_two_clauses_is_firm() -> None:
    """The second event put first, each event in its own clause: a REJECT, with one word of an event enough."""
    assert verdict([KILN_ORDER], "The kiln was loaded first; the shelves were vacuumed afterwards.") == REJECT
    assert verdict([KILN_ORDER], "The shelves were vacuumed first; the kiln was loaded afterwards.") == ("OK", "ok")


# ---- an allow-list of one kind of thing -------------------------------------------------------------

GAUGES = "Tide corrections may use only the Port Ellen, Oban or Tobermory gauges."
ROOM = "Spare kiln shelves must be stored only in the glaze room."


def test_an_allow_list_is_read_with_its_kind() -> None:
    from abilities.scu_guard.forms import understand

    f = understand(GAUGES)
    assert f is not None and f.member_kind == "gaug" and f.members == [["port", "ellen"], ["oban"], ["tobermory"]]
    g = understand("Pottery orders may go only to the Leeds, York or Hull depots.")
    assert g is not None and g.members == [["leed"], ["york"], ["hull"]]
    # no shared noun, a holder's thing, a verb after "only", a label, days, or doers: no allow-list read
    for rule in ("Glazes may use only borax, frit or ash.", "Clay may only be bought on a manager's order.",
                 "Researchers may only receive de-identified data.", "Glazes may only be stored in zone H.",
                 "Kilns may be fired only on Tuesdays and Thursdays.", "Only the kiln supervisor may fire the kiln."):
        h = understand(rule)
        assert h is None or not h.members, rule


@pytest.mark.parametrize(("rule", "claim", "want"), [
    (GAUGES, "The corrections were made using the Mallaig tide gauge.", REJECT),
    (GAUGES, "The corrections were made using the Oban tide gauge.", ("OK", "ok")),
    ("Pottery orders may go only to the Leeds, York or Hull depots.", "The pottery order went to the Derby depot.",
     REJECT),
    (ROOM, "The spare kiln shelves were stored in the boiler room.", REJECT),
    # a member named: another place of the kind may lie inside it
    (ROOM, "The spare kiln shelves were stored in the glaze room, next to the boiler room door.", ("OK", "ok")),
    # a thing of the kind without a name of its own says nothing against the list
    (ROOM, "The spare kiln shelves were stored in the other room.", ("OK", "ok")),
    # a shortened name may be a member ("the Tober gauge")
    (GAUGES, "The corrections were made using the Tober tide gauge.", ("OK", "ok")),
])
def test_a_thing_of_the_listed_kind_named_otherwise(rule: str, claim: str, want: tuple[str, str]) -> None:
    assert verdict([rule], claim) == want


# ---- a duty of company under an age condition ---------------------------------------------------------

ESCORT = "Visitors under 16 must be accompanied by an adult in the glaze studio."


@pytest.mark.parametrize(("claim", "want"), [
    ("A 14-year-old came into the glaze studio on her own.", REJECT),
    ("The two 12-year-olds worked in the glaze studio unsupervised.", REJECT),
    ("A 17-year-old came into the glaze studio on her own.", ("OK", "ok")),
    ("A 14-year-old came into the glaze studio with her father.", ("OK", "ok")),
])
def test_being_alone_denies_a_duty_of_company(claim: str, want: tuple[str, str]) -> None:
    assert verdict([ESCORT], claim) == want


# ---- a permission of the forbidden thing --------------------------------------------------------------

LAB_BAN = "Pregnant staff must not enter the glaze lab."


@pytest.mark.parametrize(("claim", "want"), [
    # the forbidden thing granted by a modal or a predicate of permission, without the rule's verb (was REVIEW)
    ("A pregnant potter can work in the glaze lab if she wears a mask.", REJECT),
    ("Pregnant staff may visit the glaze lab on Fridays.", REJECT),
    ("Pregnant staff are welcome in the glaze lab.", REJECT),
    # a word that only looks like a permission ("the open day") grants nothing
    ("At the open day, pregnant staff were shown photos of the glaze lab.", None),
    # another thing named (not the forbidden one in full)
    ("Pregnant staff may visit the throwing room.", None),
])
def test_a_permission_of_the_forbidden_thing(claim: str, want: tuple[str, str] | None) -> None:
    got = verdict([LAB_BAN], claim)
    assert got == want if want else got[0] != "REJECT"


def test_an_exclusion_of_members_narrowed_by_a_time_is_a_guess() -> None:
    """"a potter in their first 3 months": the keys of the members do not hold the time that narrows them."""
    rule = "A trainee and a potter in their first 3 months after hiring must never fire a kiln together."
    assert verdict([rule], "The trainee and Ana, a potter hired in 2019, fired kiln 2 together.")[0] != "REJECT"
    plain = "Trainees and night staff must never fire a kiln together."
    assert verdict([plain], "The trainees and the night staff fired kiln 2 together.") == REJECT
