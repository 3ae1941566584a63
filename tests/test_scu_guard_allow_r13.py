"""scu_guard round 13: allow-lists of the means a doing may be done with ("Deposits may only be paid by card or bank
transfer", "Seasonings in the Classic range are limited to salt, black pepper and thyme"), and lists of names whose
outsider stands beside a member. Real WordNet 3.0 data and real spaCy parses; sentences written for these tests,
none is in the labelled sets. Each break has near misses that must stay OK: a member named by a kind of it or with
other modifiers, an outsider only mentioned, denied or used for another doing, a doing outside the rule's scope."""

from __future__ import annotations

from abilities.scu_guard import wordnet
from abilities.scu_guard.forms import understand
from abilities.scu_guard.use_lists import read_uses
from tests.scu_guard_support import OK, REJECT, REVIEW
from tests.scu_guard_support import verdict_beside as _v

DEPOSITS = "Deposits may only be paid by card or bank transfer."
SEASONINGS = "Seasonings in the Classic range are limited to salt, black pepper and thyme."
POLISH = "Gallery floors may be polished only with beeswax or carnauba wax."



def test_a_rule_names_its_doing_its_means_and_their_kind() -> None:
    """The doing is the rule's verb, or the verb its subject noun is made from ("Seasonings" is seasoning; a doer
    such as "Visitors" is no doing); the list's kind comes from WordNet ("season" -> seasoning, flavorer)."""
    u = read_uses(SEASONINGS)
    assert u is not None and u.verbs == ("season",) and u.members == ("salt", "black pepper", "thyme")
    assert wordnet.under_any("nutmeg", u.kinds) and u.scope == ("classic", "rang")
    d = read_uses(DEPOSITS)
    assert d is not None and d.verbs == ("pay",) and d.thing == "deposit" and d.prep == "by"
    assert wordnet.verbs_of_noun("visitors") == () and wordnet.verbs_of_noun("payment") == ("pay",)
    # times and amounts are read by the window and bound readings, not as means
    assert read_uses("Parcels may be collected only on Mondays or Thursdays.") is None
    assert read_uses("The beacon may transmit only on 121.5 MHz or 243.0 MHz.") is None


def test_means_after_by_are_not_doers() -> None:
    """ "paid by card or bank transfer": the means, not who may pay; a claim paying by card keeps the rule."""
    form = understand(DEPOSITS)
    assert form is not None and form.agents == [] and form.use_members == ["card", "bank transfer"]
    assert _v(DEPOSITS, "Cash was turned away at reception, so the deposit was paid by card.") == OK


def test_the_doing_done_with_a_thing_of_the_kind_outside_the_list() -> None:
    assert _v(DEPOSITS, "The Hendry booking's deposit was paid in cash at reception.") == REJECT
    assert _v(SEASONINGS, "The Classic pie was seasoned with salt and a pinch of nutmeg.") == REJECT  # a measure
    assert _v("Payment may only be accepted by card or bank transfer.",
              "The guest paid for the room in cash.") == REJECT  # the doing read from "Payment"


def test_members_named_otherwise_keep_the_rule() -> None:
    """A member named by a kind of it, with a brand, or with other modifiers is that member."""
    assert _v(DEPOSITS, "The Hendry deposit was paid with a Mastercard debit card.") == OK
    assert _v(SEASONINGS, "The Classic pie was seasoned with sea salt and cracked black pepper.") == OK
    assert _v(SEASONINGS, "The Classic pie was seasoned with thyme from the garden.") == OK
    assert _v(POLISH, "The east gallery floor was polished with a soft cloth and beeswax.") == OK


def test_an_outsider_mentioned_denied_or_used_otherwise_keeps_the_rule() -> None:
    assert _v("Payment may only be accepted by card or bank transfer.",
              "The guest paid by card, not cash.") == OK  # denied beside the member
    assert _v("Payment may only be accepted by card or bank transfer.",
              "The guest bought a coffee with cash from the machine in the lobby.") == OK  # another doing
    assert _v("Payment may only be accepted by card or bank transfer.",
              "The guest paid in advance by bank transfer.") == OK  # "in advance" is a way of paying
    assert _v(SEASONINGS, "The Classic pie was seasoned with thyme; nutmeg was left out.") == OK
    assert _v(SEASONINGS, "The Classic pie was baked with butter.") == OK


def test_the_doing_outside_the_rules_scope_keeps_it() -> None:
    """ "Seasonings in the Classic range": a pie of another range may be seasoned with anything."""
    assert _v(SEASONINGS, "The Spicy pie was seasoned with nutmeg.") == OK
    assert _v(POLISH, "The brass rail was polished with Glosstrex.") == OK  # not a gallery floor


def test_a_name_wordnet_does_not_know_is_a_guess() -> None:
    """A brand with no word of the list's kind may be one of the members under another name: REVIEW."""
    assert _v(POLISH, "The east gallery floor was polished with Glosstrex on Monday.") == REVIEW
    assert _v(POLISH, "The east gallery floor was polished by Glosstrex Ltd.") == OK  # the doer


def test_named_lists_a_cause_or_an_aside_names_no_member_in_the_slot() -> None:
    rule = "Parts may only be ordered from the approved suppliers: Halden, Morrow and Vance."
    assert _v(rule, "Because of the Halden strike, the brackets were ordered from Kessler Tools.") == REJECT
    assert _v(rule, "The brackets were ordered from Tom at Halden.") == OK


def test_named_lists_a_name_joined_to_a_member_is_of_the_lists_kind() -> None:
    rule = "Only pilots on the approved list (Adeyemi, Novak, Carr) may fly the survey drone."
    assert _v(rule, "The survey drone was flown by Novak and Ferris on Tuesday.") == REJECT
    assert _v(rule, "The survey drone was flown by Novak and Carr on Tuesday.") == OK
    assert _v(rule, "The survey drone was flown by Novak, with Ferris watching from the van.") == OK


def test_a_thing_named_by_its_kind_may_be_a_listed_brand() -> None:
    """ "Vitra-Clean" is a brand WordNet does not know: "detergent" may be it, so only REVIEW; cleaning another
    thing with it says nothing of the windscreen."""
    rule = "Tram windscreens may be cleaned only with Vitra-Clean or plain water."
    assert _v(rule, "The tram windscreen was cleaned with detergent.") == REVIEW
    assert _v(rule, "Joe cleaned the tram windscreen with water and then cleaned the cab floor with detergent.") == OK


def test_a_doing_named_by_a_noun_leaves_its_side_open() -> None:
    """ "Payment may only be taken by ...": paying a supplier, or wages paid out, is not a payment taken; a thing
    the claim points to ("the refund") may be one named before."""
    rule = "Payment may only be taken by card or bank transfer."
    assert _v(rule, "The café paid its suppliers in cash, but customers paid by card.") == REVIEW
    assert _v(rule, "Staff wages were paid in cash.") == REVIEW
    assert _v(rule, "The invoice was paid with the refund from order 12.") == REVIEW
