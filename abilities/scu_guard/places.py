"""Where a thing may be kept or done: a rule's allowed places, and a claim that puts the thing elsewhere.

"Audiograms may be stored only on the clinic's secure records server", "Free flights may take place only in
the north paddock or the display arena": the rule names its thing (the subject's noun) and one or a few
places after "only" and a preposition of place. A claim breaks it when, in a clause that is not denied, it
puts that very thing (its noun, as an argument of the verb the place hangs from, or the noun the place hangs
from) in, on or at a place that is surely none of the allowed ones.

Why "surely" is narrow: a place named another way may be the allowed one under another description ("the
locked cabinet" may stand in the strongroom; "the secure server" may be "the records server"). Two places
are surely different only when the text itself tells them apart:

- the same kind of place (the same head noun, or one compound word ending in the other's: "strongroom" is a
  room) told apart by what identifies it: a name or code ("Building A", "Building C"), a position ("north",
  "south"), a noun naming its use ("the store room", "the mechanics' room") or its owner;
- a place the claim calls someone's own ("her own laptop", "his personal phone", "at home") against an
  allowed place that is not anyone's own.

- two places of one scale, a room and a room or a building and a building, whose head nouns name different
  things by WordNet ("the kitchen", "the pantry"; ``place_scale``); what each is made of ("the plastic bin",
  "the metal bin"); one in the open and one under a roof ("the outdoor store", "the indoor store");
- a claim that keeps the thing "outside" the allowed place;
- a code or short name that a cited legend describes ("Room B14" and "B14 = Andrology lab", ``legends``).

A plain difference of head nouns across scales ("a cupboard" and "the mechanics' room") says nothing: one may
be inside the other; a larger place that may hold the allowed one, a room against a building, or two tracts of
land are a maybe (REVIEW). Words such as "locked", "secure", "licensed" describe a place and tell none apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from abilities.scu_guard import categories, legends, measure, place_scale, wordnet
from abilities.scu_guard.nlp import key, parse

# prepositions that put a thing in a place, and those that move it there (an export "to her own laptop" leaves
# it on the laptop)
PLACE_PREPS = frozenset({"in", "on", "at", "inside", "within", "over", "into", "onto", "to"})
# a preposition that puts a thing out of the place its object names ("left outside the gown room")
OUTSIDE_PREPS = frozenset({"outside"})
_RULE_PREPS = frozenset({"in", "on", "at", "inside", "within", "over", "from", "through", "via"})
# prepositions of a route or a source ("run from the base", "brought in through the dock"): a place only when
# their object names a building, a structure or a vehicle ("from approved suppliers", "through the app" are not)
ROUTE_PREPS = frozenset({"from", "through", "via"})
_ROUTE_KINDS = ("structure", "facility", "conveyance")
# prepositions inside a place phrase that name what holds it ("the store in Building C", "the room of the
# museum")
_HOLDER_PREPS = frozenset({"in", "at", "on", "inside", "within", "of"})
# a position that tells two places of one kind apart: the compass and the sides of a thing
_POSITIONS = frozenset({"north", "south", "east", "west", "northern", "southern", "eastern", "western", "upper",
                        "lower", "front", "rear", "back", "inner", "outer", "left", "right", "top", "bottom",
                        "northeast", "northwest", "southeast", "southwest", "middle", "main"})
# verbs of keeping a thing somewhere, and the words of a duty before them ("must be stored in the cage")
_KEEPING = frozenset({"store", "keep", "place", "put", "park", "house", "stow", "leave"})
_DUTY = frozenset({"must", "shall"})
_CONDITIONS = frozenset({"if", "when", "whenever", "unless", "except", "while", "during", "until"})
_OWN = frozenset({"own", "personal", "private", "home"})
# a place in the open and one under a roof exclude each other, whatever their head nouns
_OPEN_AIR = frozenset({"outdoor", "outdoors", "open-air", "outside"})
_UNDER_ROOF = frozenset({"indoor", "indoors", "inside", "enclosed", "covered"})
_PERSONAL_POSS = frozenset({"my", "your", "his", "her", "their", "our"})
_TIME_NOUNS = frozenset({"day", "days", "weekday", "weekdays", "weekend", "weekends", "morning", "afternoon",
                         "evening", "night", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                         "sunday", "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays",
                         "sundays", "hour", "hours", "shift", "shifts", "occasion", "basis", "request", "way"})


@dataclass(frozen=True)
class Place:
    """One place as its phrase identifies it: the head noun's key; per sort of identifying word before it the
    keys it has (positions, nouns of use, owners); the places that hold it ("the store in Building C"); the
    labels with their codes anywhere in the phrase (("build", "c")); whether it is someone's own."""

    head: str
    marks: dict[str, frozenset[str]]
    holders: tuple[Place, ...]
    labels: frozenset[tuple[str, str]]
    own: bool
    use_words: frozenset[str] = frozenset()  # the nouns of use as written (lemmas), for WordNet
    materials: frozenset[str] = frozenset()  # what it is made of ("plastic", "metal"), by WordNet
    air: str = ""  # "open" or "roof" when a word says the place is in the open or under a roof
    word: str = ""  # the head noun's lemma, for WordNet
    aliases: tuple[Place, ...] = ()  # the same place named again in apposition ("the pre-PCR lab, Room 2.14")


def _is_code(t: Any) -> bool:
    """A code that names one of a kind: a number, a capital letter or two ("A", "C."), letters with digits."""
    text = t.text.strip(".")
    return t.like_num or (len(text) <= 2 and text.isalpha() and text.isupper()) or (
        any(ch.isdigit() for ch in text) and any(ch.isalpha() for ch in text))


def _label_code(w: Any) -> bool:
    """Is a number the code of the noun before it ("Lab 2", "Room 4"), not an amount or a time?"""
    prev = w.doc[w.i - 1] if w.i > 0 else None
    return prev is not None and prev.is_alpha and prev.pos_ in ("NOUN", "PROPN") and prev.lower_ not in _TIME_NOUNS


def _labels(noun: Any) -> frozenset[tuple[str, str]]:
    """Labels with their codes in a noun's phrase, landmarks included: "Building A" -> ("build", "a"), "Room 2"
    -> ("room", "2"); "a pallet by the Building A loading dock" is by Building A, so not in Building C."""
    out = set()
    for w in noun.subtree:
        if _is_code(w) and w.i > 0:
            prev = w.doc[w.i - 1]
            if prev.is_alpha and prev.pos_ in ("NOUN", "PROPN") and not _is_code(prev):
                out.add((key(prev), w.text.strip(".").lower()))
    return frozenset(out)


def place_of(noun: Any, depth: int = 0) -> Place:
    """What identifies the place a noun names ("the north paddock", "her own laptop", "the store room")."""
    positions: set[str] = set()
    uses: set[str] = set()
    owners: set[str] = set()
    use_words: set[str] = set()
    materials: set[str] = set()
    air = ""
    own = noun.lower_ == "home"
    before = [w for left in noun.lefts for w in left.subtree]
    for w in before:
        low = w.lower_
        air = "open" if low in _OPEN_AIR else "roof" if low in _UNDER_ROOF else air
        if w.dep_ in ("compound", "amod") and w.head.i == noun.i and w.pos_ in ("NOUN", "ADJ") and \
                place_scale.is_material(w.lemma_.lower()):
            materials.add(w.lemma_.lower())
        if low in _OWN:
            own = True
        if low in _POSITIONS:
            positions.add(low)
        elif w.dep_ == "poss" and w.pos_ in ("NOUN", "PROPN") and not _is_code(w):
            owners.add(key(w))
        elif w.dep_ in ("compound", "amod", "nmod") and w.pos_ in ("NOUN", "PROPN") and not _is_code(w) and not (
                w.i + 1 < len(w.doc) and _is_code(w.doc[w.i + 1])):
            uses.add(key(w))
            use_words.add(w.lemma_.lower())
    holders = tuple(place_of(p, depth + 1) for prep in noun.rights if prep.dep_ == "prep" and
                    prep.lower_ in _HOLDER_PREPS and depth < 3 for p in prep.children if p.dep_ == "pobj")
    marks = {"position": frozenset(positions), "use": frozenset(uses), "owner": frozenset(owners)}
    head = noun.text.strip(".").lower() if _is_code(noun) else key(noun)
    return Place(head, marks, holders, _labels(noun), own, frozenset(use_words), frozenset(materials), air,
                 "" if _is_code(noun) else noun.lemma_.lower())


def _same_kind(a: Place, b: Place) -> tuple[Place, Place] | None:
    """The two places as one kind of place, or None: the same head, or a compound word ending in the other's
    head ("strongroom", "room"), whose first part then counts as a noun of use."""
    if a.head == b.head:
        return a, b
    for x, y in ((a, b), (b, a)):
        if len(y.head) >= 4 and x.head.endswith(y.head) and len(x.head) - len(y.head) >= 4:
            marks = dict(x.marks) | {"use": x.marks["use"] | {x.head[: -len(y.head)]}}
            x2 = Place(y.head, marks, x.holders, x.labels, x.own, x.use_words, x.materials, x.air, x.word)
            return (x2, y) if x is a else (y, x2)
    return None


def _told_apart(a: Place, b: Place) -> bool:
    """Do two places of one kind carry identifying words of one sort with none in common (and no identifying
    word shared across sorts: "the mechanics' store room" may be "the mechanics' room")?"""
    pair = _same_kind(a, b)
    if pair is None:
        return False
    a, b = pair
    if place_scale.other_materials(a.materials, b.materials):
        return True  # "the plastic bin", "the metal bin"
    every_a = frozenset().union(*a.marks.values())
    every_b = frozenset().union(*b.marks.values())
    if every_a & every_b or _use_kinds(a, b):
        return False
    return any(a.marks[s] and b.marks[s] for s in a.marks)


def _use_kinds(a: Place, b: Place) -> bool:
    """Is a noun of use of one place a kind of the other's by WordNet ("a Pyrex bottle", "glass bottles": Pyrex
    is a glass)? Then the two may be one place."""
    return any(wordnet.is_a(x, y) or wordnet.is_a(y, x) for x in a.use_words for y in b.use_words)


def _chain(p: Place) -> list[Place]:
    return [p] + [x for h in p.holders for x in _chain(h)]


def surely_other(claim_place: Place, allowed: Place) -> bool:
    """Is the claim's place surely not the allowed one? Someone's own place against one that is nobody's own;
    a label with another code ("Building A" for "Building C"); or the place or what holds it told apart from
    the allowed place or what holds that, kind by kind."""
    if claim_place.own and not any(p.own or _district(p.word) for p in _chain(allowed)):
        return True  # someone's own place; but a district ("within Harris County") may hold someone's home
    claim_labels = frozenset().union(*(p.labels for p in _chain(claim_place)))
    allowed_labels = frozenset().union(*(p.labels for p in _chain(allowed)))
    for label, code in claim_labels:
        codes = {c for lab, c in allowed_labels if lab == label}
        if codes and code not in codes:
            return True
    return any(_told_apart(c, a) for c in _chain(claim_place) for a in _chain(allowed))


def _district(word: str) -> bool:
    """Does the head noun name a district marked off for administration ("county", "town", "borough"), which
    holds people's homes, by WordNet?"""
    return bool(word) and bool(wordnet.is_a(word, "region")) and wordnet.is_a(word, "district") is not False


def other_site(claim_place: Place, allowed: Place) -> bool:
    """Is the claim's place surely not the allowed one by what kind of place it is: one in the open against one
    under a roof ("the outdoor field", "the indoor range"), or a place of the claim's, or one holding it, of the
    same scale, room or larger, as the allowed place or one holding that, with a head noun that names another
    thing ("the withering loft", "the fuel shed"), where no place of the allowed one's names the same
    (``place_scale``)?"""
    claims, alloweds = _chain(claim_place), _chain(allowed)
    airs = {p.air for p in claims} - {""}, {p.air for p in alloweds} - {""}
    if len(airs[0]) == 1 and len(airs[1]) == 1 and airs[0] != airs[1]:
        return True
    for c in claims:
        if any(a.head == c.head or wordnet.related(a.word, c.word) for a in alloweds):
            continue
        if any(place_scale.other_site(c.word, a.word) for a in alloweds):
            return True
    return False


def maybe_holds(claim_place: Place, allowed: Place) -> bool:
    """May the claim's place be elsewhere, but not surely: larger than the allowed one and none of the places
    that hold it ("the warehouse" for "the cage": it may hold the allowed place), or a room in no place the
    claim names against an allowed building ("the store room" for "the oil house": it may be one of its
    rooms)?"""
    alloweds = _chain(allowed)
    if any(a.head == claim_place.head or wordnet.related(a.word, claim_place.word) for a in alloweds):
        return False
    return place_scale.larger(claim_place.word, allowed.word) or (
        place_scale.room_in_building(claim_place.word, allowed.word))


def _thing(doc: Any) -> Any | None:
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None:
        return None
    return next((t for t in root.children if t.dep_ in ("nsubj", "nsubjpass") and t.pos_ in ("NOUN", "PROPN")),
                None)


@dataclass(frozen=True)
class PlaceRule:
    """A rule's allowed places as read: each place's phrase, the preposition before them and the key of the
    thing kept or done there (the subject's noun)."""

    places: tuple[str, ...]
    prep: str
    thing: str


def read_places(text: str) -> PlaceRule | None:
    """The allowed places of a rule, as written, or None: "X may be V-ed only in P [or Q]", "... in P only", and a
    duty to keep a thing somewhere ("X must be stored in P": a verb of keeping after "must"). Times ("only on
    Tuesdays", "only in the morning"), amounts and named lists read elsewhere are not places here."""
    doc = parse(text)
    thing = _thing(doc)
    if thing is None or any(t.lower_ in _CONDITIONS for t in doc):
        return None  # "If it is raining, displays may be flown only in the covered arena": not always
    for only in doc:
        if only.lower_ != "only" or only.dep_ != "advmod":
            continue
        if only.head.dep_ == "conj" and only.i == len(doc) - 2 and _pobj_of(only.head) is not None:
            prep = _pobj_of(only.head).head  # "run from the base or the control vehicle only."
            if prep.dep_ == "prep" and prep.lower_ in _RULE_PREPS and prep.head.pos_ in ("VERB", "AUX"):
                return _rule_from(doc, prep, thing)
            continue
        if only.head.dep_ == "pobj" and only.head.head.dep_ == "prep" and only.head.head.lower_ in _RULE_PREPS:
            prep = only.head.head  # "only" hangs from the place: "kept in the tack room only"
            if prep.head.pos_ in ("VERB", "AUX"):
                return _rule_from(doc, prep, thing)
            continue
        verb = only.head.head if only.head.dep_ == "prep" else only.head  # "only" may hang from the preposition
        nxt = doc[only.i + 1] if only.i + 1 < len(doc) else None
        preps = [nxt] if nxt is not None and nxt.dep_ == "prep" and nxt.lower_ in _RULE_PREPS else [
            c for c in verb.children if c.dep_ == "prep" and c.lower_ in _RULE_PREPS and c.i > only.i] or [
            c for c in verb.children if c.dep_ == "prep" and c.lower_ in _RULE_PREPS and
            max(w.i for w in c.subtree) + 1 == only.i]  # "may take place in the vestry only"
        if verb.pos_ not in ("VERB", "AUX") or not preps or preps[0].head.i != verb.i:
            continue
        return _rule_from(doc, preps[0], thing)
    root = thing.head
    if root.lemma_.lower() in _KEEPING and any(c.lower_ in _DUTY for c in root.children if c.dep_ == "aux") and \
            not any(c.dep_ == "neg" for c in root.children):
        prep = next((c for c in root.children if c.dep_ == "prep" and c.lower_ in _RULE_PREPS), None)
        if prep is not None:
            return _rule_from(doc, prep, thing)  # "Allergen raw materials must be stored in the allergen cage"
    return None


def _pobj_of(noun: Any) -> Any | None:
    """The object of a preposition a joined noun belongs to ("the base or the vehicle": the base)."""
    first = noun
    while first.dep_ == "conj" and first.head.i != first.i:
        first = first.head
    return first if first.dep_ == "pobj" else None


def _route_place(noun: Any) -> bool:
    """Is the object of "from", "through" or "via" a place: a building, a structure or a vehicle by WordNet, or
    a place of room scale or larger ("the Glenmore base", "the rear loading dock", "the control vehicle")?"""
    word = noun.lemma_.lower()
    return noun.pos_ == "NOUN" and not place_scale.is_material(word) and (
        place_scale.scale(word) in ("room", "work", "building", "land") or
        any(wordnet.is_a(word, kind) for kind in _ROUTE_KINDS))


def _rule_from(doc: Any, prep: Any, thing: Any) -> PlaceRule | None:
    """The allowed places after a rule's preposition of place, one phrase per joined noun."""
    objs = [p for p in prep.children if p.dep_ == "pobj"]
    if len(objs) != 1 or objs[0].pos_ not in ("NOUN", "PROPN"):
        return None
    heads = [objs[0]] + [c for c in objs[0].conjuncts]
    if any(h.lower_ in _TIME_NOUNS or h.like_num or any(w.like_num and not _label_code(w) for w in h.subtree)
           for h in heads):
        return None
    if prep.lower_ in ROUTE_PREPS and not all(_route_place(h) for h in heads):
        return None  # "only from the approved suppliers", "only through the app"
    phrases = []
    for h in heads:
        cut = {w.i for c in h.children if c.dep_ in ("cc", "conj", "punct") for w in c.subtree}
        words = [w for w in h.subtree if w.i not in cut and w.lower_ != "only"]  # "the north paddock" of "... or
        # the display arena"; "the tack room" of "the tack room only"
        phrases.append(doc[min(w.i for w in words): max(w.i for w in words) + 1].text)
    return PlaceRule(tuple(phrases), prep.lower_, key(thing))


def allowed_places(phrases: Sequence[str]) -> list[Place]:
    """The allowed places of a form, each read from its phrase."""
    out = []
    for ph in phrases:
        doc = parse(ph)
        root = next((t for t in doc if t.dep_ == "ROOT"), None)
        if root is not None:
            aliases = tuple(place_of(a) for a in root.children if a.dep_ == "appos" and a.pos_ in ("NOUN", "PROPN"))
            out.append(replace(place_of(root), aliases=aliases))
    return out


def names_alias(claim_place: Place, allowed: Place) -> bool:
    """Does the claim name the allowed place by the other name its rule gives it in apposition ("Room 2.14" for
    "the pre-PCR laboratory, Room 2.14", "Cellar 3" for "the Reserve Room (Cellar 3)")? Then it is that place."""
    return any(_names(claim_place, a) for a in allowed.aliases)


def rule_doings(text: str) -> frozenset[str]:
    """The keys of a rule's things that name a doing by a noun made from its verb ("DNA extraction", "Welding":
    extract, weld; not "Aviation fuel"), by WordNet's derivations: a claim may tell such a doing by its verb."""
    doc = parse(text)
    subj = _thing(doc)
    if subj is None:
        return frozenset()
    return frozenset(key(t) for t in [subj, *subj.conjuncts] if t.pos_ == "NOUN" and
                     wordnet.verbs_of_noun(t.lemma_.lower()))


def thing_in(prep: Any, thing: str, kind_of: str | None = None, depth: int = 0,
             doing: bool = False) -> Any | None:
    """The rule's thing where the place phrase puts it: the noun the phrase hangs from, or an argument (subject,
    object, or one joined to them) of the verb it hangs from. With ``kind_of`` (the WordNet phrase of the rule's
    thing), a noun that is a kind of it counts too ("pizza" for "food", ``categories``)."""
    head = prep.head
    if head.pos_ in ("NOUN", "PROPN") and (named := _named_thing(head, thing, kind_of)) is not None:
        return named
    if head.pos_ in ("NOUN", "PROPN") and head.dep_ == "pobj" and head.head.lower_ in PLACE_PREPS and depth < 3:
        # a place inside a place phrase ("on padded racks in the north aisle", "on the rail, outside the gown
        # room"): the thing is where the outer phrase puts it
        return thing_in(head.head, thing, kind_of, depth + 1, doing)
    if doing and head.pos_ == "VERB" and key(head) == thing:
        return head  # the rule's doing told by its verb: "the swabs were extracted in Room 2.15" for "DNA extraction"
    verb = head if head.pos_ in ("VERB", "AUX") else None
    if verb is None:
        return None
    if not any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children):
        if verb.dep_ == "acl" and verb.head.pos_ in ("NOUN", "PROPN") and key(verb.head) == thing:
            return verb.head  # "the drums stored in the yard"
        if verb.dep_ in ("xcomp", "advcl") and verb.head.pos_ in ("VERB", "AUX"):
            verb = verb.head  # "the gown spent the night hanging on the rail": the rail is the gown's
    for arg in verb.children:
        if arg.dep_ in ("nsubj", "nsubjpass", "dobj"):
            for t in [arg, *arg.conjuncts, *_of_things(arg)]:
                if t.pos_ in ("NOUN", "PROPN") and (named := _named_thing(t, thing, kind_of)) is not None:
                    return named
    return None


# words that say a vessel holds nothing ("the empty acid drums" are no acid)
_EMPTY = frozenset({"empty", "emptied"})


def _named_thing(t: Any, thing: str, kind_of: str | None) -> Any | None:
    """The claim noun as the rule's thing: the noun itself (its key, or a kind of the rule's thing), or the word
    before a vessel that says what it holds ("the caustic soda drums" for "Caustic soda must be stored ...": the
    soda, kept where its drums are; ``categories.holds_content``); an empty vessel holds no thing."""
    if key(t) == thing or (kind_of and categories.is_kind(t, kind_of)):
        return t
    content = categories.holds_content(t) if t.pos_ == "NOUN" else None
    if content is None or key(content) != thing or any(w.lower_ in _EMPTY for w in t.subtree):
        return None
    return content


def _of_things(noun: Any) -> list[Any]:
    """The nouns after "of" that a noun holds or counts ("four drums of furnace oil", "sacks of dye powder"):
    the thing itself, put where its holder is."""
    return [p for prep in noun.children if prep.dep_ == "prep" and prep.lower_ == "of"
            for p in prep.children if p.dep_ == "pobj" and p.pos_ in ("NOUN", "PROPN")]


def _phrase_place(text: str) -> Place | None:
    """A place phrase of a list read as the object of "in" (a bare "Building A" parses badly alone)."""
    doc = parse(f"It was kept in {text}.")
    obj = next((t for t in doc[3].children if t.dep_ == "pobj"), None) if len(doc) > 4 else None
    return place_of(obj) if obj is not None and obj.pos_ in ("NOUN", "PROPN") else None


def _names(p: Place, allowed: Place) -> bool:
    """Does a place phrase name the allowed place: the same kind, nothing telling them apart, and the allowed
    place's label (or, without one, one of its identifying words, if it has any) carried too?"""
    if _same_kind(p, allowed) is None or _told_apart(p, allowed) or surely_other(p, allowed):
        return False
    if allowed.labels:
        return bool(p.labels & allowed.labels)
    marks = frozenset().union(*allowed.marks.values())
    return not marks or bool(marks & frozenset().union(*p.marks.values()))


def _entry_places(e: legends.Entry) -> list[Place]:
    key_place = None if not any(ch.isalpha() for ch in e.key.split()[-1]) or len(e.key.split()) == 1 and any(
        ch.isdigit() for ch in e.key) else _phrase_place(e.key)
    return [p for p in (key_place, _phrase_place(legends.head_of(e.desc))) if p is not None]


def other_by_legend(phrase: str, allowed: Sequence[Place], chunk_texts: Sequence[str]) -> bool:
    """Does a cited legend make the claim's place surely none of the allowed ones? The legend entry the claim's
    code or name looks up ("Room B14" and "B14 = Andrology lab") describes a place told apart from each allowed
    place, or another entry of that legend names the allowed place ("B12 = Lab 2") and this one does not: a
    legend lists different places."""
    hit = legends.lookup(phrase, tuple(chunk_texts))
    if hit is None:
        return False
    entry, others = hit
    mine = _entry_places(entry)
    if not mine or any(_names(p, a) for p in mine for a in allowed):
        return False
    if all(any(surely_other(p, a) or other_site(p, a) for p in mine) for a in allowed):
        return True
    return all(any(_names(p, a) for o in others for p in _entry_places(o)) for a in allowed)


def names_time(noun: Any) -> bool:
    """Does the object of a preposition name a time, not a place ("on Tuesday", "at 10:15", "in the morning")?"""
    return noun.ent_type_ in ("DATE", "TIME") or noun.lower_ in _TIME_NOUNS or noun.like_num or \
        noun.lower_ in measure.MONTHS or any(w.dep_ == "nummod" and w.like_num for w in noun.lefts)  # "on 12 May"


def may_name(noun: Any, allowed: Place) -> bool:
    """May a noun phrase of the claim be the allowed place, named more shortly ("the dock" for "the rear
    loading dock"): one kind of place, and nothing in the text telling the two apart?"""
    p = place_of(noun)
    return _same_kind(p, allowed) is not None and not _told_apart(p, allowed) and not surely_other(p, allowed)


def names_allowed(noun: Any, allowed: Place) -> bool:
    """Does a noun phrase of the claim name the allowed place ("outside the locked gown room")?"""
    return _names(place_of(noun), allowed)


def rule_things(text: str, thing: str) -> tuple[str, ...]:
    """The keys of a rule's things: its subject's noun and the nouns joined to it ("Paints and solvents must be
    stored only in the oil house")."""
    doc = parse(text)
    subj = _thing(doc)
    if subj is None or key(subj) != thing:
        return (thing,)
    return (thing, *(key(c) for c in subj.conjuncts if c.pos_ in ("NOUN", "PROPN") and key(c) != thing))
