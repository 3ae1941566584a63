"""scu_guard round 16: rules of pairs (two acts kept from one doer, a step before another, an act reserved to a
role). Four readings: one person said, in the claim's own words, to have done both acts a rule keeps from one doer
("... and countersigned the log himself"); an event of a rule of order told by a kind of its own word ("a deep
tissue massage" for "treatment", "unplugged" for "disconnected"); a doer called by a given name alone whom the
records list under an initial and a surname ("Nadia" for "N. Okoye - apprentice"); and a doer the claim itself
describes as holding the rule's credential ("who holds a current HGV licence"). Real WordNet 3.0 data and real
spaCy parses; sentences written for these tests (brewing, archives, aviation, a vet practice, a print shop,
haulage), none is in the labelled sets. Near misses that must stay OK: two people for the two acts, the events in
the rule's order, the reserved person under a given name, a credential denied or booked."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

BREW = "The same brewer may not both dose the finings and sign the batch record."
CASH = "The same clerk may not both count the cash and sign the deposit slip."
PHYSIO = "Each patient must sign a consent form before their first treatment."
STATION = "The alarm panel must be set to test mode before any detector is disconnected."
PRESS = "Only the senior printer may approve a colour proof."
HAUL = "Only drivers holding a valid ADR certificate may collect hazardous loads."


def test_one_person_says_it_did_both_acts_itself() -> None:
    claim = "K. Brandt dosed the finings on tank 4 at noon and signed the batch record himself at 16:00."
    assert _v(BREW, claim) == REJECT
    claim = "Priya counted the cash at close, and she signed the deposit slip herself the next morning."
    assert _v(CASH, claim) == REJECT


def test_two_people_for_the_two_acts_keep_the_rule() -> None:
    claim = "K. Brandt dosed the finings on tank 4 at noon and L. Okafor signed the batch record at 16:00."
    assert _v(BREW, claim) == OK
    claim = "Priya counted the cash at close, and Tomasz signed the deposit slip the next morning."
    assert _v(CASH, claim) == OK


def test_one_act_done_without_a_marker_of_the_other_is_not_read_as_both() -> None:
    # the brewer signed the record; the claim does not say she did the dosing too
    claim = "Ruth Vale signed the batch record at 16:00 after the finings went in."
    assert _v(BREW, claim) != REJECT


def test_an_event_told_by_a_kind_of_the_rules_word() -> None:
    claim = "Mr Dunn had a deep tissue massage at 10:00 and signed the consent form at 10:45."
    assert _v(PHYSIO, claim) == REJECT
    claim = "Ola unplugged the smoke detector in the east wing at 09:12 and set the alarm panel to test mode at 09:20."
    assert _v(STATION, claim) == REJECT


def test_the_kind_in_the_rules_order_keeps_it() -> None:
    claim = "Mr Dunn signed the consent form at 09:50 and had a deep tissue massage at 10:00."
    assert _v(PHYSIO, claim) == OK
    claim = "Ola set the alarm panel to test mode at 09:05 and unplugged the smoke detector in the east wing at 09:12."
    assert _v(STATION, claim) == OK


def test_a_given_name_the_records_list_under_an_initial() -> None:
    records = {"c1": "Proof log 14 Mar: cover proof CP-88 approved, sig. N. Okoye.",
               "c2": "Staff: R. Baptiste - senior printer; N. Okoye - apprentice; D. Lund - finisher."}
    assert _v(PRESS, "Nadia approved the colour proof for the cover on 14 March.", records) == REJECT


def test_a_given_name_of_the_reserved_person_keeps_it() -> None:
    records = {"c1": "Proof log 14 Mar: cover proof CP-88 approved, sig. R. Baptiste.",
               "c2": "Staff: R. Baptiste - senior printer; N. Okoye - apprentice; D. Lund - finisher."}
    assert _v(PRESS, "Rosa approved the colour proof for the cover on 14 March.", records) == OK


def test_a_doer_the_claim_says_holds_the_credential() -> None:
    claim = "The hazardous load was collected by Ewan, who holds a current ADR card, at 07:30."
    assert _v(HAUL, claim, "Yard log: hazardous load HZ-12 out 07:30.") == OK


def test_a_credential_denied_or_booked_does_not_keep_it() -> None:
    claim = "The hazardous load was collected by Ewan, whose ADR course is booked for June, at 07:30."
    assert _v(HAUL, claim, "Yard log: hazardous load HZ-12 out 07:30.") != OK
