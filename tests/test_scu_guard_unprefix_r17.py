"""scu_guard round 17: a state a duty requires, denied by an "un-" or "non-" word the claim says of the duty's
subject. The prefixed word's stem is the rule's verb ("unsealed" for "must be sealed"), the head of the thing the
rule requires ("untagged" for "must wear a numbered bridle tag"), or a modifier of that thing said of it ("an
unsigned inspection card" for "must carry a signed inspection card"); the noun it is said of is the rule's subject
(also "three of" it), a kind of it by WordNet ("ponies" for "horse"), or a place the rule names ("its base
unlabelled" for "labels on both the lid and the base"). Real spaCy parses; sentences written for these tests, none
is in the labelled sets. Near misses that must not be rejected: an un- word of another thing or another act, an
un- word denied or mended later in the claim, a subject the claim describes otherwise where the rule narrows it
("it was empty" for "Every loaded skip"), a subject narrowed by words the rule does not use, a word whose "un" is
no prefix."""

from __future__ import annotations

from abilities.scu_guard.forms import understand
from abilities.scu_guard.nlp import parse
from abilities.scu_guard.unprefixed import denies_required
from tests.scu_guard_support import OK, REJECT
from tests.scu_guard_support import verdict_beside as _v

CRATES = "Every export crate must be sealed before it leaves the warehouse."
HORSES = "Every horse entering the showground must wear a numbered bridle tag."
SACKS = "Every outgoing sack must carry a weight label."
BOTTLES = "Every sample bottle must be refrigerated until it reaches the lab."
SKIPS = "Every loaded skip must be netted before it leaves the yard."
PARCELS = "Every parcel must carry address labels on both the lid and the base."
TOWERS = "Every scaffold tower must carry a signed inspection card."
GUESTS = "Every guest must be registered at the front desk."


def _reads(rule: str, claim: str) -> bool:
    return denies_required(understand(rule), parse(claim), 0, len(claim)) is not None


def test_the_rule_verb_denied_as_the_predicate_of_its_subject() -> None:
    assert _v(CRATES, "Crates 7 and 8 went out unsealed after the strapping tool broke.") == REJECT
    assert _v(SACKS, "Sacks 3 and 4 left the mill unlabelled after the printer failed.") == REJECT
    assert _v(BOTTLES, "Three of the sample bottles sat on the bench unrefrigerated for two hours.") == REJECT
    # the parser hangs the participle on the place ("the yard"); it is said of the subject
    assert _v(SKIPS, "Skip 4 left the yard unnetted on Tuesday.") == REJECT


def test_the_required_thing_denied_of_a_kind_of_the_subject_or_of_a_named_place() -> None:
    assert _v(HORSES, "The Marsh lorry brought in four ponies, two of them untagged, and all four were shown.") == REJECT
    assert _v(PARCELS, "Parcel 40 went out with a label on the lid but its base unlabelled.") == REJECT
    assert _reads(PARCELS, "Parcel 40 went out with a label on the lid but its base unlabelled.")


def test_the_required_things_modifier_denied_on_that_thing() -> None:
    assert _reads(TOWERS, "Tower 3 stood all week carrying an unsigned inspection card.")
    assert _v(TOWERS, "Tower 3 stood all week carrying an unsigned inspection card.") == REJECT


def test_an_un_word_denied_or_mended_is_not_read() -> None:
    assert not _reads(CRATES, "No crate went out unsealed this week.")
    assert _v(CRATES, "Crate 7 arrived unsealed and was sealed before it left the warehouse.") == OK
    assert _v(HORSES, "Not one of the ponies went into the ring untagged.") == OK
    assert not _reads(HORSES, "The untagged pony was tagged at the gate before it entered the showground.")
    assert not _reads(SACKS, "The six unlabelled sacks were given weight labels at noon and left the mill at two.")


def test_a_subject_described_otherwise_or_narrowed_otherwise_is_not_read() -> None:
    assert not _reads(SKIPS, "Skip 4 left the yard unnetted, but it was empty and going for repair.")
    assert not _reads(CRATES, "Empty crates from the canteen went to the skip unsealed.")


def test_an_un_word_of_another_thing_or_act_keeps_the_rule() -> None:
    assert _v(PARCELS, "Parcel 40 went out with labels on the lid and the base; the tape was unbranded.") == OK
    assert _v(BOTTLES, "The sample bottles were refrigerated; the courier van stayed unlocked.") == OK
    assert _v(HORSES, "The horses were tagged and unloaded at the east gate.") == OK
    assert _v(GUESTS, "The guests were registered at the front desk and the unregistered van was towed.") == OK
    assert not _reads(TOWERS, "Tower 3 carried a signed inspection card and an unsigned delivery note.")


def test_a_word_whose_un_is_no_prefix_keeps_the_rule() -> None:
    assert _v(GUESTS, "The unit manager understood that every guest is registered at the front desk.") == OK
