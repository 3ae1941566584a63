"""Round 17: a rival means in the rule's own slot, and a supplier named where the rule's verb is told another way.

A rule that allows a doing only with listed means ("Club subscriptions may be paid only by card or bank
transfer", "Only distilled water or isopropyl alcohol may be used on the telescope mirror") is broken by a claim
that does the doing, to the rule's thing, with a thing of the members' own sort (WordNet's broad sort of noun:
possession, substance, food, ...) that is none of them: "paid by cheque", "wiped with acetone". A list of
suppliers ("purchased only from Jewson or Travis Perkins") is broken by a name in the list's slot of a verb that
is a manner of the rule's ("bought from Howarth Timber"). Near misses stay OK: a member named in other words, a
rival refused or only offered, a thing of another sort ("a chamois leather"), a thing near the rule's thing, a
name in another slot ("the rep from ..."), a doing of another party.
"""

from __future__ import annotations

import pytest

from tests.scu_guard_support import OK, REJECT, verdict_beside

SUBS = "Club subscriptions may be paid only by card or bank transfer."
GUESTS = "Guests may pay only by card or bank transfer."
MIRROR = "Only distilled water or isopropyl alcohol may be used on the telescope mirror."
TIMBER = "Timber may be purchased only from Jewson or Travis Perkins."
PAYMENTS = "Customer payments may be accepted only by card or bank transfer."


@pytest.mark.parametrize(("rule", "claim"), [
    (SUBS, "Mrs Okoro paid her £40 subscription by cheque at the AGM."),
    (GUESTS, "The Bakers paid with a cheque drawn on their joint account."),
    (PAYMENTS, "Mr Dunn paid the £120 for his boiler service by cheque on Monday."),
    (MIRROR, "The technician wiped the telescope mirror with acetone before the open night."),
    (TIMBER, "We bought the oak boards from Howarth Timber because Jewson had none in stock."),
])
def test_rival_means_rejected(rule: str, claim: str) -> None:
    assert verdict_beside(rule, claim) == REJECT


@pytest.mark.parametrize(("rule", "claim"), [
    (SUBS, "Mrs Okoro offered a cheque for her subscription, but the treasurer refused it and she paid by card."),
    (SUBS, "Mrs Okoro paid her £40 subscription by Visa debit card at the AGM."),
    (SUBS, "The club paid its cleaner by cheque on Friday."),
    (GUESTS, "The Bakers were not allowed to pay by cheque, so they paid by card."),
    (MIRROR, "The technician wiped the telescope mirror with a chamois leather and distilled water."),
    (MIRROR, "The technician wiped the tube around the telescope mirror with acetone."),
    (TIMBER, "We asked the rep from Howarth Timber about prices, then bought the oak boards from Jewson."),
    (GUESTS, "The Bakers settled their bill by card, which the owner accepted after their cheque book was left at home."),
])
def test_near_misses_stay_ok(rule: str, claim: str) -> None:
    assert verdict_beside(rule, claim) == OK
