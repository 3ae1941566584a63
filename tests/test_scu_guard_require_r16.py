"""scu_guard round 16: a required step told as still to come, or a required thing under "no" where it would be held.
Two readings of a claim against a plain duty ("Every sample crate must be sealed by the site chemist"): the step
put off while the event went on ("left the quarry with the chemist's seal still pending", "the driver had yet to
sign", "with its declaration to be sent later", "the photos were to follow by email"), and the thing denied in the
slot that holds it ("there was no signed consent form on file", "went up the wall with no helmet"). Real spaCy
parses and WordNet data; sentences written for these tests, none is in the labelled sets. Near misses that must not
be rejected: the thing held back while the step is pending, something else put off, another thing under "no"."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT, REVIEW
from tests.scu_guard_support import verdict_beside as _v

CRATE = "Every sample crate must be sealed by the site chemist."
KAYAK = "Every rental kayak must be inspected by an instructor."
PARCEL = "Every outgoing parcel must carry a customs declaration."
CONSENT = "Every patient must sign a consent form."
HELMET = "Every climber must wear a helmet."
TOWER = "Every scaffold tower must be signed off by the site engineer."
CAR = "Every hire car must be photographed by the desk agent."


def test_a_step_still_pending_while_the_thing_went_on() -> None:
    assert _v(CRATE, "Sample crate 14 left the quarry at noon with the chemist's seal still pending.") == REJECT


def test_a_step_pending_while_the_thing_is_held_back_keeps_it() -> None:
    assert _v(CRATE, "Sample crate 14 stays in the store until the chemist's seal, still pending, is applied.") == OK
    assert _v(CRATE, "Sample crate 14 was sealed by the chemist; its courier booking is still pending.") == OK


def test_a_step_the_doer_had_yet_to_do_told_beside_the_event_is_reviewed() -> None:
    # "yet" may be of an earlier moment than the outing: a suspicion, not a sure break
    claim = "Rental kayak 7 went out on the lake at 10:00; the instructor had yet to inspect it."
    assert _v(KAYAK, claim) == REVIEW


def test_yet_to_do_while_the_thing_stayed_back_or_was_passed_later_is_no_reject() -> None:
    assert _v(KAYAK, "Rental kayak 7 stayed on the rack because the instructor had yet to inspect it.") == OK
    claim = "The instructor had yet to inspect rental kayak 7 when I called at nine; it went out at ten after she " \
            "passed it."
    assert _v(KAYAK, claim) != REJECT


def test_a_thing_to_be_sent_later() -> None:
    claim = "Outgoing parcel 88 left the post room on Friday, with its customs declaration to be sent later."
    assert _v(PARCEL, claim) == REJECT


def test_a_thing_to_be_sent_later_while_the_parcel_was_held_keeps_it() -> None:
    claim = "Outgoing parcel 88 was held in the post room, with its customs declaration to be sent later."
    assert _v(PARCEL, claim) == OK


def test_another_thing_to_be_sent_later_keeps_it() -> None:
    claim = "Outgoing parcel 88 left the post room on Friday with its customs declaration; a copy of the invoice " \
            "is to be sent later."
    assert _v(PARCEL, claim) == OK


def test_no_signed_form_on_file() -> None:
    assert _v(CONSENT, "The patient was sedated at 09:10; there was no signed consent form on file.") == REJECT


def test_a_signed_form_on_file_and_no_other_paper_keeps_it() -> None:
    claim = "The patient was sedated at 09:10 with a signed consent form on file; there was no referral letter."
    assert _v(CONSENT, claim) == OK


def test_with_no_helmet() -> None:
    assert _v(HELMET, "Ruth, a climber, went up the north wall with no helmet.") == REJECT


def test_with_no_other_thing_keeps_it() -> None:
    assert _v(HELMET, "Ruth went up the north wall with no rope bag but with her helmet on.") == OK


def test_something_else_pending_or_to_follow_keeps_it() -> None:
    assert _v(TOWER, "Tower B was signed off on Monday; the paint order is still pending.") == OK
    claim = "Car 12 was photographed at the desk and handed over; the invoice was to follow by email."
    assert _v(CAR, claim) == OK
