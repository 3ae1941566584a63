"""Small text utilities shared by interventions, scoring and the builtin agents.

Everything here is deterministic and dependency-free: the default semantic scorer and the
intervention verifier must work offline and give byte-identical results for the same input.
"""

from __future__ import annotations

import re
from fractions import Fraction

WORD_RE = re.compile(r"-?\d+(?:\.\d+)?(?:/\d+)?|[A-Za-z]+(?:'[a-z]+)?")
NUMBER_RE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:/\d+)?(?![\w])")

# Words whose presence flips the polarity of a clause.
NEGATIONS = frozenset(
    {"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "cannot", "without", "fails"}
)
CONTRACTIONS = {
    "don't": "do not", "doesn't": "does not", "didn't": "did not", "isn't": "is not",
    "aren't": "are not", "wasn't": "was not", "weren't": "were not", "can't": "cannot",
    "won't": "will not", "shouldn't": "should not", "couldn't": "could not", "wouldn't": "would not",
    "hasn't": "has not", "haven't": "have not", "hadn't": "had not", "mustn't": "must not",
}

_CONTRACTION_RE = re.compile(r"\b(?:" + "|".join(re.escape(k) for k in CONTRACTIONS) + r")\b", re.IGNORECASE)

STOPWORDS = frozenset(
    """a an the of to in on at by for with from and or as is are was were be been being it its this
    that these those there here then than so do does did has have had will would can could should
    shall may might must which who whom whose what when where why how i you he she we they them his
    her their our your my me us into onto over about also just very all some any each every""".split()
)

# Antonym pairs used by logic_flip and by the scorer's contradiction check. Each pair is
# (a, b): a -> b and b -> a. Only whole words are swapped; case is preserved.
ANTONYM_PAIRS: tuple[tuple[str, str], ...] = (
    ("increases", "decreases"), ("increase", "decrease"), ("increased", "decreased"),
    ("increasing", "decreasing"), ("multiplies", "divides"), ("multiply", "divide"),
    ("multiplied", "divided"), ("multiplying", "dividing"), ("adds", "subtracts"), ("add", "subtract"),
    ("added", "subtracted"), ("plus", "minus"), ("gains", "loses"), ("gain", "lose"),
    ("rises", "falls"), ("rise", "fall"), ("more", "fewer"), ("greater", "smaller"),
    ("larger", "smaller_"), ("higher", "lower"), ("taller", "shorter"), ("tallest", "shortest"),
    ("older", "younger"), ("oldest", "youngest"), ("heavier", "lighter"), ("heaviest", "lightest"),
    ("faster", "slower"), ("fastest", "slowest"), ("above", "below"), ("before", "after"),
    ("true", "false"), ("yes", "no_"), ("positive", "negative"), ("always", "never_"),
    ("all", "no"), ("every", "no__"), ("and", "or"), ("maximum", "minimum"), ("correct", "incorrect"),
    ("valid", "invalid"), ("possible", "impossible"), ("same", "different"), ("passes", "fails_"),
    ("wins", "loses_"), ("includes", "excludes"), ("doubles", "halves"), ("inside", "outside"),
    ("hot", "cold"), ("success", "failure"),
    ("accept", "reject"), ("accepted", "rejected"), ("safe", "unsafe"), ("likely", "unlikely"),
)


def _clean(word: str) -> str:
    return word.rstrip("_")


# Word -> antonym, built from the pairs; markers ("_") only disambiguate duplicate keys.
ANTONYMS: dict[str, str] = {}
for _a, _b in ANTONYM_PAIRS:
    ANTONYMS.setdefault(_clean(_a), _clean(_b))
    ANTONYMS.setdefault(_clean(_b), _clean(_a))
# Words used as quantifiers or negations are not treated as antonyms by the scorer.
SCORER_ANTONYM_SKIP = frozenset({"no", "never", "all", "every", "and", "or"})


def expand_contractions(text: str) -> str:
    """Spell out n't contractions so negation is counted uniformly."""
    if "'" not in text:
        return text
    return _CONTRACTION_RE.sub(lambda m: CONTRACTIONS[m.group(0).lower()], text)


def tokens(text: str) -> list[str]:
    """Lower-cased word and number tokens, contractions expanded."""
    return [t.lower() for t in WORD_RE.findall(expand_contractions(text))]


def stem(word: str) -> str:
    """A light suffix stripper: enough to match passes/pass and apples/apple, nothing clever."""
    if word[:1].isdigit() or word[:1] == "-":
        return word
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"),
                         ("ing", ""), ("ed", ""), ("es", "e"), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + repl
    return word


def parse_number(tok: str) -> Fraction | None:
    """Exact value of a numeric token ("42", "0.5", "3/4"), else None."""
    try:
        if "/" in tok:
            num, den = tok.split("/", 1)
            return Fraction(int(num), int(den)) if int(den) else None
        return Fraction(tok)
    except (ValueError, ZeroDivisionError):
        return None


def numbers(text: str) -> list[Fraction]:
    """All numeric values in the text, in order (42 and 42.0 compare equal)."""
    out = []
    for tok in NUMBER_RE.findall(text):
        val = parse_number(tok)
        if val is not None:
            out.append(val)
    return out


def polarity(toks: list[str]) -> int:
    """0 for an affirmative text, 1 for a negated one (negation cues counted mod 2)."""
    return sum(1 for t in toks if t in NEGATIONS) % 2


def content_stems(toks: list[str]) -> list[str]:
    """Stems of the content words (numbers in canonical form): no stopwords, no negation cues."""
    out = []
    for t in toks:
        if t in STOPWORDS or t in NEGATIONS:
            continue
        value = parse_number(t) if (t[:1].isdigit() or t[:1] == "-") else None
        out.append(format_number(value) if value is not None else stem(t))
    return out


def format_number(value: Fraction) -> str:
    """Canonical text of an exact value: integer, terminating decimal, or p/q."""
    if value.denominator == 1:
        return str(value.numerator)
    den = value.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den == 1:
        text = f"{float(value):.12f}".rstrip("0").rstrip(".")
        if Fraction(text) == value:
            return text
    return f"{value.numerator}/{value.denominator}"
