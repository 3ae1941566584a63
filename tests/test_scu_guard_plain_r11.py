"""scu_guard, round 11: plain wordings read firmly where grammar makes them sure: a doer whose own phrase denies
the rule's credential, a credential said not to matter, an un- participle of a duty's verb said of its thing, a
permission granted for what the word-level reading finds forbidden, a waiver predicated of the rule's own
requirement, two things a duty keeps apart that "share" one place; and the wordings that keep a rule (a
double negation, a thing denied by "non-"). Real spaCy parses; sentences written for these tests, none is in
the labelled sets: the kept wording and the contradicting wording side by side."""

from __future__ import annotations

import pytest

from abilities.scu_guard import denials, waived
from abilities.scu_guard.events import leaves_undone
from abilities.scu_guard.forms import understand
from abilities.scu_guard.nlp import parse
from abilities.scu_guard.together import shared_by_both
from tests.scu_guard_support import OK, REJECT, REVIEW, verdict

WELD = "Only certified welders may weld the pressure vessels."
FERRY = "Only licensed skippers may steer the ferry."
LABEL = "Sample jars must be labelled with the patient's initials."
SIGN = "Delivery notes must be signed by the driver."
DOGS = "Tenants must not keep dogs in the flats."
GLOVES = "Lab staff must wear nitrile gloves."
QUOTA = "Essays must not exceed 3,000 words."
DRILL = "Climbers must complete a harness check before leaving the ground."
KEEPAPART = "Toddler classes and adult swim sessions must be booked into separate pool slots."


def test_a_phrase_that_denies_a_credential() -> None:
    """ "without a licence", "non-certified", "unlicensed", "with no certificate"; a possessive keeps it."""
    assert "certif" in "".join(denials.lacked_keys("a porter without a welding certificate"))
    assert denials.lacked_keys("a non - certified fitter") & {"certify", "certifi"}
    assert denials.lacked_keys("an unlicensed deckhand")
    assert not denials.lacked_keys("a skipper without his licence on him")  # he has one, not carried
    assert denials.either_keys("any skipper, licensed or not")
    assert denials.either_keys("anyone, with or without a licence")
    assert not denials.either_keys("any licensed skipper")


@pytest.mark.parametrize(("rules", "claim", "want"), [
    ([WELD], "A porter without a certificate welded the pressure vessels.", REJECT),
    ([WELD], "A porter with a certificate welded the pressure vessels.", REVIEW),  # a certificate of what?
    ([FERRY], "The ferry may be steered by any skipper, licensed or not.", REJECT),
    ([FERRY], "The ferry may be steered by any licensed skipper.", REVIEW),  # "any": not firm either way
])
def test_a_doer_lacking_the_credential(rules: list[str], claim: str, want: tuple[str, str]) -> None:
    assert verdict(rules, claim) == want


@pytest.mark.parametrize(("claim", "want"), [
    ("Sample jars went to the lab unlabelled.", True),
    ("The porter carried unlabelled sample jars to the lab.", False),  # a modifier: a state, maybe mended
    ("Sample jars arrived unlabelled and were labelled on receipt.", False),  # the event also done
    ("No sample jars went to the lab unlabelled.", False),  # the thing denied
    ("Sample jars might go to the lab unlabelled.", False),  # a modal: not a fact
    ("Blood bags went to the lab unlabelled.", False),  # another thing
])
def test_an_un_participle_of_the_duty_said_of_its_thing(claim: str, want: bool) -> None:
    form = understand(LABEL)
    assert form is not None
    assert leaves_undone(form, parse(claim), 0, len(claim)) is want


def test_an_un_participle_drops_the_duty() -> None:
    assert verdict([LABEL], "Sample jars went to the lab unlabelled on Monday.") == REJECT
    assert verdict([LABEL], "Sample jars went to the lab labelled with the initials.") == OK


@pytest.mark.parametrize(("rules", "claim", "want"), [
    ([DOGS], "Tenants on the second floor are welcome to bring a puppy.", REJECT),
    ([DOGS], "Tenants may not bring a puppy.", OK),
    ([GLOVES], "Gloves are optional for lab staff.", REJECT),
    ([GLOVES], "Lab staff wore nitrile gloves all day.", OK),
])
def test_a_permission_or_a_waiver_granted_for_the_rule(rules: list[str], claim: str, want: tuple[str, str]) -> None:
    assert verdict(rules, claim) == want


def test_a_permission_for_another_doer_is_no_firm_reading() -> None:
    """The word-level match on the thing stays a guess when the permission is for someone the rule does not bind."""
    assert verdict([DOGS], "Visiting contractors may bring a puppy.") != REJECT


@pytest.mark.parametrize(("rule", "claim", "want"), [
    (QUOTA, "The 3,000-word cap on essays is only a recommendation.", True),
    (QUOTA, "The 3,000-word cap on essays is not a recommendation.", False),  # denied
    (QUOTA, "The recommended reading list for essays is long.", False),  # "recommended" describes another thing
    (DRILL, "The harness check was treated as merely advisory.", True),
    (DRILL, "Could the harness check be optional?", False),  # asked
])
def test_a_waiver_of_the_rule_s_own_requirement(rule: str, claim: str, want: bool) -> None:
    form = understand(rule)
    assert form is not None
    own = (set(form.subject) | set(form.object) | set(form.action)) if form.order is None else \
        set(form.order.first) - set(form.order.then)
    numbers = waived._numbers(form)
    assert waived.waives(own, numbers, parse(claim), 0, len(claim)) is want


def test_a_waiver_rejects() -> None:
    assert verdict([QUOTA], "The 3,000-word cap on essays is only a recommendation.") == REJECT
    assert verdict([DRILL], "Since March the harness check has been optional, and Ann left the ground without one.") \
        == REJECT
    assert verdict([DRILL], "Ann completed the harness check before leaving the ground.") == OK


def test_a_duty_to_keep_things_apart_is_an_exclusion() -> None:
    form = understand(KEEPAPART)
    assert form is not None and len(form.exclusion) == 2


@pytest.mark.parametrize(("claim", "want"), [
    ("The toddler class and the adult swim session shared the 9:00 slot.", True),
    ("The toddler class shared the 9:00 slot with the adult swim session.", True),
    ("The toddler class and the adult swim session never shared a slot.", False),
    ("The toddler class shared the changing room with the staff.", False),  # one member only
])
def test_share_puts_both_members_together(claim: str, want: bool) -> None:
    form = understand(KEEPAPART)
    assert form is not None
    a, b = set(form.exclusion[0]), set(form.exclusion[1])
    assert shared_by_both(parse(claim), 0, len(claim), a - b, b - a) is want


def test_sharing_a_slot_rejects_and_separate_slots_keep() -> None:
    assert verdict([KEEPAPART], "The toddler class and the adult swim session shared the 9:00 slot.") == REJECT
    assert verdict([KEEPAPART], "The toddler class had the 9:00 slot and the adult swim session the 10:00 one.") \
        != REJECT


@pytest.mark.parametrize(("rules", "claim", "want"), [
    (["Every descent below the ledge must be made wearing a safety harness."],
     "The instructor checked the log and found no unharnessed descents.", OK),
    (["Only staff on the radiation list may handle isotope samples."],
     "Jo Platt, who is not on the list, handled only the non-isotope controls.", OK),
])
def test_wordings_that_keep_the_rule(rules: list[str], claim: str, want: tuple[str, str]) -> None:
    assert verdict(rules, claim) == want


def test_review_stays_for_a_bare_other_doer() -> None:
    """A doer named by another role, with nothing denied, stays what it was (no new firm reading)."""
    assert verdict([FERRY], "The deckhand steered the ferry into the harbour.") in (REVIEW, REJECT)


def test_a_waived_step_named_by_its_head_noun() -> None:
    """For the first step of an order, a phrase whose head noun is the step itself is enough ("the pre-climb
    harness check was optional"); a phrase that only holds one of its words as a modifier is not."""
    rule = "Riders must shower before entering the plunge pool."
    assert verdict([rule], "Since the pre-ride shower was declared optional, Tom went straight into the plunge pool.") \
        == REJECT
    assert verdict([rule], "Tom showered before entering the plunge pool.") == OK
    form = understand(rule)
    assert form is not None and form.order is not None
    step = set(form.order.first) - set(form.order.then)
    claim = "The shower gel was optional."
    assert not waived.waives(step, set(), parse(claim), 0, len(claim), step=True)


def test_a_permission_on_another_occasion_is_no_firm_reading() -> None:
    rule = "Dictionaries are not allowed in the written test."
    assert verdict([rule], "Candidates may use a pocket dictionary.") == REJECT
    assert verdict([rule], "Candidates may use a pocket dictionary during the lunch break.") != REJECT


@pytest.mark.parametrize(("rules", "claim"), [
    ([QUOTA], "Some tutors say the 3,000-word cap on essays is only a recommendation, but it is a rule."),
    ([DOGS], "Some tenants on the second floor believe they may bring a puppy."),
])
def test_a_reported_waiver_or_permission_is_no_firm_reading(rules: list[str], claim: str) -> None:
    """Weighed or reported by another verb ("say", "believe"), the statement is not the claim's own."""
    assert verdict(rules, claim) != REJECT
