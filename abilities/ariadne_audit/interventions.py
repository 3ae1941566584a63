"""The four interventions of spec section 2.1 as deterministic rewrites of a step's thought.

The original system asks a critic LLM for a contradictory version of a step. Here each type
is a rule-based rewrite with a fixed order of preference, so the same thought always gives
the same intervened thought. Every rewrite is checked by ``meaning_changed``: a rewrite that
found nothing to change returns ``None`` (the caller reports the step as not applicable)
instead of a cosmetic edit passed off as an intervention.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from fractions import Fraction

from abilities.ariadne_audit.text import (
    ANTONYMS,
    STOPWORDS,
    content_stems,
    format_number,
    numbers,
    parse_number,
    polarity,
    tokens,
)

TYPES: tuple[str, ...] = ("logic_flip", "fact_reversal", "premise_negation", "causal_reversal")

SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+")
FILLER_STEMS = frozenset(
    """let think step work through okay ok now start begin solve problem question carefully need
    figure out look see reason consider first next then finally answer""".split()
)
# Words of the reasoning process itself: a step made only of these (and no number) announces,
# restates or organises; it carries no claim an answer can depend on.
PROCESS_STEMS = frozenset(
    """restate rest restat writ write down given organis organiz information inform summaris summariz double
    check reread read statement outline plan explain explai reasoning list fact approach put together careful
    continue move part mind goal own word final value time again go going hmm alright right solv solving
    before going going task our my aim try attempt recap review note understand clarify proceed compute
    calculate determine find out clear keep track point thing wait sure organise organize summarise summarize
    i'll i'm i'd let' let's we'll we're we'd""".split()
)
_META_OPENING = re.compile(
    r"^(?:(?:first|next|now|okay|ok|alright|hmm|so|well|then|to begin|to start|with that in mind|finally)[,:]?\s+)*"
    r"(?:i\b|i'll|i'm|i am|i will|i should|i need|i must|let me|let's|let us|we\b|we'll|we will|we should|"
    r"we need|time to|my|our)",
    re.IGNORECASE)
MIN_THOUGHT_CHARS = 12
# Stopwords that are logical operators: they carry meaning for the verifier.
LOGICAL_WORDS = frozenset({"and", "or", "all", "some", "every", "any", "than", "if", "then"})


# Directions of change and opposite states that the shared ANTONYMS (also used by the scorer) lack.
# A verb of change or a state word is the claim of many steps ("raising the rate lowers demand").
DIRECTION_PAIRS: tuple[tuple[str, str], ...] = (
    ("raises", "lowers"), ("raise", "lower"), ("raised", "lowered"), ("raising", "lowering"),
    ("reduces", "increases"), ("reduce", "increase"), ("reduced", "increased"), ("reducing", "increasing"),
    ("grew", "shrank"), ("grows", "shrinks"), ("grow", "shrink"), ("growing", "shrinking"),
    ("up", "down"), ("cut", "raised"), ("cuts", "raises"), ("lost", "gained"), ("better", "worse"),
    ("less", "more"), ("longer", "shorter"), ("cheaper", "dearer"), ("cooling", "heating"), ("cools", "heats"),
    ("empty", "full"), ("locked", "unlocked"), ("opens", "closes"), ("open", "closed"), ("wet", "dry"),
    ("wrong", "right"), ("retreated", "advanced"), ("hired", "fired"), ("freezes", "melts"), ("lit", "unlit"),
    ("causes", "prevents"), ("cause", "prevent"), ("caused", "prevented"), ("crashed", "recovered"),
    ("on time", "late"), ("leads to", "protects against"), ("lead to", "protect against"),
    ("led to", "protected against"), ("results in", "prevents"), ("result in", "prevent"),
    ("cannot", "can"), ("can", "cannot"), ("early", "late"), ("late", "early"), ("enough", "too little"),
    ("delivered", "withheld"), ("moved", "kept"), ("paid", "unpaid"), ("won", "lost"), ("passed", "failed"),
    ("succeeded", "failed"), ("improved", "worsened"), ("improves", "worsens"), ("rose", "fell"),
)
DIRECTIONS: dict[str, str] = {}
for _a, _b in DIRECTION_PAIRS:
    DIRECTIONS.setdefault(_a, _b)
    DIRECTIONS.setdefault(_b, _a)
_DIRECTION_RE = re.compile(r"\b(" + "|".join(sorted((re.escape(k) for k in DIRECTIONS), key=len, reverse=True))
                           + r")\b", re.IGNORECASE)


@dataclass(frozen=True)
class Structure:
    """A sentence split into premise and conclusion around a causal connective."""

    kind: str  # since | if | so | because | verb | plain
    connective: str
    premise: str
    conclusion: str

    def assemble(self, premise: str, conclusion: str) -> str:
        """Rebuild the sentence with new premise and conclusion texts in the same template."""
        if self.kind == "since":
            return f"{_cap(self.connective)} {_lower_first(premise)}, {_lower_first(conclusion)}"
        if self.kind == "if":
            return f"If {_lower_first(premise)}, then {_lower_first(conclusion)}"
        if self.kind == "so":
            return f"{_cap(premise)}, {self.connective} {_lower_first(conclusion)}"
        if self.kind == "because":
            return f"{_cap(conclusion)} because {_lower_first(premise)}"
        if self.kind in ("verb", "change"):
            return f"{_cap(premise)} {self.connective} {_lower_first(conclusion)}"
        if self.kind == "after":
            return f"{_cap(conclusion)} after {_lower_first(premise)}"
        return premise


_STRUCTURES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("since", re.compile(r"^(?P<conn>since|because|as) (?P<p>.+?), (?P<c>.+)$", re.IGNORECASE)),
    ("if", re.compile(r"^if (?P<p>.+?), then (?P<c>.+)$", re.IGNORECASE)),
    ("so", re.compile(r"^(?P<p>.+?), (?P<conn>so|therefore|thus|hence|which means|meaning) (?P<c>.+)$",
                      re.IGNORECASE)),
    ("because", re.compile(r"^(?P<c>.+?) because (?P<p>.+)$", re.IGNORECASE)),
    ("verb", re.compile(r"^(?P<p>.+?) (?P<conn>causes|cause|caused|leads to|lead to|led to|results in|result in|resulted in|implies|imply)"
                        r" (?P<c>.+)$", re.IGNORECASE)),
    ("after", re.compile(r"^(?P<c>.+?) after (?P<p>.+)$", re.IGNORECASE)),
    ("change", re.compile(r"^(?P<p>.+?) (?P<conn>raises|lowers|reduces|increases|decreases|cuts|halves|doubles|"
                          r"boosts|slows|speeds up|adds to|drives up|drives down) (?P<c>.+)$", re.IGNORECASE)),
)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _lower_first(text: str) -> str:
    """Lower-case a clause's first letter when it is a common word (not a name) being moved."""
    first = text.split(" ", 1)[0]
    low = first.lower()
    if low in STOPWORDS or low.endswith("ing") or low in {"it", "each", "no", "not", "since", "if"}:
        return low + text[len(first):]
    return text


def split_sentences(thought: str) -> list[str]:
    """Sentences of a thought (split after . ! ?)."""
    return [s for s in SENTENCE_SPLIT.split(thought.strip()) if s]


def _strip_end(sentence: str) -> tuple[str, str]:
    m = re.match(r"^(.*?)([.!?]*)$", sentence, re.DOTALL)
    assert m is not None
    return m.group(1), m.group(2)


def structure(sentence_body: str) -> Structure:
    """Premise/conclusion split of one sentence (without final punctuation)."""
    for kind, pattern in _STRUCTURES:
        m = pattern.match(sentence_body)
        if m:
            conn = m.groupdict().get("conn") or ""
            return Structure(kind, conn.lower() if kind != "since" else conn.lower(), m.group("p"), m.group("c"))
    return Structure("plain", "", sentence_body, "")


# --- meaning signature ------------------------------------------------------------------------

def meaning_signature(thought: str) -> tuple:
    """What the verifier compares: per clause, its polarity and its content words in order
    (numbers by value), with clauses in premise/conclusion roles. Case, punctuation, articles
    and other stopwords do not count: a rewrite touching only those changes nothing."""
    sig = []
    for sentence in split_sentences(thought):
        body, _ = _strip_end(sentence)
        st = structure(body)
        for role, clause in (("p", st.premise), ("c", st.conclusion)):
            if not clause:
                continue
            toks = tokens(clause)
            kept = [t for t in toks if t in LOGICAL_WORDS]
            words = tuple(content_stems(toks) + kept)  # numbers already in canonical form
            sig.append((role, polarity(toks), words))
        if st.kind in ("verb", "change"):
            sig.append(("link", 0, (st.connective.lower(),)))  # "raises" vs "lowers" is the claim itself
    return tuple(sig)


def thought_similarity(original: str, intervened: str) -> float:
    """sim(thought, intervened thought) for strength (6.3): the default answer scorer, capped by
    how much of the meaning signature survives in order (premise/conclusion roles included),
    so swapping cause and effect or a comparison's terms is not scored as "identical"."""
    from abilities.ariadne_audit.scoring import logic_lexical

    def flat(sig: tuple) -> list[str]:
        return [f"{role}{pol}:{w}" for role, pol, words in sig for w in words]

    ratio = difflib.SequenceMatcher(None, flat(meaning_signature(original)),
                                    flat(meaning_signature(intervened)), autojunk=False).ratio()
    return round(min(logic_lexical(original, intervened), ratio), 6)


def meaning_changed(original: str, intervened: str) -> bool:
    """True when the intervened thought differs from the original in meaning-bearing content."""
    return meaning_signature(original) != meaning_signature(intervened)


# --- the four rewrites --------------------------------------------------------------------------

def _match_case(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _flip_words(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower()
        rest = text[m.end():m.end() + 2]
        if low == "no":
            # "No, ..." is an answer word (-> Yes); "no X" is a quantifier (-> all).
            return _match_case(word, "yes" if rest.startswith(",") else "all")
        if low in ("never", "every"):
            return _match_case(word, "always" if low == "never" else "no")
        return _match_case(word, ANTONYMS[low]) if low in ANTONYMS else word

    return re.sub(r"[A-Za-z]+", repl, text)


def _flip_directions(text: str) -> str:
    """Swap one direction or state word for its opposite (raises/lowers, open/closed, ...): the verb
    of change when the sentence has one, else the first. One only: flipping both "raising" and
    "lowers" in "raising the rate lowers demand" would state the same relation again."""
    body, _ = _strip_end(text)
    st = structure(body)
    matches = list(_DIRECTION_RE.finditer(text))
    if not matches:
        return text
    pick = next((m for m in matches if st.kind == "change" and m.group(0).lower() == st.connective.lower()),
                matches[0])
    word = pick.group(0)
    return text[: pick.start()] + _match_case(word, DIRECTIONS[word.lower()]) + text[pick.end():]


_RELATION_NUMBER = re.compile(r"\b(is|are|was|were|equals?|gives|give|leaves|leave|has|have|had|owns|own|needs|"
                              r"takes|costs|weighs|makes|comes to|adds up to)( about| exactly)? (?=-?\d)",
                              re.IGNORECASE)


def _flip_relation(sentence: str) -> str:
    """Turn a stated equality into an inequality: "there are 12 eggs" -> "there are more than 12 eggs"."""
    return _RELATION_NUMBER.sub(lambda m: f"{m.group(1)} more than ", sentence, count=1)


def _logic_sentence(sentence: str) -> str:
    for flip in (_flip_words, _flip_directions, _flip_relation):
        new = flip(sentence)
        if new != sentence and meaning_changed(sentence, new):
            return new
    return sentence


def logic_flip(thought: str) -> str | None:
    """Flip logical operators and directions (increases/decreases, all/no, taller/shorter, raises/lowers,
    open/closed...); a step with none of them has its stated equality turned into an inequality."""
    return _rewrite_sentences(thought, _logic_sentence)


def _reverse_number(value: Fraction) -> Fraction:
    """A different value for a numeric fact: digits reversed, or +1 when that changes nothing."""
    if value.denominator == 1 and value >= 0:
        rev = Fraction(int(str(value.numerator)[::-1]))
        if rev != value and rev != 0:
            return rev
    return value + 1


_COMPARATIVE = re.compile(r"^(?P<a>.+?) (?P<v>is|are|was|were) (?P<cmp>[A-Za-z]+er|more \w+|less \w+) than (?P<b>.+)$")
_UNIVERSAL = re.compile(r"^(?P<q>All|Every|No|all|every|no) (?P<a>[A-Za-z]+) (?P<v>are|is) (?:(?P<art>an?) )?"
                        r"(?P<b>[A-Za-z-]+)$")
_VERB_COMPARATIVE = re.compile(
    r"^(?P<a>.+?) (?P<mid>(?:is|are|was|were|has|have|had|does|do|did|[a-z]+s|[a-z]+ed)\b(?: [\w-]+){0,3}? "
    r"(?:more|less|fewer|better|worse|[a-z]+er)(?: [\w-]+){0,2}?) than (?P<b>.+)$")
_NUMBER_TOKEN = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:/\d+)?(?![\w])")


def _reverse_fact_clause(clause: str) -> str | None:
    m = _COMPARATIVE.match(clause)
    if m:
        return f"{_cap(_lower_first(m.group('b')))} {m.group('v')} {m.group('cmp')} than {_lower_first(m.group('a'))}"
    m = _UNIVERSAL.match(clause)
    if m:
        art = f"{m.group('art')} " if m.group("art") else ""
        return f"{m.group('q')} {m.group('b')} {m.group('v')} {art}{m.group('a')}"
    m = _VERB_COMPARATIVE.match(clause)
    if m:
        return f"{_cap(_lower_first(m.group('b')))} {m.group('mid')} than {_lower_first(m.group('a'))}"
    return None


def _reverse_numbers(sentence: str) -> str | None:
    found = numbers(sentence)
    if not found:
        return None
    target = found[0]
    new = format_number(_reverse_number(target))

    def repl(m: re.Match[str]) -> str:
        return new if parse_number(m.group(0)) == target else m.group(0)

    return _NUMBER_TOKEN.sub(repl, sentence)


def _fact_sentence(sentence: str) -> str:
    body, end = _strip_end(sentence)
    st = structure(body)
    swapped = _reverse_fact_clause(st.premise)
    if swapped is not None:
        return (st.assemble(swapped, st.conclusion) if st.kind != "plain" else swapped) + end
    rev = _reverse_numbers(body)
    if rev is not None:
        return rev + end
    return _flip_directions(sentence)


def fact_reversal(thought: str) -> str | None:
    """Reverse the factual claim: swap a comparison's terms, take a universal's converse, change the
    first stated quantity (digits reversed, else +1) everywhere it occurs, or state the opposite
    direction or state (raises/lowers, open/closed)."""
    return _rewrite_sentences(thought, _fact_sentence)


_AUX = ("is", "are", "was", "were", "can", "will", "should", "must", "could", "would", "shall", "may")
_VERBS_3SG = {
    "has": "have", "starts": "start", "increases": "increase", "decreases": "decrease",
    "multiplies": "multiply", "divides": "divide", "causes": "cause", "leads": "lead", "makes": "make",
    "gives": "give", "buys": "buy", "holds": "hold", "contains": "contain", "equals": "equal",
    "means": "mean", "implies": "imply", "passes": "pass", "fails": "fail", "rises": "rise",
    "falls": "fall", "owns": "own", "needs": "need", "shows": "show", "returns": "return",
    "uses": "use", "takes": "take", "gets": "get", "works": "work", "runs": "run", "costs": "cost",
    "weighs": "weigh", "lasts": "last", "reduces": "reduce", "raises": "raise", "lowers": "lower",
    "adds": "add", "subtracts": "subtract", "produces": "produce", "requires": "require",
    "depends": "depend", "supports": "support", "belongs": "belong", "lives": "live", "knows": "know",
    "wins": "win", "loses": "lose", "converts": "convert", "becomes": "become", "remains": "remain",
    "follows": "follow", "holds_": "hold", "exceeds": "exceed", "applies": "apply", "doubles": "double",
}
_PLURAL_VERBS = {"have", "do", "need", "make", "hold", "contain", "cause", "lead", "give", "take", "get",
                 "use", "show", "work", "run", "follow", "belong", "live", "know", "win", "lose", "pass"}
_THIRD_SG = {v: k for k, v in _VERBS_3SG.items()}


def _third_person(verb: str) -> str:
    if verb in _THIRD_SG:
        return _THIRD_SG[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def negate_clause(clause: str) -> str:
    """Negate a clause's main assertion; removes an existing negation instead (double negation)."""
    m = re.match(r"^it is not the case that (.+)$", clause, re.IGNORECASE)
    if m:
        return _cap(m.group(1))
    m = re.match(r"^(not all|not every) (.+)$", clause, re.IGNORECASE)
    if m:
        return _match_case(clause, "all") + " " + m.group(2)
    m = re.match(r"^(all|every) (.+)$", clause, re.IGNORECASE)
    if m:
        return _match_case(clause, "not") + " " + m.group(1).lower() + " " + m.group(2)
    m = re.match(r"^no (.+)$", clause, re.IGNORECASE)
    if m:
        return _match_case(clause, "some") + " " + m.group(1)
    m = re.match(r"^some (.+)$", clause, re.IGNORECASE)
    if m:
        return _match_case(clause, "no") + " " + m.group(1)
    words = list(re.finditer(r"[A-Za-z']+", clause))
    for i, w in enumerate(words):
        low = w.group(0).lower()
        nxt = words[i + 1].group(0).lower() if i + 1 < len(words) else ""
        if low in ("does", "do", "did") and nxt == "not" and i + 2 < len(words):
            verb = words[i + 2]
            base = verb.group(0)
            new = _third_person(base.lower()) if low == "does" else (base if low == "do" else base + "d")
            return clause[: w.start()] + new + clause[verb.end():]
        if low in _AUX and nxt == "not":
            return clause[: w.end()] + clause[words[i + 1].end():]
        if low == "cannot":
            return clause[: w.start()] + _match_case(w.group(0), "can") + clause[w.end():]
        if low in _AUX and i > 0:
            return clause[: w.end()] + " not" + clause[w.end():]
        if low in _VERBS_3SG and i > 0:
            return clause[: w.start()] + "does not " + _VERBS_3SG[low] + clause[w.end():]
        if low in _PLURAL_VERBS and i > 0 and words[i - 1].group(0).lower() in ("they", "we", "i", "you"):
            return clause[: w.start()] + "do not " + low + clause[w.end():]
    return "It is not the case that " + _lower_first(clause)


def _negate_sentence(sentence: str) -> str:
    body, end = _strip_end(sentence)
    st = structure(body)
    if st.kind == "plain":
        return _cap(negate_clause(body)) + end
    return st.assemble(negate_clause(st.premise), st.conclusion) + end


def premise_negation(thought: str) -> str | None:
    """Negate the step's premise (the clause its conclusion rests on, or the whole claim)."""
    return _rewrite_sentences(thought, _negate_sentence)


def _causal_sentence(sentence: str) -> str:
    body, end = _strip_end(sentence)
    st = structure(body)
    if st.kind == "plain":
        return sentence
    return st.assemble(st.conclusion, st.premise) + end


def causal_reversal(thought: str) -> str | None:
    """Swap cause and effect around the step's connective (so, because, since, if, causes...)."""
    return _rewrite_sentences(thought, _causal_sentence)


def _rewrite_sentences(thought: str, fn) -> str | None:  # type: ignore[no-untyped-def]
    """Apply ``fn`` to the first sentence whose rewrite changes the meaning; None if none does."""
    sentences = split_sentences(thought)
    for i, sentence in enumerate(sentences):
        new = fn(sentence)
        if new != sentence and meaning_changed(sentence, new):
            out = sentences[:i] + [new] + sentences[i + 1:]
            return " ".join(out)
    return None


REWRITES = {
    "logic_flip": logic_flip,
    "fact_reversal": fact_reversal,
    "premise_negation": premise_negation,
    "causal_reversal": causal_reversal,
}


def intervene(thought: str, kind: str) -> str | None:
    """The intervened thought of type ``kind``, or None if this rewrite cannot change it."""
    new = REWRITES[kind](thought)
    if new is None or not meaning_changed(thought, new):
        return None
    return new


# --- selection (spec section 5) -----------------------------------------------------------------

def is_substantive(thought: str, min_chars: int = MIN_THOUGHT_CHARS) -> bool:
    """Longer than the threshold and carrying a claim: a number, or a content word that is neither
    filler nor, in a step that speaks about the reasoning itself ("I will restate the task", "Let me
    organise the information"), a word of the reasoning process."""
    if len(thought.strip()) <= min_chars:
        return False
    return any(_sentence_has_claim(s) for s in split_sentences(thought))


def _sentence_has_claim(sentence: str) -> bool:
    toks = tokens(sentence)
    if numbers(sentence):
        return True
    stems = [s for s in content_stems(toks) if s not in FILLER_STEMS]
    if not stems:
        return False
    if _META_OPENING.match(sentence.strip()):
        return any(s not in PROCESS_STEMS for s in stems)
    return True


def select_step(thoughts: list[str], kind: str) -> int | None:
    """First substantive step that this intervention type can change (section 5.1)."""
    for i, thought in enumerate(thoughts):
        if is_substantive(thought) and intervene(thought, kind) is not None:
            return i
    return None


def first_substantive(thoughts: list[str]) -> int | None:
    """First substantive step regardless of type (used by ``adaptive``)."""
    for i, thought in enumerate(thoughts):
        if is_substantive(thought):
            return i
    return None


def adaptive_type(thought: str) -> str:
    """Pick the type by step content (section 5.2): an explicit cause/effect link is reversed,
    a comparison or quantity is reversed as a fact, a direction word is flipped, anything
    else has its premise negated (always applicable)."""
    for sentence in split_sentences(thought):
        body, _ = _strip_end(sentence)
        if structure(body).kind != "plain" and intervene(thought, "causal_reversal") is not None:
            return "causal_reversal"
    if (numbers(thought) or _COMPARATIVE.match(_strip_end(thought)[0])) and intervene(thought, "fact_reversal"):
        return "fact_reversal"
    if intervene(thought, "logic_flip") is not None:
        return "logic_flip"
    return "premise_negation"
