"""Counts a claim states itself (``abilities/scu_guard/counts.py``), on real parses: number phrases,
groups, sums of one kind in one event, and the tie to the rule's event a REJECT needs."""

from __future__ import annotations

import pytest

from abilities.scu_guard.counts import MEMBERS, read_counts
from tests.scu_guard_support import REJECT, verdict


def _counts(text: str) -> list[dict[str, float]]:
    return [dict(c.counts) for c in read_counts(text)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Two dozen riders were on the track.", [{"rider": 24.0}]),
        ("Half a dozen students worked the anvils.", [{"student": 6.0}]),
        ("A dozen and a half notarized documents were handled.", [{"docu": 18.0}]),
        ("The tour took a score of day-trippers up the tower.", [{"tripper": 20.0}]),
        ("Cage 18 held four stacks of a dozen trays each.", [{"stack": 4.0, "tray": 48.0}]),
        ("The flight carried two families of four.", [{"family": 2.0, MEMBERS: 8.0}]),
        ("The office party of a dozen bowled together.", [{"party": 1.0, MEMBERS: 12.0}]),
        ("Four owls were out, plus a trio of hawks.", [{"owl": 4.0}, {"trio": 1.0, "hawk": 3.0}]),
        ("She left with a couple of pairs of trials.", [{"coupl": 1.0, "pair": 2.0}]),
        ("Antenna A handled a dozen passes, and then three more were added.", [{"pass": 12.0}, {"pass": 3.0}]),
    ],
)
def test_number_phrases_and_groups_are_read_as_counts(text: str, want: list[dict[str, float]]) -> None:
    assert _counts(text) == want


def test_times_dates_and_measured_things_are_no_counts() -> None:
    assert _counts("The 3 pm tour on 14 July ran at 10:30.") == []
    assert _counts("It took three hours.") == []


TRACK = ["No more than 12 riders may be on the track at the same time."]
BIRDS = ["No more than six birds may be tethered on the weathering lawn at the same time."]
CAGE = ["A roll cage may hold at most 40 trays."]
K4 = ["A single Kestrel K4 flight may carry no more than 6 passengers."]
HALL = ["No more than 3 buses may be in the wash hall at the same time."]
LANE = ["No more than 6 bowlers may be assigned to a single lane."]
PASSES = ["No more than 14 passes may be scheduled per antenna per day."]


@pytest.mark.parametrize(
    ("constraints", "claim", "rejected"),
    [
        # a number noun, in the rule's place
        (TRACK, "Two dozen riders were circulating on the track at once.", True),
        (TRACK, "A dozen riders were circulating on the track at once.", False),
        # the same noun counted for another event: not in the rule's place
        (TRACK, "Two dozen riders queued for the track.", False),
        (TRACK, "Fourteen riders queued for the session, but the steward let only twelve onto the track.", False),
        # a sum of two kinds in the slot of the rule's own verb
        (BIRDS, "Four owls and three hawks were tethered on the weathering lawn.", True),
        (BIRDS, "Three owls plus a pair of hawks were tethered on the weathering lawn.", False),
        (BIRDS, "Four keepers tethered three hawks and four owls on the weathering lawn.", True),
        # at one time: counts of two clauses at two times are not added
        (BIRDS, "Four owls were tethered on the lawn in the morning and three hawks were tethered in the "
                "afternoon.", False),
        # groups times their size, with the holder named by a label ("Cage 18" is a roll cage)
        (CAGE, "Cage 18 went out on the Westmere route with four stacks of a dozen trays each.", True),
        (CAGE, "Cage 18 went out with three stacks of a dozen trays each.", False),
        (K4, "The 08:20 K4 to Corran Point carried two families of four.", True),
        (K4, "The 08:20 K4 to Corran Point carried two families of three.", False),
        (HALL, "At 19:40 there were two pairs of buses in the wash hall, one pair in each lane.", True),
        (HALL, "At 19:40 there were two pairs of buses in the North Charging Hall.", False),
        # a number spread over several of the places the rule bounds one by one
        (LANE, "The dozen bowlers were split evenly between lanes 3 and 4.", False),
        # "N more" adds to what was counted in the sentence, on one day
        (PASSES, "Antenna A handled a dozen passes on Monday, and then three more were scheduled into its "
                 "evening.", True),
        (PASSES, "Antenna A handled a dozen passes on Monday, and then two more were scheduled into its "
                 "evening.", False),
    ],
)
def test_a_total_rejects_only_when_tied_to_the_rules_event(constraints: list[str], claim: str,
                                                          rejected: bool) -> None:
    assert (verdict(constraints, claim, None) == REJECT) is rejected


def test_a_count_below_a_minimum_needs_the_claim_to_say_it_is_all() -> None:
    rule = ["Firewall changes require two approvals."]
    assert verdict(rule, "A firewall change with one approval is enough for vendors.", None) == REJECT
    assert verdict(rule, "The firewall change got one approval on Monday.", None) != REJECT
