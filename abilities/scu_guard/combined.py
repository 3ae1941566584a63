"""The contradiction decision: the typed forms (grammar, units, dates) and the lexicon detector together.

Why two readings: the typed reading checks what it understood exactly (numbers with units, periods,
business days, windows, order of events), and the lexicon detector still covers wording the forms
do not reach. Why a gate: on text it has never seen, a finding that rests on a guess (a doer known
only by name, an amount borrowed from a chunk, an event matched by shared words) is wrong often
enough that rejecting on it costs precision. So a REJECT needs a sure reading; a guessed finding
stands only if the pair model agrees (``pair_model``), and otherwise it is ``suspected`` (REVIEW),
reported apart. Where the claim or a cited chunk names exactly the doer a rule reserves the action
for ("Priya, a licensed operator", "Rosa is the grower"), that positive evidence keeps the rule.
Why some findings are ``cleared``: REVIEW is a cost too (a person reads the answer), so a finding the
typed reading refutes outright is no reason to hold a claim back: the word-level reading's amount on
a constraint whose amount the typed reading measured in the claim and found kept ("4 nautical miles"
against "not within 2 nautical miles"), or a bare number that is a label ("job 8803 was").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from abilities.scu_guard import joins, measure
from abilities.scu_guard.allowed_times import flagged_time_allowed
from abilities.scu_guard.allowed_way import done_the_allowed_way
from abilities.scu_guard.amount_ties import outranked, own_reading, question_ties, record_ties
from abilities.scu_guard.amounts import OTHER_THING_DOUBTS, kept_by_its_own_rule
from abilities.scu_guard.conditions import unmet
from abilities.scu_guard.consequences import stance
from abilities.scu_guard.counts import count_elsewhere, restated_bound
from abilities.scu_guard.detect import EVENT_RULES, Finding, cached_rule, find_contradictions
from abilities.scu_guard.ellipsis import with_rebuilt
from abilities.scu_guard.evidence import RELATIVE_DOUBT, doubt, unrelated_duration
from abilities.scu_guard.foreign_gaps import unnamed_deadline_gap
from abilities.scu_guard.forms import HAVE, Form, understand
from abilities.scu_guard.judge import Claim, _in_band, read_claim
from abilities.scu_guard.lexicon import GENERIC as LEX_GENERIC
from abilities.scu_guard.listed_amounts import listed_elsewhere
from abilities.scu_guard.named import with_labels
from abilities.scu_guard.negated_acts import denies_another_act
from abilities.scu_guard.nlp import light_keys, parse
from abilities.scu_guard.permits import grants_against
from abilities.scu_guard.text import tokenize
from abilities.scu_guard.two_roles import two_named_doers
from abilities.scu_guard.typed import LONG_CLAIM, assess, pieces

Arbiter = Callable[[str, str, str], bool]  # (constraint, claim, hint) -> does the pair model call it one
# (constraint, claim, cited chunk texts, hint) -> may this unsure finding be dropped (a second reading sure
# the rule is kept); the service passes none: no model cleared enough more OK claims than contradictions
Clearer = Callable[[str, str, Sequence[str], str], bool]


@lru_cache(maxsize=4096)
def understood(constraint: str) -> Form | None:
    """The typed form of a constraint, parsed once (cached by text)."""
    return understand(constraint)


def forms_for(constraints: Sequence[str], given: Sequence[Form] = ()) -> tuple[list[Form], list[str]]:
    """(forms, unparsed constraints): a client's typed form replaces the parsed one for its text."""
    by_text = {f.text: f for f in given}
    forms, unparsed = [], []
    for c in constraints:
        f = by_text.get(c) or understood(c)
        if f is None:
            unparsed.append(c)
        else:
            forms.append(f)
    return forms, unparsed


# event readings for which both readings agreeing is no evidence: the lexicon's doer check is the same guess as
# the typed one, so such a finding stands only when it is firm
BOTH_NOT_ENOUGH = frozenset({"only_agent"})
# guesses the pair model is not asked about: a prohibited event found by the typed reading alone rests on
# shared words (the rule's thing named for another reason), and the sets the model learned from hold
# almost no such findings that were wrong, so its agreement there carries no evidence. The lexicon's amounts
# and duties on a constraint the typed reading understood are the same kind of guess: the typed reading is
# the authority on amounts (numbers with their units) and found none broken, so a number the lexicon reads
# without its unit (often a label: "job 8803 was") or a duty matched by shared words carries no evidence
UNARBITRATED = frozenset({"typed forbid"})
# the word-level reading alone, on a constraint the typed reading could not read, rejects only with the kinds
# of rule it reads by membership and polarity (an allow-list, an exclusion, a thing forbidden or required and
# the claim saying the opposite); its readings of amounts, times and doers rest on numbers and names without
# their grammar ("moved from Saturday to Monday" read as work on a Saturday), so alone they are only suspected
LEXICON_SURE = frozenset({"allow_list", "exclusion", "forbid", "require"})


def _labels(claim: str, f: Finding) -> bool:
    """Is the number the lexicon read ("'8803 was' is outside ...") a label, a number after the noun it
    names ("job 8803", "Lot 57")? Such a number is no amount, whatever the lexicon made of it."""
    m = re.match(r"'(\d[\d,.]*)\b", f.detail)
    at = claim.find(m.group(1)) if m else -1
    if at < 0:
        return False
    for t in parse(claim):
        if t.idx == at and t.like_num:
            return t.head.i < t.i and t.head.pos_ in ("NOUN", "PROPN") and t.dep_ in ("nummod", "appos",
                                                                                        "compound", "npadvmod")
    return False


def _own_amounts_keep(claim: str, form: Form) -> bool:
    """Does the claim state amounts of the rule's dimension, every one inside the rule's band ("Box B-9
    held between 38 °F and 45 °F" against "kept between 2 °C and 8 °C")? Then an amount outside the band
    that only a cited chunk gives is about something else, or the chunk disagrees with the claim (a
    matter of grounding, not of this rule): the claim itself keeps the rule."""
    q = form.quantity
    if q is None or q.low is None and q.high is None:
        return False
    own = [a for a in measure.find_amounts(claim) if a.dim == q.dimension and a.period == q.period]
    return bool(own) and all((q.low is None or a.lo >= q.low) and (q.high is None or a.hi <= q.high) for a in own)


_RANGE_JOIN_RE = re.compile(r"\s*(?:and|to|through|until|-|–|or)\s*", re.I)


def _separate_amounts(claim: str, dimension: str) -> int:
    """How many amounts of a dimension the claim states, a range ("between 30 °F and 44 °F", "3-5 kg")
    counting as one."""
    own = [a for a in measure.find_amounts(claim) if a.dim == dimension]
    joined = sum(bool(_RANGE_JOIN_RE.fullmatch(claim[a.end:b.start])) for a, b in zip(own, own[1:], strict=False))
    return len(own) - joined


# another reading of the claim, inside the band, is told of the rule's words and the amount of none of them
OUTRANKED = "another amount of the claim is the rule's reading, and keeps it"
LISTED_DOUBT = "the claim states more than one amount of the rule's dimension"


def attachment_guess(claim: str, form: Form, f: Finding, chunk_texts: Sequence[str] = (),
                     question: str = "") -> str | None:
    """Why a measured finding rests on a guess about *which* thing the claim's number measures, or None.
    Round 9 measured these on the development sets, by source: a count matched by its noun ("Fourteen riders
    queued ..., only twelve went onto the track") and a claim with more than one amount of the rule's
    dimension ("the 12 m top-rope wall and the 4.2 m cave") were each wrong more often than a REJECT may be
    (2 in 100), so they are REVIEW."""
    if f.basis == "count":
        # a count stated as a norm of the claim's own, over the rule's event and thing, is matched by more than
        # its noun (``counts.restated_bound``)
        return None if restated_bound(form, _reading(claim, ()), f.start, f.end) else "a count matched by its noun"
    q = form.quantity
    if f.basis == "amount" and q is not None and _separate_amounts(claim, q.dimension) >= 2:
        # unless the claim tells this reading of the rule's thing (or a cited record does, or it answers the
        # question that names the thing) and no other amount of the dimension is told of more of the rule's
        # words (``amount_ties``)
        if outranked(form, claim, f.start):
            return OUTRANKED
        tied, alone = own_reading(form, claim, f.start)
        if not (alone and (tied or record_ties(form, claim[f.start:f.end], q.dimension, chunk_texts)
                           or question_ties(form, claim, f.start, question))):
            return LISTED_DOUBT
    if f.basis == "trigger" and _mixed_trigger(claim, form):
        return "the claim states amounts of the condition's dimension on both sides of it"
    if f.basis == "amount" and _thing_only_denied(_reading(claim, ()), form, f):
        return "the claim names the rule's thing only under a denial"
    return None


def _thing_only_denied(claim: Claim, form: Form, f: Finding) -> bool:
    """Does the claim name the rule's thing (the head noun of its subject or object) only in clauses that deny
    it ("neither cage dryer was used"), none of them the amount's? The amount is then of something else (the
    blaster's setting), and the rule's event is not told. A denial around the amount itself ("never dropped
    below 14 °C") is no denial of the thing."""
    heads = set(form.subject[-1:] + form.object[-1:])
    naming = [c for c in claim.clauses if heads & c.keys]
    return bool(naming) and all((c.negated or heads & c.denied) and not (c.start <= f.start < c.end)
                                for c in naming)


# a trigger finding is the reading of a condition as met: never settled by reading it unmet
_TRIGGER_BASES = frozenset({"trigger", "trigger_entry", "trigger_chunk"})


def _reference_in_chunks(form: Form, chunk_texts: Sequence[str]) -> bool:
    """Does a cited chunk name the event the rule's time counts from (a fungicide application)?"""
    q = form.quantity
    ref = set(q.reference) if q is not None else set()
    return any(ref & set(light_keys(t)) for t in chunk_texts)


def _mixed_trigger(claim: str, form: Form) -> bool:
    """Does the claim state amounts of the condition's dimension both inside and outside its band ("an 18 mph
    breeze that gusted to 25 mph" for "when sustained wind exceeds 30 km/h")? Which one the condition
    measures is then a guess about what each number is of."""
    t = form.trigger
    if t is None:
        return False
    own = [a for a in measure.find_amounts(claim) if a.dim == t.dimension]
    inside = [a for a in own if _in_band(a.lo, a.hi, t)]
    outside = [a for a in own if not _in_band(a.lo, a.hi, t)]
    if not inside or not outside:
        return False
    # "7 km at Ashby Green and 4 km at Stowe Field": parallel readings of one kind, each of its own place or time
    return not all(_coordinated(claim, a, b) for a in inside for b in outside)


def _coordinated(claim: str, a: measure.Amount, b: measure.Amount) -> bool:
    """Are two amounts conjuncts of one another (the same measure told twice, for different things)?"""
    doc = parse(claim)

    def head(m: measure.Amount) -> int | None:
        toks = [t for t in doc if m.start <= t.idx < m.end]
        ids = {t.i for t in toks}
        top = [t for t in toks if t.head.i not in ids]
        return top[0].i if top else None

    ha, hb = head(a), head(b)
    return ha is not None and hb is not None and (doc[ha].dep_ == "conj" and doc[ha].head.i == hb or
                                                  doc[hb].dep_ == "conj" and doc[hb].head.i == ha)


def _names_only(form: Form) -> bool:
    """Is a list of names or of allowed places all the typed reading checks of this rule? Then the word-level
    reading keeps its say on it: the two read different things ("us-west-2" against "eu-central-1" is the
    lexicon's, "her own laptop" against "the clinic's server" the typed reading's)."""
    if form.use_members and not (form.member_names or form.places):
        # a list of means alone keeps the standing its rule had: unread where the parser read no doing in it
        return not (form.subject or form.action or form.object or form.checkable(named_lists=False))
    return bool(form.member_names or form.places) and not form.checkable(named_lists=False)


@dataclass
class Readings:
    """What the two readings say of a claim, before the pair model is asked: findings that stand,
    findings only suspected, and findings resting on a guess with the hint the model is given."""

    found: list[Finding] = field(default_factory=list)
    suspected: list[Finding] = field(default_factory=list)
    unsure: list[tuple[Finding, str]] = field(default_factory=list)
    cleared: list[Finding] = field(default_factory=list)  # refuted by the typed reading: no REVIEW
    # where each finding came from and why it was sorted where it is ("typed numeric_bound/amount sure"):
    # the bench groups verdicts by it to measure how often each source is right on unseen text
    source: dict[Finding, str] = field(default_factory=dict)

    def put(self, bucket: list[Finding], f: Finding, source: str) -> None:
        bucket.append(f)
        self.source[f] = source


def readings(claim: str, constraints: Sequence[str], forms: Sequence[Form],
             chunk_texts: Sequence[str] = (), question: str = "") -> Readings:
    """The claim's readings (``_readings``), with the sure findings of the claim read again with the common
    nouns its cited records give the things it names only by a code or a name ("3011" read as "tram 3011",
    ``named``): a rule about trams is then about 3011 too; with what its cited records list under the codes it
    names ("tank 3" read as "tank 3, PG 76-22", ``joins``), the findings resting on the words set in and not on
    an allowed member they name; and a rule keeping two things out of one holder broken by a record that lists
    the other thing in the coded holder the claim puts one in (``joins.exclusions``). Only sure findings are
    taken from those readings; a rule they break leaves the unsure and suspected lists. The user's ``question``
    is context only: it may tell what an amount of the claim is of, never a fact of its own."""
    out = _readings(claim, constraints, forms, chunk_texts, question)
    labelled = with_labels(claim, chunk_texts)
    if labelled != claim:
        _take(out, _readings(labelled, constraints, forms, chunk_texts, question).found,
              "named: the claim read with its records' nouns")
    joined, spans = joins.with_contents(claim, chunk_texts)
    if spans:  # a finding of that reading must rest on the words set in, and they must name no allowed member
        by_text = {f.text: f for f in forms}
        _take(out, [f for f in _readings(joined, constraints, forms, chunk_texts, question).found
                    if any(f.start < e and s < f.end for s, e in spans) and not (
                        f.constraint in by_text and any(joins.names_allowed(by_text[f.constraint], joined[s:e])
                                                        for s, e in spans))],
              "joins: the claim read with what its records list under its codes")
    _take(out, joins.exclusions(claim, forms, chunk_texts), "joins: a record lists the other member in the holder")
    return out


def _take(out: Readings, found: Sequence[Finding], source: str) -> None:
    """Add another reading's sure findings on rules not yet found broken; a rule it breaks leaves the unsure and
    suspected lists."""
    have = {f.constraint for f in out.found}
    extra = [f for f in found if f.constraint not in have]
    if extra:
        broken = {f.constraint for f in extra}
        out.suspected = [f for f in out.suspected if f.constraint not in broken]
        out.unsure = [(f, h) for f, h in out.unsure if f.constraint not in broken]
        for f in extra:
            out.put(out.found, f, source)


def _readings(claim: str, constraints: Sequence[str], forms: Sequence[Form],
              chunk_texts: Sequence[str] = (), question: str = "") -> Readings:
    """Sort the findings of both readings. A contradiction needs a sure reading: a typed finding that
    rests on no guess, or one both readings make (not for doers: the lexicon's doer check is the same
    guess). A finding resting on a guess (``Finding.sure`` False, an order, the lexicon alone on a
    constraint the typed reading understood and found nothing broken in) is ``unsure``. A lexicon
    finding on a constraint the typed reading measured and found kept is ``cleared`` when it is an
    amount (the typed reading refutes it) and only suspected otherwise; a lexicon amount that is a
    label is ``cleared``; a lexicon finding on a constraint the typed reading could not read stands
    (it is the only reading there)."""
    claim = with_rebuilt(claim)  # short conjuncts written out in full, read after the claim itself
    typed, measured, kept = assess(claim, forms, chunk_texts)
    lexical = find_contradictions(claim, list(constraints))
    lex_by = {f.constraint: f for f in lexical}
    by_text = {f.text: f for f in forms}
    # a form read only as a list of names leaves the word-level reading its say on the same list: the two read
    # different things ("zone B" against "zone H" is the lexicon's, a supplier's name is the typed reading's)
    # (so does a duty to hold a thing, "must have X", "requires X", read since round 12: the typed reading reads
    # only the claim's plain denials of the thing, the word-level reading what it read before)
    typed_texts = {t for t, f in by_text.items() if not _names_only(f) and f.action != [HAVE]}
    out = Readings()
    seen: set[str] = set()
    for f in typed:
        seen.add(f.constraint)
        # a thing named by a kind of the rule's (``categories``) is the typed reading's alone: the lexicon's
        # finding on the same rule rests on other words, so the two agreeing is no evidence
        both = f.constraint in lex_by and f.rule not in BOTH_NOT_ENOUGH and f.basis != "kind"
        kind = f"typed {f.rule}/{f.basis or 'event'}"
        settled = f.basis not in _TRIGGER_BASES and unmet(by_text[f.constraint], claim)
        event = _event_stance(by_text[f.constraint], f, claim)
        if event == "denied":  # "in floor stand F1 rather than on the wall stands"
            out.put(out.cleared, f, f"{kind} event denied")
            continue
        if event == "elsewhere":  # "the beginners stayed ashore while the squad went sailing"
            out.put(out.suspected, f, f"{kind} event said of others")
            continue
        if f.by_name or not f.arbitrable:
            if settled:  # the claim shows the rule's condition unmet: nothing to review
                out.put(out.cleared, f, f"{kind} condition unmet")
                continue
            if f.basis == "gap" and unnamed_deadline_gap(by_text[f.constraint], claim):
                out.put(out.cleared, f, f"{kind} gap of an event the deadline does not name")
                continue
            # no text can tell who a name is, nor what a guessed band meant
            out.put(out.suspected, f, f"{kind} {'by_name' if f.by_name else 'unarbitrable'}")
            continue
        read_by_both = both or f.firm or f.rule not in EVENT_RULES
        why = doubt(by_text[f.constraint], *_read_at(claim, f, chunk_texts), question) \
            if f.sure and read_by_both else None
        if f.sure and read_by_both and why is None and not f.firm:
            why = attachment_guess(claim, by_text[f.constraint], f, chunk_texts, question)
        if f.sure and read_by_both and why is None and not settled:
            out.put(out.found, f, f"{kind} {'firm' if f.firm else 'both' if both else 'sure'}")
        elif f.basis == "chunk_amount" and _own_amounts_keep(claim, by_text[f.constraint]):
            # the claim states its own amount, inside the band: the chunk's is not its
            out.put(out.cleared, f, f"{kind} own amounts keep")
        elif settled:
            out.put(out.cleared, f, f"{kind} condition unmet")
        elif f.basis == "gap" and unnamed_deadline_gap(by_text[f.constraint], claim):
            # "inspected on 3 March, and the next inspection was on 14 March" against "a spill must be reported
            # within 2 working days": the dates are of another event, the interval no deadline's
            out.put(out.cleared, f, f"{kind} gap of an event the deadline does not name")
        elif f.basis == "amount" and not f.sure and _unrelated_duration(claim, by_text[f.constraint], f, chunk_texts):
            out.put(out.cleared, f, f"{kind} duration of another event")
        elif f.basis == "amount" and not f.sure and f.rule == "numeric_bound":
            # an amount tied to the rule by its dimension alone: on the development sets such a finding stood on
            # an OK claim 17 times in 21, below the rate of contradictions there; it is no reason for review
            out.put(out.cleared, f, f"{kind} amount tied by dimension alone")
        elif f.basis == "count" and f.sure and count_elsewhere(by_text[f.constraint], _reading(claim, ()), f.start):
            out.put(out.cleared, f, f"{kind} counted elsewhere")
        elif why and why.startswith(RELATIVE_DOUBT) and not _reference_in_chunks(by_text[f.constraint], chunk_texts):
            out.put(out.cleared, f, f"{kind} relative time, reference event unnamed")
        elif why == OUTRANKED:  # "the drinks fridge crept up to 7 °C ..., the walk-in was holding at 3 °C"
            out.put(out.cleared, f, f"{kind} another reading is the rule's")
        elif why == LISTED_DOUBT and listed_elsewhere(claim, by_text[f.constraint], f.start):
            # "the glue fridge at 6 °C ...; the specimen chest read -21 °C": the outside amount is another thing's
            out.put(out.cleared, f, f"{kind} amount of another listed thing")
        elif why in OTHER_THING_DOUBTS and kept_by_its_own_rule(by_text[f.constraint], f,
                                                                _read_at(claim, f, chunk_texts)[1], forms):
            # the amount is not this rule's; the rule that bounds what it measures is kept
            out.put(out.cleared, f, f"{kind} kept by its own rule")
        elif f.rule == "require" and _another_act_denied(claim, f, chunk_texts):
            # "Nobody smoked on the scaffold" for "Scaffolding must be inspected ...": another act denied
            out.put(out.cleared, f, f"{kind} another act denied")
        elif f.rule == "forbid" and _allowed_way(claim, f, chunk_texts):
            # "taken to the reclaim room" for "... reclaimed only in the reclaim room and must never go down the sinks"
            out.put(out.cleared, f, f"{kind} done the allowed way")
        elif f.rule == "forbid" and two_named_doers(f.constraint, claim):
            # a rule keeping two acts from one doer, each act done by another named person: nothing to review
            out.put(out.cleared, f, f"{kind} two named doers")
        else:
            out.unsure.append((f, f"typed {f.rule}"))
            alone = "both, not firm" if f.constraint in lex_by else "one reading"
            out.source[f] = f"{kind} {'guess' if not f.sure else f'doubt: {why}' if why else alone}"
    for f in lexical:
        if f.constraint in seen or f.constraint in kept:
            continue  # kept: the reserved doer named with its qualifier is positive evidence
        seen.add(f.constraint)
        kind = f"lexicon {f.rule}"
        if f.constraint in by_text and unmet(by_text[f.constraint], claim):
            out.put(out.cleared, f, f"{kind} condition unmet")
        elif f.rule == "require" and (f.constraint in typed_texts or f.constraint in measured) and \
                _another_act_denied(claim, f, chunk_texts):
            out.put(out.cleared, f, f"{kind} another act denied")  # the typed reading understood the duty
        elif f.constraint in measured and f.rule == "numeric_bound" and f.constraint in by_text and \
                _unmeasured_amount(by_text[f.constraint], f):
            out.put(out.suspected, f, f"{kind} amount the typed reading left unread")
        elif f.constraint in measured and f.rule == "temporal" and f.constraint in by_text and \
                flagged_time_allowed(by_text[f.constraint], f.detail):
            out.put(out.cleared, f, f"{kind} a time the rule allows")  # "the 14:00 show" for "not before 10:00"
        elif f.constraint in measured:
            # the typed reading, the authority on amounts, measured this constraint in the claim and found
            # it kept: the word-level amount (a label, a number without its unit or direction) is refuted
            out.put(out.cleared if f.rule == "numeric_bound" else out.suspected, f, f"{kind} measured kept")
        elif f.constraint in typed_texts and f.rule == "numeric_bound" and _labels(claim, f):
            out.put(out.cleared, f, f"{kind} label")  # a bare number after the noun it names ("job 8803 was")
        elif f.constraint in typed_texts and grants_against(by_text[f.constraint], *_read_at(claim, f, chunk_texts)):
            out.put(out.found, f, f"{kind} granted")  # "Tenants in 4B are welcome to bring a cat"
        elif f.constraint in typed_texts and f.rule == "forbid" and _names_nothing_of(f):
            # the words matched name nothing of the rule (its doer, thing, verb or place): the match rests on a
            # universal subject ("each batch") and a bare cue of use or leave; the typed reading found nothing
            out.put(out.cleared, f, f"{kind} names nothing of the rule")
        elif f.constraint in typed_texts or f.rule not in LEXICON_SURE:
            out.unsure.append((f, f"lexicon {f.rule}"))
            out.source[f] = f"{kind} {'understood' if f.constraint in typed_texts else 'unread'}"
        else:
            out.put(out.found, f, f"{kind} unread")
    return out


def _names_nothing_of(f: Finding) -> bool:
    """Does the claim's piece a word-level prohibition finding rests on share no content word (stem) with the
    rule's doer, thing, verb or place? ("The final 500 kg of flowers went into extraction that day" against
    "Each batch must be chill-filtered before it is bottled"): nothing in it is about the rule's event."""
    rule = cached_rule(f.constraint)
    words = (rule.subject | rule.obj | rule.action_stems | rule.keys) - LEX_GENERIC
    if not words:
        return False
    return not (words & {s for t in tokenize(f.text) for s in t.stems})


def _another_act_denied(claim: str, f: Finding, chunk_texts: Sequence[str]) -> bool:
    """``negated_acts.denies_another_act`` at the finding, in the reading ``doubt`` weighs."""
    moved, read = _read_at(claim, f, chunk_texts)
    return denies_another_act(f.constraint, read.text, moved.start, moved.end)


def _allowed_way(claim: str, f: Finding, chunk_texts: Sequence[str]) -> bool:
    """``allowed_way.done_the_allowed_way`` at the finding, with the claim's denied clauses as the only places
    the forbidden alternative may be named ("Neither panel was held on the production floor; both ...")."""
    moved, read = _read_at(claim, f, chunk_texts)
    denied = [(c.start, c.end) for c in read.clauses if c.negated]
    return done_the_allowed_way(f.constraint, read.text, moved.start, moved.end, denied)


def _unrelated_duration(claim: str, form: Form, f: Finding, chunk_texts: Sequence[str]) -> bool:
    """``evidence.unrelated_duration`` at the finding, in the reading ``doubt`` weighs."""
    moved, read = _read_at(claim, f, chunk_texts)
    return unrelated_duration(form, read, moved.start)


def _event_stance(form: Form, f: Finding, claim: str) -> str:
    """What the claim says of a prohibition's event when the finding's amount or age meets the rule's
    condition (``consequences``): "denied", "silent", or "affirmed" (also for every other finding)."""
    band = form.quantity if f.basis == "amount" else form.trigger if f.basis == "trigger" else None
    if band is None or not band.text:
        return "affirmed"
    return stance(form, band.text, claim)


def _unmeasured_amount(form: Form, f: Finding) -> bool:
    """Does the word-level finding rest on an amount of a dimension the rule states but the typed form left
    unread ("frozen at -20 °C or colder for at least 72 hours" is read for its temperature only)? The typed
    reading then measured another amount, and its silence is no verdict on this one."""
    read = {b.dimension for b in (form.quantity, form.trigger) if b is not None}
    stated = {a.dim for a in measure.find_amounts(form.text)} - read
    return bool(stated) and any(a.dim in stated for a in measure.find_amounts(f.text))


@lru_cache(maxsize=256)
def _reading(text: str, chunk_texts: tuple[str, ...]) -> Claim:
    return read_claim(text, chunk_texts)


def _read_at(claim: str, f: Finding, chunk_texts: Sequence[str]) -> tuple[Finding, Claim]:
    """The finding and the reading of the claim (or, for a long claim, of the piece holding it, with the
    finding's offsets moved into that piece) that ``evidence.doubt`` weighs."""
    if len(claim) <= LONG_CLAIM:
        return f, _reading(claim, tuple(chunk_texts))
    for start, piece in pieces(claim):
        if start <= f.start < start + len(piece):
            return replace(f, start=f.start - start, end=f.end - start), _reading(piece, tuple(chunk_texts))
    return f, _reading(claim, tuple(chunk_texts))


def detect(claim: str, constraints: Sequence[str], forms: Sequence[Form],
           chunk_texts: Sequence[str] = (), arbiter: Arbiter | None = None,
           clearer: Clearer | None = None, question: str = "") -> tuple[list[Finding], list[Finding]]:
    """(contradictions, suspected): see ``readings``; an unsure finding stands only when ``arbiter``
    (the pair model) agrees, is dropped when ``clearer`` says the rule is kept (never a REJECT: a
    clearer only turns REVIEW into OK), otherwise it is suspected (REVIEW)."""
    return decide(claim, readings(claim, constraints, forms, chunk_texts, question), chunk_texts, arbiter, clearer)


def decide(claim: str, r: Readings, chunk_texts: Sequence[str] = (), arbiter: Arbiter | None = None,
           clearer: Clearer | None = None) -> tuple[list[Finding], list[Finding]]:
    """(contradictions, suspected) from sorted readings: see ``detect``."""
    found, suspected = list(r.found), list(r.suspected)
    for f, hint in r.unsure:
        asked = arbiter is not None and hint not in UNARBITRATED
        if asked and arbiter(f.constraint, claim, hint):
            found.append(f)
        elif clearer is None or not clearer(f.constraint, claim, chunk_texts, hint):
            suspected.append(f)
    return found, suspected
