"""scu_guard: noun categories from WordNet (``wordnet.py``, ``categories.py``). A claim names a thing by a word of its
own ("a drake", "a bracer", "four owls") where the rule names its category ("ducks", "an arm guard", "birds").
Real WordNet 3.0 data (Debian's ``wordnet-base``, installed by scripts/test) and real spaCy parses; sentences
written for these tests, none is in the labelled sets."""

from __future__ import annotations

import os
import subprocess
import sys

from abilities.scu_guard import categories, wordnet
from abilities.scu_guard.nlp import parse
from tests.scu_guard_support import OK, REJECT, verdict


def test_the_data_is_there() -> None:
    """The tests run with the data (scripts/test installs it); without it every reading below would be off."""
    assert wordnet.available()


def test_is_a_by_the_most_common_sense() -> None:
    """True where the word's most common sense lies under the category, plurals and multiword nouns included."""
    assert wordnet.is_a("drake", "duck") is True  # sense 1 is the navigator (a name): names are no senses
    assert wordnet.is_a("geese", "goose") is True  # noun.exc
    assert wordnet.is_a("orange juice", "drink") is True  # "drink" is a beverage in its third sense
    assert wordnet.is_a("rifles", "firearm") is True
    assert wordnet.is_a("swans", "bird") is True
    assert wordnet.is_a("swan", "duck") is False
    assert wordnet.is_a("lemonade", "alcohol") is False


def test_a_rarer_sense_an_unknown_word_or_a_vague_category_decide_nothing() -> None:
    """None, never True, where only a rarer sense reaches the category (a knife is an edge tool first), where
    WordNet does not know the word, or where the category is too general to say two things are of one kind."""
    assert wordnet.is_a("knife", "weapon") is None
    assert wordnet.is_a("zorblax", "food") is None
    assert wordnet.is_a("drake", "thing") is None
    assert wordnet.is_a("drake", "person") is None


def test_unordered_senses_need_the_rules_verb() -> None:
    """Senses the concordance never counted are in no order of frequency: "hard hat" is a construction worker
    first, a helmet second; "bracer" an arm guard first, a tonic second. Their first sense is no evidence,
    unless the noun fills the slot of the rule's own verb ("did not wear a bracer"), which selects the sense."""
    assert wordnet.is_a("hard hat", "worker") is None
    assert wordnet.is_a("bracer", "arm guard") is None
    assert wordnet.is_a("bracer", "arm guard", slot=True) is True  # "arm guard" is both arm_guard and armguard
    assert wordnet.is_a("knife", "weapon", slot=True) is None  # counted senses: an edge tool first, even there
    assert verdict(["Workers must wear hard hats on site."], "Nobody removes a hard hat while on site.") == OK


def test_absent_data_leaves_the_reading_off() -> None:
    """A directory without the files: not available, every answer None, the guard still answers (fresh process,
    the data is loaded once per process)."""
    code = ("from abilities.scu_guard import wordnet; from tests.scu_guard_support import verdict; "
            "print(wordnet.available(), wordnet.is_a('drake', 'duck'), "
            "verdict(['Visitors must not feed the ducks.'], 'A visitor fed the drakes some bread.')[0])")
    env = dict(os.environ, METIS_WORDNET_DIR="/nonexistent-wordnet-dir")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "None", "OK"]
    assert "category reading is off" in out.stderr


def test_the_claims_nouns_a_kind_is_read_by() -> None:
    """A compound WordNet knows stands whole; a container's content is the thing kept ("a yoghurt pot")."""
    doc = parse("She kept a yoghurt pot and a bottle of orange juice.")
    pot = next(t for t in doc if t.text == "pot")
    bottle = next(t for t in doc if t.text == "bottle")
    assert categories.is_kind(pot, "food") and categories.is_kind(bottle, "drink")
    assert categories.thing_nouns("A document that names the notary must not be notarized.") == ()
    assert [k for k, _ in categories.thing_nouns("Food and drink must not be stored in the fridge.")] == ["food", "drink"]


def test_a_forbidden_thing_named_by_a_kind_of_it() -> None:
    """The rule's verb, its doer, a kind of its thing, told as a fact: firm. Another doer, a denied verb, a noun
    that may make it another thing ("toy") or another kind: not."""
    rule = ["Visitors must not feed the ducks."]
    assert verdict(rule, "A visitor fed the drakes some bread.") == REJECT
    assert verdict(rule, "The keeper fed the drakes some bread.") == OK
    assert verdict(rule, "A visitor did not feed the drakes.") == OK
    assert verdict(rule, "A visitor fed the swans some bread.") == OK
    assert verdict(["Guests must not bring firearms."], "A guest brought a rifle.") == REJECT
    assert verdict(["Guests must not bring firearms."], "A guest brought a knife.") == OK


def test_a_required_thing_dropped_by_a_kind_of_it() -> None:
    """ "did not wear a bracer" drops an arm guard; wearing one keeps the rule."""
    rule = ["Everyone must wear an arm guard."]
    assert verdict(rule, "Jonas did not wear a bracer.") == REJECT
    assert verdict(rule, "Jonas wore a bracer.") == OK


def test_a_place_of_a_kind_of_the_allowed_one() -> None:
    """Two places of one head noun told apart by their nouns of use are not told apart when one use is a kind of
    the other (Pyrex is a glass; biochemistry is a chemistry); another material still is another place."""
    glass = ["Samples may be collected only in glass bottles."]
    assert verdict(glass, "The sample was collected in a Pyrex bottle.") == OK
    assert verdict(glass, "The sample was collected in a plastic bottle.") == REJECT
    labs = ["Samples may be sent only to the chemistry or biology laboratories."]
    assert verdict(labs, "The samples were sent to the biochemistry laboratory.") == OK
    assert verdict(labs, "The samples were sent to the physics laboratory.") == REJECT


def test_a_count_of_kinds_of_the_rules_noun() -> None:
    """Owls and hawks are birds: counted together in the rule's place, they break a bound on birds there."""
    rule = ["No more than six birds may be tethered on the weathering lawn at the same time."]
    assert verdict(rule, "Four owls and three hawks were on the weathering lawn at once.") == REJECT
    assert verdict(rule, "Four owls and two hawks were on the weathering lawn at once.") == OK


def test_a_kind_of_the_rules_thing_in_another_place() -> None:
    """Pizza is food: eaten in a place told apart from the only allowed one, it breaks the rule as food would."""
    rule = ["Food may be eaten only in the east pavilion."]
    assert verdict(rule, "The boys ate pizza in the west pavilion.") == REJECT
    assert verdict(rule, "The boys ate pizza in the east pavilion.") == OK
