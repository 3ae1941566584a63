"""scu_guard round 12: a claim's thing of the kind a prohibition names, where the rule lists several things ("food
or drink"), names them without a verb ("No glass containers on the production floor"), or the claim measures the
thing out ("a pint of lager", "a cafetière of coffee"). Real WordNet 3.0 data and real spaCy parses; sentences
written for these tests, none is in the labelled sets. Each break has a near miss that must stay OK: the thing of
the kind outside the rule's place, or a thing of another kind."""

from __future__ import annotations

from abilities.scu_guard import categories, events
from abilities.scu_guard.nlp import parse
from tests.scu_guard_support import OK, REJECT, REVIEW, on_whole_claim, verdict

OTHER = "Records must be kept for 2 years."


def _v(rule: str, claim: str) -> tuple[str, str]:
    return verdict([rule, OTHER], claim)


def test_a_list_of_things_is_each_the_rules_thing() -> None:
    """ "No food or drink may be kept in ...": keeping either is what the rule forbids; the event reading takes
    each listed thing, and a claim's listed things each."""
    rule = "No food or drink may be kept in the vaccine fridge."
    assert _v(rule, "Sam kept a yoghurt pot in the vaccine fridge.") == REJECT
    assert _v(rule, "A yoghurt pot and a bottle of orange juice were kept in the vaccine fridge.") == REJECT
    assert _v(rule, "Sam kept a yoghurt pot in the staff fridge.") == OK  # another fridge
    assert _v(rule, "Sam kept a toy duck in the vaccine fridge.") != REJECT  # no food: a toy (the words alone)


def test_a_listed_thing_named_alone_is_enough_for_the_word_reading() -> None:
    """ "Food, drink and clinical specimens ...": a claim about food need not name the specimens; the subject
    the parser hangs on the auxiliary ("Food ... are never to be stored") is still the rule's thing."""
    rule = "Food, drink and clinical specimens are never to be stored in a medicine refrigerator."
    assert categories.thing_nouns(rule) == (("food", "food"), ("drink", "drink"), ("specimen", "specimen"))
    assert _v(rule, "Sam stored a yoghurt in the medicine refrigerator.") == REVIEW
    assert _v(rule, "Sam stored a yoghurt in the staff refrigerator.") == OK


def test_a_verbless_rule_names_its_things() -> None:
    """ "No food or drink in the reading room": the head of the rule and its listed things are its things, and
    its place is the phrase hung on the last of them. Without a verb to match, the reading stays a suspicion."""
    rule = "No food or drink in the reading room."
    assert [k for k, _ in categories.thing_nouns(rule)] == ["food", "drink"]
    assert _v(rule, "A reader drank a pint of lager in the reading room.") == REVIEW
    assert _v(rule, "Two readers ate sandwiches in the garden.") == OK
    glass = "No glass containers on the production floor."
    # round 17: a ban stated by "no" and its things alone is read as a ban of them from its place (``present``)
    assert _v(glass, "A glass jar of instant coffee sat on the production floor all shift.") == REJECT
    assert _v(glass, "A glass jar of instant coffee sat in the canteen all shift.") == OK


def test_a_measured_content_is_the_thing() -> None:
    """ "a pint of lager", "a cafetière of coffee": a vessel, its fill or a unit (or a word WordNet does not know)
    before "of" and a bare noun holds that noun; "photos of the burial" or "a member of staff" hold nothing."""
    def cands(sentence: str, word: str) -> list[str]:
        t = next(x for x in parse(sentence) if x.text == word)
        return [c for c, _ in categories._candidates(t)]

    assert "lager" in cands("She drank a pint of lager in the lab.", "pint")
    assert "coffee" in cands("A technician left a cafetière of coffee on the bench.", "cafetière")
    assert cands("They posted photos of the burial.", "photos") == ["photo"]
    assert cands("A member of staff kept a jug of milk there.", "member") == ["member"]
    rule = "No food or drink may be kept in the vaccine fridge."
    assert _v(rule, "Sam kept a cafetière of coffee in the vaccine fridge.") == REJECT
    assert _v(rule, "Sam kept a cafetière of coffee in the staff fridge.") == OK


def test_a_place_phrase_hung_on_the_thing_places_the_event() -> None:
    """ "took a revolver in pawn": the parser hangs the phrase on the noun; it places the taking."""
    rule = "Firearms must not be taken in pawn."
    assert on_whole_claim(events.does_forbidden, rule, "Nick took a .38 revolver in pawn for $200.")
    assert not on_whole_claim(events.does_forbidden, rule, "Nick took a .38 revolver to the police.")
    assert _v(rule, "Nick took a revolver in pawn.") == REJECT
    assert _v(rule, "Nick took a guitar in pawn.") != REJECT  # no firearm (the words alone stay a suspicion)


def test_a_duty_of_several_things_is_not_read_as_one_event() -> None:
    """The event reading of a duty stays with one thing: which of a list the claim drops is the word-level
    check's question."""
    form_rule = "Every climber must wear a helmet and a harness."
    ev = events.rule_event(form_rule)
    assert ev is None or ev.others == () or not on_whole_claim(
        events.drops_required, form_rule, "Jo did not wear a harness.")


def test_a_modifier_of_the_rules_thing_named_word_for_word() -> None:
    """ "Glass containers": a jar is a container by WordNet and "glass" is the claim's own word on it; "a plastic
    jar" or "a jar" leaves the rule's modifier unconfirmed (no firm reading), and another place stays OK."""
    rule = "Glass containers must not be taken onto the production floor."
    assert _v(rule, "Ann took a glass jar onto the production floor.") == REJECT
    assert _v(rule, "Ann took a plastic jar onto the production floor.") != REJECT
    assert _v(rule, "Ann took a jar onto the production floor.") != REJECT
    assert _v(rule, "Ann took a glass jar into the canteen.") == OK


def test_a_manner_of_the_forbidden_doing_does_it() -> None:
    """WordNet's verb hierarchy: "stroke" is a manner of "touch", "sip" of "drink"; a verb too general to say
    ("keep", "use") or an unknown one decides nothing. A forbidden doing done in a manner of it is done; a
    required one not done in a manner of it ("was not stencilled") is not thereby left undone."""
    from abilities.scu_guard import wordnet

    assert wordnet.verb_is_a("stroke", "touch") is True
    assert wordnet.verb_is_a("sip", "drink") is True
    assert wordnet.verb_is_a("photograph", "touch") is False
    assert wordnet.verb_is_a("store", "keep") is None  # "keep" is too general a doing
    assert wordnet.verb_is_a("touch", "touch") is None  # the rule's own verb is matched by its word
    rule = "Visitors must not touch the formations."
    assert _v(rule, "A visitor stroked the formations.") == REJECT
    assert _v(rule, "A visitor photographed the formations.") == OK
    drink = "Guests must not drink alcohol in the pool."
    assert _v(drink, "A guest drank champagne in the pool.") == REJECT
    assert _v(drink, "A guest sipped champagne in the bar.") == OK
    assert _v(drink, "A guest sipped lemonade in the pool.") == OK
    duty = "Every crate must be labelled."
    ev = events.rule_event(duty)
    assert ev is not None
    assert not on_whole_claim(events.drops_required, duty, "The crate was not stencilled.")


def test_one_place_of_a_list_is_the_rules_place() -> None:
    """ "in the reading room or the map store": a claim in either place is in the rule's place; a place not in the
    list stays OK."""
    rule = "Food and drink are not permitted in the reading room or the map store."
    assert categories.coordinated_places(rule) == ((frozenset({"read", "room"}), frozenset({"map", "stor"})),)
    # since round 16 a ban from a place is read from the rule's grammar (``present``): a kind of the banned thing
    # left in one of its places, told as a fact, is a sure reading
    assert _v(rule, "Some biscuits were left in the map store.") == REJECT
    assert _v(rule, "A mug of tea and some biscuits were left on desk 3 in the reading room.") == REJECT
    assert _v(rule, "Some biscuits were left in the map room.") == OK
    assert _v(rule, "A mug of tea and some biscuits were left on desk 3 in the staff kitchen.") == OK
