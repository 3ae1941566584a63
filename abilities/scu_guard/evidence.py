"""What a REJECT needs: positive evidence that the typed reading read both sides, not a guess.

Why: on sets written after the rules were tuned, the typed findings that were wrong rested on a guess
no earlier check saw, each time a new one: a rule with a condition, an exception or a second amount
read as one bound ("a 45-minute break after at most 4.5 hours", "must cut out above 15.5 mph"); a
direction it did not read ("at 60 °C or hotter" taken as exactly 60 °C); a claim amount that measures
another thing ("held the milk at 72 °C for 20 seconds" against a withdrawal time for milk); an amount
only a cited chunk gives; an event matched by its thing alone ("cans went into the metals skip" for
"visitors must not climb into the skips"). Closing each wording after the fact did not carry over to
the next set. So these checks ask, for every kind of reading, for evidence that does not depend on
the wording of any set: the rule read whole, the claim's amount tied to the rule's own action or
thing, the amount stated by the claim in a main clause, the rule's action named. Without it the
finding is only suspected (REVIEW); a partner can trust a REJECT, and a person looks at the rest.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from abilities.scu_guard import ages, measure
from abilities.scu_guard.amount_ties import own_reading, question_ties, record_ties
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.forms import GENERIC, Form, _condition_clause
from abilities.scu_guard.judge import (
    ALONE_RE,
    COMPANY_VERBS,
    LIGHT_VERBS,
    Claim,
    Clause,
    _clause_at,
    _in_band,
    _names,
    sentence_span,
)
from abilities.scu_guard.nlp import key, light_keys, parse, word_key
from abilities.scu_guard.ratios import without_base

# words that make a rule's amount conditional or partial: what the rule bounds then depends on a part of
# it the typed form does not hold ("once depth reaches 3 cm", "unless", "except"). In a prohibition, a
# "when/if" clause names the forbidden state itself ("must not jump when winds exceed 14 knots")
_EXCEPTION_RE = re.compile(r"\b(?:unless|except|excepting|other than|apart from|provided|as long as|in case)\b", re.I)
_CONDITION_RE = re.compile(
    r"\b(?:when|whenever|if|(?<!at )once(?! (?:every|a|an|per|daily|weekly|monthly|yearly)\b)|while|where)\b", re.I)
_NUMBER_WORDS = (r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
                 r"hundred|dozen|twice|thrice|half|quarter")
# a number that is not part of a name ("SG400", "Priority 1" counts: a label is still a second number)
_NUMBER_RE = re.compile(rf"(?<![\w.,])\d+(?:[.,:]\d+)*|\b(?:{_NUMBER_WORDS})\b", re.I)
_ONE_COMPOUND_RE = re.compile(r"\bone-(?=[a-z])", re.I)
# "No one may go onto the roof": "no one" is the pronoun nobody, no amount
_NO_ONE_RE = re.compile(r"\bno[- ]one\b", re.I)
# "at one time", "in one visit", "in a single session": the unit a bound counts over, not a second amount
# "to any one motorcycle rail", "of any one vintage": "any one" picks each unit in turn, whatever the preposition
_ONE_SCOPE_RE = re.compile(r"\b(?:(?:at|in|on|per|during|within)\s+(?:any\s+)?(?:one|a single)|any\s+one)\s+[a-z]+",
                           re.I)
# "in any 24-hour period", "per 8-hour shift": the window a bound is counted over, not a second amount
_WINDOW_SCOPE_RE = re.compile(rf"\b(?:in|within|during|over|per)\s+(?:any|each|every|a|one|the same)\s+"
                              rf"(?:rolling\s+|single\s+|consecutive\s+)?(?:\d+|{_NUMBER_WORDS})[- ]"
                              r"(?:minute|hour|day|week|month|year)s?\s+(?:period|window|span|shift|stretch)\b", re.I)
_RANGE_RE = re.compile(r"\bbetween\b.+\band\b|\bfrom\b.+\b(?:to|until|through)\b", re.I)
# "every 40 heats": an interval between events counted in events, not a bound on an amount
_EVERY_COUNT_RE = re.compile(rf"\bevery\s+(?:\d[\d,.]*|{_NUMBER_WORDS})\s+(?!(?:second|minute|hour|day|week|"
                             r"month|year|fortnight)s?\b)\w", re.I)
# the claim states the amount as a circumstance or a possibility, not as what was done
_OWN_CONDITION_MARKS = frozenset({"when", "whenever", "if", "once"})
_FACTUAL_CIRCUMSTANCE = frozenset({"when", "whenever", "once", "while", "as soon as"})
_CIRCUMSTANCE_RE = re.compile(r"\b(?:when|whenever|if|once|unless|until|as soon as|while|in case|would|could|might|"
                              r"should)\b", re.I)
# verbs that state a bound rather than an event ("must not exceed", "must last", "kept for"): a duration in
# the claim need not repeat them
_BOUND_VERBS = frozenset(word_key(w) for w in "exceed last keep stay remain reach fall rise drop surpass top be "
                                              "have take".split())
# a direction the rule states after its amount ("at 60 °C or hotter", "5 years and over")
_TRAILING_DIRECTION_RE = re.compile(r"\b(?:or|and)\s+(?:more|less|higher|lower|hotter|colder|warmer|cooler|above|"
                                    r"below|over|under|longer|shorter|later|earlier|greater|fewer|faster|slower|"
                                    r"larger|smaller)\b", re.I)
# a bare comparative after a verb of an event ("must cut out above 15.5 mph") names when the event happens,
# not a bound on a measured state ("must be kept above 5 °C", "must stay below 0.01")
_BARE_COMPARATIVE_RE = re.compile(r"\b(above|over|below|under|beyond)\s*$", re.I)
_STATE_BEFORE_RE = re.compile(r"\b(?:be|been|is|are|kept|keep|stay|stays|remain|remains|held|stored|maintained|sit|"
                              r"sits|set|run|runs|operated?|travel|drive|fly|flown|driven|ride)\s+(?:\w+\s+){0,2}"
                              r"(?:above|over|below|under|beyond)\s*$|\bor\s+(?:above|over|below|under)\s*$", re.I)


@lru_cache(maxsize=4096)
def read_whole(text: str, modality: str, triggered: bool = False) -> bool:
    """Is the rule's amount all there is to it: at most one number (or one range) besides the one of a
    condition the form holds ("Riders under 14 may not ride faster than 15 km/h"), no exception, and no
    condition unless the rule forbids the state the condition names?"""
    if _EXCEPTION_RE.search(text) or _EVERY_COUNT_RE.search(text):
        return False
    if modality != "must_not" and _CONDITION_RE.search(text):
        return False
    # "a one-call locate request", "one-way streets": "one" joined to a noun names a kind of thing, no amount
    text = _NO_ONE_RE.sub(" ", _ONE_COMPOUND_RE.sub(" ", text))
    numbers = len(_NUMBER_RE.findall(_WINDOW_SCOPE_RE.sub(" ", _ONE_SCOPE_RE.sub(" ", text)))) - int(triggered)
    return numbers <= 1 or (numbers == 2 and bool(_RANGE_RE.search(text)))


def _as_circumstance(claim: Claim, start: int) -> bool:
    """Is the amount inside a subordinate "when/if/once/until ..." part of its sentence or clause?"""
    text = claim.text
    cut = max([0] + [m.end() for m in re.finditer(r"[.!?;,]\s+", text[:start])])
    # "can wait until the second day after": "until" right before the amount is the amount's own word
    return any(not (m.group(0).lower() in ("until", "till") and text[m.end() : start].strip().lower() in ("", "the"))
               for m in _CIRCUMSTANCE_RE.finditer(text, cut, start))


@lru_cache(maxsize=4096)
def _bound_in_condition(text: str, band_text: str) -> bool:
    """Is the rule's amount inside its own when/if clause ("No one may go onto the roof when the wind exceeds
    40 mph")? Then the amount says when the rule holds, and a claim telling it as the time of its event ("while
    the wind was blowing 45 knots") tells the condition met, not a mere circumstance."""
    doc = parse(text)
    at = text.find(band_text) if band_text else -1
    if at < 0:
        return False
    # the parser may hang a trailing "when ..." clause on the noun before it ("the mast when the wind ...")
    clauses = [_condition_clause(doc)] + [t for t in doc if t.dep_ in ("relcl", "advcl") and min(
        t.subtree, key=lambda w: w.i).lower_ in _OWN_CONDITION_MARKS]
    return any(c is not None and min(w.idx for w in c.subtree) <= at <= max(w.idx for w in c.subtree)
               for c in clauses)


def _told_as_fact(claim: Claim, start: int) -> bool:
    """Is every circumstance word before the amount (in its sentence part) one that tells a time as a fact
    ("when", "while", "once"), none a possibility ("if", "would", "unless")?"""
    text = claim.text
    cut = max([0] + [m.end() for m in re.finditer(r"[.!?;,]\s+", text[:start])])
    found = [m.group(0).lower() for m in _CIRCUMSTANCE_RE.finditer(text, cut, start)]
    return bool(found) and all(w in _FACTUAL_CIRCUMSTANCE for w in found)


# a retention rule ("records must be kept for at least 7 years") is measured by the thing's disposal just as
# well: "the records are shredded after 5 years" kept them 5 years
_KEEP_VERBS = frozenset(word_key(w) for w in "keep retain store hold preserve archive save withhold".split())
_RETAIN_VERBS = frozenset(word_key(w) for w in "keep retain store hold preserve archive".split())
_DISPOSE_VERBS = frozenset(word_key(w) for w in "delete destroy discard dispose shred purge recycle donate erase wipe "
                                                "scrap bin throw dump incinerate".split())
# words the parser leaves in a form's object from the bound itself ("at least", "no later than", "more than")
_BOUND_WORDS = frozenset(word_key(w) for w in "at least most more mor less later earlier longer shorter fewer".split())
# words of a reference event too common to tie an amount to it ("the last spray", "the visit date")
_WEAK_REFERENCE = frozenset(word_key(w) for w in "day date time last final first start end".split())
_FOLLOWING_REFERENCE_RE = re.compile(r"\s*(?:after|before|of|from|since|following|prior to)\s+((?:[\w'-]+\s*){1,5})",
                                     re.I)


def _tied_to_rule(form: Form, claim: Claim, end: int, clause_keys: set[str], clause_verbs: set[str]) -> bool:
    """Is a duration the claim states tied to the rule by grammar, though its clause does something else:
    counted from the very event the rule counts from ("picked a week after the final fungicide spray" for
    "must not be harvested within 14 days of the last fungicide spray"), or the keeping or disposal of the
    thing a retention rule keeps ("spray records are discarded after 18 months", "are held for two years"
    for "must be kept for at least 3 years")?"""
    band = form.quantity
    reference = set(band.reference) - _WEAK_REFERENCE - GENERIC if band is not None else set()
    if reference:
        rest = claim.text[end:]
        if re.search(r"\b(?:after|before)$", claim.text[:end]):  # the amount holds it: "the third day after"
            rest = " after " + rest
        m = _FOLLOWING_REFERENCE_RE.match(rest)
        if m and reference & light_keys(m.group(1)):
            return True
    things = (set(form.subject) | set(form.object)) - GENERIC - _BOUND_WORDS
    # "trip records are held for two years" keeps them as much as "retained" does (not "withheld": milk held
    # at 72 °C is not milk kept from sale)
    retained = set(form.action) & _RETAIN_VERBS and clause_verbs & _RETAIN_VERBS
    return bool(set(form.action) & _KEEP_VERBS and (clause_verbs & _DISPOSE_VERBS or retained)
                and things & clause_keys)


def _event_words(form: Form) -> set[str]:
    """The rule's own action and thing, without its subject, without a verb that only states the bound and
    without the event a deadline counts from: what a duration in the claim must be about when the claim's
    clause does something (any event takes time: "held the milk at 72 °C for 20 seconds" is no withdrawal
    time for milk)."""
    reference = set(form.quantity.reference) if form.quantity is not None else set()
    return (set(form.action) | set(form.object)) - GENERIC - LIGHT_VERBS - _BOUND_VERBS - reference


def _claim_triggers(form: Form, claim: Claim) -> bool:
    """Does an amount the claim itself states switch the rule's condition on ("the 55 kg crate")?"""
    band = form.trigger
    return band is not None and any(a.dim == band.dimension and _in_band(a.lo, a.hi, band) for a, _ in claim.amounts)


# a duty word of the rule; an amount before it with a comparative ("A pitch raise of more than 20 cents requires
# an inspection", "Loads over 8 t must be escorted") says which things the duty is for, not what it bounds, unless
# the rule opens with its bound ("At least two staff must be present", "No more than 6 riders may ...")
_DUTY_RE = re.compile(r"\b(?:must|shall|requires?|needs?|has to|have to|is required|are required)\b", re.I)
_SCOPE_COMPARATIVE_RE = re.compile(r"\b(?:of|with|over|above|under|below|exceeding|more than|less than|fewer than|"
                                   r"longer than|heavier than|larger than|greater than|at least|at most|up to)\s*$",
                                   re.I)
_OPENING_BOUND_RE = re.compile(r"^\s*(?:no more than|not more than|no fewer than|not fewer than|no less than|at least|"
                               r"at most|up to|a maximum of|a minimum of|maximum|minimum|fewer than|more than|less than|"
                               r"only|never more than)\s*$", re.I)


def _amount_in_scope(form: Form, band_text: str) -> bool:
    """Does a duty rule's amount sit in its subject, after a comparative, before the duty word: a condition on
    what the rule applies to, read as the bound?"""
    at = form.text.find(band_text) if band_text else -1
    duty = _DUTY_RE.search(form.text)
    if form.modality != "must" or at < 0 or duty is None or duty.start() < at:
        return False
    before = form.text[:at]
    return bool(_SCOPE_COMPARATIVE_RE.search(before)) and not _OPENING_BOUND_RE.match(before)


# a consequence told with an order or an exception ("must not start before the customer has approved") is not
# broken by a denial alone
_ORDER_OR_EXCEPTION_RE = re.compile(r"\b(?:before|until|after|unless|without|except|prior)\b", re.I)


def _named_chunk_trigger(form: Form, claim: Claim, clause: Clause | None) -> bool:
    """Is a conditional rule switched on by a chunk that states the amount of the very thing the claim names
    ("Trench 4 is 1.5 m deep" for "Trench 4 is being dug without shoring") while the claim denies the rule's
    consequence outright ("without shoring", "does not need to be reported", "left untreated")?"""
    band = form.trigger
    if band is None or clause is None or _ORDER_OR_EXCEPTION_RE.search(form.text):
        return False
    consequence = (set(form.object) | set(form.action)) - GENERIC - LIGHT_VERBS
    said = consequence & (clause.keys | clause.facts | clause.verbs)
    # a duty of company ("must be supervised one-to-one") denied by being alone ("shot on his own")
    alone = bool(consequence & COMPANY_VERBS) and bool(ALONE_RE.search(clause.text))
    if not (consequence & clause.denied or (clause.negated or clause.optional) and said or alone):
        return False
    if band.dimension == "age" and ages.claim_ages(claim.text, claim.chunk_texts) and any(
            _in_band(a.lo, a.hi, band) for _, a in ages.claim_ages(claim.text, claim.chunk_texts)):
        return True  # "Junior list: Liam (15)" for "Liam shot on lane 4 on his own"
    names = {n for n in _names(claim.text) if not set(n.split()) & (set(measure.MONTHS) | set(measure.WEEKDAYS))}
    for text in claim.chunk_texts:
        for sent in re.split(r"(?<=[.;])\s+", text):
            if names & _names(sent) and any(a.dim == band.dimension and _in_band(a.lo, a.hi, band)
                                            for a in measure.find_amounts(sent)):
                return True
    return False


_RULE_WORDS = frozenset(light_keys("must shall may should not never no only any every each all above below over under "
                                   "exceed exceeds than within least most more less kept keep be is are"))


def _content_keys(text: str) -> set[str]:
    """The keys of a rule's words, without its duty, direction and unit words and without its numbers."""
    units = {w for a in measure.find_amounts(text) for w in light_keys(a.text)}
    return set(light_keys(text)) - _RULE_WORDS - units


def _speaks_of_rule(form: Form, claim: Claim, start: int) -> bool:
    """Does the sentence of the amount name any of the rule's own words (its subject, action or thing)? An
    amount tied to the rule by its unit alone ("the crusher pad, 80 m from blast 48" against "the exclusion
    zone must extend at least 500 metres"; "L-80 was cleared at 2,400 psi" against "jetting pressure on
    vitrified clay pipes") was wrong 2 times in 13 on the development sets, far above what a REJECT may be."""
    text = claim.text
    s0, s1 = sentence_span(text, start, start)
    words = ((set(form.subject) | set(form.object) | set(form.action) | _content_keys(form.text))
             - GENERIC - LIGHT_VERBS - _BOUND_WORDS)
    said = set(light_keys(text[s0:s1])).union(*(c.keys | c.verbs for c in claim.clauses
                                                if c.start < s1 and s0 < c.end))
    # the claim's own amount switching the rule's condition on ties the sentence to the rule ("A 12-year-old
    # rode at 25 km/h" for "Riders under 14 may not ride faster than 15 km/h")
    return not words or bool(words & said) or _claim_triggers(form, claim)


def unrelated_duration(form: Form, claim: Claim, start: int) -> bool:
    """Is a duration tied to a time rule by nothing but its unit ("the pallets went out the following morning",
    "Jo did it again a week and a half later" against "must enter the cooling tunnel within 20 minutes of
    filling")? A guessed reading (the claim's own event is not the rule's, nor is its sentence about the rule's
    thing) has then no evidence left: the time measures another event, so there is nothing to review."""
    band = form.quantity
    # (a period, "at least every 5 minutes", is told of its recurring event in other words: "checked every
    # quarter of an hour" for "monitored")
    return band is not None and band.dimension == "[time]" and not band.period and not _speaks_of_rule(
        form, claim, start)


RELATIVE_DOUBT = "the claim's relative time counts from an event the rule does not count from"
# a time told relative to the event before it in the claim: "the next morning", "the following week", "two days later"
_RELATIVE_TIME_RE = re.compile(r"^(?:the\s+)?(?:next|following|day after|week after)\b|\blater$", re.I)


def _relative_to_other_event(form: Form, claim: Claim, start: int, end: int) -> bool:
    """Is a duration the claim gives as a relative time ("picking carried on the next morning") set against a
    rule that counts from a named event ("within 7 days after a fungicide application") while the claim names
    nothing of that event? The time then counts from whatever the claim told before, not from the rule's event."""
    band = form.quantity
    reference = set(band.reference) - _WEAK_REFERENCE - GENERIC if band is not None else set()
    if not reference or not _RELATIVE_TIME_RE.search(claim.text[start:end].strip()):
        return False
    told_before = [c for c in claim.clauses if c.end <= start and c.verbs]
    if not told_before:
        return False  # "Doping control can wait until the next morning": no other event to count from
    said = set(light_keys(claim.text)).union(*(c.keys | c.verbs | c.facts for c in claim.clauses))
    return not any(r in said or any(w.startswith(r[:5]) for w in said if len(r) >= 5) for r in reference)


def _after_another_event(form: Form, claim: Claim, end: int) -> bool:
    """Is an amount told as a time after or before an event ("Ten minutes after the round 3 list went up, ...
    amended board 9", "taken two minutes before the driver left") set against a lead time before another event
    ("at least 1 hour before the round starts")? It counts from what the claim names, not back from the rule's
    event; not so where the event after "after" or "before" is the rule's own ("published ten minutes after
    the round started")."""
    band = form.quantity
    m = re.match(r"\s*(after|before)\b", claim.text[end:], re.I)
    if band is None or band.reference_side != "before" or not m:
        return False
    reference = set(band.reference) - _WEAK_REFERENCE - GENERIC
    after = next((t for t in parse(claim.text) if t.idx >= end and t.lower_ == m.group(1).lower()), None)
    if not reference or after is None:
        return False
    if after.dep_ == "mark":
        heads = [c for c in after.head.children if c.dep_ in ("nsubj", "nsubjpass")]
    else:
        heads = [c for c in after.children if c.dep_ == "pobj"]
    if not heads or any(key(h) in reference or any(key(h).startswith(r[:4]) for r in reference if len(r) >= 4)
                        for h in heads):
        return False
    if m.group(1).lower() == "after":
        return True
    # a lead before another event ("two minutes before Lena drove off") is the rule's only when the claim's
    # own doing names the rule's thing or action ("the customer got a call an hour before the crew arrived")
    start = max(claim.text.rfind(p, 0, end) for p in ".!?;") + 1
    told = [c for c in claim.clauses if c.start < end and c.end > start]
    nouns = (set(form.subject) | set(form.object)) - reference - GENERIC
    verbs = set(form.action) - GENERIC - LIGHT_VERBS
    return not (nouns & set(light_keys(claim.text[start:end])) or verbs & set().union(*(c.verbs for c in told)))


_NAMING_DEPS = frozenset({"compound", "poss", "nmod"})


def _naming_words(head: Any) -> list[Any]:
    """The nouns that tell a noun apart from others of its kind ("the casting room's filters", "polishing-room
    dust filters"), not its adjectives ("the main filters" names no other filters)."""
    return [w for c in head.children if c.dep_ in _NAMING_DEPS for w in c.subtree
            if w.pos_ in ("NOUN", "PROPN", "VERB") and w.i != head.i and key(w) not in GENERIC]


def _other_of_kind(form: Form, claim: Claim, start: int, end: int) -> bool:
    """Is the amount said of a thing with the rule's noun that its naming words tell apart from the rule's
    ("the casting room's filters are changed monthly" for "Polishing-room dust extraction filters must be
    changed at least every 14 days")? A naming word both share is itself named otherwise ("casting room"
    against "polishing room"). Another modifier alone ("the server room" of "guest rooms") stays the rule's
    thing, and so does the rule's own thing with fewer words ("the dust filters")."""
    rule = parse(form.text)
    ours = next((t for t in rule if t.dep_ in ("nsubj", "nsubjpass") and t.pos_ in ("NOUN", "PROPN")), None)
    theirs = {key(w): w for w in _naming_words(ours)} if ours is not None else {}
    doc = parse(claim.text)
    toks = [t for t in doc if start <= t.idx < end]
    verb = toks[-1].head if toks else None
    while verb is not None and verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
        verb = verb.head
    if ours is None or verb is None or not theirs:
        return False
    # the rest of the rule's subject ("in the public racks") said in the clause: the rule's own thing
    rest = {key(w) for w in ours.subtree if w.i != ours.i} - set(theirs) - GENERIC
    clause = {key(w) for c in verb.children if c.dep_ not in ("nsubj", "nsubjpass", "advcl", "conj", "ccomp",
                                                              "parataxis") for w in c.subtree}
    if rest & clause:
        return False
    for subj in (c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass") and key(c) == key(ours)):
        for w in _naming_words(subj):
            if key(w) in theirs:
                # the shared word's own modifiers, adjectives too ("the south wing" against "north-wing")
                here = {key(c) for c in w.children if c.dep_ in _NAMING_DEPS | {"amod"}} - GENERIC
                there = {key(c) for c in theirs[key(w)].children if c.dep_ in _NAMING_DEPS | {"amod"}} - GENERIC
                if here and there and not here & there:
                    return True
    return False


def _governing_clause(claim: Claim, start: int, end: int, outer: Clause) -> Clause:
    """The clause whose verb the amount hangs from, where the clause spanning the sentence only goes, gets or
    makes: "went through the gate and spent two hours underground" spends the hours. A time before a
    subordinate "after/before" clause ("400 minutes after it was unloaded") measures the main verb. The
    spanning clause when the parse ties the amount to no clause's verb."""
    doc = parse(claim.text)
    toks = [t for t in doc if start <= t.idx < end]
    if not toks:
        return outer
    t = toks[-1].head
    while t.pos_ not in ("VERB", "AUX") and t.head.i != t.i:
        t = t.head
    if toks[-1].dep_ == "npadvmod" and any(c.dep_ == "mark" for c in t.children) and t.head.i != t.i:
        t = t.head
    return next((c for c in claim.clauses if c.head_i == t.i), outer)


def doubt(form: Form, finding: Finding, claim: Claim, question: str = "") -> str | None:
    """Why a typed finding the readers call sure is still no ground to reject on, or None when the
    evidence is there. Amount findings: the rule read whole, its condition met by an amount the claim
    states, a bound with a direction, the claim's own amount in a main clause, a duration tied to the
    rule's own action or thing. A conditional rule
    switched on by an amount only a chunk gives. A forbidden event whose clause does not name the rule's
    action. ``question`` (the user's, context only) may tie the amount to the rule's thing where a record
    would (``amount_ties.question_ties``)."""
    clause = _clause_at(claim.clauses, finding.start) if claim.clauses else None
    if finding.basis in ("amount", "count", "count_total", "count_ratio", "gap", "entry_amount"):
        band = form.quantity
        # a bound in proportion ("for every 25 bathers") is read whole without its base: one bound, not two
        text = without_base(form.text) if finding.basis == "count_ratio" else form.text
        if not read_whole(text, form.modality, form.trigger is not None):
            return "the rule holds a condition, an exception or more than one amount"
        if band is not None and band.text and any(m.start() <= form.text.find(band.text) < m.end()
                                                   for m in _WINDOW_SCOPE_RE.finditer(form.text)):
            return "the rule's amount is the window a count is taken over, not its bound"
        if form.trigger is not None and not _claim_triggers(form, claim):
            return "the claim does not state the amount that switches the rule on"
        exact = band is not None and band.low is not None and band.high is not None and \
            abs(band.low - band.high) <= 1e-9 * max(1.0, abs(band.low))
        if finding.basis == "amount" and exact and _TRAILING_DIRECTION_RE.search(form.text):
            return "the rule's amount was read without its direction"
        before = form.text[: form.text.find(band.text)] if band is not None and band.text in form.text else ""
        if form.modality == "must" and _BARE_COMPARATIVE_RE.search(before) and not _STATE_BEFORE_RE.search(before):
            return "the rule's amount says when its event happens, not what it bounds"
        if finding.basis != "gap" and _as_circumstance(claim, finding.start) and not (
                band is not None and _bound_in_condition(form.text, band.text) and _told_as_fact(claim, finding.start)):
            return "the claim gives the amount as a circumstance"
        if finding.basis == "amount" and _relative_to_other_event(form, claim, finding.start, finding.end):
            return RELATIVE_DOUBT
        if finding.basis == "amount" and _after_another_event(form, claim, finding.end):
            return RELATIVE_DOUBT
        if finding.basis in ("amount", "count") and _other_of_kind(form, claim, finding.start, finding.end):
            return "the claim's amount is said of another thing of the rule's kind"
        if finding.basis == "amount" and not _speaks_of_rule(form, claim, finding.start) and not (
                band is not None and (record_ties(form, claim.text[finding.start:finding.end], band.dimension,
                                                  claim.chunk_texts)
                                      or question_ties(form, claim.text, finding.start, question))
                and own_reading(form, claim.text, finding.start)[1]):
            return "the claim's sentence names nothing of the rule but the amount's unit"
        if band is not None and finding.basis in ("amount", "count", "count_total", "count_ratio") and _amount_in_scope(form, band.text or ""):
            return "the rule's amount says which things the duty is for, not what it bounds"

        if finding.basis == "amount" and band is not None and band.dimension == "[time]" and not band.period \
                and clause is not None:
            if not clause.verbs - LIGHT_VERBS - _BOUND_VERBS - GENERIC:
                clause = _governing_clause(claim, finding.start, finding.end, clause)
            own = _event_words(form)
            verbs = clause.verbs - LIGHT_VERBS - _BOUND_VERBS - GENERIC
            if own and verbs and not clause.verbs & _BOUND_VERBS and not own & (
                    clause.keys | clause.facts | clause.verbs) and not _tied_to_rule(
                    form, claim, finding.end, clause.keys | clause.facts, clause.verbs):
                return "the claim's duration belongs to another event than the rule's"
    if finding.basis == "trigger_chunk" and not _named_chunk_trigger(form, claim, clause):
        return "the amount that switches the rule on comes from a chunk"
    if finding.rule == "forbid" and clause is not None and not finding.firm:
        action = set(form.action) - LIGHT_VERBS - GENERIC
        if action and not action & (clause.verbs | clause.keys):
            return "the clause does not name the forbidden action"
    return None
