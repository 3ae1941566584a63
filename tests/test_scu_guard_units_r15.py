"""Amounts in units the unit table did not know, or misread: torque ("Nm", "lb-ft"), force ("N", "kN"), power
("W", "kW", "mW", "MW"), symbols told apart by their case ("Nm" a torque, "nm" nautical miles; "kN" a force,
"kn" knots), a number word glued to a unit's letters ("ALB" is no pound), and "every hour and a quarter".
Contradictions in another unit than the rule's are rejected; amounts just inside the bound stay OK."""

from __future__ import annotations

import pytest

from abilities.scu_guard.measure import find_amounts
from tests.scu_guard_support import verdict_beside

CLIMBING = "Bolts on the climbing wall holds must be torqued to between 20 and 25 Nm."
LIGHTING = "Stage lighting on the balcony rail must not exceed 3 kW."
LASER = "Laser pointers used in lectures must not exceed 1 mW."
SLINGS = "Anchor slings on the ropes course must be rated to at least 22 kN."
CRANKS = "Pedal cranks must be tightened to no more than 50 Nm."
DINGHIES = "Club dinghies must stay within 2 nm of the harbour wall."
PATROL = "Patrols must pass each checkpoint at least every 60 minutes."


@pytest.mark.parametrize(("rule", "claim"), [
    (CLIMBING, "The bolts on the panel 3 holds were torqued to 10 lb-ft."),  # 13.6 Nm
    (LIGHTING, "The stage lighting on the balcony rail drew 3,600 W during the show."),
    (LASER, "The laser pointer used in the lecture was rated 5 mW."),
    (SLINGS, "The anchor slings on the ropes course were rated to 18,000 N."),
    (CRANKS, "The pedal cranks were tightened to 45 ft-lbs."),  # 61 Nm
    (DINGHIES, "The club dinghies sailed 5 nm from the harbour wall."),
    (PATROL, "The patrol passed each checkpoint every hour and a quarter."),
])
def test_amount_in_another_unit_outside_the_bound_is_rejected(rule: str, claim: str) -> None:
    assert verdict_beside(rule, claim)[0] == "REJECT"


@pytest.mark.parametrize(("rule", "claim"), [
    (CLIMBING, "The bolts on the panel 3 holds were torqued to 17 lb-ft."),  # 23 Nm
    (LIGHTING, "The stage lighting on the balcony rail drew 2,400 W during the show."),
    (LASER, "The laser pointer used in the lecture was rated 0.9 mW."),
    (SLINGS, "The anchor slings on the ropes course were rated to 23,000 N."),
    (CRANKS, "The pedal cranks were tightened to 30 ft-lbs."),  # 40.7 Nm
    (DINGHIES, "The club dinghies sailed 3 km from the harbour wall."),  # 1.6 nm
    (PATROL, "The patrol passed each checkpoint every three quarters of an hour."),
    ("The ALB must carry at least 4 flares.", "The ALB carried 6 flares on its last trip."),
])
def test_amount_in_another_unit_just_inside_the_bound_stays_ok(rule: str, claim: str) -> None:
    assert verdict_beside(rule, claim)[0] == "OK"


def _read(text: str) -> list[tuple[str, str, float]]:
    return [(a.text, a.dim, round(a.lo, 3)) for a in find_amounts(text)]


def test_case_tells_the_symbols_apart() -> None:
    torque, = _read("The seat clamp takes 5 Nm.")
    distance, = _read("The buoy lies 5 nm offshore.")
    assert torque[1] != distance[1] and distance == ("5 nm", "[length]", 9260.0)
    force, = _read("The winch pulls 40 kN.")
    speed, = _read("The ketch made 40 kn.")
    assert force[2] == 40000.0 and speed[1] == "[length] / [time]"
    assert _read("a 5 mW pointer")[0][2] == 0.005 and _read("a 5 MW turbine")[0][2] == 5e6


def test_torque_units_share_one_dimension() -> None:
    (_, nm_dim, nm), = _read("set to 100 N·m")
    (_, lbft_dim, lbft), = _read("set to 100 pound-feet")
    assert nm_dim == lbft_dim and lbft == pytest.approx(135.582, abs=1e-3) and nm == 100.0


def test_glued_word_and_lone_letters_are_no_amounts() -> None:
    assert _read("The ALB crew were paged.") == []
    assert _read("the wind was 5 w of north") == []
    assert _read("one W of the bridge") == []


def test_every_hour_and_a_quarter() -> None:
    (_, dim, secs), = _read("The hut was called every hour and a quarter.")
    assert dim == "[time]" and secs == 4500.0
