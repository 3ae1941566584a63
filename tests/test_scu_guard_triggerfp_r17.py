"""scu_guard round 17: amount and time readings made exact. Four readings: a comparative in a denied subject
("No trailer longer than 12 metres may enter ...") names the things the ban is about (trailers over 12 m), the
"no" being the ban itself, so a shorter trailer, in any unit, keeps the rule and a longer one breaks it; a
condition that reads a thing of its own ("If the tide gauge reads above 4 metres, ...") is not met by an amount
of another thing the claim never ties to it (a barge's length), while a word WordNet puts with it ("a gust" for
"the wind speed") still reads it; a duty done on the rule's own thing ("the outdoor stages were closed") is not
broken by another kind of thing left as it was ("the indoor stage stayed open"); a range of hours stated before a
ban in a later clause ("opens from 9 am to 6 pm; readers may not stay after 6 pm") is the open time, so the ban
falls outside it. Real spaCy parses; sentences written for these tests, none is in the labelled sets."""

from __future__ import annotations

from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

TRAILER = "No trailer longer than 12 metres may enter the loading yard."
PARCEL = "No parcel heavier than 30 kg is carried on the conveyor."
TRUCK = "No truck heavier than 7.5 tonnes crosses the old bridge."
TIDE = "If the tide gauge reads above 4 metres, no barge is moored at the outer quay."
WIND = "If the wind speed exceeds 60 km/h, every outdoor stage is closed at once."
READING_ROOM = "The reading room opens from 9 am to 6 pm; readers may not stay after 6 pm."


def test_a_denied_subject_bans_the_things_its_comparative_names() -> None:
    assert _v(TRAILER, "The 13.5 m trailer entered the loading yard at 06:00.") == REJECT
    assert _v(PARCEL, "A 70 lb parcel was carried on the conveyor.") == REJECT  # 31.8 kg
    assert _v(TRUCK, "The 17,000 lb truck crossed the old bridge on Monday.") == REJECT  # 7.71 tonnes


def test_an_amount_inside_the_comparative_keeps_the_ban_in_any_unit() -> None:
    assert _v(TRAILER, "The 11.8 m trailer entered the loading yard at 06:00.") == OK
    assert _v(TRAILER, "The 39-foot trailer entered the loading yard at 06:00.") == OK  # 11.89 m
    assert _v(PARCEL, "A 64 lb parcel was carried on the conveyor.") == OK  # 29.0 kg
    # a tonne is a metric ton: 16,000 lb is 7.26 tonnes, under 7.5
    assert _v(TRUCK, "The 16,000 lb truck crossed the old bridge on Monday.") == OK


def test_a_condition_reads_its_own_thing() -> None:
    assert _v(TIDE, "The barge Merlin, 38 m long, was moored at the outer quay overnight.") == OK
    assert _v(TIDE, "The tide gauge read 4.6 m when the barge Merlin was moored at the outer quay.") == REJECT
    # a gust is wind: its speed is the reading the condition names
    assert _v(WIND, "After the 70 km/h gust the outdoor stages stayed open.") == REJECT


def test_a_duty_done_on_its_own_thing_beside_another_kind_left_as_it_was() -> None:
    assert _v(WIND, "After the 70 km/h gust the outdoor stages were closed, while the indoor Pavilion stage "
                    "stayed open.") == OK
    assert _v(WIND, "After the 70 km/h gust the indoor stage was closed, while the outdoor stages stayed "
                    "open.") == REJECT


def test_hours_stated_before_a_ban_are_the_open_time() -> None:
    assert _v(READING_ROOM, "The last reader left the reading room at 5:50 pm on Monday.") == OK
    assert _v(READING_ROOM, "A reader stayed in the reading room until 7:15 pm on Monday.") == REJECT
    assert _v(READING_ROOM, "Two readers stayed in the reading room at 8:30 pm on Monday.") == REJECT


FERRY = "The chain ferry is worked only from 7:00 am to 7:30 pm."


def test_hours_named_after_only_are_the_allowed_ones() -> None:
    assert _v(FERRY, "The ferryman worked the chain ferry at 9:40 am on Tuesday.") == OK
    assert _v(FERRY, "The ferryman worked the chain ferry at 9:40 pm on Tuesday.") == REJECT
