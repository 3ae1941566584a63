"""Who a named doer is: the role the claim's own grammar or a cited chunk's roster gives a person.

Why: a rule that reserves an action for a role ("Only the head distiller may change the cut points") is
broken by a doer of another role, and kept by the reserved one. A doer known only by a name ("the cut was
changed by Rory Abernethy") says neither, so such a finding was REVIEW. But the claim often says who the
person is in the same noun phrase: a title before the name ("stillman Rory Abernethy", "Assistant stage
manager Lotte Fenn"), an apposition ("Jake Whitlock, a second-year apprentice", "Jamie Ortiz, one of our
volunteer docents", "a non-clinical dispatcher, Omar Said"); and a cited chunk often says it in a roster,
under the person's initials ("R. Abernethy" for "Rory Abernethy"): "K. Dunmore (audiology assistant)",
"Tom Reed - work-experience student", "stage manager I. Kato; lighting board operator P. Alvi", "chief
referee - Dario Pemberton", "M. Ilves, ramp marshal".

What settles the rule: a description that names the reserved role with its qualifiers keeps it; one that
denies the qualifier ("not yet on the register", "uncertified", "trainee") or names another role outright
breaks it. Another role breaks a rule only when the rule reserves the action for a role (a head noun such
as "distiller", "audiologist", "chief referee"); where it reserves it for a credential held by a group
("crew holding a Level 2 certificate", "officers who have completed the search course", "staff with ..."),
a job title says nothing of the credential, and only a denial settles it. A cited chunk speaks first (it
is the record); the claim's own words only where no chunk says who the person is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from abilities.scu_guard import wordnet
from abilities.scu_guard.denials import without_numero
from abilities.scu_guard.forms import GENERIC, Form
from abilities.scu_guard.nlp import key, light_keys, parse, word_key
from abilities.scu_guard.reserved import alternatives, desc_keys, has_key

# words that deny a description its credential: "not yet on the register", "no keeper licence",
# "certification pending", "course booked for May" (not yet taken), "trainee", "uncertified"
_DENY_RE = re.compile(r"\b(?:not|no|none|never|without|pending|awaiting|booked|scheduled|expired|lapsed|revoked|suspended|"
                      r"trainee|apprentice|probationer|pre-registration|student|candidate|applicant|provisional|"
                      r"un[a-z]+(?:ed|ified)|non-?\s*[a-z]+)\b", re.I)
# a group noun a rule qualifies with a credential: another job title says nothing of the credential
_GROUP_NOUNS = frozenset(word_key(w) for w in "member person people staff worker individual employee crew team "
                                                "personnel operative officer colleague".split())
_NEGATION_RE = re.compile(r"\b(?:not|no|none|never|without)\b", re.I)
# a level, grade or class with its number ("Level 2", "NC2", "Class 3"): a lower one of the same label lacks it
_LEVEL_RE = re.compile(r"\b(?P<label>[A-Za-z]+)\s?(?P<n>\d{1,2})\b")
# agentive endings of a noun that names a person ("operator", "foreman", "chemist", "trainee"): a word before
# a name in a chunk is a title only with one ("signature J. Farrant", "sign-off - E. Ruiz" are field labels)
_PERSON_NOUN_RE = re.compile(r"(?:er|or|ist|ian|ant|ent|man|men|ee|eer|ess|ive|ic|ain|al|ot|ef|ard|ide)s?$", re.I)
_TITLES_RE = re.compile(r"^(?:dr|mr|mrs|ms|miss|mx|prof)\.?$", re.I)
_DASH = "-\u2013\u2014"


def _agent_token(form: Form) -> Any | None:
    """The rule's reserved-doer noun in its parse ("distiller" of "Only the head distiller may ...")."""
    for t in parse(form.text):
        if t.pos_ in ("NOUN", "PROPN") and key(t) in form.agents:
            return t
    return None


@lru_cache(maxsize=2048)
def _role_rule(form_text: str, agents: tuple[str, ...]) -> bool:
    """Does the rule reserve the action for a role (a head noun with at most adjectives: "the licensed
    pyrotechnician") rather than for a credential a group holds ("crew holding a Level 2 certificate",
    "officers who have completed ...", "staff with a current CWI qualification")?"""
    tok = next((t for t in parse(form_text) if t.pos_ in ("NOUN", "PROPN") and key(t) in agents), None)
    if tok is None:
        return False
    every = [tok, *tok.conjuncts]  # "a registered courier or a member of the retrieval team"
    return not any(key(t) in _GROUP_NOUNS or any(c.dep_ in ("acl", "relcl", "prep") for c in t.children)
                   for t in every)


def _head_noun(desc: str) -> Any | None:
    """The head noun of a description ("the optical assistant covering the weekend" -> assistant)."""
    # with an article, a bare role word is read as a noun ("the warden", not the verb "warden")
    doc = parse(desc if re.match(r"(?:the|a|an|our|their|one|some)\b", desc, re.I) else f"the {desc}")
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None:
        return None
    if root.lower_ in ("one", "some", "each", "any") or root.pos_ == "NUM":  # "one of our volunteer docents"
        root = next((g for p in root.children if p.lower_ == "of" for g in p.children if g.dep_ == "pobj"), root)
    return root if root.pos_ in ("NOUN", "PROPN") else None


def _lower_level(form: Form, desc: str) -> bool:
    """Does the description give a lower level of a label the rule qualifies its doer with ("Level 1" for
    "Level 2", "NC1" for "NC2")? The rule's amount scope ("cases above 2") is no level: only a label that
    also labels the doer, in the rule's phrase for the doer."""
    tok = _agent_token(form)
    if tok is None:
        return False
    phrase = " ".join(t.text for t in tok.subtree)  # "a Level 2 certified inspector", "operatives holding ..."
    rule_levels = {m.group("label").lower(): int(m.group("n")) for m in _LEVEL_RE.finditer(phrase)}
    return any(m.group("label").lower() in rule_levels and int(m.group("n")) < rule_levels[m.group("label").lower()]
               for m in _LEVEL_RE.finditer(desc))


def _similar(a: str, b: str) -> bool:
    """Same key, or one word's derivation of the other ("licence"/"licensed"): five letters in common."""
    return a == b or (len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5])


# words that make a title a post under the one they qualify ("deputy arbiter", "assistant stage manager",
# "vice captain"), and words that name the top of a line ("chief arbiter", "head brewer")
_UNDER_RE = re.compile(r"\b(?:deputy|assistant|vice|sub|under|associate)\b", re.I)
_TOP = frozenset(word_key(w) for w in "chief head lead principal senior master".split())


def _under_post(form: Form, desc: str, head: Any) -> bool:
    """Is the description the reserved title with a word that puts it under that post ("deputy arbiter" for
    "the chief arbiter", "assistant stage manager" for "the stage manager")? The rule's title must name the top
    of its line or be given whole in the description, and the rule must not itself name the lower post."""
    if key(head) not in form.agents or _UNDER_RE.search(form.text):
        return False
    under = [t for t in head.subtree if t.i < head.i and _UNDER_RE.fullmatch(t.text)]
    if not under:
        return False
    quals = set(form.agent_qualifiers)
    return bool(quals & _TOP) or bool(quals) and quals <= set(light_keys(desc))


def _reserved_nouns(form_text: str, agents: tuple[str, ...]) -> list[Any]:
    """The rule's reserved nouns: the doer noun and its plain conjuncts ("a doctor or a registered nurse"), not
    a group qualified by a clause or a phrase ("a member of the retrieval team": the phrase is the role)."""
    tok = next((t for t in parse(form_text) if t.pos_ in ("NOUN", "PROPN") and key(t) in agents), None)
    if tok is None:
        return []
    return [t for t in (tok, *tok.conjuncts) if t.pos_ == "NOUN" and key(t) not in _GROUP_NOUNS
            and not any(c.dep_ in ("acl", "relcl", "prep") for c in t.children)]


@lru_cache(maxsize=4096)
def _reserved_kind(form_text: str, agents: tuple[str, ...], head: str, lemma: str,
                   desc_keys: frozenset[str]) -> tuple[bool, bool | None]:
    """(is a description's head noun one of the rule's reserved nouns or, by WordNet, a kind of one: "father"
    for "parent"; does it hold it). It holds it when the description also has that noun's own qualifiers
    ("registered nurse") or the noun has none; it is left open (None) where the record leaves them out ("the
    nurse in charge" for "a registered nurse")."""
    for t in _reserved_nouns(form_text, agents):
        if key(t) == head or wordnet.is_a(lemma, t.lemma_.lower()):
            quals = {key(c) for c in t.children if c.dep_ in ("amod", "compound")} - GENERIC
            return True, (True if quals <= desc_keys else None)
    return False, None


@lru_cache(maxsize=2048)
def _names_its_doers(form_text: str, agents: tuple[str, ...]) -> bool:
    """Does the rule name its reserved doers by proper names right after their noun ("the licensed carriers
    Greenway Recycling or TyreCycle Ltd", "approved contractors such as Apex Lifts")?"""
    return any(key(t) in agents and t.pos_ == "NOUN" and t.i + 1 < len(t.doc) and re.match(
        r"(?:such as )?[A-Z]", t.doc[t.i + 1:].text) is not None for t in parse(form_text))


def describes(form: Form, desc: str) -> bool | None:
    """Does a description of a person give the rule's reserved doer (True), deny it (False), or say
    nothing of it (None)? True needs the reserved noun with every qualifier and no denial; False needs
    a denial of something the rule names, or, for a rule that reserves a role, another role noun."""
    desc = without_numero(desc).strip(" ,;.:#" + _DASH)  # "warrant no. 118": a serial, not a denial
    if not desc or not re.search(r"[a-z]", desc):
        return None
    head = _head_noun(desc)
    dk = set(light_keys(desc)) | ({key(head)} if head is not None else set())
    agents, quals = set(form.agents), set(form.agent_qualifiers)
    reserved = agents | quals | set().union(*alternatives(form))
    shares = any(_similar(k, r) for k in dk for r in reserved)
    if _DENY_RE.search(desc) and (shares or _NEGATION_RE.search(desc)):
        return False if shares else None
    if _lower_level(form, desc):
        return False  # "Level 1 inspector" for "a Level 2 certified inspector"
    if head is None:
        return None
    hk = key(head)
    if _under_post(form, desc, head):
        return False  # "deputy arbiter" for "the chief arbiter"
    if _DENY_RE.search(desc) and hk not in agents:
        return False if _role_rule(form.text, tuple(form.agents)) and head.pos_ == "NOUN" else None
    if hk in agents:
        own = {key(c) for c in head.children if c.dep_ in ("amod", "compound")} - GENERIC
        return True if quals <= dk and own <= quals | agents else None
    one, holds = _reserved_kind(form.text, tuple(form.agents), hk, head.lemma_.lower(), frozenset(dk))
    if one:
        return holds  # "father" for "a parent", "registered nurse" for "a doctor or a registered nurse"
    if _names_its_doers(form.text, tuple(form.agents)):
        # "the licensed carriers Greenway Recycling or TyreCycle Ltd": firms named, whose staff have job titles;
        # one who works for a named firm ("driver for TyreCycle Ltd") does it for that firm, a bare title says
        # nothing of which firm
        names = [alt - quals for alt in alternatives(form)]
        return True if any(n and all(any(_similar(k, r) for k in dk) for r in n) for n in names) else None
    if head.pos_ != "NOUN" or not _role_rule(form.text, tuple(form.agents)):
        return None  # a code or a name ("CWI") may be a credential; a group's credential is not a job title
    if hk in GENERIC or hk in _GROUP_NOUNS or any(_similar(hk, a) for a in agents | quals):
        return None
    if any(alt and all(any(_similar(k, r) for k in dk) for r in alt) for alt in alternatives(form)):
        return None  # the description holds every word of one reserved description
    return False


# ---- the claim's own words ----------------------------------------------------------------------------

def doer_token(doc: Any, text: str) -> Any | None:
    """The token whose subtree is the doer's text (as the clause reader wrote it)."""
    for t in doc:
        if " ".join(w.lower_ for w in t.subtree) == text:
            return t
    return None


def _phrase(tok: Any) -> str:
    """A noun with its own left modifiers, without articles or possessives ("our volunteer docents")."""
    left = [t for t in tok.subtree if t.i <= tok.i and t.dep_ in ("amod", "compound", "nmod", "npadvmod")
            or t.i == tok.i or (t.text == "-" and t.i < tok.i)]
    left = [t for t in left if t.i >= min((x.i for x in left if x.dep_ != "punct"), default=tok.i)]
    return " ".join(t.text for t in sorted(left, key=lambda x: x.i)).replace(" - ", "-")


def claim_descriptions(claim_text: str, doer_text: str) -> tuple[list[str], list[str]]:
    """(the name of a doer, as capitalised words; what the claim says the person is): a title before the
    name ("stillman Rory Abernethy"), an apposition ("Jake Whitlock, a second-year apprentice"), or the
    role the name is in apposition to ("a non-clinical dispatcher, Omar Said")."""
    doc = parse(claim_text)
    tok = doer_token(doc, doer_text)
    if tok is None:
        return [], []
    descs: list[str] = []
    person = tok
    if tok.pos_ == "NOUN":
        person = next((c for c in tok.children if c.dep_ == "appos" and c.pos_ == "PROPN"), None)
        if person is None:
            return [], []
        descs.append(_phrase(tok))
        tok_deny = [t.text for t in tok.subtree if t.i < tok.i and _DENY_RE.fullmatch(t.text)]
        if tok_deny:
            descs[-1] = " ".join(tok_deny) + " " + descs[-1]
    if person.pos_ != "PROPN":
        return [], []
    name = [t for t in person.subtree if t.pos_ == "PROPN" and (t.i == person.i or t.dep_ == "compound"
                                                               and t.head.i == person.i) and t.text[:1].isupper()]
    name_start = min((t.i for t in name), default=person.i)
    for c in person.children:
        if c.i < name_start and c.dep_ in ("compound", "amod", "nmod") and c.pos_ in ("NOUN", "ADJ"):
            title = [t for t in c.subtree if t.dep_ not in ("det", "poss", "case", "punct")]
            if title and all(t.text[:1].islower() or t.i == title[0].i for t in title):
                descs.append(" ".join(t.text for t in title))
        if c.dep_ == "appos" and c.pos_ in ("NOUN", "NUM"):
            desc = _phrase(c) if c.pos_ == "NOUN" else " ".join(t.text for t in c.subtree)
            denial = [t.text for t in c.subtree if t.i < c.i and _DENY_RE.fullmatch(t.text)]
            descs.append(" ".join(denial + [desc]))
    descs.extend(_pending_clauses(person))
    names = [t.text for t in sorted(name, key=lambda x: x.i) if not _TITLES_RE.match(t.text)]
    if len(names) >= 3 and name_start == 0 and re.fullmatch(r"[A-Z]\.", names[1]) and wordnet.senses(
            names[0].lower()) and wordnet.names_person(names[0].lower()) is not False:
        names = names[1:]  # "Driver R. Shaw took ...": a title capitalised as the sentence's first word
    return names, descs


# words that say a course or a credential is not had yet ("partway through his type-rating training")
_NOT_YET_RE = re.compile(r"\b(?:partway|part-way|halfway|midway|in progress|still)\b", re.I)


def _pending_clauses(person: Any) -> list[str]:
    """Relative clauses on a named doer (or on the role in apposition to the name) that deny or defer what they
    name: "Kim, whose laser safety course is booked for 12 May", "Kit Fry, our weekend volunteer, who's booked on
    the spraying course", "D. Price, who is partway through his type-rating training". Each is a description of
    its own; it settles the rule only where it shares a word with the rule's doer or credential (see
    ``describes``). A clause that says the person is past a state ("no longer a trainee") or holds the credential
    and only its renewal is ahead ("whose current certificate's refresher is booked") says nothing."""
    out = []
    for host in (person, *(c for c in person.children if c.dep_ == "appos")):
        for c in host.children:
            if c.dep_ != "relcl":
                continue
            text = " ".join(t.text for t in c.subtree)
            if re.search(r"\bno longer\b|\b(?:current|valid|renewal|refresher|revalidation|re-?certification)\b",
                         text, re.I) or not (_DENY_RE.search(text) or _NOT_YET_RE.search(text)):
                continue
            out.append(text if _DENY_RE.search(text) else f"pending {text}")
    return out


def same_given_name(claim_text: str, words: Sequence[str], surname: str, full: str) -> bool:
    """May the chunk's "H. Moss" be the claim's "Ilona Moss"? Not when the claim gives the person a first
    name whose initial (or whole word) differs from the one the chunk gives."""
    at = [n for n, w in enumerate(words) if w == surname]
    given = words[at[0] - 1] if at and at[0] > 0 else ""
    if not given or _TITLES_RE.match(given) or not re.search(rf"\b{re.escape(given.capitalize())}\b", claim_text):
        return True  # the claim names no first name ("Moss", "mechanic Moss")
    parts = full.split()
    other = parts[parts.index(surname.capitalize()) - 1] if surname.capitalize() in parts[1:] else ""
    if not other or not other[:1].isupper() or _TITLES_RE.match(other):
        return True
    if re.fullmatch(r"[A-Z]\.?", other):
        return other[0].lower() == given[0].lower()
    return other.lower() == given.lower()


def _own_tokens(tok: Any) -> list[Any]:
    """A doer's noun phrase without the clauses that hang from it ("Josie Farrant, the trainee who had tested
    him": "tested" is what she did before, not part of who she is)."""
    cut = {d.i for c in tok.subtree if c.dep_ in ("relcl", "acl", "advcl") for d in c.subtree}
    return [t for t in tok.subtree if t.i not in cut]


def doer_keys(claim_text: str, doer_text: str) -> set[str] | None:
    """The keys of a doer's own noun phrase (see ``_own_tokens``), None when the phrase is not found."""
    tok = doer_token(parse(claim_text), doer_text)
    if tok is None:
        return None
    return {key(t) for t in _own_tokens(tok) if t.pos_ in ("NOUN", "PROPN", "ADJ", "VERB", "NUM")}


def is_patient(claim_text: str, doer_text: str) -> bool:
    """Is a clause's subject what is done to, with the doer after "by" ("The M2 eight was coxed by Jamie
    Cole", parsed with "coxed" as the complement of "was")?"""
    tok = doer_token(parse(claim_text), doer_text)
    if tok is None or tok.dep_ not in ("nsubj", "nsubjpass"):
        return False
    verbs = [tok.head, *(c for c in tok.head.children if c.dep_ in ("acomp", "xcomp") and c.tag_ == "VBN")]
    return any(g.dep_ == "agent" for v in verbs for g in v.children)


# ---- a cited chunk's roster -------------------------------------------------------------------------------

_NAME_WORD = r"[A-Z][a-z'\-]+"
_SEGMENT_RE = re.compile(r"(?<=[;\n])|(?<=[a-z0-9)]\.)\s+(?=[A-Z])")


def _mentions(names: Sequence[str], text: str) -> Iterator[re.Match[str]]:
    """Where a chunk names the person: the full name, the surname after the first name's initial ("R.
    Abernethy" for "Rory Abernethy") or after a title ("Dr Lowe"), or a one-word name alone."""
    if not names:
        return
    last = re.escape(names[-1])
    if len(names) >= 2:
        first = names[0]
        pat = rf"(?<![\w.])(?:{re.escape(first)}|{re.escape(first[0])}\.?)\s+(?:{_NAME_WORD}\s+)?{last}(?![\w-])"
    else:
        pat = rf"(?<![\w-]){last}(?![\w-])"
    yield from re.finditer(pat, text)


def _segments(text: str) -> Iterator[tuple[int, str]]:
    """(offset, piece) of a chunk: its sentences and the parts of a list between semicolons."""
    pos = 0
    for piece in _SEGMENT_RE.split(text):
        if piece is None:
            continue
        at = text.find(piece, pos)
        pos = at + len(piece)
        yield at, piece


_AFTER_RE = re.compile(rf"^\s*(?:\((?P<paren>[^)]*)\)(?:\s*[{_DASH}]\s*(?P<more>[^;()]*))?|[{_DASH}:]\s*(?P<dash>[^;()]*)|,\s*(?P<comma>[a-z][^;(]*))")
_BEFORE_RE = re.compile(rf"(?:^|[:;,(]|\bby)\s*(?P<role>(?:[a-z][\w-]*\s+){{1,4}}?)(?:[{_DASH}]\s+)?$")
# the longest later part of a "Name, role, state" entry read as a description of its own ("clearance pending")
_PART_WORDS = 4
_OTHER_NAME_RE = re.compile(rf"^\s*(?:,|and|&)\s+(?:(?:[A-Z]\.\s?|{_NAME_WORD}\s+)?{_NAME_WORD})")


def chunk_descriptions(names: Sequence[str], chunks: Sequence[str]) -> list[str]:
    """What the cited chunks say the named person is, read from the punctuation of a roster: "Name
    (role)", "Name - role", "Name, role", "role Name" (a title; "sign-off - E. Ruiz" is a field's label). A
    "Name, role, state" entry gives each short later part too: "L. Brandt, agency, clearance pending" says what
    the person lacks after the role."""
    out: list[str] = []
    for text in chunks:
        for _, seg in _segments(text):
            for m in _mentions(names, seg):
                after = seg[m.end():]
                if _OTHER_NAME_RE.match(after):
                    continue  # "Priya Nair and Marcus Bell - couriers": a list, read by the roster reader
                a = _AFTER_RE.match(after)
                if a:
                    desc = a.group("paren") or a.group("dash") or a.group("comma") or ""
                    out.append(desc.split(",")[0] if a.group("comma") else desc)
                    if a.group("comma"):  # "L. Brandt, agency, clearance pending": each short part says something
                        out.extend(p for p in desc.split(",")[1:] if len(p.split()) <= _PART_WORDS)
                    if a.group("more"):  # "Dilan Kaya (Turkish) - Trainee status"
                        out.append(a.group("more"))
                b = _BEFORE_RE.search(seg[: m.start()])
                if b and _head_noun(b.group("role").strip()) is not None and _PERSON_NOUN_RE.search(
                        b.group("role").strip()):
                    out.append(b.group("role"))
    return [d for d in out if d.strip()]


def settle(form: Form, descs: Sequence[str]) -> bool | None:
    """One answer from several descriptions: True or False when they agree, None when they conflict or
    none says anything of the rule's doer."""
    said = {describes(form, d) for d in descs} - {None}
    return next(iter(said)) if len(said) == 1 else None


def _sentence_title(names: list[str], own: list[str], claim_text: str,
                    chunks: Sequence[str]) -> tuple[list[str], list[str]]:
    """A title capitalised only because it opens the sentence ("Counsellor Jake gave ...", "EMT Jordan Lee
    administered ..."): the first word of a name that opens a sentence is a title when a cited chunk uses it as
    a common noun ("J. Moreno, counsellor") or gives it as what the rest of the name is ("J. Lee (EMT)"). Then
    the rest is the name and the word a description. A surname that is also a noun ("Carter", "Dean") opens a
    name only where no chunk writes it so."""
    first = names[0]
    if len(names) < 2 or len(first) < 3 or first.endswith(".") or _TITLES_RE.match(first):
        return names, own
    opens = re.search(rf"(?:^|[.!?;:]\s+|\n)\s*{re.escape(first)}\s+{re.escape(names[1])}(?![\w-])", claim_text)
    if opens is None:
        return names, own
    rest = names[1:]
    common = re.compile(rf"(?<![\w-]){re.escape(first.lower())}(?![\w-])")
    if any(common.search(t) for t in chunks) or any(
            d.strip(" ,;.:").lower() == first.lower() for d in chunk_descriptions(rest, chunks)):
        return rest, [*own, first.lower()]
    return names, own


def named_role(form: Form, claim_text: str, doer_text: str,
               chunks: Sequence[str]) -> tuple[bool | None, set[str] | None]:
    """(does a doer named in the claim hold the rule's reserved role, the keys of the description that
    says so): a cited chunk's roster first, then the claim's own title or apposition."""
    names, own = claim_descriptions(claim_text, doer_text)
    if not names:
        return None, None
    names, own = _sentence_title(names, own, claim_text, chunks)
    told = chunk_descriptions(names, chunks)
    for descs in (told, own):
        holds = settle(form, descs)
        if holds is not None:
            return holds, set().union(*(light_keys(d) for d in descs))
    if _holds_credential(form, [*told, *own]):
        return True, set().union(*(light_keys(d) for d in [*told, *own]))
    return None, None


@lru_cache(maxsize=2048)
def credential_keys(form_text: str, agents: tuple[str, ...]) -> frozenset[str]:
    """Keys of what a rule's reserved noun must hold ("sworn inspectors holding a warrant card" -> warrant,
    card): the object of a "holding"/"having"/"with" phrase hanging from the noun."""
    tok = next((t for t in parse(form_text) if t.pos_ in ("NOUN", "PROPN") and key(t) in agents), None)
    if tok is None:
        return frozenset()
    for c in tok.children:
        if c.dep_ in ("acl", "prep") and c.lower_ in ("holding", "having", "with", "carrying"):
            obj = next((g for g in c.children if g.dep_ in ("dobj", "pobj")), None)
            if obj is not None:
                return frozenset(key(t) for t in obj.subtree if t.pos_ in ("NOUN", "PROPN", "ADJ")) - GENERIC
    return frozenset()


def _holds_credential(form: Form, descs: Sequence[str]) -> bool:
    """Do a doer's descriptions, the record's and the claim's together, give the reserved noun and every word of
    the credential it must hold ("inspector M. Hofer" in the log, "Martin Hofer, warrant card 118" in the
    claim), with none denying anything?"""
    cred = credential_keys(form.text, tuple(form.agents))
    if not cred or any(describes(form, d) is False for d in descs):
        return False
    heads = {key(h) for h in map(_head_noun, (d.strip(" ,;.:" + _DASH) for d in descs if d.strip())) if h is not None}
    got = set().union(*(light_keys(d) for d in descs)) if descs else set()
    return bool(heads & set(form.agents)) and all(any(_similar(k, g) for g in got) for k in cred)


# a doer's own phrase that says the person holds something: a relative clause of holding ("who holds a current
# IPAF card", "whose NPLQ runs to March 2026"), a credential's past participle ("a certified banksman"), "with a"
_HOLDING_RE = re.compile(r"\bwho(?:'s|\s+is|\s+was)?\s+(?:holds?|held|has|had|carries|carried|possesses)\b|\bwhose\b|"
                         r"\b(?:certified|licensed|qualified|registered|accredited|ticketed)\b|\bholding\b", re.I)
# words that deny, defer or only suppose what the phrase names ("who doesn't", "whose course is booked", "will")
_STATED_DENY_RE = re.compile(r"\b(?:not|no|none|never|without|n't|yet|pending|awaiting|booked|scheduled|expired|"
                             r"expires?|lapsed|revoked|suspended|partway|part-way|trainee|apprentice|student|"
                             r"provisional|will|would|should|once|until|after|before|if)\b|\bun[a-z]+(?:ed|ified)\b|"
                             r"\bnon-?\s*[a-z]", re.I)
# words of a credential that say what kind of paper it is or that it is in force, not which credential it is
_PAPER_KEYS = frozenset(word_key(w) for w in "licence license card certificate certification qualification ticket "
                                               "permit registration valid current".split())


def states_credential(form: Form, doer_text: str) -> bool:
    """Does the claim's own phrase for the doer say, as a plain fact, that the person holds the credential the
    rule requires ("Sian, who holds a current IPAF card" for "workers holding a valid IPAF licence", "Bosun
    Kelly, a certified banksman" for "deck crew holding a banksman certificate")? The phrase must hold a word of
    holding, deny or defer nothing, and name the credential by every word that says which one it is (an
    abbreviation the rule writes in capitals is enough: "NPLQ"); words of paper ("card", "licence") and of force
    ("valid") may differ."""
    cred = credential_keys(form.text, tuple(form.agents))
    if not cred or not _HOLDING_RE.search(doer_text) or _STATED_DENY_RE.search(doer_text):
        return False
    got = desc_keys(doer_text)
    caps = {word_key(w) for w in re.findall(r"\b[A-Z]{2,}[A-Z0-9]*\b", form.text)} & cred
    if caps and any(has_key(got, k) for k in caps):
        return True
    which = cred - _PAPER_KEYS
    return bool(which) and all(has_key(got, k) for k in which)


def group_for_group(form: Form, words: set[str]) -> bool:
    """Does a doer named by one body-of-people noun ("team", "crew") stand for a rule's other such noun ("staff"),
    the rule qualifying its body by what it holds ("licensed bar staff")? Such nouns say only that several people
    act together, so the qualifiers alone tell who is meant."""
    return bool(form.agents) and bool(form.agent_qualifiers) and set(form.agents) <= _GROUP_NOUNS and \
        bool(words & _GROUP_NOUNS)
