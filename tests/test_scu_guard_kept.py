"""Readings that show a rule kept, on real parses: the kept wording answers OK, the breaking one beside it
does not."""

from tests.scu_guard_support import verdict

BOILER = ["Boilers must be serviced at least once every 14 days."]


def test_log_of_the_event_counts_each_date_from_the_latest_before_it() -> None:
    """A cited service log lists the event on several dates; the claim's last date counts from the log's
    latest earlier entry, not from its first one."""
    log = {"c1": "Boiler service log 2025: Tue 3 June 2025 - R. Diaz; Tue 17 June - R. Diaz; Mon 30 June - K. Obi."}
    assert verdict(BOILER, "The boilers were serviced through the month, last on Monday 30 June.", log)[0] == "OK"
    late = {"c1": "Boiler service log 2025: Tue 3 June 2025 - R. Diaz; Tue 17 June - R. Diaz."}
    assert verdict(BOILER, "The boilers were serviced next on Friday 18 July.", late)[0] != "OK"


def test_log_dates_without_a_year_take_the_year_the_log_gives() -> None:
    """"3 June" in a log headed 2025 is 3 June 2025, so a claim dating the same services in 2025 keeps the rule."""
    log = {"c1": "Plant room diary 2025: boilers serviced 3 June (R. Diaz); serviced 16 June (R. Diaz)."}
    assert verdict(BOILER, "The boilers were serviced on 3 June 2025 and again on 16 June.", log)[0] == "OK"
    assert verdict(BOILER, "The boilers were serviced on 3 June 2025 and again on 30 June.", log)[0] != "OK"


def test_entry_of_another_thing_is_not_part_of_the_log() -> None:
    """"; Boiler B on 20 June" is another boiler's entry: the gap for boiler A still counts from its own date."""
    rule = ["Every boiler must be serviced at least once every 14 days."]
    log = {"c1": "Service sheet: Boiler A last serviced 2 June 2025; Boiler B last serviced 20 June 2025."}
    assert verdict(rule, "Boiler A's next service is booked for 25 June 2025.", log)[0] != "OK"
