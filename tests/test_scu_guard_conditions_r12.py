"""Round 12: an amount or age that meets a prohibition's condition, and what the claim says of the forbidden event;
count bounds per unit read against the claim's count per unit."""
from abilities.scu_guard.consequences import event_of, stance
from abilities.scu_guard.forms import understand
from abilities.scu_guard.nlp import word_key
from tests.scu_guard_support import logged_verdict

CRANE = "The tower crane must not be used for loads heavier than 2 tonnes."
POOL = "Children under 12 must never be admitted to the deep pool."
KAYAK = "Junior groups must not paddle out when the wind is above 20 knots."
CRATES = "No more than 10 bottles may be packed in one crate."




def _stance(rule: str, claim: str) -> str:
    form = understand(rule)
    assert form is not None
    band = form.quantity or form.trigger
    assert band is not None
    return stance(form, band.text, claim)


def test_the_event_is_read_outside_the_condition() -> None:
    verbs, things = event_of(CRANE, "2 tonnes") or ((), ())
    assert "use" in verbs and {word_key("tower"), word_key("crane")} <= things and word_key("load") not in things
    # the amount is the event's own: no condition to read
    assert event_of("The speed limit in active work zones must not exceed 60 km/h.", "60 km/h") is None
    assert event_of("Divers must not exceed a depth of 30 metres on recreational dives.", "30 metres") is None


def test_event_set_aside_is_no_break() -> None:
    claim = "The 3-tonne beam was lifted by the mobile crane rather than the tower crane."
    assert _stance(CRANE, claim) == "denied"
    assert logged_verdict(CRANE, claim) == "OK"
    claim = "The 9-year-old swam in the learner pool instead of the deep pool."
    assert _stance(POOL, claim) == "denied"
    assert logged_verdict(POOL, claim) == "OK"


def test_event_done_stays_a_break() -> None:
    assert _stance(CRANE, "The 3-tonne beam was lifted with the tower crane.") == "affirmed"
    assert logged_verdict(CRANE, "The 3-tonne beam was lifted with the tower crane.") == "REJECT"
    # the rule's thing kept, another thing set aside: still the forbidden event
    claim = "The 3-tonne beam was lifted with the tower crane rather than the mobile crane."
    assert logged_verdict(CRANE, claim) == "REJECT"
    assert logged_verdict(POOL, "The 9-year-old was admitted to the deep pool.") == "REJECT"


def test_event_said_of_others_is_review_at_most() -> None:
    claim = "With 25 knots forecast, the junior groups stayed ashore for a knots lesson while the seniors paddled out."
    assert _stance(KAYAK, claim) == "elsewhere"
    assert logged_verdict(KAYAK, claim) != "REJECT"
    assert logged_verdict(KAYAK, "With 25 knots forecast, the junior groups paddled out.") == "REJECT"


def test_count_per_unit_is_compared_not_the_total() -> None:
    assert logged_verdict(CRATES, "The forty bottles were packed in four crates of ten each.") == "OK"
    assert logged_verdict(CRATES, "The forty bottles were packed in two crates of twenty each.") == "REJECT"
    assert logged_verdict(CRATES, "The forty bottles were packed in one crate.") == "REJECT"
