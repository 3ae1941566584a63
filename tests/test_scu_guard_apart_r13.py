"""Round 13: two things or roles a rule keeps apart, put together by a claim's grammar (one holder, one time, one
person in both roles), with real parses; every sentence written for these tests, near misses included."""

from __future__ import annotations

from abilities.scu_guard.apart import rule_pair
from abilities.scu_guard.nlp import parse
from abilities.scu_guard.together import tied
from abilities.scu_guard.two_roles import both_roles
from tests.scu_guard_support import OK, REJECT, REVIEW, verdict

CUPBOARD = "Peroxide bottles must never be stored in the same cupboard as acetone."
STABLE = "Stallions must never be stabled together with mares in the main barn."
GRINDER = "The grinder must never run at the same time as the spray booth fans."
TILL = "The same person must never act as both cashier and auditor for the same shift."
CRANE = "The crane driver must not also be signalling loads during the same lift."
BAY = "Patients with norovirus must never share a bay with other patients."
SOLVENTS = "Lithium batteries must never be stored in the same locker as solvents, paints or thinners."
BLEACH = "Bleach and ammonia must be kept apart, each in its own store."


def _tie(rule: str, claim: str) -> str | None:
    pair = rule_pair(rule)
    assert pair is not None
    hit = tied(pair, parse(claim), 0, len(claim))
    return hit[0] if hit else None


def _roles(rule: str, claim: str) -> str | None:
    pair = rule_pair(rule)
    assert pair is not None and pair.scope == "person"
    hit = both_roles(pair, parse(claim), 0, len(claim))
    return hit[0] if hit else None


def test_the_rule_gives_its_pair_and_what_they_may_not_share() -> None:
    p = rule_pair(CUPBOARD)
    assert p is not None and p.scope == "place" and p.holder_lemma == "cupboard"
    assert [m.head for m in p.a] == ["bottl"] and [m.head for m in p.b] == ["aceton"]
    listed = rule_pair(SOLVENTS)
    assert listed is not None and [m.lemma for m in listed.b] == ["solvent", "paint", "thinner"]
    timed = rule_pair(GRINDER)
    assert timed is not None and timed.scope == "time"
    roles = rule_pair(TILL)
    assert roles is not None and roles.scope == "person"
    also = rule_pair(CRANE)
    assert also is not None and also.scope == "person" and also.b[0].verb
    other = rule_pair(BAY)
    assert other is not None and other.b[0].other
    assert rule_pair("Tents must be pitched at least 6 m apart.") is None  # a distance, read as an amount
    examples = rule_pair("Fabrics that shed fibres, such as raw wool and mohair, must be kept apart from white silks.")
    assert examples is not None and {"wool", "mohair"} <= {m.lemma for m in examples.a}


def test_a_holder_that_holds_both_is_a_breach() -> None:
    assert _tie(CUPBOARD, "Cupboard 2 held the peroxide bottles and the acetone overnight.") == "firm"
    assert _tie(CUPBOARD, "Cupboard 2 held the peroxide bottles, and the acetone too.") == "firm"
    assert _tie(CUPBOARD, "The peroxide bottles went into cupboard 2 alongside the acetone.") == "firm"
    assert verdict([CUPBOARD], "Cupboard 4 held the peroxide bottles and the acetone.") == REJECT
    assert verdict([SOLVENTS], "The lithium batteries and the paints went into locker 4.") == REJECT


def test_the_rules_own_verb_with_the_other_member() -> None:
    assert verdict([STABLE], "The stallion was stabled with the mares in row C.") == REJECT
    assert verdict([STABLE], "Stall row C held three mares overnight, and the grey stallion too.") == REJECT


def test_one_member_put_in_the_holder_named_after_the_other() -> None:
    assert verdict([BLEACH], "The two new ammonia drums were stacked in the bleach store on Friday.") == REJECT


def test_both_running_at_one_time() -> None:
    claim = "From 09:00 to 09:40 the grinder was running, as were the spray booth fans."
    assert _tie(GRINDER, claim) == "firm"
    assert verdict([GRINDER], claim) == REJECT


def test_a_name_described_by_the_rules_own_words() -> None:
    assert verdict([BAY], "Mr Kay, who has norovirus, shared bay 2 with two other patients.") == REJECT


def test_near_misses_kept_apart_stay_ok() -> None:
    for claim in ("The peroxide bottles were in cupboard 2, the acetone in cupboard 5.",
                  "The peroxide bottles went into cupboard 2, and the acetone into cupboard 3.",
                  "After the acetone was moved out, the peroxide bottles went into cupboard 2.",
                  "Neither the peroxide bottles nor the acetone went into cupboard 2.",
                  "The peroxide bottles shared cupboard 2 with the bleach, not with the acetone.",
                  "Should the peroxide bottles and the acetone share cupboard 2?",
                  "The peroxide bottles and the acetone were delivered on Monday.",
                  "The peroxide bottles and the acetone were both in the prep room, in different cupboards."):
        assert _tie(CUPBOARD, claim) is None, claim
    for claim in ("The mares were in row C, the stallion in row F.",
                  "Once the mares had gone out to grass, the stallion came into row C."):
        assert verdict([STABLE], claim) == OK, claim
    assert verdict([GRINDER], "The grinder was running while the spray booth fans were switched off.") != REJECT


def test_the_same_room_when_the_rule_names_a_cabinet_is_no_breach() -> None:
    rule = "Peroxide bottles must never be stored in the same cabinet as acetone."
    claim = "The peroxide bottles sat in the prep room with the acetone."
    assert _tie(rule, claim) is None
    assert verdict([rule], claim) != REJECT
    assert _tie(rule, "The peroxide bottles sat in cabinet 3 with the acetone.") == "firm"


def test_a_member_named_only_by_its_head_is_a_guess() -> None:
    rule = "Hazardous parcels must never share a cage with food parcels."
    assert _tie(rule, "Cage 3 held the parcels and the food parcels.") == "guess"


def test_one_person_in_both_roles() -> None:
    assert _roles(TILL, "Lena Ruiz, the cashier, also audited the till on Friday.") == "firm"
    assert _roles(CRANE, "Piotr drove the crane and signalled the loads too.") == "firm"
    assert verdict([CRANE], "Piotr drove the crane and signalled the loads too.") == REJECT
    rule = "The same person must never act as both operator and adjudicator for the same draw."
    assert _roles(rule, "Ann Cole operated the machine on Monday and, with Ben away, adjudicated as well.") == "firm"


def test_roles_held_by_two_people_or_on_two_occasions_stay_ok() -> None:
    rule = "The same person must never act as both operator and adjudicator for the same draw."
    assert _roles(rule, "Ann Cole operated the machine for the Monday draw and adjudicated the Friday one.") is None
    assert _roles(rule, "Ann Cole operated the machine while Ben Hart adjudicated.") is None
    assert _roles(TILL, "Omar was the cashier and Lena the auditor for Friday's shift.") is None
    claim = "Piotr drove the crane in the morning lift and then signalled the loads in the afternoon lift."
    assert verdict([CRANE], claim) == OK
    assert verdict([CRANE], "Piotr drove the crane while Anna signalled the loads.") == OK


def test_a_role_told_by_another_verb_on_the_roles_thing_is_a_guess() -> None:
    assert verdict([CRANE], "Piotr drove the crane on Tuesday and handled the loads that lift too.") in (REVIEW, OK)
