"""Word lists and the light stemmer shared by the constraint parser and the claim analyser.

Both sides go through the same ``stem`` and ``concepts`` so a paraphrase ("permits", "accepted",
"is fine") lands on the same concept as the constraint's wording. Everything is data: extending the
guard to a new domain mostly means adding words here.
"""

from __future__ import annotations

import re

STOP = frozenset(
    """a an the of to in on at for from by with and or but is are was were be been being it its
    this that these those as into than then there their they them we you your our he she his her
    i me my so if per via also just only very same other any all every each some such do does did
    done has have had will would shall should must may might can could not no never nor n't""".split()
)

# irregular forms -> base form (before stemming)
IRREGULAR = {
    "kept": "keep",
    "sent": "send",
    "given": "give",
    "gave": "give",
    "written": "write",
    "wrote": "write",
    "shown": "show",
    "held": "hold",
    "got": "get",
    "gotten": "get",
    "put": "put",
    "ran": "run",
    "went": "go",
    "gone": "go",
    "cannot": "can not",
    "can't": "can not",
    "won't": "will not",
    "don't": "do not",
    "doesn't": "does not",
    "didn't": "did not",
    "isn't": "is not",
    "aren't": "are not",
    "wasn't": "was not",
    "weren't": "were not",
    "shouldn't": "should not",
    "mustn't": "must not",
    "mightn't": "might not",
    "couldn't": "could not",
    "wouldn't": "would not",
    "hasn't": "has not",
    "haven't": "have not",
    "needn't": "need not",
    "mfa": "multi factor authentication",
    "2fa": "multi factor authentication",
    "plaintext": "plaintext",
    "cleartext": "plaintext",
}


def stem(word: str) -> str:
    """A deliberately crude, consistent suffix stripper (both sides use it, so it only must agree)."""
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    w = w.strip("'")
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ation") and len(w) > 8:
        w = w[:-5]
    elif w.endswith("ions") and len(w) > 7:
        w = w[:-4]
    elif w.endswith("ion") and len(w) > 6 and w[-4] in "stc":
        w = w[:-3]
    elif w.endswith("ies") or w.endswith("ied"):
        w = w[:-3] + "y"
    elif w.endswith("ment") and len(w) > 7:
        w = w[:-4]
    elif w.endswith("ments") and len(w) > 8:
        w = w[:-5]
    elif w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    elif w.endswith(("sses", "shes", "ches", "xes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss") and not w.endswith("us"):
        w = w[:-1]
    if w.endswith("ment") and len(w) > 7:
        w = w[:-4]
    if w.endswith(("val", "sal", "wal")) and len(w) > 6:  # approval, refusal, renewal
        w = w[:-2]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    return w


def _stems(words: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words.split())


# negators: flip the polarity of their segment
NEGATORS = frozenset(
    "not no never neither nor none nothing nobody without false incorrect untrue instead rather unlike "
    "except".split()
)
# verbs/adjectives that deny or withhold (a claim with one of them denies what it mentions)
DENY = _stems(
    "reject refuse forbid forbidden prohibit disallow block deny ban decline exclude filter redact "
    "prevent skip omit bypass waive exempt disable unsupported invalid impossible unavailable remove "
    "strip mask avoid stop drop optional unnecessary disabled excluded refused blocked"
)
# verbs/adjectives/modals that grant or state possibility
PERMIT = _stems(
    "allow permit accept support tolerate welcome authorize authorise ok okay fine acceptable possible "
    "can could may might let option enable give grant provide add whitelist approve available "
    "enough sufficient"
)
# obligation words: positive, but not permissions
REQUIRE = _stems("must require required mandatory always need needs shall obligatory enforce enforced obliged "
                 "obligated compulsory")
# generic "using" verbs: an affirmative use of something is an assertion about it
USAGE = _stems(
    "use send store place put run deploy host live keep move pay export write save accept sign "
    "register configure choose pick route forward receive get go process submit publish create upload "
    "issue request contact email mail invite replicate copy migrate transfer mirror sync launch provision "
    "enable set"
)
UNIVERSAL = frozenset({"all", "every", "each", "any"})
# head nouns too generic to identify an object on their own ("location data" is about location)
GENERIC = frozenset(
    {"data", "information", "info", "detail", "valu", "content", "item", "thing", "updat", "setting"}
)

# action concepts: a constraint's verb and a claim's verb agree if they share a concept
ACTION_CONCEPTS: dict[str, frozenset[str]] = {
    "APPEAR": _stems("appear include contain list show display present expose carry"),
    "LOG": _stems("log logging logged logger"),
    "STORE": _stems("store save persist keep retain hold cache file"),
    "SEND": _stems("send deliver forward mail email invite go"),
    "SHARE": _stems("share disclose reveal give pass forward expose leak send tell read return"),
    "HAVE": _stems("have get receive hold own obtain grant give"),
    "USE": _stems("use utilize adopt employ run"),
    "HASH": _stems("hash hashing encrypt salt bcrypt"),
    "PRESERVE": _stems("preserve keep maintain retain"),
    "RECEIVE": _stems("receive get obtain access"),
    "PERMIT": PERMIT - _stems("can could may might"),
}

# antonym pairs for obligations ("must be hashed" vs "stored in plaintext")
ANTONYMS: list[tuple[frozenset[str], frozenset[str]]] = [
    (_stems("hash hashed encrypt encrypted bcrypt"), _stems("plaintext unencrypted unhashed raw")),
    (_stems("tls https encrypted"), _stems("http unencrypted plaintext")),
    (_stems("deidentified anonymized anonymised pseudonymized"), _stems("identified identifiable named")),
    (_stems("preserve order ordering"), _stems("reorder reordered shuffle shuffled unordered arbitrary")),
    (_stems("signed"), _stems("unsigned")),
    (_stems("authenticated"), _stems("unauthenticated anonymous")),
]

# phrases that assert the opposite state of a "switched off / disabled / closed" requirement
OPPOSITE_STATE = [
    (
        _stems("off"),
        r"\b(?:stay|stays|remain|remains|kept|keep|left|leave|turned|switched|turn|switch|is|are|be)\s+on\b",
    ),
    (_stems("closed close"), r"\b(?:open|opened|opens|left open|stay open|stays open)\b"),
    (_stems("disabled disable"), r"\b(?:enable|enabled|enables|turn on|switch on)\b"),
]

# synonym sets folded onto one stem before comparison
SYNONYMS: dict[str, str] = {}
for _canon, _words in {
    "null": "null empty missing nil blank absent undefined",
    "domain": "domain domains",
    "deploy": "deploy deploys deployment deployments deploying deployed release",
    "timeout": "timeout timeouts time-out",
    "retry": "retry retries retried retrying reattempt",
    "password": "password passwords passphrase",
    "name": "name names",
    "currency": "currency currencies",
    # category members fold onto their category (a rule about pets is about cats and dogs)
    "pet": "pet pets animal animals cat cats kitten dog dogs puppy hamster hamsters goldfish rabbit parrot",
    "child": "child children kid kids toddler toddlers infant infants",
    "medic": "medication medications medicine medicines ibuprofen paracetamol acetaminophen antibiotic antibiotics",
    "photo": "photo photos photograph photographs photography picture pictures",
    "helmet": "helmet helmets hardhat hardhats",
    "religion": "religion religious faith church mosque synagogue temple worship",
    "identity": "identity identification id ids",
    "software": "software game games app apps program programs",
    "open": "open opened unsealed unseal",
    "ask": "ask inquire enquire query",
    "verify": "verify check checks checked validate",
    "sign": "sign signed signing signature signatures",
}.items():
    for _w in _words.split():
        SYNONYMS[stem(_w)] = stem(_canon)

# kinds of things an allow-list ranges over: member lexicons and patterns
DOMAIN_RE = re.compile(
    r"(?<![\w@.-])(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+"
    r"(?:com|org|net|io|dev|co|uk|de|fr|eu|edu|gov|ai|app|info|biz|us|ca|nl|ch|se|jp)(?![\w-])",
    re.I,
)
EMAIL_RE = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@((?:[a-z0-9-]{1,63}\.){1,10}[a-z]{2,24})", re.I)
REGION_RE = re.compile(
    r"\b(?:us|eu|ap|sa|ca|me|af|il|mx)-(?:north|south|east|west|central|northeast|"
    r"southeast|northwest|southwest)-\d\b",
    re.I,
)
KIND_MEMBERS: dict[str, dict[str, str]] = {
    "currency": {
        w: c
        for c, ws in {
            "EUR": "eur euro euros €",
            "USD": "usd dollar dollars $",
            "GBP": "gbp pound pounds sterling £",
            "JPY": "jpy yen",
            "CHF": "chf franc francs",
            "CNY": "cny yuan renminbi",
            "INR": "inr rupee rupees",
            "CAD": "cad",
            "AUD": "aud",
            "SEK": "sek krona",
            "BTC": "btc bitcoin",
            "MXN": "mxn peso pesos",
            "NOK": "nok dkk krone kroner",
            "PLN": "pln zloty",
            "HKD": "hkd",
            "SGD": "sgd",
            "NZD": "nzd",
        }.items()
        for w in ws.split()
    },
    "colour": {
        w: c
        for c, ws in {
            "blue": "blue",
            "black": "black",
            "red": "red",
            "green": "green",
            "yellow": "yellow",
            "purple": "purple violet",
            "orange": "orange",
            "pink": "pink",
            "white": "white",
            "grey": "grey gray",
            "brown": "brown",
        }.items()
        for w in ws.split()
    },
    "format": {w: w.upper() for w in "json csv xml xlsx xls parquet pdf avro tsv yaml docx ods orc".split()},
    "database": {
        w: c
        for c, ws in {
            "postgresql": "postgres postgresql",
            "mysql": "mysql",
            "mongodb": "mongodb mongo",
            "sqlite": "sqlite",
            "oracle": "oracle",
            "redis": "redis",
            "cassandra": "cassandra",
            "mariadb": "mariadb",
            "dynamodb": "dynamodb",
        }.items()
        for w in ws.split()
    },
}
KIND_WORDS: dict[str, frozenset[str]] = {
    "domain": _stems(
        "domain domains address addresses email emails registry registries host hosts source "
        "sources site sites server servers url urls origin origins website websites"
    ),
    "version": _stems("version versions release releases"),
    "region": _stems("region regions location locations"),
    "currency": _stems("currency currencies"),
    "format": _stems("format formats filetype"),
    "database": _stems("database databases db"),
    "cabin": _stems("class cabin fare"),
    "colour": _stems("colour color colours colors"),
    "payment": _stems("payment payments method methods"),
}

DAYS = {
    "monday": 0,
    "mon": 0,
    "tuesday": 1,
    "tue": 1,
    "wednesday": 2,
    "wed": 2,
    "thursday": 3,
    "thu": 3,
    "friday": 4,
    "fri": 4,
    "saturday": 5,
    "sat": 5,
    "sunday": 6,
    "sun": 6,
}


# multi-word paraphrases: every token of a match takes the canonical stems ("how old" -> age)
PHRASES: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(r"\bhow old\b|\bdates? of birth\b|\byears? of birth\b|\bbirth ?years?\b", re.I), ("age",)),
    (re.compile(r"\bhard hats?\b", re.I), ("helmet",)),
    (re.compile(r"\bfind out\b", re.I), ("ask",)),
    (
        re.compile(r"\b(?:drop|drops|dropped|stop|stops|stopped|pop|pops|popped) (?:by|in|over)\b", re.I),
        ("visit",),
    ),
    (re.compile(r"\bunannounced\b|\bunnotified\b", re.I), ("without", "notic")),
    (re.compile(r"\b(?:bring|brought|send|sent|take|took|taken|give|gave|given) back\b", re.I), ("return",)),
]
# phrasal verbs whose particle may come after the object: the verb token gains the stems
PHRASAL = [
    (re.compile(r"\b(?P<v>take|takes|took|taken|taking)\s+(?:\w+\s+){0,3}?off\b", re.I), ("remov",)),
]


def norm_stem(word: str) -> str:
    """Stem, then fold synonyms onto one canonical stem."""
    s = stem(word)
    return SYNONYMS.get(s, s)
