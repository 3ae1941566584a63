"""Two ways a claim names what a prohibition forbids without asserting it (word-level forbid reading).

Why: the word-level reading fires on a permission or an act that shares the rule's words. Two wordings agree with
the rule although they do:
- the permission is granted on the very event the rule waits for: "don't rehearse again until the physiotherapist
  has cleared them in writing" vs "he may rehearse again once the physio cleared him in writing". The claim's
  "once / after / when / as soon as" clause holds the verb of the rule's "until / unless" clause and at least half
  of that clause's content words, and denies nothing.
- the banned word is said only under a denying prefix: "not cast in principal roles" vs "given non-principal
  parts". A "non-" / "un-" word whose rest is a word of the rule's forbidden thing, with that word nowhere bare in
  the clause, names the other side of it.
"""

from __future__ import annotations

import re

from abilities.scu_guard.lexicon import GENERIC, STOP, norm_stem
from abilities.scu_guard.rules import Rule
from abilities.scu_guard.text import Segment, polarity, tokenize

_UNTIL_RE = re.compile(r"\b(?:until|unless)\s+(?P<c>[^;.]+)", re.I)
_ONCE_RE = re.compile(r"\b(?:once|after|when|as soon as)\s+(?P<c>[^;]+)$", re.I)
_PREFIX_RE = re.compile(r"^(?:non-?|un-)(?P<rest>[a-z]{4,})$")


def _content(text: str) -> set[str]:
    """Content stems of a clause (function words and generic nouns left out)."""
    return {s for t in tokenize(text) for s in t.stems} - STOP - GENERIC


def granted_on_release(rule: Rule, seg: Segment) -> bool:
    """Does the segment allow the act only once the event the rule's "until" clause waits for has happened?"""
    m = _UNTIL_RE.search(rule.constraint)
    c = _ONCE_RE.search(seg.text) if m else None
    if m is None or c is None:
        return False
    want = _content(m.group("c"))
    have = _content(c.group("c"))
    # the released event's verb: a content word of the until clause the rule's doer part does not hold
    verbs = want - rule.subject - rule.obj_np - rule.action_stems
    if not want or not (verbs & have) or len(want & have) * 2 < len(want):
        return False
    return polarity(tokenize(c.group("c"))) > 0


def prefix_denied(rule: Rule, seg: Segment) -> bool:
    """Is the rule's forbidden thing named in the segment only under a "non-" / "un-" prefix?"""
    banned = (rule.obj_np | ({rule.obj_head} if rule.obj_head else set())) - GENERIC - STOP
    if not banned:
        return False
    denied = {
        norm_stem(m.group("rest"))
        for t in seg.tokens
        if (m := _PREFIX_RE.match(t.low)) is not None
    } & banned
    bare = {s for t in seg.tokens if not _PREFIX_RE.match(t.low) for s in t.stems}
    return bool(denied) and not (denied & bare)
