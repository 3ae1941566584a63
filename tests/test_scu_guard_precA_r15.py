"""scu_guard round 15: near misses read as breaches, and the breaches of the same shapes. Real spaCy parses and
WordNet 3.0 data; sentences written for these tests, none is in the labelled sets.

- a duty bound to a place ("Every worker on the scaffold must ...") and the claim's act told at another place;
- a list of allowed means ("may be stained only with ...") and a step the record calls optional;
- a maker's name or a possessor before a listed product ("Liquitex's Titan White", "Rowan Glaze K");
- a rule of order and a clause tied to its event only by a word describing a person ("the safety officer").
"""

from __future__ import annotations

import pytest

from abilities.scu_guard.evaluate import judge
from tests.scu_guard_support import logged_case

SCAFFOLD = "Every worker on the scaffold must wear a harness."
DECK = "Every passenger on deck must wear a life jacket."
CLEAN_ROOM = "All visitors in the clean room must wear hairnets."
FENCE = "Fences may be stained only with oak varnish or linseed oil."
WOUND = "Wounds may be dressed only with sterile gauze or hydrocolloid pads."
INVOICE = "Invoices may be paid only by card or bank transfer."
FLOOR = "Floors may be sealed only with Tuffseal or Glaze-K."
CANVAS = "Canvases may be primed only with Gessoflex or Titan-White."
TANK = "Tanks may be filled only from Brennan Water or Halden Springs."
LAB = "Everyone in the lab must wear a lab coat."
FERRY = "The safety check must be completed before passengers board the ferry."
SAMPLES = "The calibration run must be finished before samples are loaded."


def _verdict(rule: str, claim: str) -> str:
    return judge(logged_case(rule, claim)).verdict


KEPT = [
    # the act told at another place than the one the duty binds in, the claim naming both
    (SCAFFOLD, "Two workers took their harnesses off in the site canteen at lunch; up on the scaffold everyone "
               "kept them on."),
    (DECK, "Three passengers took their life jackets off in the cabin below; on deck they all kept them on."),
    (CLEAN_ROOM, "Two visitors took their hairnets off in the lobby after the tour; in the clean room everyone "
                 "kept them on."),
    (LAB, "Two students took their lab coats off in the corridor; in the lab everyone kept them on."),
    # a step said optional under a rule that only lists what may be used
    (WOUND, "The extra gauze layer was optional on that small wound, so the nurse left it off and dressed it with "
            "a hydrocolloid pad."),
    (FENCE, "The second varnish coat was optional on that dry oak, so the crew left it off and the fence got "
            "linseed oil."),
    (INVOICE, "The card surcharge was optional, so the client skipped it and paid by bank transfer."),
    # a maker's name before a listed product
    (FLOOR, "The floor was sealed with Rowan's Glaze K on Friday."),
    (FLOOR, "The floor was sealed with Rowan Glaze K on Friday."),
    (CANVAS, "Priya primed the canvas with Liquitex's Titan White."),
    (TANK, "The tank was filled from Acme's Halden Springs supply."),
    # a person described by the event's word is not the event
    (FERRY, "The safety officer arrived at 08:30, after the passengers had boarded the ferry at 08:10."),
    (SAMPLES, "Samples were loaded at 9:00, and the calibration technician went home at 10:00."),
]

BROKEN = [
    (SCAFFOLD, "Two workers took their harnesses off on the scaffold at lunch."),
    (DECK, "Three passengers took their life jackets off on deck during the crossing."),
    (CLEAN_ROOM, "Two visitors took their hairnets off in the clean room during the tour."),
    # "the rest" leaves the two at the rule's place; the act told at the rule's place itself
    (LAB, "Two students took their lab coats off at the bench; in the lab the rest kept them on."),
    (LAB, "Two students took their lab coats off in the lab; in the corridor everyone kept them on."),
    (INVOICE, "The client paid the invoice in cash."),
    (FLOOR, "The floor was sealed with Rowan's Seal-X on Friday."),
    (CANVAS, "Priya primed the canvas with Liquitex's Basics Gesso."),
    # a possessor before a name that shares only one word with a member: the member is not named whole
    (TANK, "The tank was filled from Acme's Calder Springs supply."),
    (FERRY, "The safety check was completed at 08:30, after the passengers had boarded the ferry at 08:10."),
    (SAMPLES, "Samples were loaded at 9:00, and the calibration run was finished at 10:00."),
]


@pytest.mark.parametrize(("rule", "claim"), KEPT)
def test_near_misses_stay_ok(rule: str, claim: str) -> None:
    assert _verdict(rule, claim) == "OK"


@pytest.mark.parametrize(("rule", "claim"), BROKEN)
def test_breaches_of_the_same_shapes_are_rejected(rule: str, claim: str) -> None:
    assert _verdict(rule, claim) == "REJECT"
