"""Constraints understood once, when they are locked: a typed form per constraint.

A form says what the guard will machine-check: modality (``must``, ``must_not``, ``may``,
``only``), subject/action/object keys, an allowed band for a quantity (unit-normalised, with its
period meaning and the event it is measured from), a trigger band for conditional rules, a clock
or calendar window, an order of two events, an exclusion pair, an allow-list. Clients may send
the form themselves (``Inputs.forms``); a constraint that yields nothing checkable is returned in
``unparsed_constraints`` rather than checked weakly.
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from typing import Any, Literal

from abilities.scu_guard import attributive, measure
from abilities.scu_guard.apart import is_time, member_keys, rule_pair
from abilities.scu_guard.form_types import Band, Form, Modality, Order, Window
from abilities.scu_guard.names import read_named_list
from abilities.scu_guard.nlp import key, parse, word_key
from abilities.scu_guard.places import read_places
from abilities.scu_guard.use_lists import read_uses

CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"})
FUNCTION_POS = frozenset({"DET", "PRON", "PUNCT", "NUM", "ADP", "CCONJ", "SCONJ", "AUX", "PART", "SYM", "SPACE"})
GENERIC = frozenset({"one", "anyone", "nobody", "person", "everyone", "everybody", "thing", "be", "have",
                     "do", "time", "any", "all", "each", "every", "no", "only", "other", "that", "which",
                     "who", "use", "make", "get", "same", "case", "allow", "permit", "prohibit", "forbid",
                     "require", "need", "must", "may", "can", "never", "shall", "ban", "also", "now", "still",
                     "just", "then", "there", "here", "so", "very", "too", "even", "ever", "always", "again",
                     "already", "yet", "however", "instead", "really", "well", "first"})
GENERIC = GENERIC | frozenset(word_key(w) for w in GENERIC)  # the words and their keys
DENY_WORDS = frozenset({"prohibited", "forbidden", "banned", "not", "never", "no", "neither", "nor", "without",
                        "cannot", "n't", "disallowed"})
# a duty to hold a thing: "must have X", "requires X", "needs X" all say the subject must have it
_POSSESSION = frozenset({"have", "require", "need"})
HAVE = word_key("have")
_EVERY = frozenset({"every", "each", "all", "any", "everyone", "everybody", "anyone", "anybody"})
SAME_WORDS = frozenset({"same", "share", "together", "alongside"})
APART_WORDS = frozenset({"separate", "apart"})
__all__ = ["Band", "Form", "Modality", "Order", "Window", "keys", "understand", "describe", "band_from"]


def keys(tokens: Any) -> list[str]:
    """Content keys of tokens, without generic words and without duplicates (in order)."""
    out: list[str] = []
    skip: set[int] = set()
    for t in tokens:
        if t.i in skip:
            continue
        doc = t.doc
        if t.lower_ == "non" and t.i + 2 < len(doc) and doc[t.i + 1].text == "-":
            k = "un" + key(doc[t.i + 2])  # "non-vaccinated" reads as "unvaccinated"
            skip.add(t.i + 2)
            if k not in out:
                out.append(k)
            continue
        argument = t.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj") and t.pos_ not in FUNCTION_POS
        if (t.pos_ in CONTENT_POS or argument) and t.pos_ != "NUM" and not t.like_num:
            parts = [p for p in t.text.split("-") if p.isalpha()] if "-" in t.text else []
            for k in [word_key(p) for p in parts] if parts else [key(t)]:
                if k and k not in GENERIC and len(k) > 1 and k not in out:
                    out.append(k)
    return out


# a rule that opens with its bound ("No more than 2 kg of ...", "At least 3 staff ...", "Up to 40 guests ...")
_LEADING_BOUND_RE = re.compile(r"^\s*(?:no more than|not more than|at most|up to|a maximum of|no fewer than|"
                               r"no less than|not less than|not fewer than|at least|a minimum of)\s*$", re.I)


# a comparative that leaves its own amount out of a condition's band
_STRICT_RE = re.compile(r"(?:\b(?:more|longer|greater|higher|heavier|larger|older|later|bigger|wider|taller|faster|"
                        r"deeper|less|fewer|shorter|lower|lighter|smaller|younger)\s+than|\b(?:above|over|under|below|"
                        r"exceeding|exceeds|exceed))\s*$", re.I)


# a condition met once a level is reached: "if the reading reaches 28 °C", "when the gauge hits 40 cm"
_REACH_RE = re.compile(r"\b(?:reach(?:es|ed)?|hits?|attains?|touch(?:es)?)\s*$", re.I)
_CONDITION_MARKS = ("when", "if", "whenever")


def _condition_clause(doc: Any) -> Any:
    """The verb of a when/if clause. The parser hangs it as ``advcl`` or, after a passive duty ("must be
    cancelled when sustained wind exceeds 30 km/h"), as ``ccomp`` whose first word is "when" (hung on a
    word inside the clause); either way the clause opens with its conjunction."""
    for t in doc:
        if t.dep_ == "advcl" and any(c.lower_ in _CONDITION_MARKS for c in t.children):
            return t
        if t.dep_ == "ccomp" and t.head.dep_ == "ROOT":
            first = min(t.subtree, key=lambda w: w.i)
            if first.lower_ in _CONDITION_MARKS and first.i > t.head.i:
                return t
    return None


# a length a thing stays good for, or the end of its service: the amount is the longest it may last
_VALID_FOR_RE = re.compile(r"\b(?:valid|good|usable|current|effective)\s+for\s+(?:up\s+to\s+)?$", re.I)
_END_OF_SERVICE_RE = re.compile(r"\b(?:must|shall|should|are\s+to|is\s+to)\s+be\s+(?:retired|replaced|discarded|"
                                r"scrapped|withdrawn|renewed|disposed\s+of|taken\s+out\s+of\s+service)\s+"
                                r"(?:after|at|once\s+they\s+reach|on\s+reaching)\s+$", re.I)

# a duty to keep a thing for a time ("must be kept for 90 days", "are to be retained in the archive for 2 years"):
# the amount is the shortest it may be kept; keeping it longer keeps the rule
_RETAIN_FOR_RE = re.compile(r"\b(?:must|shall|should|are\s+to|is\s+to|need\s+to|has\s+to|have\s+to)\s+be\s+"
                            r"(?:kept|retained|preserved|archived)\s+(?:[^\d.;,]{0,40}\s)?for\s+$", re.I)


def band_from(amount: measure.Amount, text: str, deny: bool) -> Band:
    """The allowed band an amount sets; a denied rule flips it ("must not fall below 3 m" = at least 3 m)."""
    direction = amount.direction
    until = re.search(r"\buntil\b", text[: amount.start], re.I)  # "must not be kegged until ... at least 14 days"
    lead = text[: amount.start]
    if direction == "eq" and (_VALID_FOR_RE.search(lead) or _END_OF_SERVICE_RE.search(lead)):
        # "valid for 12 months", "must be retired after 5 years in service": the longest a thing may last
        direction, deny = "max", False
    elif direction == "eq" and not deny and not amount.period and _RETAIN_FOR_RE.search(lead):
        direction = "min"  # "must be kept for 90 days": at least that long
    if deny and not until and not measure.direction_info(text, amount.start, amount.end)[1]:
        direction = {"max": "min", "min": "max", "eq": "min"}[direction]
    after = text[amount.end : amount.end + 120]
    ref: list[str] = []
    side: Literal["after", "before"] = "after"
    m = re.match(r"\s*(?:of|after|from|following|since|before|prior to)\s+(.+?)(?:[.;,]|$)", after, re.I)
    if m:
        side = "before" if re.match(r"\s*(?:before|prior to)", after, re.I) else "after"
        ref = keys(parse(m.group(1)))
        if side == "before":
            direction = _lead_before(text[: amount.start], direction)
    if side == "after" and _SOONER_RE.search(lead):
        # "emptied no sooner than 48 hours after checkout": the event comes at least that long after; "sooner
        # than 2 days after" would be less than that (the amount's words bound the date, not the gap)
        direction = "min" if deny or _NOT_SOONER_RE.search(lead) else "max"
    low = amount.lo if direction == "min" else None
    high = amount.hi if direction == "max" else None
    if direction == "eq":
        low, high = amount.lo, amount.hi
        if amount.period and not deny:  # "must report every 30 minutes": at least that often
            low = None
    return Band(dimension=amount.dim, low=low, high=high, period=amount.period,
                business_days=amount.business, reference=ref, reference_side=side, text=amount.text)


_SOONER_RE = re.compile(r"\b(?:sooner|earlier)\s+than\s*$", re.I)
_NOT_SOONER_RE = re.compile(r"\b(?:no|not|never|n't)\s+(?:\w+\s+){0,3}(?:sooner|earlier)\s+than\s*$", re.I)


# "there is no U-pick outside those dates": the period named before is the allowed one
_OUTSIDE_PERIOD_RE = re.compile(r"\boutside\s+(?:of\s+)?(?:it\b|them\b|(?:those|these|that|this|the)\s+(?:dates|days|"
                                r"period|season|window|months|weeks)\b)", re.I)
# "The hire season runs from Saturday, May 24 through ...": a season or term told as running is its open period
_RUNS_FROM_RE = re.compile(r"\b(?:runs?|lasts?|is\s+open|are\s+open)\s+(?:from\s+)?(?:\w+,?\s+)?$", re.I)


def _season_of_duty(form: Form, deny: bool) -> bool:
    """Is the rule's period the season of a repeated duty ("cleaned at least every 10 days from May through
    September")? It bounds when the duty holds; it forbids nothing in it."""
    return not deny and form.quantity is not None and bool(form.quantity.period)


def _hours_then_ban(low: str, range_end: int, deny: bool) -> bool:
    """Is a range of hours stated as a plain fact before a ban in a later clause ("Open studio runs from 10 am
    to 9 pm; members may not stay on after 9 pm")? The range is the open time; the ban falls outside it."""
    cut = min((i for i in (low.find(";"), low.find(". ")) if i >= range_end), default=-1)
    return deny and cut > 0 and not re.search(r"\b(?:not|no|never|nobody|none)\b|n't\b", low[:cut])


def _lead_before(lead: str, direction: str) -> str:
    """The direction of a lead time said of a point in time: "no later than 10 days before the show" puts the
    event at least 10 days ahead (a minimum lead), "no earlier than 3 days before" at most 3 days ahead; the
    amount's own words ("later than") bound the date, not the gap."""
    if re.search(r"\b(?:no|not|never)\s+later\s+than\s*$", lead, re.I):
        return "min"
    if re.search(r"\b(?:no|not|never)\s+(?:earlier|sooner)\s+than\s*$", lead, re.I):
        return "max"
    return direction


def _span_of(tokens: Any) -> tuple[int, int]:
    toks = list(tokens)
    return (toks[0].idx, toks[-1].idx + len(toks[-1].text)) if toks else (0, 0)


def _count_bands(doc: Any, text: str, deny: bool, taken: list[tuple[int, int]]) -> list[Band]:
    out = []
    for t in doc:
        if t.dep_ == "nummod" and t.head.pos_ in ("NOUN", "PROPN") and t.i < t.head.i:
            if any(s <= t.idx < e for s, e in taken) or t.head.lower_ in measure.MONTHS:
                continue
            n = measure._number(t.text)
            if n is None:
                continue
            d = measure._direction(text, t.idx, t.idx + len(t.text))
            a = measure.Amount(n, n, f"count:{key(t.head)}", d, False, t.idx, t.idx + len(t.text), t.text)
            out.append(band_from(a, text, deny))
    return out


# "may go only to the Leeds, Cambridge or Newcastle units", "must be stored only in the mechanics' room"
_ONLY_LIST_RE = re.compile(r"(?<=\w )only\s+(?:(?P<prep>to|inside|into|in|at|from|with|through|via|within|on)\s+)?"
                           r"(?P<list>[^.;:]+)", re.I)
_NOT_A_LIST_RE = re.compile(r"^(?:when|whenever|if|once|after|before|between|by|during|until|while|where|one|"
                            r"a single|the first|twice)\b|\d|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|"
                            r"\b(?:may|must|can|shall|should|is|are|was|were)\b", re.I)
_LEADING_DET_RE = re.compile(r"^(?:the|a|an|our|their|its|his|her)\s+", re.I)


def _allow_list(text: str) -> tuple[list[list[str]], str] | None:
    """The members of an allow-list of one kind of thing and that kind's noun: "only to the Leeds, Cambridge
    or Newcastle units" -> ([[leed], [cambridg], [newcastl]], unit). A list of single words ("brine, marc or
    cider") or of different nouns names no kind and is not read; nor are times, days, amounts or doers."""
    m = _ONLY_LIST_RE.search(text)
    if m is None or (m.group("prep") or "").lower() == "by" or _NOT_A_LIST_RE.search(m.group("list").strip()):
        return None
    if measure.find_amounts(m.group("list")) or measure.find_clock_times(m.group("list")) or "'" in m.group("list"):
        return None  # amounts, times, or a holder's thing ("a veterinarian's prescription", "the patient's GP")
    if parse(m.group("list").strip())[0].pos_ in ("VERB", "AUX", "ADV", "ADP"):
        return None  # "may only receive de-identified data": the list after "only" is not a noun phrase
    items = [_LEADING_DET_RE.sub("", i.strip()) for i in re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+",
                                                                  m.group("list")) if i.strip()]
    words = [i.split() for i in items]
    if not words or len(words[-1]) < 2 or any(len(w) >= 2 and w[-1].lower() != words[-1][-1].lower() and not all(
            x[:1].isupper() for x in w) for w in words[:-1]):
        return None  # no noun shared by the list ("Port Ellen" is a name): the kind of thing is not named
    kind_tok = parse(items[-1])[-1]
    if kind_tok.pos_ != "NOUN" or len(kind_tok.text) < 3:
        return None  # "zone H": a label, not the noun of a kind
    kind = key(kind_tok)
    width = max((len(w) - (len(w) >= 2) for w in words[:-1]), default=len(words[-1]) - 1)
    members = []
    for n, w in enumerate(words):
        part = w[:-1] if len(w) >= 2 and w[-1].lower() == words[-1][-1].lower() else w
        if n == len(words) - 1:
            part = part[: max(1, width)]  # "Coastline ambulance services": "ambulance" is shared by all
        members.append([k for k in keys(parse(" ".join(part))) if k != kind])
    members = [mm for mm in members if mm]
    return (members, kind) if members else None


# agentive endings of a noun that names a person ("conservator", "Boatman", "fumigator", "paramedic", "entrant")
_PERSON_END_RE = re.compile(r"(?:er|or|ist|ian|ant|ent|man|men|ee|ic|ain|ef|ard|ive)s?$", re.I)
_GROUP_DOERS = frozenset({"staff", "crew", "team", "personnel", "member", "members", "people", "person", "persons"})


def _passive_reserved(doc: Any, root: Any, agent: Any | None) -> list[Any]:
    """The doers a permission in the passive reserves its action for ("may be authorised only by the Boatman",
    "may only be hauled by drivers with a hazmat endorsement"): the nouns after "by", when "only" limits that
    "by" or the verb, and each noun names a person as a rule names one (an agentive noun or a group, with an
    article, a modifier or a plural: "by SMS", "by hand" and "by courier" name a means, not a doer)."""
    if agent is None or not any(t.lower_ == "only" and t.head.i in (root.i, agent.i) for t in doc):
        return []
    if any(t.like_num for s in root.children if s.dep_ == "nsubjpass" for t in s.subtree):
        return []  # "Children under 5 may be tested only by ...": a scope of the thing this reading does not check
    heads = [h for p in agent.children if p.dep_ == "pobj" for h in (p, *p.conjuncts) if h.pos_ in ("NOUN", "PROPN")]
    for h in heads:
        word = h.text
        marked = h.tag_ in ("NNS", "NNPS") or any(c.dep_ in ("det", "amod", "compound", "acl", "prep", "relcl")
                                                   for c in h.children)
        if word.isupper() or not marked or not (_PERSON_END_RE.search(word) or word.lower() in _GROUP_DOERS):
            return []
    return heads


# a state held at a time ("must be closed before 08:00" forbids it open then), not an event that is due
_STATE_RE = re.compile(r"\b(?:must|shall)\s+(?:not\s+)?(?:be|remain|stay|keep|kept)\s+(?:\w+\s+)?(?:closed|locked|shut|off|"
                       r"on|open|quiet|empty|silent|dark|switched|turned|kept|cleared|vacated|unattended)\b")


# a state the period names ("is closed to tours from 1 November"): the period is the forbidden one
_CLOSED_RE = re.compile(r"\b(?:closed|shut|off[- ]limits|banned|prohibited|forbidden|not|no|never)\b")
# "may only run between", "offered only from", "only between": an allowed period, in the rule's own clause
_ONLY_RE = re.compile(r"\bonly\b[^.;]*$")


def rule_dates(text: str) -> list[measure.DateMention]:
    """The dates a rule's text gives, without the modal read as a month ("Rooftop level 6 may be opened", "under
    18 may not work"): a rule writes the month with its capital, and a lower-case "may" is the modal."""
    return [d for d in measure.find_dates(text) if not re.search(r"\bmay\b", text[d.start : d.end])]


def allowed_period(form: Form) -> bool:
    """Does a calendar rule name the period its event may happen in ("offered only between 15 October and 15
    December", "must be held between 1 May and 30 June"), so the forbidden window is the rest of the year? A
    state ("must be kept short from 1 April") or a closure ("is closed from 1 November") names no such period."""
    low = form.text.lower()
    dates = rule_dates(form.text)
    if len(dates) < 2:
        return False
    head = low[: dates[0].start]
    return bool(_ONLY_RE.search(head) or (
        event_due(form, low) and re.search(r"\b(?:must|shall)\b", head) and not _CLOSED_RE.search(low)
        and re.search(r"\b(?:between|from)\s+(?:the\s+)?$", head)))


def event_due(form: Form, low: str) -> bool:
    """Is the rule a duty to do its event by a time or after one ("must be delivered before 18:00", "must start
    after 20:00")? Then the forbidden window is the other side of the time named."""
    return form.modality == "must" and not _STATE_RE.search(low)


def understand(text: str, grammar_pairs: bool = True) -> Form | None:
    """The typed form of one constraint, or None when nothing in it can be machine-checked. ``grammar_pairs``:
    also read an exclusion pair by ``apart`` where the coordinated reading finds none. A list of the means a
    doing may be done with (``use_lists``) is added to the form, or makes one of its own."""
    form = _understand(text, grammar_pairs)
    uses = read_uses(text)
    if uses is None:
        return form
    if form is None:
        return Form(text=text, modality="may", use_members=list(uses.members))
    form.use_members = list(uses.members)
    means = {key(w) for m in uses.members for w in parse(m)}
    if form.agents and set(form.agents) <= means:  # "paid by card or bank transfer": the means, not a doer
        form.agents, form.agent_qualifiers = [], []
        form.modality = "may" if form.modality == "only" else form.modality
    return form if form.checkable() else Form(text=text, modality="may", use_members=list(uses.members))


# a tail that restates the order it follows ("..., never after", "..., not the other way round"): its negation
# denies the reverse order, not the rule's own act
_RESTATED_ORDER_RE = re.compile(
    r",?\s*(?:and\s+|but\s+)?(?:never|not)\s+(?:after(?:wards)?|before(?:hand)?|the other way (?:round|around)|"
    r"the reverse|in (?:the )?reverse(?: order)?)\s*[.;!]?\s*$", re.I)


def restated_order_start(text: str) -> int:
    """Where a tail restating the rule's order begins ("before basketing starts, never after"), or the text's
    length: the tail is no second rule, and its "never" makes no prohibition of the rule's act."""
    tail = _RESTATED_ORDER_RE.search(text)
    if tail is None or not re.search(r"\b(?:before|after)\b", text[: tail.start()], re.I):
        return len(text)
    return tail.start()


def _time_bound(marker: Any) -> bool:
    """Is "before"/"after" a bound in time, not a second event ("nothing is accepted after that day")? Its
    object is a time the text has named already ("that day", "this date"), with no verb of its own."""
    if marker.dep_ != "prep":
        return False
    obj = next((c for c in marker.children if c.dep_ == "pobj"), None)
    return obj is not None and any(c.dep_ == "det" and c.lower_ in ("that", "this") for c in obj.children) and \
        not any(w.pos_ in ("VERB", "AUX") for w in obj.subtree) and is_time(obj)


def _understand(text: str, grammar_pairs: bool = True) -> Form | None:
    """The typed form of one constraint as the parser reads it, before the lists of means."""
    doc = parse(text)
    low = text.lower()
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None:
        return None
    cut = restated_order_start(text)  # "before basketing starts, never after": the tail denies the reverse only
    words = {t.lower_ for t in doc if t.idx < cut}
    deny = bool(words & {"never", "prohibited", "forbidden", "banned", "neither", "nor", "cannot"}) or any(
        t.dep_ == "neg" and t.head.i == root.i and t.idx < cut for t in doc
    ) or bool(re.search(r"^\s*(?:no|nothing)\b|\bno (?:one|person|vehicle|\w+) (?:may|must|can|shall|is)\b|"
                        r"\bnothing (?:may|must|can|shall|is)\b|not (?:be )?allowed",
                        low[:cut]))
    only = bool(re.match(r"\s*only\b", low))
    must = bool(words & {"must", "shall", "required", "require", "requires", "mandatory", "need", "needs"})
    modality: Modality = "must_not" if deny else "only" if only else "must" if must else "may"
    as_fact = False
    if not deny and not only and not must and not (words & {"may", "can", "allowed", "free", "permitted"}):
        modality = "must"  # "Wind above 2 m/s voids a record": a rule stated as a fact
        as_fact = True

    subj = [t for t in doc if t.dep_ in ("nsubj", "nsubjpass") and t.head.i == root.i]
    subj_tokens = [w for s in subj for w in s.subtree]
    subj_span = _span_of(subj_tokens)
    action_tok = root
    if root.lemma_ in ("be", "require", "need") or root.lemma_ in GENERIC:
        comp = next((t for t in doc if t.head.i == root.i and t.dep_ in ("xcomp", "acomp", "ccomp")), None)
        if comp is not None and comp.pos_ == "VERB":
            action_tok = comp
    action = [key(action_tok)] if key(action_tok) not in GENERIC - {"use", "make", "get"} else []
    prt = [t for t in doc if t.dep_ == "prt" and t.head.i == action_tok.i]
    action += [key(p) for p in prt]
    heads = {root.i, action_tok.i}
    if root.pos_ == "NOUN":  # a verbless rule of several things ("No food or drink in the reading room"): each
        conj = [c for c in root.conjuncts if key(c) not in GENERIC]  # is its thing; the place may hang on the last
        action += [key(c) for c in conj if key(c) not in action]
        heads |= {c.i for c in conj}
    obj_tokens = [w for t in doc if t.head.i in heads and t.dep_ in
                  ("dobj", "attr", "acomp", "prep", "agent", "dative", "oprd", "xcomp", "advmod")
                  for w in t.subtree if w.i != action_tok.i and w.idx < cut]

    amounts = attributive.stated_amounts(text)
    times = measure.find_clock_times(text)
    form = Form(text=text, modality=modality, subject=keys(subj_tokens), action=action)

    # order of two events ("before"/"after"/"only after"/"without" a prior step)
    marker = next((t for t in doc if t.lower_ in ("before", "after") and t.dep_ in ("mark", "prep")
                   and not _time_bound(t)), None)
    order_span: tuple[int, int] | None = None
    # "at least 2 days before": a lead time; "weighed each day before it is flown": how often, then the order
    how_often = re.search(r"\b(?:each|every|per|a|one)\s+(?:single\s+|working\s+|calendar\s+)?(?:day|week|month|"
                          r"year)\s*$", text[: marker.idx].rstrip(), re.I) if marker is not None else None
    measured_gap = marker is not None and bool(re.search(
        r"(?:\d|\b(?:minutes?|hours?|days?|weeks?|months?|years?))\s*$", text[: marker.idx].strip())) and not how_often
    if marker is not None and not measured_gap and not (times and not amounts and marker.lower_ == "before"
                                                        and re.search(r"\d", text[marker.idx :])):
        sub = [w for w in (marker.head.subtree if marker.dep_ == "mark" else marker.subtree)]
        if marker.dep_ == "prep" and marker.head.i == root.i:
            sub = list(marker.subtree)
        order_span = _span_of(sub)
        sub_keys = [k for k in keys(sub) if k not in ("before", "after")]
        main_keys = [k for k in keys(t for t in doc if not (order_span[0] <= t.idx < order_span[1]) and t.idx < cut
                                     and not (how_often and how_often.start() <= t.idx < how_often.end()))]
        if marker.lower_ == "before" and not deny:
            form.order = Order(first=main_keys, then=sub_keys)
        else:
            form.order = Order(first=sub_keys, then=main_keys)
    without = next((t for t in doc if t.lower_ == "without" and t.dep_ == "prep"), None)
    if without is not None and deny:
        req = keys(without.subtree)
        form.order = Order(first=req, then=[k for k in form.subject + form.action + keys(obj_tokens)
                                            if k not in req])
        form.modality = "must"
        form.object = req
        obj_tokens = [t for t in obj_tokens if t.i not in {w.i for w in without.subtree}]
    only_with = re.search(r"\bonly\s+with\s+(.+?)(?:[.;]|$)", text, re.I)
    if only_with and not only:
        form.modality = "must"
        form.object = keys(parse(only_with.group(1)))
    elif not form.object:
        form.object = [k for k in keys(obj_tokens) if k not in form.action]

    # quantities: a trigger in the subject or a when/if clause, else the rule's own bound
    cond_clause = _condition_clause(doc)
    cond_span = _span_of(cond_clause.subtree) if cond_clause is not None else (0, 0)
    taken = [(a.start, a.end) for a in amounts] + [(d.start, d.end) for d in measure.find_dates(text)]
    between = re.search(r"\bbetween\b", low)
    same_dim = [a for a in amounts if a.dim == amounts[0].dim] if amounts else []
    if between and len(same_dim) >= 2 and not deny:  # "kept between 18 °C and 24 °C"
        lo_a, hi_a = sorted(same_dim[:2], key=lambda a: a.lo)
        form.quantity = Band(dimension=lo_a.dim, low=lo_a.lo, high=hi_a.hi, period=lo_a.period,
                             text=f"{lo_a.text}..{hi_a.text}")
        amounts = []
    age = re.search(r"\b(?:under|below|younger than|over|above|older than|aged)\s+(\d{1,3})\b\s*(\S*)", low)
    if age and age.start() < root.idx and age.group(2).strip(".,;") not in measure.UNIT_WORDS:
        n = float(age.group(1))
        younger = age.group(0).startswith(("under", "below", "younger"))
        form.trigger = Band(dimension="age", low=None if younger else n, high=n if younger else None,
                            strict=True, text=age.group(0))
    bands = [(a, band_from(a, text, deny)) for a in amounts]
    bands += [(None, b) for b in _count_bands(doc, text, deny, taken)]
    for a, b in bands:
        pos = a.start if a else 0
        verbs = [t.idx for t in doc if t.pos_ in ("VERB", "AUX")]
        verb_at = root.idx if root.pos_ in ("VERB", "AUX") else (verbs[0] if verbs else None)
        # a comparative before the verb is a condition ("Scaffolding higher than 6 m requires ..."); so is
        # one in a sentence the parser found no verb in ("Wind above 2.0 m/s voids a record")
        before_verb = a is not None and (a.end <= verb_at if verb_at is not None else as_fact)
        in_subject = subj_span[0] <= pos < subj_span[1] or (a is not None and a.direction != "eq" and before_verb)
        in_cond = cond_span[0] <= pos < cond_span[1]
        if a is not None and in_subject and _LEADING_BOUND_RE.match(text[: a.start]) and form.quantity is None:
            # "No more than 2 kg of black powder may be on set": the subject is the bounded amount itself
            form.quantity = band_from(a, text, False)
            form.modality = "must"
        elif a is not None and (in_subject or (in_cond and not deny)):
            # the comparative alone names the things meant: "No vessel longer than 72 feet is allowed" bans
            # vessels over 72 feet; the "no" is the rule's own denial, read into its modality
            own = measure.direction_info(text, a.start, a.end, outer=False)[0]
            trig = band_from(dataclasses.replace(a, direction=own) if in_subject else a, text, False)
            if _STRICT_RE.search(text[: a.start]):  # "a delay longer than 45 minutes": 45 minutes does not trigger
                trig = trig.model_copy(update={"strict": True})
            elif trig.low is not None and trig.low == trig.high and _REACH_RE.search(text[: a.start]):
                trig = trig.model_copy(update={"high": None})  # "if the WBGT reaches 28 °C": 28 °C and above
            form.trigger = trig
            form.subject = [k for k in form.subject if k not in keys(parse(a.text))]
        elif form.quantity is None:
            form.quantity = b
    if form.trigger is not None and form.quantity is None and modality == "must_not":
        pass  # "Guests under 18 may not book a room": trigger + prohibition

    # clock windows
    if times and not amounts:
        t0 = times[0]
        # "permitted only between 20:00 and 06:00", "may only begin after 20:00": the time named is the allowed one
        only_allowed = not deny and bool(re.search(
            r"\b(?:permitted|allowed|may|can)\b.{0,30}\bonly\b|\bonly\b.{0,30}\b(?:permitted|allowed|may|can)\b",
            low[: t0.start])) or not deny and bool(re.search(r"\bonly\s+(?:from|between)\s*$", low[: t0.start]))
        if len(times) >= 2 and re.search(r"\bbetween\b|\bfrom\b", low):
            form.window = Window(kind="clock", start=t0.minutes, end=times[1].minutes)
            if only_allowed or _hours_then_ban(low, times[1].end, deny):  # the rest is closed
                form.window = Window(kind="clock", start=times[1].minutes, end=t0.minutes)
            elif form.modality == "must" and not deny and re.search(r"\bbetween\b", low[: t0.start]) and \
                    not re.search(r"\bmust\s+(?:be|remain|stay|keep|not)\b", low):
                # "Appointments must start between 09:00 and 20:00": the event's time must be inside, so the
                # forbidden window is the rest of the day ("must be closed between ..." names a state instead)
                form.window = Window(kind="clock", start=times[1].minutes, end=t0.minutes)
        elif re.search(r"\bbefore\b", low[: t0.start]):
            form.window = Window(kind="clock", start=t0.minutes, end=24 * 60) if only_allowed or \
                (event_due(form, low) and not as_fact) else Window(kind="clock", start=0, end=t0.minutes)
        elif re.search(r"\bafter\b", low[: t0.start]):
            form.window = Window(kind="clock", start=0, end=t0.minutes) if only_allowed or \
                (event_due(form, low) and not as_fact) else Window(kind="clock", start=t0.minutes, end=24 * 60)
        if form.window is not None and re.search(r"\bclosed\b", low):
            form.modality = "must_not"
            form.action = ["open"]
    # calendar windows ("from June through September", "between 1 March and 30 April")
    dates = rule_dates(text)
    if len(dates) >= 2 and form.window is None and not _season_of_duty(form, deny):
        import datetime as dt

        a, b = dt.date.fromordinal(dates[0].first), dt.date.fromordinal(dates[1].last)
        if (not deny and allowed_period(form)) or _OUTSIDE_PERIOD_RE.search(text[dates[1].end:]) or \
                _RUNS_FROM_RE.search(text[: dates[0].start]):
            # "offered only between 15 October and 15 December", "must be held between 1 May and 30 June": the
            # period named is the allowed one, both ends in it; the forbidden window is the rest of the year,
            # from the day after its end round to the day before its start
            a, b = b + dt.timedelta(days=1), a - dt.timedelta(days=1)
        form.window = Window(kind="calendar", start=a.month * 100 + a.day, end=b.month * 100 + b.day)

    # exclusion pair ("A and B must never be stored in the same magazine", "A must never share a ward with B"),
    # also a duty to keep two coordinated things apart ("A and B must be booked into separate slots")
    apart = not deny and bool(words & APART_WORDS) and any(list(s.conjuncts) for s in subj)
    if (deny and (words & SAME_WORDS)) or apart:
        members: list[list[str]] = []
        for s in subj:
            conj = [s] + [c for c in s.conjuncts]
            if len(conj) == 1 and s.head.i == root.i:
                conj += [c for c in doc if c.dep_ == "conj" and c.head.i == s.i]
            for c in conj:
                members.append(keys([w for w in c.lefts if w.dep_ in ("amod", "compound", "nmod")] + [c]
                                    + [w for r in c.rights if r.dep_ == "prep" and r.lower_ == "with"
                                       for w in r.subtree]))
        withs = [t for t in doc if t.lower_ == "with" and t.dep_ == "prep" and t.head.pos_ in ("VERB", "AUX")]
        for w in withs:
            members.append(keys(w.subtree))
        members = [m for m in members if m]
        if len(members) < 2:  # the parser missed the coordination: split the subject text on "and"
            head = re.split(r"\b(?:must|may|shall|should|can|are|is)\b", text, maxsplit=1)[0]
            members = [keys(parse(p)) for p in re.split(r"\s+and\s+", head) if p.strip()]
            members = [m for m in members if m]
        if len(members) >= 2:
            form.exclusion = members[:2]
    if grammar_pairs and not form.exclusion and (pair := rule_pair(text)) is not None:
        # "Acetone must never be stored in the same cabinet as oxidisers", "... apart from ...", "The same person
        # must never act as both draw operator and adjudicator": the pair read from the rule's grammar
        form.exclusion = member_keys(pair)
    if not form.subject:  # the parser missed the subject: the words before the modal verb
        head = re.split(r"\b(?:must|may|shall|should|can|cannot|are|is|need|needs)\b", text, maxsplit=1)[0]
        form.subject = keys(parse(head)) if head != text else []
    # a required agent: "Controlled drugs must be signed out by a veterinary surgeon"
    agent = next((t for t in doc if t.dep_ == "agent" and t.head.i == root.i), None)
    counted = agent is not None and any(w.like_num or w.dep_ == "nummod" for w in agent.subtree)
    # "must be worn by every archer": whoever does it must do it so; no doer is reserved
    universal = agent is not None and any(w.lower_ in _EVERY for w in agent.subtree)
    if agent is not None and modality == "must" and not amounts and not counted and not universal:  # "by two guards" is a count
        heads = [p for p in agent.children if p.dep_ == "pobj"]
        form.agents = [k for h in heads for k in keys([h])]
        form.agent_qualifiers = [k for h in heads for w in h.lefts if w.dep_ in ("amod", "compound")
                                 for k in keys([w])]
        form.object = [k for k in form.object if k not in keys(agent.subtree)]
    # only-agent in the passive: "Repairs to fibreglass hulls may be authorised only by the Boatman"
    reserved = _passive_reserved(doc, root, agent) if modality == "may" and not amounts and not counted else []
    if reserved:
        modality = form.modality = "only"
        form.agents = [k for h in reserved for k in keys([h])]
        form.agent_qualifiers = [k for h in reserved for w in h.lefts if w.dep_ in ("amod", "compound")
                                 for k in keys([w])]
        own = set(keys(agent.subtree)) if agent is not None else set()
        form.object = list(dict.fromkeys([k for k in form.subject + form.object if k not in own]))
    # only-agent: "Only S may V O"
    active = [s for s in subj if s.dep_ == "nsubj"]
    if only and active and (words & {"may", "can", "must", "shall"}):
        form.agents = [key(s) for s in subj]
        form.agent_qualifiers = [k for s in subj for w in s.lefts if w.dep_ in ("amod", "compound")
                                 for k in keys([w])]  # "head brewer", "licensed operators", "duty editor"
    # allow-list of currencies ("Room rates must be quoted in EUR")
    money = {a.dim for a in measure.find_amounts(" ".join(f"1 {t.text}" for t in doc if t.pos_ in
                                                                           ("PROPN", "NOUN")))
             if a.dim.startswith("money:")}
    if money and not amounts and modality == "must":
        form.allowed_members = sorted(money)
    named = read_named_list(text)
    if (only_list := _allow_list(text)) and not (named and ":" in text):
        form.members, form.member_kind = only_list  # "the approved platforms: CVP or ...": the names follow
    elif named:
        form.member_names, form.member_prep, form.member_kind = list(named.names), named.prep, named.kind
        if only and not named.prep:  # "Only Kestrel K4, ... helicopters may use ...": things, not doers
            form.agents, form.agent_qualifiers = [], []
            if form.quantity is not None and any(form.quantity.text in n for n in named.names):
                form.quantity = None  # the "7" of "Vireo 7" is a name, not a count
    if (place := read_places(text)) is not None:  # "may be stored only on the clinic's secure records server"
        form.places, form.place_prep, form.place_thing = list(place.places), place.prep, place.thing
    unit_keys = {k for a in measure.find_amounts(text) for k in keys(parse(a.text))} | {"least", "most"}
    form.object = [k for k in form.object if k not in unit_keys]
    form.subject = [k for k in form.subject if k not in unit_keys]
    if form.modality == "may" and form.trigger is not None and form.quantity is None and any(
            t.dep_ == "det" and t.lower_ == "no" and t.head.dep_ in ("nsubj", "nsubjpass") and t.head.head.i == root.i
            for t in doc):
        # "If the air is below 5 °C, no surface-course mix may be shipped": the condition's duty denies the main
        # clause's whole subject, however many words it has
        form.modality = "must_not"
    if as_fact and not (form.quantity or form.trigger or form.window or form.order):
        return None  # "Quality comes first", "X rejects null keys": no duty word; left to the lexicon
    if not form.checkable() and held_duty(action_tok, form):
        form.action = [HAVE]  # "Every piano must have a condition report", "Every shipment requires a certificate"
    return form if form.checkable() else None


@lru_cache(maxsize=4096)
def pair_by_grammar(text: str) -> bool:
    """Is the rule's exclusion pair one only ``apart`` reads ("the same cabinet as", "apart from", "as both ...
    and ...")? Such a rule is judged by the claim's grammar alone; the coordinated pairs keep their readings."""
    if rule_pair(text) is None:
        return False
    plain = understand(text, grammar_pairs=False)
    return plain is None or not plain.exclusion


def held_duty(verb: Any, form: Form) -> bool:
    """Is the rule, and nothing more, a duty to hold a thing ("must have X", "requires X", "needs X"), with no
    verb of its own the typed reading could match? Its event is then the subject having the thing."""
    return form.modality == "must" and not form.action and verb.lemma_ in _POSSESSION and not \
        measure.find_amounts(form.text) and any(c.dep_ == "dobj" and c.pos_ == "NOUN" for c in verb.children)


def describe(form: Form) -> dict[str, Any]:
    """The form as the outputs show it (``understood``), without empty fields."""
    return form.model_dump(exclude_none=True, exclude_defaults=True) | {"text": form.text,
                                                                        "modality": form.modality}
