"""scu_guard allow-lists of names and codes (``names.py``, ``judge.check_named_members``): the list read from the
rule, and a claim that puts another name in the list's slot. Real spaCy parses; sentences written for these
tests, none is in the labelled sets."""

from __future__ import annotations

import pytest

from abilities.scu_guard.forms import understand
from abilities.scu_guard.names import matches, member_of, read_named_list
from tests.scu_guard_support import OK, REJECT, verdict

LENSES = "Frames may be glazed only with lenses from Arden Optics, Bellweather Lens or Corvid Vision."
SUPPLIERS = "Flour may be bought only from Halvorsen Mills, Pike & Sons or Quarry Lane Grain."
ROUTES = "Double-deck buses may be assigned only to routes 3, 14 and 22."
BAYS = "Sealed kegs may be stored only in Bay 2 or Bay 6."
KILNS = "Only Ardent 40, Brisk 9 and Cinder Pro kilns may be used for stoneware."
PLATFORMS = "Hearings may be streamed only on the approved platforms: SVL or the tribunal's own Meetway room."


@pytest.mark.parametrize(("rule", "names", "prep", "kind"), [
    (SUPPLIERS, ["halvorsen mills", "pike & sons", "quarry lane grain"], "from", ""),
    (ROUTES, ["routes 3", "routes 14", "routes 22"], "to", "rout"),
    (BAYS, ["bay 2", "bay 6"], "in", "bay"),
    (KILNS, ["ardent 40", "brisk 9", "cinder pro"], "", "kiln"),
    ("Solvents may only be kept in Cabinet K.", ["cabinet k"], "in", "cabinet"),
    ("Invoices may be paid only in NOK or SEK.", ["nok", "sek"], "in", ""),
])
def test_the_list_is_read_from_the_rule(rule: str, names: list[str], prep: str, kind: str) -> None:
    named = read_named_list(rule)
    assert named is not None and list(named.names) == names and named.prep == prep and named.kind == kind
    form = understand(rule)
    assert form is not None and form.member_names == names and form.member_prep == prep


@pytest.mark.parametrize("rule", [
    "Only staff holding a Level 2 hygiene certificate may prepare food.",  # a role described in words: a doer
    "Only the QA supervisor may release a batch.",
    "Deliveries are accepted only Monday to Friday.",  # days
    "The crane may be used only between 07:00 and 19:00.",  # times
    "Visitors may enter the vault only when accompanied by a curator.",  # a condition
    "The beacon may transmit only on 406.1 MHz.",  # an amount
    "Samples may be shipped only to approved laboratories.",  # no name
])
def test_what_is_not_a_list_of_names(rule: str) -> None:
    assert read_named_list(rule) is None


def test_a_role_list_keeps_its_doer_and_a_product_list_drops_it() -> None:
    """"Only the QA supervisor may ..." stays an only-agent rule; "Only Ardent 40, Brisk 9 and Cinder Pro kilns
    may be used" names things, so neither "kiln" as a doer nor the "40" as a count is read."""
    qa = understand("Only the QA supervisor may release a batch.")
    assert qa is not None and qa.agents == ["supervisor"] and not qa.member_names
    kilns = understand("Only Ardent 40, Brisk 9 and Cinder Pro kilns may fire stoneware.")
    assert kilns is not None and kilns.agents == [] and kilns.quantity is None


@pytest.mark.parametrize(("candidate", "member", "same"), [
    ("Halvorsen", "Halvorsen Mills", True),  # short for a member
    ("Route 14", "routes 14", True),
    ("Route 15", "routes 14", False),  # codes decide
    ("Bay 3", "Bay 2", False),
    ("Kestrel Flour", "Halvorsen Mills", False),
    ("Secure Video Link", "SVL", True),  # an acronym
])
def test_a_name_matches_a_member(candidate: str, member: str, same: bool) -> None:
    assert matches(member_of(candidate), [member_of(member)]) is same


@pytest.mark.parametrize(("rule", "claim", "want"), [
    # a supplier named otherwise, after the same kind of preposition
    (SUPPLIERS, "With Halvorsen short of stock, the bakery bought its rye flour from Kessling Brothers.", REJECT),
    (SUPPLIERS, "The rye flour was bought from Halvorsen, as every week.", OK),
    (SUPPLIERS, "The rye flour was not bought from Kessling Brothers this time.", OK),  # denied
    (SUPPLIERS, "The flour was bought from Tom Reyes at Pike & Sons.", OK),  # a member in the same clause
    # a code given with the list's label, also in a clause that leaves its verb out
    (ROUTES, "The double-deckers ran on routes 3 and 14 in the morning, and route 9 in the afternoon.", REJECT),
    (ROUTES, "The double-deckers ran on routes 3 and 14 in the morning, and route 22 in the afternoon.", OK),
    (ROUTES, "Bus 41 ran route 9 all day.", OK),  # a bus, not a double-deck one
    (BAYS, "All the sealed kegs went into Bay 4 overnight.", REJECT),
    # the name's own clause speaks of another thing
    (BAYS, "The empty kegs were stacked in Bay 4, and the sealed kegs were stored in Bay 6.", OK),
    # a thing of the list's kind, named otherwise
    (KILNS, "The stoneware order was fired in the old Embermax 12 kiln.", REJECT),
    (KILNS, "The stoneware order was fired in the Brisk 9 kiln.", OK),
    # an acronym of a member
    (PLATFORMS, "The hearing was streamed on the Secure Video Link.", OK),
    (PLATFORMS, "The hearing was streamed on Streamory, a public video site.", REJECT),
])
def test_a_name_outside_the_list(rule: str, claim: str, want: tuple[str, str]) -> None:
    assert verdict([rule], claim) == want
