"""Compare a claim against the locked constraints: the contradiction detector (sans-I/O).

Each constraint is parsed once into a typed ``Rule``; the claim is cut into sentences and
clause segments (the scope of negation), and each rule kind has one comparison below. A finding
names the constraint, the claim span (absolute offsets in the claim) and the rule that fired.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from abilities.scu_guard.attach import said_of_other_nouns
from abilities.scu_guard.conditions import reading_unnamed
from abilities.scu_guard.lexicon import (
    ACTION_CONCEPTS,
    ANTONYMS,
    DENY,
    GENERIC,
    KIND_WORDS,
    OPPOSITE_STATE,
    PERMIT,
    REGION_RE,
    REQUIRE,
    STOP,
    USAGE,
    stem,
)
from abilities.scu_guard.lifted_bans import granted_on_release, prefix_denied
from abilities.scu_guard.quantities import Quantity, find_days, find_quantities, find_times
from abilities.scu_guard.rules import Rule, member_mentions, parse_rule
from abilities.scu_guard.text import Segment, polarity, segments, sentences, tokenize

PRONOUNS = frozenset({"it", "they", "them", "this", "these", "its", "their"})
COLOCATE_RE = re.compile(
    r"\b(?:same|co-?locat\w*|colocat\w*|next to|alongside|together|shar(?:e|es|ed|ing)|both)\b", re.I
)
ANY_KIND_RE = re.compile(
    r"\b(?:any|all|every|other|arbitrary|external|third-party)\s+(\w+)(?:\s+(\w+))?", re.I
)


# a reading of one event by word overlap (what was done, in what order, at what time, kept apart from what) is
# a guess unless both readings make it; an amount with its unit, a trigger or an allow-list is not. Exclusions
# joined the event readings in round 9: found by the typed reading alone they were wrong 5 times in 15 on the
# development and pseudo-unseen sets ("the shore crabs were moved to Tank 15" read as housed with the octopus)
EVENT_RULES = frozenset({"forbid", "require", "temporal", "order", "only_agent", "permit", "exclusion"})


@dataclass(frozen=True)
class Finding:
    """One contradiction: the constraint, where in the claim, and which rule fired. ``sure`` is False
    where the reading rests on a guess (a doer known only by name, an amount borrowed from a chunk or
    tied to the rule by its dimension alone, a gap between events the claim does not tie to the rule):
    such a finding is rejected only when the pair model agrees, else it is a suspected one. ``by_name``:
    a doer known only by their name, of whom the text does not say who they are (always suspected)."""

    constraint: str
    start: int
    end: int
    text: str
    rule: str
    detail: str
    sure: bool = True
    by_name: bool = False  # the doer is known only by name: who they are is not in the text, so REVIEW
    firm: bool = False  # an event reading that rests on what a cited chunk says outright (a named doer's role)
    # False where the reading rests on a guess about the rule's own wording (a band read from a condition,
    # a scope or an ambiguous pair of amounts): no claim-side evidence can settle that, so REVIEW
    arbitrable: bool = True
    # what a typed amount finding rests on: "amount" (an amount the claim states), "chunk_amount" (one a cited
    # chunk states), "count", "gap" (a time between two events), "trigger" / "trigger_chunk" (a conditional
    # rule switched on by the claim's or a chunk's amount); "" for the other readings
    basis: str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "constraint": self.constraint,
            "claim_span": {"start": self.start, "end": self.end, "text": self.text},
            "rule": self.rule,
        }


@lru_cache(maxsize=4096)
def cached_rule(constraint: str) -> Rule:
    """Constraints repeat across calls (the lock is fixed per action): parse each once."""
    return parse_rule(constraint)


def _concept_hit(seg: Segment, concept: str) -> bool:
    words = ACTION_CONCEPTS.get(concept, frozenset())
    return any(s in words for s in seg.stems)


def _has(seg: Segment, words: frozenset[str]) -> bool:
    return any(s in words for s in seg.stems)


def _subject_ok(rule: Rule, seg: Segment, sentence_stems: set[str], claim_stems: set[str]) -> bool:
    if rule.subject_universal or not rule.subject_head:
        return True
    need = (rule.subject - GENERIC) or {rule.subject_head}  # "GPU instances" is not any instance
    if need <= seg.stems:
        return True
    # elliptic or pronoun subject: accept when the subject is named elsewhere in the sentence/claim
    if _elliptic(seg) and need <= sentence_stems:
        return True
    return bool(PRONOUNS & {t.low for t in seg.tokens}) and need <= claim_stems


def _elliptic(seg: Segment) -> bool:
    """A coordinated verb phrase with no subject of its own ("... and refuses empty keys")."""
    if not seg.tokens or not seg.coordinated:
        return False
    first = seg.tokens[0]
    if first.low in (
        "is",
        "are",
        "was",
        "were",
        "can",
        "cannot",
        "may",
        "must",
        "will",
        "does",
        "do",
        "never",
        "also",
        "then",
        "always",
    ):
        return True
    return (
        any(
            s in DENY or s in PERMIT or s in USAGE or any(s in v for v in ACTION_CONCEPTS.values())
            for s in first.stems
        )
        and first.text[:1].islower()
    )


@lru_cache(maxsize=4096)
def _outside_words(constraint: str) -> frozenset[str]:
    """ "never share X outside the research team": the team is the exception, not part of X."""
    m = re.search(r"\b(?:outside|beyond|except)\s+(?:of\s+)?(.*)$", constraint, re.I)
    return frozenset(s for t in tokenize(m.group(1)) for s in t.stems) if m else frozenset()


def _object_ok(rule: Rule, seg: Segment, context: set[str] | None = None) -> bool:
    if not rule.obj:
        return True
    if rule.obj_head and rule.obj_head not in seg.stems:
        return False
    if rule.obj_np and not rule.obj_np <= seg.stems:
        return False  # the object's own noun phrase, modifiers included ("admin access", "null keys")
    rest = rule.obj - rule.obj_np - GENERIC - _outside_words(rule.constraint)
    if len(rest) >= 2:  # "invitations to personal email addresses": the rest matters too
        return len(rest & (seg.stems | (context or set()))) * 2 >= len(rest)
    return True


def _action_words(rule: Rule) -> frozenset[str]:
    return rule.action_stems | (PERMIT if rule.action == "PERMIT" else frozenset())


def _action_hit(rule: Rule, seg: Segment) -> bool:
    return bool(_action_words(rule) & seg.stems) or bool(rule.action and _concept_hit(seg, rule.action))


def _agent_free(rule: Rule, seg: Segment) -> bool:
    """Passive ("pinned entries are evicted"), second person or imperative: the rule's subject (the
    agent) need not be named when the object and the action are."""
    if not (rule.obj_head and rule.obj_head in seg.stems):
        return False
    if (
        rule.kind == "require"
        and rule.obj_np
        and rule.obj_np <= seg.stems
        and (_has(seg, DENY) or (_has(seg, REQUIRE) and polarity(seg.tokens) < 0))
    ):
        return True  # "hard hats are optional", "no ID needed": about the object, whoever the agent
    lows = [t.low for t in seg.tokens]
    first = seg.tokens[0] if seg.tokens else None
    if (
        first is not None
        and first.text[:1].isupper()
        and any(s in PERMIT or s in USAGE or s in rule.action_stems for s in first.stems)
    ):
        return True  # imperative: "Enable telnet on the sensors"
    if not _action_hit(rule, seg):
        return False
    if {"you", "we", "users", "clients"} & set(lows):
        return True
    if lows and any(s in rule.action_stems or s in USAGE for s in seg.tokens[0].stems):
        return True  # imperative
    cop = {"is", "are", "was", "were", "be", "been", "being", "get", "gets"}
    act = next((i for i, t in enumerate(seg.tokens) if set(t.stems) & _action_words(rule)), None)
    return act is not None and any(w in cop for w in lows[:act])


def _pronoun_object(rule: Rule, seg: Segment, claim: set[str]) -> bool:
    """ "Sign it as is; the auto-renewal clause is standard": a pronoun object of the rule's own verb
    stands for the thing the claim describes with the rule's object words."""
    if not rule.action_stems or not (rule.action_stems & seg.stems):
        return False
    if not ({"it", "them", "this", "these", "those"} & {t.low for t in seg.tokens}):
        return False
    words = rule.obj - GENERIC
    if rule.obj_head in claim:
        return True
    rest = words - rule.obj_np
    return len(rest) >= 2 and len(rest & claim) * 2 >= len(rest) + 1


def _only_as_place(rule: Rule, seg: Segment) -> bool:
    """The rule's direct object appears in the segment only inside a place phrase ("in the room")."""
    if not rule.action_stems or rule.action or not rule.obj_head:
        return False
    toks = seg.tokens
    where = [i for i, t in enumerate(toks) if rule.obj_head in t.stems]
    return bool(where) and all(
        any(toks[j].low in ("in", "inside", "within", "at") for j in range(max(0, i - 3), i)) for i in where
    )


# "kept to the lobby", "confined to the yard", "restricted to Room 2": the thing is held to that place only
_CONFINED_RE = re.compile(r"\b(?:kept|confined|restricted|limited)\s+to\s+(?P<place>(?:[\w'’-]+\s*){1,4})", re.I)


def _confined_elsewhere(rule: Rule, seg: Segment) -> bool:
    """Does the segment confine its thing to a place that names nothing of the place a locative prohibition
    forbids it in, and name that place nowhere else? Then it says the thing was not there."""
    m = _CONFINED_RE.search(seg.text)
    if m is None or not rule.obj_np:
        return False
    place = {x for t in tokenize(m.group("place")) for x in t.stems}
    return not (rule.obj_np & place) and not (rule.obj_np & seg.stems)


# "outside the back-room booth", "anywhere but the lab": a place named as the one place left out
_BUT_PLACE_RE = re.compile(r"\b(?:outside|beyond|except|other than|anywhere but)\s+(?:of\s+)?(?:in\s+)?"
                           r"(?P<place>(?:[\w'’-]+\s*){1,4})", re.I)


def _denied_elsewhere(rule: Rule, seg: Segment) -> bool:
    """Does a denial in the segment deny the act only outside the place a rule of place requires ("Nothing was
    spray-sealed outside the back-room booth" for "done only in the booth")? Two denials: it was done there only.
    The place is named nowhere else in the segment ("not in the booth but outside it" is no such saying)."""
    if not rule.obj_locative:
        return False
    m = _BUT_PLACE_RE.search(seg.text)
    if m is None:
        return False
    place = {x for t in tokenize(m.group("place")) for x in t.stems} & (rule.obj - GENERIC)
    rest = {x for t in tokenize(seg.text[: m.start()] + " " + seg.text[m.end():]) for x in t.stems}
    return bool(place) and not (place & rest)


def _find_polar(rule: Rule, seg: Segment, sent: set[str], claim: set[str]) -> str | None:
    """forbid / require / permit rules: a detail string when the segment contradicts the rule."""
    if not _subject_ok(rule, seg, sent, claim) and not _agent_free(rule, seg):
        return None
    pol = polarity(seg.tokens)
    if rule.kind == "forbid":
        if not (rule.obj_locative or _object_ok(rule, seg) or _pronoun_object(rule, seg, claim)):
            return None
        outside = re.search(
            r"\b(?:outside|off|beyond)\s+(?:of\s+)?(?:the\s+|a\s+)?(\w+)", rule.constraint, re.I
        )
        if outside and re.search(
            rf"\b(?:inside|in|within|on|under|with|to)\s+(?:the\s+|a\s+|our\s+)?{re.escape(outside.group(1))}",
            seg.text,
            re.I,
        ):
            return None  # "never open X outside the hood" vs "open X inside the hood"
        if rule.obj_locative and _confined_elsewhere(rule, seg):
            return None  # "flash photography was kept to the lobby" for "forbidden in the dome"
        if not rule.obj_locative and not _action_hit(rule, seg) and _only_as_place(rule, seg):
            return None  # "books can be read in the reading room" does not make them leave it
        if prefix_denied(rule, seg) or granted_on_release(rule, seg):
            return None  # "given non-principal parts"; "may rehearse again once the physio cleared him"
        cue = _has(seg, PERMIT) or _has(seg, DENY) or _action_hit(rule, seg)
        if rule.action == "PERMIT" and _has(seg, USAGE):
            cue = True
        if rule.action_stems & REQUIRE and _has(seg, REQUIRE):
            cue = True
        if cue and pol > 0:
            return f"asserts or permits what the constraint forbids ({rule.action or 'statement'})"
        return None
    if rule.kind == "permit":
        if not (rule.obj_locative or _object_ok(rule, seg)):
            return None
        cue = _has(seg, PERMIT) or _has(seg, DENY) or (rule.action and _concept_hit(seg, rule.action))
        if cue and pol < 0:
            return "denies what the constraint permits"
        return None
    # require
    anchored = (rule.obj_head and rule.obj_head in seg.stems and _object_ok(rule, seg, sent)) or (
        rule.action
        and rule.action != "PERMIT"
        and _concept_hit(seg, rule.action)
        and (rule.obj_optional or _object_ok(rule, seg))
    )
    if not rule.obj_head and not rule.action:
        anchored = rule.subject_head in seg.stems
    if rule.obj_optional and not rule.subject_universal and rule.subject_head in seg.stems:
        anchored = True
    if anchored and pol < 0 and not _denied_elsewhere(rule, seg):
        return "negates, skips or makes optional what the constraint requires"
    rule_words = rule.all_stems
    subj_here = (
        rule.subject_universal
        or rule.subject_head in seg.stems
        or rule.subject_head in sent
        or bool((rule.subject - GENERIC) & seg.stems)
    )
    for side_a, pattern in OPPOSITE_STATE:
        if rule_words & side_a and subj_here and pol > 0 and re.search(pattern, seg.text, re.I):
            # a rule naming both states ("opens or closes the sluice gates") requires neither of them
            if not (seg.stems & side_a) and not re.search(pattern, rule.constraint, re.I):
                return "asserts the opposite state of what the constraint requires"
    for side_a, side_b in ANTONYMS:
        if rule_words & side_a and seg.stems & side_b and not (seg.stems & side_a & rule_words):
            if subj_here and pol > 0 and not said_of_other_nouns(seg.text, side_b, rule_words):
                return (
                    f"asserts the opposite ({sorted(seg.stems & side_b)[0]}) of what the constraint requires"
                )
    return None


def _find_only_agent(rule: Rule, seg: Segment) -> str | None:
    """Someone other than the reserved agent does (or may do) the action on the object."""
    if polarity(seg.tokens) < 0 or not _object_ok(rule, seg):
        return None
    words = _action_words(rule)
    act = next((i for i, t in enumerate(seg.tokens) if set(t.stems) & words), None)
    if act is None:
        return None
    agent = {s for t in seg.tokens[:act] if t.low not in STOP and t.low not in PRONOUNS for s in t.stems}
    agent -= PERMIT | REQUIRE | GENERIC | rule.obj
    by = next((i for i in range(act + 1, len(seg.tokens)) if seg.tokens[i].low == "by"), None)
    if not agent and by is not None:  # passive: "handled by interns"
        agent = {s for t in seg.tokens[by + 1 :] if t.low not in STOP for s in t.stems} - GENERIC
    if not agent or rule.subject_head in agent or rule.subject & agent:
        return None
    return f"someone other than the constraint's {rule.subject_head} does it"


def _find_allow_list(rule: Rule, seg: Segment, claim: str) -> str | None:
    cue = _has(seg, PERMIT) or _has(seg, USAGE) or _has(seg, REQUIRE) or _has(seg, DENY)
    if polarity(seg.tokens) < 0:
        return None
    for member, ms, _e in member_mentions(seg.text, rule.member_kind):
        destination = re.search(
            r"\b(?:to|into|in|via|on|onto|as)\s+(?:the\s+|an?\s+)?(?:[A-Za-z]+\s+)?$", seg.text[:ms], re.I
        )
        if not (cue or destination):
            continue
        if not _allowed(member, rule):
            return f"{member} is outside the allow-list {list(rule.members)}"
    kind_words = KIND_WORDS.get(rule.member_kind, frozenset())
    if not cue:
        return None
    for m in ANY_KIND_RE.finditer(seg.text):
        words = [stem(w) for w in (m.group(1), m.group(2)) if w]
        if any(w in kind_words or (w in rule.all_stems and w not in STOP) for w in words):
            return f"'{m.group(0)}' widens the allow-list {list(rule.members)}"
    return None


def _allowed(member: str, rule: Rule) -> bool:
    for a in rule.members:
        if rule.member_kind == "domain":
            base = a[2:] if a.startswith("*.") else a
            if member == base or member.endswith("." + base):
                return True
        elif member == a:
            return True
    return False


def _violates_bound(bound: Quantity, q: Quantity) -> bool:
    if q.form == "unlimited":
        return bound.form in ("ceiling", "range")
    if bound.form == "range":  # a band: the claim must not reach outside [lo, hi]
        above = q.lo > bound.hi if q.form == "floor" else q.hi > bound.hi * (1 + 1e-12)
        below = q.hi < bound.lo if q.form == "ceiling" else q.lo < bound.lo - 1e-12
        return above or below
    if bound.form == "ceiling":
        limit = bound.hi
        if q.lo > limit:
            return True  # disjoint: everything the claim says is above the limit
        return q.form in ("point", "ceiling", "range") and q.hi > limit * (1 + 1e-12)
    limit = bound.lo
    if q.hi < limit:
        return True
    return q.form in ("point", "floor", "range") and q.lo < limit * (1 - 1e-12)


def _dims_match(bound: Quantity, q: Quantity, seg: Segment, rule: Rule) -> bool:
    if q.dim == "any":
        return True
    if q.dim == "count" and not q.nouns and bound.dim != "count":
        return _key_just_before(rule, seg, q)  # "set page_size to 500" for a bound in items
    if bound.dim != q.dim:
        return False
    if bound.dim in ("count", "rate"):
        if bound.nouns and bound.nouns <= GENERIC and q.nouns - {"tim"}:
            return True  # "at most 10 items": books and DVDs are items (the rule's keys are in the segment)
        if bound.nouns and q.nouns - {"tim"}:
            return bool(bound.nouns & q.nouns)
        if not q.nouns and _key_just_before(rule, seg, q):
            return True
        return not bound.nouns or bool(bound.nouns & seg.stems)
    return True


def _key_just_before(rule: Rule, seg: Segment, q: Quantity) -> bool:
    """A bare number right after one of the rule's key terms ("page_size to 500", "timeout of 45"), in the
    same phrase: a comma or a stop between them ("in pickle right now, four in bath 1") starts another part
    of the sentence, whose number counts something left unsaid."""
    before = [t for t in seg.tokens if t.end <= q.start][-3:]
    return any(set(t.stems) & rule.keys and not re.search(r"[,;.!?()]", seg.text[t.end - seg.start : q.start - seg.start])
               for t in before)


@lru_cache(maxsize=4096)
def _measured(constraint: str, end: int) -> str:
    """The noun a minimum measures when it is not the unit ("24 hours' notice" -> notice)."""
    nxt = [t for t in tokenize(constraint[end:]) if t.low not in STOP][:1]
    return nxt[0].stems[0] if nxt and nxt[0].stems else ""


def _measured_dropped(rule: Rule, seg: Segment) -> bool:
    """ "without notice", "no notice", "unannounced" against "at least 24 hours' notice"."""
    bound = rule.bound
    if bound is None or bound.nouns:
        return False
    noun = _measured(rule.constraint, bound.end)
    if not noun or noun in GENERIC:
        return False
    toks = seg.tokens
    for i, t in enumerate(toks):
        if noun not in t.stems:
            continue
        if "without" in t.stems and not t.negator:  # "unannounced"
            return polarity(toks) > 0
        neg = next((j for j in range(max(0, i - 2), i) if toks[j].negator), None)
        if neg is not None:
            return polarity(toks, {neg}) > 0  # "never ... without notice" keeps the notice
    return False


def _find_numeric(rule: Rule, seg: Segment, claim: str, masked: list[tuple[int, int]]) -> str | None:
    bound = rule.bound
    if bound is None or not (rule.keys & seg.stems or (bound.nouns - {"tim"}) & seg.stems):
        return None
    if bound.form == "floor" and bound.nouns & seg.stems and _has(seg, REQUIRE) and polarity(seg.tokens) < 0:
        return "drops a required minimum"
    if bound.form == "floor" and _measured_dropped(rule, seg):
        return "drops a required minimum (none at all)"
    for q in find_quantities(claim, seg.start, seg.end, masked):
        if not _dims_match(bound, q, seg, rule):
            continue
        skip = {i for i, t in enumerate(seg.tokens) if q.start - 25 <= t.start < q.end}
        if polarity(seg.tokens, skip) < 0:
            continue
        if q.comparative and q.subject_position and not _has(seg, PERMIT):
            continue  # "files above 50 MB are split": a description, not an assertion
        if _violates_bound(bound, q):
            return f"{claim[q.start : q.end]!r} is outside the bound of the constraint"
    return None


def _find_temporal(rule: Rule, seg: Segment, claim: str) -> str | None:
    if not (rule.keys & seg.stems) or polarity(seg.tokens) < 0:
        return None
    for ts in find_times(claim, seg.start, seg.end):
        for lo, hi in rule.forbidden_minutes:
            if ts.lo < hi and lo < ts.hi:
                return f"{claim[ts.start : ts.end]!r} falls in a forbidden time window"
    if rule.forbidden_days:
        days, _spans = find_days(claim, seg.start, seg.end)
        bad = days & rule.forbidden_days
        if bad:
            return f"a forbidden weekday ({min(bad)}) is named"
    return None


def _find_exclusion(
    rule: Rule, claim: str, s0: int, s1: int, segs: list[Segment]
) -> tuple[Segment, str] | None:
    toks = tokenize(claim[s0:s1], s0)
    pos: dict[str, list[int]] = {e: [t.start for t in toks if e in t.stems] for e in rule.entities}
    if not all(pos.values()):
        return None
    for seg in segs:
        if (
            COLOCATE_RE.search(seg.text)
            and polarity(seg.tokens) > 0
            and any(seg.start <= p < seg.end for ps in pos.values() for p in ps)
        ):
            m = COLOCATE_RE.search(seg.text)
            if m is None:
                continue
            if m.group(0).lower() == "same" and rule.scope and rule.scope not in seg.text.lower():
                continue
            return seg, f"places {rule.entities[0]} and {rule.entities[1]} together ({m.group(0)})"
    # location assignment: the first location after each entity, within its own segment
    locs: dict[str, str] = {}
    for ent, ps in pos.items():
        for p in ps:
            seg = next((sg for sg in segs if sg.start <= p < sg.end), None)
            if seg is None or polarity(seg.tokens) < 0:
                continue
            m = REGION_RE.search(claim, p, seg.end)
            others = [q for e2, qs in pos.items() if e2 != ent for q in qs if p < q < (m.start() if m else 0)]
            if m and not others:
                locs[ent] = m.group(0).lower()
                break
    if len(locs) == 2 and len(set(locs.values())) == 1:
        seg = next(
            sg for sg in segs if sg.start <= max(pos[rule.entities[1]][0], pos[rule.entities[0]][0]) < sg.end
        )
        return (
            seg,
            f"both {rule.entities[0]} and {rule.entities[1]} are placed in {next(iter(locs.values()))}",
        )
    return None


SOLO_RE = re.compile(
    r"\b(?:on (?:their|his|her|its|your|my|our) own|alone|by (?:themselves|himself|herself|yourself|itself)"
    r"|unaccompanied|unsupervised|single-handedly|unilaterally)\b",
    re.I,
)
# a "second approver" is not satisfied by a "single approver"
COUNT_OPPOSITES = (("second", "dual", "two-person", "four-eyes"), ("single", "sole", "lone", "one"))


def _triggered(cond: Quantity, claim: str, s0: int, s1: int, masked: list[tuple[int, int]]) -> bool:
    """A quantity of the sentence falls inside the trigger band (or repeats the trigger itself)."""
    cnouns = cond.nouns - REQUIRE - {"tim"}
    for q in find_quantities(claim, s0, s1, masked):
        if q.dim == "age" and cond.dim == "count" and not cnouns:
            pass  # "under 16" with no unit is an age when the claim gives one ("a 14-year-old")
        elif q.dim != cond.dim and not (cnouns & q.nouns):  # "10,000 USD ... a second" misread as a rate
            continue
        if cond.dim in ("count", "rate") and cnouns and not (cnouns & q.nouns):
            continue
        if q.form == "point" and cond.lo <= q.lo <= cond.hi:
            return True
        if q.form == cond.form and cond.lo <= q.lo and q.hi <= cond.hi:
            return True
    return False


def _find_conditional(
    rule: Rule, claim: str, s0: int, s1: int, segs: list[Segment], masked: list[tuple[int, int]]
) -> tuple[Segment, str] | None:
    """The triggered rule is broken in a sentence whose quantity meets the trigger."""
    then, cond = rule.then, rule.bound
    if then is None or cond is None:
        return None
    sent = {st for seg in segs for st in seg.stems}
    if not (rule.keys & sent) or not _triggered(cond, claim, s0, s1, masked):
        return None
    if reading_unnamed(rule.constraint, claim):
        return None  # the claim's amount measures another thing than the one the condition reads
    what = f"where the trigger of the constraint holds ({cond.form} {cond.dim})"
    if then.kind == "forbid":
        hits = [seg for seg in segs if _action_hit(then, seg)]
        if hits and all(polarity(seg.tokens) > 0 for seg in hits):
            return hits[0], f"does what the constraint forbids {what}"
        return None
    if then.kind != "require":
        return None
    obj = ({then.obj_head} - {""}) | (then.obj_np - GENERIC) | (then.obj - GENERIC - STOP)
    for seg in segs:
        pol = polarity(seg.tokens)
        if pol < 0 and obj & seg.stems:
            return seg, f"drops what the constraint requires {what}"
        if pol > 0 and then.members:
            for member, _s, _e in member_mentions(seg.text, then.member_kind):
                if member not in then.members:
                    return seg, f"{member} instead of {list(then.members)} {what}"
        if pol > 0 and SOLO_RE.search(seg.text):
            return seg, f"acts alone where the constraint requires someone else {what}"
        low = {t.low for t in seg.tokens}
        if pol > 0 and set(COUNT_OPPOSITES[0]) & {t.low for t in tokenize(then.constraint)}:
            if set(COUNT_OPPOSITES[1]) & low and obj & seg.stems:
                return seg, f"fewer than the constraint requires {what}"
    return None


def find_contradictions(claim: str, constraints: list[str]) -> list[Finding]:
    """All contradictions between ``claim`` and the locked ``constraints``, in a stable order."""
    found: list[Finding] = []
    sents = sentences(claim)
    sent_segs = [(s0, s1, segments(claim, s0, s1)) for s0, s1 in sents]
    claim_stems = {st for _a, _b, sg in sent_segs for seg in sg for st in seg.stems}
    masked = [(ts.start, ts.end) for ts in find_times(claim, 0, len(claim))]
    for constraint in constraints:
        rule = cached_rule(constraint)
        for s0, s1, segs in sent_segs:
            sent_stems = {st for seg in segs for st in seg.stems}
            if rule.kind in ("exclusion", "conditional"):
                hit = (
                    _find_exclusion(rule, claim, s0, s1, segs)
                    if rule.kind == "exclusion"
                    else _find_conditional(rule, claim, s0, s1, segs, masked)
                )
                if hit is not None:
                    seg, detail = hit
                    found.append(Finding(constraint, seg.start, seg.end, seg.text, _rule_name(rule), detail))
                continue
            for seg in segs:
                if rule.kind in ("forbid", "require", "permit"):
                    detail = _find_polar(rule, seg, sent_stems, claim_stems)
                elif rule.kind == "only_agent":
                    detail = _find_only_agent(rule, seg)
                elif rule.kind == "allow_list":
                    detail = _find_allow_list(rule, seg, claim)
                elif rule.kind == "numeric":
                    detail = _find_numeric(rule, seg, claim, masked)
                else:
                    detail = _find_temporal(rule, seg, claim)
                if detail:
                    found.append(Finding(constraint, seg.start, seg.end, seg.text, _rule_name(rule), detail))
    return found


def _rule_name(rule: Rule) -> str:
    return {
        "numeric": "numeric_bound",
        "exclusion": "exclusion",
        "conditional": "conditional",
        "only_agent": "only_agent",
        "temporal": "temporal",
        "allow_list": "allow_list",
        "forbid": "forbid",
        "require": "require",
        "permit": "permit",
    }[rule.kind]


__all__ = ["Finding", "find_contradictions", "cached_rule"]
