"""A word-level finding on a prohibition or a duty, made sure where the claim grants it as a permission.

Why its own module: the word-level reading matches a forbidden or required thing by its synonyms and
categories ("a cat" for "pets", "helmets" for "hard hats", "unsealed software" for "opened software"), which
the typed reading does not know; alone, such a match is a guess (the thing may be named for another reason),
so it waits in REVIEW. But when the claim's own clause that holds the match is, by grammar, a permission
("Tenants in 4B are welcome to bring a cat", "Students may use a basic calculator", "Phones can stay on") or,
for a duty, a release from it ("Towels are optional on the treadmills", "Contractors don't need
dosimeters"), the claim grants what the rule forbids or waives what it requires: a statement of policy, not
a circumstance. A denied permission ("may not", "cannot"), a question or a permission reported by another verb
("Some tenants believe they may ...") grants nothing; nor does a permission
for another doer than the one the rule binds ("Contractors may keep pets" for "Tenants must not keep pets") or
in another place or occasion than the rule's ("flash photography in the lobby" for "... in the galleries",
"calculators during breaks" for "... in the exam").
"""

from __future__ import annotations

from typing import Any

from abilities.scu_guard import categories
from abilities.scu_guard.detect import Finding
from abilities.scu_guard.events import reported
from abilities.scu_guard.form_types import Form
from abilities.scu_guard.judge import Claim, _grants
from abilities.scu_guard.nlp import key, light_keys, parse

_RULES = frozenset({"forbid", "require"})
# phrases that scope a permission to a place ("in the lobby") or an occasion ("during breaks", "outside the exam")
_PLACE_PREPS = frozenset({"in", "on", "at", "inside", "within", "into", "onto"})
_OCCASION_PREPS = frozenset({"during", "outside", "before", "after"})


def _places(tokens: list[Any], preps: frozenset[str] = _PLACE_PREPS) -> list[Any]:
    """The nouns of the place (or occasion) phrases of verbs among the tokens ("used in the galleries" ->
    galleries)."""
    return [c for t in tokens if t.dep_ == "prep" and t.lower_ in preps and t.head.pos_ in ("VERB", "AUX", "ADJ")
            for c in t.children if c.dep_ == "pobj" and c.pos_ in ("NOUN", "PROPN")]


def _grants_other_thing(form: Form, tokens: list[Any]) -> bool:
    """Is the rule a ban of things without a verb of its own ("Glass bottles and selfie sticks are not allowed in
    the gondolas", "No alcohol on the ice") and does the permission name none of them, nor a kind of one ("those already on were allowed
    to finish their turn")? Then it permits another thing than the rule's."""
    if form.modality != "must_not" or any(t.pos_ in ("VERB", "AUX") and key(t) in form.action for t in parse(form.text)):
        return False
    # a verbless rule's head noun may stand as its "action" ("No alcohol on the ice": alcohol is the thing banned)
    things = [(k, p) for k, p in categories.rule_nouns(form.text) if k in set(form.subject) | set(form.action)]
    if not things:
        return False
    nouns = [t for t in tokens if t.pos_ in ("NOUN", "PROPN")]
    return not any(key(t) == k or categories.is_kind(t, p) for t in nouns for k, p in things)


def _elsewhere(form: Form, tokens: list[Any]) -> bool:
    """Does the clause name a doer or a place the rule does not, where the rule names its own?"""
    rule = list(parse(form.text))
    own = light_keys(form.text)
    doer = next((t for t in rule if t.dep_ == "nsubj" and t.head.dep_ == "ROOT" and t.pos_ == "NOUN"), None)
    if doer is not None and any(t.dep_ == "nsubj" and t.pos_ in ("NOUN", "PROPN") and key(t) not in own
                                for t in tokens):
        return True
    if _places(rule) and any(key(p) not in own for p in _places(tokens)):
        return True
    scoped = _places(rule) or _places(rule, _OCCASION_PREPS)  # "during breaks" for "in the exam"
    return bool(scoped) and any(key(p) not in own for p in _places(tokens, _OCCASION_PREPS))


def grants_against(form: Form, finding: Finding, claim: Claim) -> bool:
    """Does the claim's clause holding the word-level finding permit the forbidden thing, or (for a duty)
    permit or waive the required one?"""
    if finding.rule not in _RULES or form.modality not in ("must", "must_not"):
        return False
    doc = parse(claim.text)
    for c in claim.clauses:
        if c.end <= finding.start or c.start >= finding.end:
            continue
        sent = next((s for s in doc.sents if s.start_char <= c.start < s.end_char), None)
        if sent is not None and sent.text.rstrip().endswith("?"):
            continue
        tokens = [t for t in doc if c.start <= t.idx < c.end]
        if reported(doc[c.head_i]):
            continue  # "Some tenants believe they may bring a puppy": weighed, not granted
        granted = (c.permissive and not c.negated and _grants(c, doc)) or (form.modality == "must" and c.optional)
        if granted and not _elsewhere(form, tokens) and not _grants_other_thing(form, tokens):
            return True
    return False
