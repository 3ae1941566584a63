"""Facts only a cited record holds (round 11): a weekday the record gives the rule's reference event of the
claim's thing, a person's age, a repeated event, a coded entry of a record, a sample interval, a log of the
rule's event that the claim vouches for. Each reading beside a kept wording, on real parses.
"""

from __future__ import annotations

from abilities.scu_guard import ages, kept_logs
from abilities.scu_guard.forms import understand
from abilities.scu_guard.judge import _entities
from tests.scu_guard_support import OK, REJECT, verdict

VATS = ["Paint vats must be rinsed within 24 hours of draining."]
GOATS = ["Goats treated with a wormer must not be milked for at least 72 hours after the last dose."]


def test_weekday_of_the_reference_event_for_the_claims_thing() -> None:
    log = {"c1": "Vat log: vat 9 was drained on Tuesday at 10:00; vat 12 was cleaned on Monday."}
    assert verdict(VATS, "Vat 9 was rinsed on Thursday.", log) == REJECT
    # Tuesday 10:00 to some hour of Wednesday may be within 24 hours: no firm reading
    assert verdict(VATS, "Vat 9 was rinsed on Wednesday.", log) != REJECT


def test_weekday_and_time_of_a_last_dose_against_a_minimum() -> None:
    rec = {"c1": "Dosing record: goat 41 received her last dose at 08:00 on Tuesday."}
    assert verdict(GOATS, "Goat 41 was milked at 16:00 on Thursday.", rec) == REJECT
    assert verdict(GOATS, "Goat 41 was milked at 16:00 on Saturday.", rec) == OK


def test_a_code_both_name_ties_a_time_on_the_same_day() -> None:
    rule = ["Staff must not enter a fumigated room for 24 hours after fumigation."]
    log = {"c1": "Room 5 was fumigated at 09:00 on Friday."}
    assert verdict(rule, "Staff entered room 5 at 18:00 on Friday.", log) == REJECT
    assert verdict(rule, "Staff entered room 5 at 10:00 on Saturday.", log) == OK


def test_the_weekday_of_another_thing_gives_no_firm_gap() -> None:
    log = {"c1": "Vat log: vat 12 was drained on Tuesday at 10:00."}
    assert verdict(VATS, "Vat 9 was rinsed on Thursday.", log) != REJECT


CLIMB = ["Climbers under 12 must wear a chest harness on the wall."]
KAYAK = ["Kayakers under 16 must be supervised by an instructor."]


def test_a_records_age_for_the_named_person_meets_an_age_condition() -> None:
    roster = {"c1": "Climber list: Noor is 10; Felix is 15."}
    assert verdict(CLIMB, "Noor climbed the north wall without a chest harness.", roster) == REJECT
    assert verdict(CLIMB, "Felix climbed the north wall without a chest harness.", roster) == OK


def test_a_records_age_with_a_duty_of_company_denied() -> None:
    roster = {"c1": "Junior list: Tariq (13) paddles with instructor Ana Reyes; Bea (17) paddles solo."}
    assert verdict(KAYAK, "Tariq paddled the estuary on his own while Ana Reyes was ashore.", roster) == REJECT
    assert verdict(KAYAK, "Bea paddled the estuary on her own while Ana Reyes was ashore.", roster) == OK


def test_ages_are_read_after_a_persons_name_only() -> None:
    got = {(n, a) for n, a, _, _ in ages.named_ages("Card: Ines Duarte, age 9; Room 4 is 12; Omar (11).")}
    assert got == {("Ines Duarte", 9.0), ("Omar", 11.0)}
    assert ages.claim_ages("Ines swam two lengths.", ["Card: Ines Duarte, age 9."])[0][1].lo == 9.0


PLASMA = ["Plasma donors must wait at least 14 days between donations."]


def test_again_makes_the_claims_date_the_next_time_of_a_logged_event() -> None:
    log = {"c1": "Donor log: K. Osei last gave plasma on 3 May 2026."}
    assert verdict(PLASMA, "K. Osei gave plasma again on 10 May 2026.", log) == REJECT
    assert verdict(PLASMA, "K. Osei gave plasma again on 20 May 2026.", log) == OK


LOGGERS = ["Data loggers must record at least every 5 minutes."]


def test_a_coded_entry_gives_the_claims_code_its_own_interval() -> None:
    log = {"c1": "Logger downloads: unit L-2 - sample interval 10 min, max 6.1 °C. Unit L-3 - sample interval 2 min, "
                  "max 5.8 °C."}
    assert verdict(LOGGERS, "Data logger L-2 recorded the whole trip.", log) == REJECT
    assert verdict(LOGGERS, "Data logger L-3 recorded the whole trip.", log) == OK


DOORS = ["Every fire door must be checked at least every 7 days."]


def test_a_claim_that_vouches_for_a_log_with_a_lapse() -> None:
    late = {"c1": "Fire door FD-12 check log: 1 June, 8 June, 19 June, 25 June."}
    kept = {"c1": "Fire door FD-12 check log: 1 June, 8 June, 14 June, 21 June."}
    claim = "Fire door FD-12 has been checked within the required interval all June."
    assert verdict(DOORS, claim, late) == REJECT
    assert verdict(DOORS, claim, kept) == OK
    # a claim that does not vouch for the interval says nothing of the log's old gap
    assert verdict(DOORS, "Fire door FD-12 was checked on 25 June.", late) != REJECT


def test_a_claim_that_admits_a_lapse_does_not_vouch_for_the_log() -> None:
    form = understand(DOORS[0])
    log = ["Fire door FD-12 check log: 1 June, 8 June, 19 June, 25 June."]
    claim = "Fire door FD-12 has not been checked within the required interval."
    assert kept_logs.log_lapse(form, claim, log, _entities) is None


NOTICE = ["Neighbours must be notified at least 10 days before blasting begins."]


def test_a_lead_before_the_event_the_claim_dates() -> None:
    notice = {"c1": "Notice to the neighbours was posted on 3 June."}
    assert verdict(NOTICE, "Blasting at the hill quarry began on 8 June.", notice) == REJECT
    assert verdict(NOTICE, "Blasting at the hill quarry began on 20 June.", notice) == OK


HUMIDITY = ["Store-room relative humidity must be kept between 40% and 60%."]


def test_a_logs_reading_for_a_day_the_claim_does_not_name_is_not_the_claims() -> None:
    log = {"c1": "Store room 3 hygrometer, week 12: Mon 45%, Tue 52%, Wed 58%, Thu 66%, Fri 49%."}
    claim = "Store room 3 humidity on the Monday and Tuesday of week 12 was within its band."
    assert verdict(HUMIDITY, claim, log) == OK
