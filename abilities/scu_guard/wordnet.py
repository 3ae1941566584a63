"""Noun categories from Princeton WordNet 3.0: is a "Pekin drake" a duck, is "fizz" a drink?

The guard's own lexicon lists a few categories by hand; a rule about "food and drink" or "ducks" must
also cover "yoghurt", "orange juice" or "a drake". WordNet's noun hierarchy (hypernyms and instance
hypernyms) answers that for the whole of the language.

This module reads the WNDB files as documented in wndb(5WN) (Debian's ``wordnet-base`` package installs
them under /usr/share/wordnet; ``METIS_WORDNET_DIR`` points elsewhere). It does not use nltk's reader:
that reader only opens directories on ``nltk.data.path`` and requires a ``lexnames`` file the Debian
package does not ship, so it would need both patched around; the format itself is simple and documented.
Only ``index.noun`` (lemma -> synset offsets, in sense order) and ``noun.exc`` (irregular plurals) are read
at load; a synset line of ``data.noun`` is read on demand at its byte offset (the offset *is* the byte
position, by the format's definition) and cached. Load once per process, lazily; absent data leaves the
category reading off (``available()`` is False and ``is_a`` answers None), said once in the log.

Polysemy: a word's senses are in WordNet's order, by frequency in the semantic concordance where it counted
them (``tagsense_cnt`` of index.noun), arbitrary otherwise. Senses that are instances (named people, places:
"Drake" the navigator) are not senses of a common noun and are skipped. ``is_a`` answers True only where the
word's most common sense reaches the category, known as such (``ordered``); a rarer sense, or a first sense
of unordered senses ("hard hat" is a construction worker first), gives None, unless the caller found the noun
in the slot of the rule's own verb (``slot``), which selects the sense.
"""

from __future__ import annotations

import logging
import mmap
import os
import re
import threading
from functools import lru_cache

log = logging.getLogger(__name__)

DEFAULT_DIR = "/usr/share/wordnet"
ENV_DIR = "METIS_WORDNET_DIR"

# categories too general to say that two things are of one kind ("an item", "a thing", "a person")
TOO_GENERAL = frozenset(
    """entity physical_entity abstraction abstract_entity thing object whole item unit person individual someone
    somebody people group act action event activity state attribute relation measure location place area
    matter substance material stuff part piece artifact artefact product goods property member kind type sort
    way means instrumentality instrumentation""".split()
)
# how many of a category word's senses may stand for the category ("drink" is a serving first, a beverage third)
CATEGORY_SENSES = 3
# suffix rules of WordNet's morphy for nouns (wndb(5WN), morphy(7WN))
_DETACH = (("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
           ("ies", "y"), ("s", ""))


class _WordNet:
    """The loaded noun index, exceptions and the mapped data file."""

    def __init__(self, root: str, pos: str = "noun") -> None:
        self.pos = pos[0]  # the pointer part of speech followed up the hierarchy ("n", "v")
        self.index: dict[str, tuple[int, ...]] = {}
        self.tagged: dict[str, int] = {}  # lemma -> how many of its senses the concordance counted (their order)
        with open(os.path.join(root, f"index.{pos}"), encoding="latin-1") as fh:
            for line in fh:
                if line.startswith(" "):
                    continue  # the licence header
                parts = line.split()
                n_ptr = int(parts[3])
                synset_cnt = int(parts[2])
                offs = parts[6 + n_ptr: 6 + n_ptr + synset_cnt]
                self.index[parts[0]] = tuple(int(o) for o in offs)
                self.tagged[parts[0]] = int(parts[5 + n_ptr])
        self.exc: dict[str, str] = {}
        with open(os.path.join(root, f"{pos}.exc"), encoding="latin-1") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 2:
                    self.exc.setdefault(parts[0], parts[1])
        self._fh = open(os.path.join(root, f"data.{pos}"), "rb")  # noqa: SIM115 - kept open for the process
        self.data = mmap.mmap(self._fh.fileno(), 0, access=mmap.ACCESS_READ)

    @lru_cache(maxsize=65536)  # noqa: B019 - one instance per process
    def _record(self, offset: int) -> tuple[tuple[str, ...], tuple[tuple[str, int, str, str], ...]]:
        """(lemmas, pointers as (symbol, offset, part of speech, source/target)) of the synset at ``offset``,
        wndb(5WN): the one place a data line is split."""
        end = self.data.find(b"\n", offset)
        parts = self.data[offset:end].decode("latin-1").split()
        w_cnt = int(parts[3], 16)
        lemmas = tuple(parts[4 + 2 * i].lower() for i in range(w_cnt))
        i = 4 + 2 * w_cnt
        ptrs = tuple((parts[i + 1 + 4 * k], int(parts[i + 2 + 4 * k]), parts[i + 3 + 4 * k], parts[i + 4 + 4 * k])
                     for k in range(int(parts[i])))
        return lemmas, ptrs

    def lexfile(self, offset: int) -> int:
        """The lexicographer file of the synset at ``offset`` (WordNet's broad sort: 13 food, 32 communication)."""
        end = self.data.find(b"\n", offset)
        return int(self.data[offset:end].split(maxsplit=2)[1])

    def pointers(self, offset: int, symbol: str) -> tuple[int, ...]:
        """The offsets the synset points to by ``symbol`` ("*" entailment, "+" derivation, "@" hypernym)."""
        return tuple(off for sym, off, _, _ in self._record(offset)[1] if sym == symbol)

    @lru_cache(maxsize=65536)  # noqa: B019
    def synset(self, offset: int) -> tuple[tuple[str, ...], tuple[int, ...], bool]:
        """(lemmas, hypernym and instance-hypernym offsets, is it an instance) of the synset at ``offset``."""
        lemmas, ptrs = self._record(offset)
        ups = [off for sym, off, pos, _ in ptrs if pos == self.pos and sym in ("@", "@i")]
        instance = any(pos == self.pos and sym == "@i" for sym, _, pos, _ in ptrs)
        return lemmas, tuple(ups), instance

    @lru_cache(maxsize=65536)  # noqa: B019
    def derived(self, offset: int, pos: str, lemma: str = "") -> tuple[int, ...]:
        """The synsets of part of speech ``pos`` ("n", "v") linked to this one as derivationally related forms
        ("+" pointers: "pay" -> "payment", "flavouring" -> "flavour"); with ``lemma``, only the links of that
        very word of the synset ("adjudicator" -> adjudicate), wndb(5WN)."""
        words, ptrs = self._record(offset)
        out: list[int] = []
        for sym, off, p, st in ptrs:
            source = int(st[:2], 16)
            if sym == "+" and p == pos and (not lemma or 0 < source <= len(words) and words[source - 1] == lemma):
                out.append(off)
        return tuple(out)

    @lru_cache(maxsize=65536)  # noqa: B019
    def depth(self, offset: int) -> int:
        """The length of the shortest path from the synset up to a top of the hierarchy."""
        ups = self.synset(offset)[1]
        return 0 if not ups else 1 + min(self.depth(u) for u in ups)

    @lru_cache(maxsize=65536)  # noqa: B019
    def closure(self, offset: int) -> frozenset[int]:
        """The synset and every synset above it (hypernyms and instance hypernyms)."""
        out = {offset}
        for up in self.synset(offset)[1]:
            out |= self.closure(up)
        return frozenset(out)


_WN: _WordNet | None = None
_TRIED = False
_LOCK = threading.Lock()


def _load() -> _WordNet | None:
    """The loaded data, or None; loaded at the first call (thread-safe: a concurrent caller waits for it)."""
    global _WN, _TRIED
    if not _TRIED:
        with _LOCK:
            if not _TRIED:
                root = os.environ.get(ENV_DIR) or DEFAULT_DIR
                try:
                    _WN = _WordNet(root)
                except (OSError, ValueError, IndexError) as e:
                    log.warning("scu_guard: WordNet data not found under %s (%s); the category reading is off",
                                root, e)
                    _WN = None
                _TRIED = True
    return _WN


def available() -> bool:
    """Is the WordNet data loaded (loads it on first call)?"""
    return _load() is not None


def _lemma_forms(phrase: str) -> list[str]:
    """The index lemmas a phrase may stand for: as written ("orange juice" -> orange_juice, also joined or
    hyphenated: "arm guard" -> armguard), with its last word's plural undone (noun.exc, then morphy's rules)."""
    words = re.findall(r"[a-z0-9]+(?:[-'][a-z0-9]+)*", phrase.lower())
    if not words:
        return []
    wn = _WN
    assert wn is not None
    lasts = [words[-1]]
    if words[-1] in wn.exc:
        lasts.append(wn.exc[words[-1]])
    for suf, rep in _DETACH:
        if words[-1].endswith(suf) and len(words[-1]) > len(suf) + 1:
            lasts.append(words[-1][: -len(suf)] + rep)
    out: list[str] = []
    for last in lasts:
        ws = words[:-1] + [last]
        for cand in ("_".join(ws), "".join(ws), "-".join(ws)) if len(ws) > 1 else (last,):
            if cand in wn.index and cand not in out:
                out.append(cand)  # every spelling: "arm guard" is both arm_guard and armguard
        if out:
            break
    return out


@lru_cache(maxsize=16384)
def senses(phrase: str) -> tuple[int, ...]:
    """The phrase's common-noun senses (synset offsets) in WordNet's order; instances (names) left out."""
    wn = _load()
    if wn is None:
        return ()
    out: list[int] = []
    for lemma in _lemma_forms(phrase):
        out += [off for off in wn.index[lemma] if not wn.synset(off)[2] and off not in out]
    return tuple(out)


@lru_cache(maxsize=16384)
def ordered(phrase: str) -> bool:
    """Is the first of the phrase's senses known to be its most common one: it has a single common-noun sense,
    or the semantic concordance counted its senses (WordNet orders untagged senses arbitrarily: "hard hat" is a
    construction worker first and a helmet second)?"""
    wn = _load()
    if wn is None:
        return False
    return len(senses(phrase)) == 1 or any(wn.tagged.get(lemma, 0) > 0 for lemma in _lemma_forms(phrase))


@lru_cache(maxsize=16384)
def _category(phrase: str) -> frozenset[int]:
    cats = senses(phrase)[:CATEGORY_SENSES]
    wn = _WN
    if wn is None or not cats:
        return frozenset()
    if any(lemma in TOO_GENERAL for lemma in _lemma_forms(phrase)):
        return frozenset()
    return frozenset(cats)


def _by_first_sense(reach: list[bool], known_order: bool) -> bool | None:
    """The answer from which of a word's senses reach a category: False when none does; True when its first
    sense does and that sense is known to be the most common; None (unsure) otherwise."""
    if not any(reach):
        return False
    return True if known_order and reach[0] else None


@lru_cache(maxsize=65536)
def is_a(noun: str, category: str, slot: bool = False) -> bool | None:
    """Is ``noun`` (a word or a multiword noun, singular or plural) a kind of ``category``?

    True: the noun's most common sense is the category or lies below it (a synonym counts: same synset); with
    ``slot`` (the caller found the noun in the very slot of the rule's own verb, which selects the sense: "did
    not wear a bracer"), also any sense of a word whose senses WordNet does not order by frequency.
    None: unknown to WordNet (or the data is absent), the category too general to say, a rarer sense of the
    noun reaches it, or the first sense does but the senses are not ordered. False: no sense reaches it."""
    cats = _category(category)
    mine = senses(noun)
    if not cats or not mine:
        return None
    wn = _WN
    assert wn is not None
    reach = [bool(wn.closure(off) & cats) for off in mine]
    if any(reach) and not ordered(noun):
        return True if slot else None
    return _by_first_sense(reach, ordered(noun))


def sense_of(lemma: str, n: int = 0) -> int | None:
    """The offset of the ``n``-th common-noun sense of a lemma (a category named by its sense: "room" as a
    part of a building, not as space), or None."""
    ss = senses(lemma)
    return ss[n] if len(ss) > n else None


@lru_cache(maxsize=16384)
def under(phrase: str, targets: frozenset[int], n: int = 3) -> tuple[bool, ...]:
    """For each of the phrase's first ``n`` senses, does it lie at or below one of ``targets``? The caller picks
    among senses by what the sentence needs (the object of "in" is a place, so its place senses count)."""
    wn = _load()
    if wn is None:
        return ()
    return tuple(bool(wn.closure(off) & targets) for off in senses(phrase)[:n])


@lru_cache(maxsize=16384)
def related(a: str, b: str, n: int = 3) -> bool:
    """May two nouns name one thing: one of the first ``n`` senses of one lies at or below one of the other's
    ("hall" and "lobby" share the sense of an entrance hall; "laboratory" and "lab" are one synset)?"""
    wn = _load()
    if wn is None:
        return True
    sa, sb = senses(a)[:n], senses(b)[:n]
    return any(x in wn.closure(y) or y in wn.closure(x) for x in sa for y in sb)


# verbs too general to say that two doings are of one kind ("do", "make", "get", "have", "use", ...)
TOO_GENERAL_VERBS = frozenset("""be have do make get go come take give put set use let keep hold leave bring carry
    move change act cause start begin end stop try work run turn""".split())
_VERBS: _WordNet | None = None
_VERBS_TRIED = False


def _load_verbs() -> _WordNet | None:
    """The verb files (index.verb, verb.exc, data.verb), loaded at the first call like the nouns."""
    global _VERBS, _VERBS_TRIED
    if not _VERBS_TRIED:
        nouns = _load()  # before taking the lock: the nouns' loader takes it too
        with _LOCK:
            if not _VERBS_TRIED:
                try:
                    _VERBS = _WordNet(os.environ.get(ENV_DIR) or DEFAULT_DIR, "verb") if nouns else None
                except (OSError, ValueError, IndexError) as e:
                    log.warning("scu_guard: WordNet verbs not read (%s); the verb category reading is off", e)
                    _VERBS = None
                _VERBS_TRIED = True
    return _VERBS


@lru_cache(maxsize=16384)
def verb_is_a(verb: str, category: str) -> bool | None:
    """Is the verb (a lemma) a manner of the category verb ("stroke" of "touch", "stash" of "store") by WordNet's
    verb hierarchy? True only where the verb's most common sense, known as such (one sense, or senses the
    concordance counted), is one of the category's first senses or lies below one; None where only a rarer sense
    does, the word is unknown, or the category is too general to say ("do", "make", "keep"); False otherwise.
    The same verb is not its own kind: callers match the rule's own verb by its word."""
    wn = _load_verbs()
    if wn is None or verb == category or category in TOO_GENERAL_VERBS:
        return None
    mine, cats = wn.index.get(verb, ()), frozenset(wn.index.get(category, ())[:CATEGORY_SENSES])
    if not mine or not cats:
        return None
    return _by_first_sense([bool(wn.closure(off) & cats) for off in mine],
                           len(mine) == 1 or wn.tagged.get(verb, 0) > 0)


@lru_cache(maxsize=16384)
def names_person(noun: str) -> bool | None:
    """Does ``noun`` name a person ("visitor", "bridesmaid", "lifeguard")? Read apart from ``is_a``, which
    holds "person" too general to say two things are one kind: here the question is only whether someone
    counted is a human being. True: its most common sense lies under person; None: only some sense does, the
    senses are not ordered, or WordNet does not know the noun; False: no sense does."""
    wn = _load()
    people = senses("person")[:1]
    mine = senses(noun)
    if wn is None or not people or not mine:
        return None
    return _by_first_sense([people[0] in wn.closure(off) for off in mine], ordered(noun))


@lru_cache(maxsize=4096)
def verbs_of(noun: str, n: int = 2) -> frozenset[str]:
    """The verbs that name what a role noun's first ``n`` senses do, by WordNet's derivational links and the
    lemmas of the linked verb senses ("adjudicator" -> adjudicate; "operator" -> operate, run; "driver" ->
    drive): a claim tells a role by its verb as often as by its noun."""
    nouns, verbs = _load(), _load_verbs()
    if nouns is None or verbs is None:
        return frozenset()
    out: set[str] = set()
    for lemma in _lemma_forms(noun):
        for off in nouns.index[lemma][:n]:
            for v in nouns.derived(off, "v", lemma):
                out |= set(verbs.synset(v)[0])
    return frozenset(out)


@lru_cache(maxsize=4096)
def first_verb_sense(verb: str) -> frozenset[str]:
    """The lemmas of a verb's most common sense ("operate" -> operate, run)."""
    wn = _load_verbs()
    offs = wn.index.get(verb, ()) if wn is not None else ()
    return frozenset(wn.synset(offs[0])[0]) if wn is not None and offs else frozenset()


# a kind shared by several nouns names a kind only this far below the top of the hierarchy ("flavorer" is 7
# steps down, "written communication" 3: too general to say that a card and a voucher are one kind of thing)
KIND_DEPTH = 5


@lru_cache(maxsize=16384)
def verb_sense_is_a(verb: str, category: str, n: int | None = CATEGORY_SENSES) -> bool:
    """Is one of the verb's first ``n`` senses one of the category verb's first senses or below one (with ``n``
    None: any sense of either)? For a verb whose slot already holds a thing of the rule's kind, which selects the
    sense; the same verb is its own kind here."""
    wn = _load_verbs()
    if wn is None or category in TOO_GENERAL_VERBS:
        return False
    if verb == category:
        return True
    cats = frozenset(wn.index.get(category, ())[:CATEGORY_SENSES if n else None])
    mine = wn.index.get(verb, ())
    return any(wn.closure(off) & cats for off in (mine if n is None else mine[:n]))


@lru_cache(maxsize=4096)
def nouns_of_verb(verb: str, n: int = CATEGORY_SENSES) -> frozenset[int]:
    """The noun synsets WordNet derives from the verb's first ``n`` senses ("pay" -> payment, "clean" -> cleaner,
    "flavour" -> flavouring): what the doing is done with or called."""
    wn, nouns = _load_verbs(), _load()
    if wn is None or nouns is None or verb in TOO_GENERAL_VERBS:
        return frozenset()
    return frozenset(x for off in wn.index.get(verb, ())[:n] for x in wn.derived(off, "n"))


@lru_cache(maxsize=4096)
def verbs_of_noun(noun: str) -> tuple[str, ...]:
    """The verbs a noun is formed from, by WordNet's derivation links of its first senses, where the noun's word
    is the verb's or the verb's with an ending ("payment" -> pay, "flavourings" -> flavour, "repairs" -> repair);
    a noun merely related in sense ("pet", "petting") is not read as a doing unless its word says so."""
    wn, verbs = _load(), _load_verbs()
    ss = senses(noun)
    if wn is None or verbs is None:
        return ()
    if names_person(noun):
        return ()  # "visitor": the doer, not the doing
    words = {lemma.replace("_", " ") for lemma in _lemma_forms(noun)} or {noun.lower()}
    out: list[str] = []
    for off in (x for s in ss[:CATEGORY_SENSES] for x in wn.derived(s, "v")):
        for lemma in verbs.synset(off)[0]:
            if lemma in out or not any(w.startswith(lemma) and len(w) - len(lemma) <= 4 for w in words):
                continue
            if lemma in words and not _is_act(ss[0]):
                continue  # "pet", "cut": a thing named like the verb, not the doing
            out.append(lemma)
    for w in words:  # a gerund WordNet links to no verb ("seeding"): the verb it is made from
        stems = [w[:-3], w[:-3] + "e", w[:-4]] if w.endswith("ing") and len(w) > 5 else []
        out += [v for v in stems if v in verbs.index and v not in out][:1]
    return tuple(out)


def _is_act(offset: int) -> bool:
    """Is the noun synset a doing (at or below WordNet's first sense of "event", which holds every act)?"""
    wn = _load()
    events = senses("event")[:1]
    return wn is not None and bool(events) and events[0] in wn.closure(offset)


def is_doing(noun: str) -> bool:
    """Is the noun's most common sense a doing ("production", "fishing"), not a thing ("plant", "pool")?"""
    ss = senses(noun)
    return bool(ss) and _is_act(ss[0])


def noun_senses(phrase: str, n: int = CATEGORY_SENSES) -> tuple[int, ...]:
    """The phrase's first ``n`` common-noun senses."""
    return senses(phrase)[:n]


def under_any(phrase: str, targets: frozenset[int], n: int = CATEGORY_SENSES) -> bool | None:
    """Does one of the phrase's first ``n`` senses lie at or below one of ``targets``? None when WordNet does not
    know the phrase."""
    if not senses(phrase):
        return None
    return any(under(phrase, targets, n))


@lru_cache(maxsize=4096)
def common_kinds(phrases: tuple[str, ...]) -> frozenset[int]:
    """The most specific kinds every phrase WordNet knows falls under, by one of its first senses ("cinnamon",
    "vanilla", "sea salt" -> flavorer), at least ``KIND_DEPTH`` below the top and not too general to say; none
    when fewer than two phrases are known."""
    wn = _load()
    known = [p for p in phrases if senses(p)]
    if wn is None or len(known) < 2:
        return frozenset()
    ups = [frozenset().union(*(wn.closure(o) for o in senses(p)[:CATEGORY_SENSES])) for p in known]
    common = {o for o in frozenset.intersection(*ups) if wn.depth(o) >= KIND_DEPTH and not
              any(lemma in TOO_GENERAL for lemma in wn.synset(o)[0])}
    return frozenset(o for o in common if not any(o != x and o in wn.closure(x) for x in common))


@lru_cache(maxsize=1)
def _adverbs() -> frozenset[str]:
    """The lemmas of WordNet's adverb index (index.adv), read at the first call; empty when absent."""
    try:
        with open(os.path.join(os.environ.get(ENV_DIR) or DEFAULT_DIR, "index.adv"), encoding="latin-1") as fh:
            return frozenset(line.split(" ", 1)[0] for line in fh if not line.startswith(" "))
    except OSError:
        return frozenset()


def is_adverb(phrase: str) -> bool:
    """Is the phrase an adverb of its own in WordNet ("in advance", "in full", "by hand", "in person"): a way of
    doing, not the thing it is done with?"""
    return "_".join(phrase.lower().split()) in _adverbs()
# the endings WordNet's morphy undoes on verbs (morphy(7WN)); verb.exc holds the irregular ones
_VERB_DETACH = (("ies", "y"), ("es", "e"), ("es", ""), ("s", ""), ("ied", "y"), ("ed", "e"), ("ed", ""), ("ing", "e"),
                ("ing", ""))


def verb_lemmas(word: str) -> tuple[str, ...]:
    """The verb lemmas an inflected form may stand for ("witnessed" -> witness, "acidified" -> acidify), by
    verb.exc and morphy's rules, each checked against the verb index."""
    wn = _load_verbs()
    if wn is None:
        return ()
    w = word.lower()
    cands = [w, wn.exc.get(w, "")] + [w[: -len(s)] + r for s, r in _VERB_DETACH if w.endswith(s) and len(w) > len(s) + 2]
    if len(w) > 4 and w.endswith("ed") and w[-3] == w[-4]:
        cands.append(w[:-3])  # "stopped" -> stop
    return tuple(dict.fromkeys(c for c in cands if c and c in wn.index))


@lru_cache(maxsize=16384)
def derivations(lemma: str) -> frozenset[str]:
    """The word and the words WordNet derives it from or to, as noun or verb, in any sense ("photograph" the
    noun and the verb, "sign"/"signature", "witness"/"witnessed", "attend"/"attendant"), and, for a noun, the
    other words of its first sense and their derivations ("photo" -> "photograph") where it is no verb too. One step only: a rule's
    word and a claim's word that share this family name one act or thing."""
    nouns, verbs = _load(), _load_verbs()
    out = {lemma}
    if nouns is None or verbs is None:
        return frozenset(out)
    words = [lemma]
    first = nouns.index.get(lemma, ())
    if first and lemma not in verbs.index:  # "photo" is a photograph; "sign" the verb is no "mark"
        synonyms = nouns.synset(first[0])[0]
        out |= set(synonyms)
        words += [w for w in synonyms if w != lemma]
    for word in words:
        for wn in (nouns, verbs):
            for off in wn.index.get(word, ()):
                for pos, target in (("n", nouns), ("v", verbs)):
                    # a derived synset holds other words too ("photograph" the verb is also "shoot", "snap"):
                    # only the words that keep the stem are the derivation itself
                    out |= {w for t in wn.derived(off, pos, word) for w in target.synset(t)[0] if w[:3] == word[:3]}
    return frozenset(w.replace("_", " ") for w in out)


@lru_cache(maxsize=16384)
def verb_lexfiles(verb: str, n: int = 1) -> tuple[int, ...]:
    """The lexicographer files (WordNet's broad kinds of verb: 32 communication, 39 perception, ...) of the verb's
    first ``n`` senses, in order; empty when the verb is unknown or too general to have a kind."""
    wn = _load_verbs()
    if wn is None or verb in TOO_GENERAL_VERBS:
        return ()
    return tuple(wn.lexfile(off) for off in wn.index.get(verb, ())[:n])


def offset_lexfile(offset: int) -> int:
    """The lexicographer file of a noun synset (WordNet's broad sort of noun: 13 food, 21 possession, 27
    substance, ...); -1 when WordNet is absent."""
    wn = _load()
    return -1 if wn is None else wn.lexfile(offset)


def offset_depth(offset: int) -> int:
    """How far a noun synset lies below the top of the hierarchy (0 when WordNet is absent)."""
    wn = _load()
    return 0 if wn is None else wn.depth(offset)


@lru_cache(maxsize=16384)
def noun_lexfiles(phrase: str, n: int = 1) -> tuple[int, ...]:
    """The lexicographer files of the phrase's first ``n`` common-noun senses, in order; empty when WordNet does
    not know it."""
    return tuple(offset_lexfile(off) for off in senses(phrase)[:n])


@lru_cache(maxsize=4096)
def taken_things(verb: str, up: int = 2) -> frozenset[int]:
    """The noun synsets a verb's first sense, or a verb up to ``up`` steps above it, is derived to where they are
    things, not doings or doers ("sip" -> drink -> beverage; "snack" -> snack, and eat -> eater, "green goods
    good to eat"): what the verb is done to. A claim that sips from a can of a name WordNet does not know tells
    that the name is a beverage."""
    wn, nouns = _load_verbs(), _load()
    offs = wn.index.get(verb, ())[:1] if wn is not None else ()
    if wn is None or nouns is None or not offs or verb in TOO_GENERAL_VERBS:
        return frozenset()
    level, seen = list(offs), set(offs)
    for _ in range(up):
        level = [u for v in level for u in wn.synset(v)[1] if u not in seen]
        seen |= set(level)
    people = senses("person")[:1]
    out = {n for v in seen if not set(wn.synset(v)[0]) & TOO_GENERAL_VERBS for n in wn.derived(v, "n")}
    return frozenset(n for n in out if not _is_act(n) and not (people and people[0] in nouns.closure(n)))


def things_are(offsets: frozenset[int], category: str) -> bool:
    """Does one of the noun synsets lie at or below one of the category's first senses?"""
    cats, wn = _category(category), _load()
    return wn is not None and bool(cats) and any(wn.closure(n) & cats for n in offsets)


@lru_cache(maxsize=4096)
def verb_entails(verb: str, category: str) -> bool:
    """Does a sense of the verb entail one of the category verb's first senses ("light", as in "light up", entails
    "smoke"): whoever lights a thing of a name WordNet does not know in that sense smokes it."""
    wn = _load_verbs()
    if wn is None or category in TOO_GENERAL_VERBS:
        return False
    cats = frozenset(wn.index.get(category, ())[:CATEGORY_SENSES])
    return any(set(wn.pointers(off, "*")) & cats for off in wn.index.get(verb, ()))
