"""What kind of words an answer must hold: a frequency, a duration, an amount.

"How often…" is answered by a sentence that says how often ("three times a week"),
"How long…" by one that says for how long ("since 2016", "for two years"). A
sentence that shares the question's words but holds no such phrase is about the
topic, not an answer to the question; without one, the notes do not say.
"How many…" is not checked: a count is usually spread over several notes ("How many
times has she been to the beach?"), which quoting, not one sentence, answers.
"""

from __future__ import annotations

import re

from footnote.text import EMAIL, NUMBER_WORDS, PHONE, terms

_NUMBER = (
    r"(?:\d[\d,.]*|"
    + "|".join(
        sorted(
            (re.escape(w) for w in NUMBER_WORDS if w not in ("a", "an", "one")),
            key=len,
            reverse=True,
        )
    )
    + r"|a\s+couple|a\s+few|several|dozens?|hundreds?|thousands?)"
)
_UNIT = r"(?:second|minute|hour|day|night|week|weekend|month|year|decade|semester|season)s?"

_FREQUENCY = re.compile(
    # "times", not "time": "I had a great time" says nothing of how often
    r"\b(?:every|each|daily|nightly|weekly|monthly|yearly|annually|once|twice|thrice|"
    r"times|often|usually|always|regularly|sometimes|occasionally|rarely|never|"
    rf"per\s+{_UNIT}|a\s+{_UNIT})\b",
    re.IGNORECASE,
)
_DURATION = re.compile(
    # "a week" is a duration, "three times a week" a frequency; "one day I decided" is
    # neither, "for one day" is; "since 2016" is, "since it was raining" is not.
    rf"\b(?:{_NUMBER}\s+(?:more\s+)?{_UNIT}|"
    rf"(?:for|about|over|nearly|almost|around|just)\s+(?:a|an|one)\s+{_UNIT}|"
    rf"(?<!times\s)(?<!once\s)(?<!twice\s)(?<!one\s)(?:a|an)\s+(?:more\s+)?{_UNIT}|"
    r"(?:ever\s+)?since\s+(?:\d+|last\b|then\b|childhood\b|high\s+school\b|college\b|"
    r"i\b|we\b|my\b|our\b|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)|"
    r"all\s+(?:my|his|her|their|our)\s+(?:life|lives)|"
    r"for\s+(?:ages|years|months|weeks|a\s+while|a\s+long\s+time)|a\s+long\s+time|"
    # as notes write it short: "71 min", "2hrs", "45mins", "1.5h"
    r"\d+(?:\.\d+)?\s*(?:mins?|hrs?|h|secs?|wks?|yrs?))\b",
    re.IGNORECASE,
)
# (a figure may carry its unit: "500mg", "5km", "2x"; not "13th", "5pm")
_UNITS_GLUED = "mg|mcg|g|kg|ml|l|km|m|cm|mm|k|x|hrs?|h|mins?|lbs?|oz|ft|gb|mb|tb|w|kw|v|bpm|sqm|kwh"
_AMOUNT = re.compile(
    rf"[$€£¥]\s*\d|\b{_NUMBER}\b|\b\d[\d,.]*(?:{_UNITS_GLUED})\b|%|\bpercent\b", re.IGNORECASE
)

# Money: a number with its currency ("4€", "$400/week", "¥14,170", "145k", "2,400 EUR"),
# or a price as a shopping list writes it, bare with two decimals ("Coffee beans 8.99",
# "Milch 1,19"; not "2.49%", "v2.10", "26.11.2026").
_MONEY = re.compile(
    r"[$€£¥₹]\s*\d|\d[\d,.]*\s*(?:[kK]\b|[$€£¥₹]|(?:eur|usd|gbp|sek|nok|dkk|chf|jpy|"
    r"euros?|dollars?|bucks|pounds|quid|yen)\b)|(?<![\w.,:/-])\d{1,5}[.,]\d{2}(?![\w,:%/-]|[.,]\d)",
    re.IGNORECASE,
)
MONEY = _MONEY

# An amount per unit: "$38/kg", "$24/head", "€95pp", "$25 a head", "€0.10 per word",
# "2.25 cups each" — what "How much per kilo…?" or "How much per head…?" asks for.
_RATE = re.compile(
    r"\d[\d,.]*[kK]?\s*(?:[^\W\d_]+\.?\s+){0,2}?(?:/\s*[a-z]|(?:per|an?)\s+[a-z]|"
    r"(?:pp|pppn|ea|each)\b)",
    re.IGNORECASE,
)
RATE = _RATE
# Units a price is given per. Not the units of time: "How much is Netflix a month?" is
# answered by "Netflix €12.99", its month unsaid.
_RATE_UNITS = (
    r"head|person|people|guest|adult|child|kid|student|pupil|member|ticket|plate|portion|serving|meal|"
    r"kilo|kg|lb|pound|litre|liter|gallon|dozen|jar|bottle|box|bag|lesson|session|class|"
    r"visit|dose|word|page|mile|km|unit|item|square"
)
# "per kilo", "a head", "each lesson": the unit a price is asked per
_PER_UNIT = re.compile(rf"\b(?:per|an?|each)\s+(?:{_RATE_UNITS})s?\b", re.IGNORECASE)
# "How much per kilo…?", "How much a head is…?", "how much is the coach per student?"
_ASKS_RATE = re.compile(rf"\bhow\s+much\b[^?]*?{_PER_UNIT.pattern}", re.IGNORECASE)


# A price that may be given per unit without its currency: "what rate does Lumen pay per
# word?" is answered by "rate 0.10/word"
MONEY_OR_RATE = re.compile(f"{_MONEY.pattern}|{_RATE.pattern}", re.IGNORECASE)


def per_unit_asked(question: str) -> bool:
    """The question names a unit a price is given per ("per word", "a head")."""
    return _PER_UNIT.search(question) is not None


def asks_rate(question: str) -> bool:
    """The question asks a price per unit: "How much per head is the school paying?" is
    not answered by a total."""
    return _ASKS_RATE.search(question) is not None


def rate_terms(question: str) -> frozenset[str]:
    """The terms of the unit a rate question asks per ("per", "head"): a sentence stating
    a rate ("€95pp", "$38/kg") says them, whatever its abbreviation."""
    if not asks_rate(question):
        return frozenset()
    return frozenset(t for m in _PER_UNIT.finditer(question) for t in terms(m.group(0)))


# A price of time as notes write it short ("€13.50/h", "$95 a night", "£725 pcm", "£14ph"):
# the question's unit ("per hour") and what writes a price in it. Only the unit is read
# from such a line, not the kind of answer: "How much is Netflix a month?" is still
# answered by "Netflix €12.99".
_PER_TIME = re.compile(r"\b(?:per|an?|each)\s+(hour|day|week|month|year|night)s?\b", re.I)
_TIME_SPELLINGS = {
    "hour": r"/\s*(?:h|hr|hrs|hour)|p/?h|\s*(?:per|an?)\s+hour|\s*hourly",
    "day": r"/\s*(?:d|day)|p/?d|\s*(?:per|an?)\s+day|\s*daily",
    "week": r"/\s*(?:w|wk|week)|p/?w|\s*(?:per|an?)\s+week|\s*weekly",
    # ("6pm" is a time of day: "pcm" and "/mo" are the month's)
    "month": r"/\s*(?:m|mo|mth|month)|pcm|\s*(?:per|an?)\s+month|\s*monthly",
    "year": r"/\s*(?:y|yr|year|a)|pa|\s*(?:per|an?)\s+year|\s*(?:yearly|annually)",
    "night": r"/\s*(?:n|nt|night)|p/?n|\s*(?:per|an?)\s+night|\s*nightly",
}
_PRICE_IN = {
    unit: re.compile(rf"\d[\d,.]*[kK]?(?:{spelled})(?![a-z])", re.IGNORECASE)
    for unit, spelled in _TIME_SPELLINGS.items()
}


def time_rate(question: str) -> tuple[frozenset[str], re.Pattern[str]] | None:
    """ "What is Ayla on per hour?": the question's terms for the unit of time ("per",
    "hour") and what states a price in it ("€13.50/h"); None for a question asking per
    no unit of time."""
    found = _PER_TIME.search(question)
    if found is None:
        return None
    return frozenset(terms(found.group(0))), _PRICE_IN[found.group(1).lower()]


# A number, code or reference ("KX7M2Q", "22-8-35", "IL-77820193", "sunflower2026",
# "07700 900 412") holds digits; an email address an "@".
_IDENTIFIER = re.compile(r"\b(?=[\w-]*\d)[\w-]{3,}|\d+(?:\s\d+)+")
IDENTIFIER = _IDENTIFIER
_EMAIL = EMAIL
_PHONE = PHONE  # (what a phone number is: footnote.text, which indexing reads too)
# A time of day ("9:30", "5pm", "noon"), or the hours a day is given ("fridays 9-12",
# "Sat 10-2": hours after a weekday are no date).
_CLOCK = re.compile(
    r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b\d{1,2}[:.h]\d{2}\b|\bnoon\b|\bmidnight\b|"
    r"\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\s+\d{1,2}\s*[-–]\s*\d{1,2}\b(?![/.]\d)",
    re.I,
)

# A temperature: "175 degrees C", "41°", "180C", "350 F" (an oven, a fever, the weather).
_TEMPERATURE = re.compile(
    r"-?\d+(?:[.,]\d+)?\s*(?:°|º|degrees?\b|deg\b|(?<=\d)[CF]\b|celsius\b|fahrenheit\b)",
    re.IGNORECASE,
)

# A distance: "8k tempo", "5 km", "10 miles", "400m" (a run, a ride, a trip).
_DISTANCE = re.compile(
    r"\b\d+(?:[.,]\d+)?\s*(?:k|km|kms|kilomet(?:er|re)s?|mi|miles?|m|metres?|meters?)\b",
    re.IGNORECASE,
)

# A grade or a score: "B+", "A*", "72%", "18/20", "4–2", "a 2:1", "distinction" ("5 pages"
# and "2/5 pages" are none; a bare "A" is an article as often).
_GRADE = re.compile(
    r"(?<![\w'’°])(?-i:A\*|[A-F][+-]|[B-F])(?![\w'’+*-])|\d+(?:[.,]\d+)?\s*(?:%|percent\b)|"
    # "18/20 on the quiz"; "2/5 pages" counts pages
    r"\d+\s*/\s*\d+(?!\s*(?!(?:on|in|for|at|overall|total)\b)[a-z])|"
    # a match's score, told as one ("Won 4–2", "3-1 loss"); "Sat 10-12" is a time
    r"\b(?:won|lost|drew|beat|final|score[ds]?)\W+(?:\w+\W+)?\d+\s*[–-]\s*\d+\b|"
    r"\b\d+\s*[–-]\s*\d+\s+(?:win|loss|draw|defeat|victory)\b|"
    # (or by its result's initial: "L 22-30 v St Brigid's", "W 31-30")
    r"(?<![\w'’])(?-i:[WLD])\s?\d{1,3}\s?[–-]\s?\d{1,3}\b|\b(?:2:1|2:2|distinction|merit|pass(?:ed)?|fail(?:ed)?)\b",
    re.IGNORECASE,
)

# A measure: a figure ("size 12", "10mg", "1.058", "D"), or a size or band by its letter
# ("Band D", "size M").
_MEASURE = re.compile(r"\d|\b(?-i:[A-H]|XX?[SL]|S|M|L)\b")
MEASURE = _MEASURE
# A figure with its unit: "750mg", "2.25 cups", "6 ft", "1.5 L".
MEASURED_IN = re.compile(
    r"\d\s*(?:mg|mcg|ml|g|kg|cm|mm|m|km|in|inch(?:es)?|ft|feet|lbs?|oz|l|litres?|liters?|"
    r"cups?|tsp|tbsp|units?|tablets?|pills?|%|kw|w|v|psi|bar)\b",
    re.IGNORECASE,
)

REASON = re.compile(
    r"\b(?:because|since|so\s+that|so\b|due\s+to|thanks\s+to|reasons?|in\s+order\s+to|"
    r"as\s+(?:it|we|they|he|she|i)\b|why|cause[sd]?|for\s+(?:the\s+)?\w+(?:ing|ity|ness)\b)",
    re.IGNORECASE,
)

# A street address ("1120 N Hollywood Way", "2538 Guadalupe", "14 Elm Rd") or a
# postcode ("SW1A 1AA"); not a date ("24 Jan", "a 1979 Gorgar") nor a time ("09:30 ->
# 11:45 Kyoto").
# (a word that is no month or day of the week: "24 Jan", "in Jan", "at Sat" name no place)
_NOT_CALENDAR = (
    r"(?!(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)"
    r"[a-z]*\b)"
)
_ADDRESS = re.compile(
    r"(?<![:.])\b(?!(?:19|20)\d\d\b)\d{1,5}[A-Za-z]?,?\s+(?:[NSEW]\.?\s+)?"
    + _NOT_CALENDAR
    + r"[A-Z][a-z][\w'.-]*|\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b"
)

# Where something is: a street address, a place named after "at", "in", "from" ("at
# Griffith Observatory", "from Golden Plains Poultry", "in Long Beach"; not "in Jan"), or
# the label of a spot ("Ramp C", "room 2.14", "ground floor").
PLACE = re.compile(
    _ADDRESS.pattern
    + r"|\b(?:at|in|from|near|behind|opposite|outside|@)\s+(?:the\s+)?"
    + _NOT_CALENDAR
    + r"[A-Z][\w'’.-]+|"
    r"\b(?i:room|suite|level|ramp|unit|gate|platform)\s+[A-Z\d][\w.]*|\b(?i:floor)\b"
)

# What a "what/which" question asks for, when it names it: "What's my IBAN?", "What's
# her number?", "What salary…", "How much did it cost?".
_WHAT = r"^\W*(?:and\s+|but\s+|so\s+)?(?:what|which|how\s+much)\b[^?]*?"
# The question's opening decides what kind of answer it wants ("For how long…" too).
_ASKS = (
    # "What's her email address?", "What's Dr. Feng's email?" (the address, not a message)
    (
        # ("Marcus's email at Olive & Ash": whose address, where)
        re.compile(
            _WHAT + r"\be-?mail(?:\s+address|\s*[?.!]|\s*$|\s+(?:at|for|of)\b)", re.IGNORECASE
        ),
        _EMAIL,
    ),
    # "What's the address of Jonah's shop?" (an email address is asked above)
    (re.compile(_WHAT + r"\b(?:address|postcode|zip\s+code)\b", re.IGNORECASE), _ADDRESS),
    # "What's Dev's phone number?", "What's the plumber's mobile?"
    (
        re.compile(_WHAT + r"\b(?:phone|mobile|cell)(?:\s+(?:number|no))?\b", re.IGNORECASE),
        _PHONE,
    ),
    (
        re.compile(
            # the thing asked for, closing its phrase: "her number?", "the code to get in",
            # not "the number of points" or "his number one goal"
            _WHAT + r"\b(?:number|code|pin|password|passcode|combination|reference|iban|"
            r"reg|registration|plate|serial)"
            r"(?:\s*[?.!,]|\s*$|\s+(?:for|to|at|on|in|from|with)\b)",
            re.IGNORECASE,
        ),
        _IDENTIFIER,
    ),
    (
        re.compile(
            # "hourly rate", "day rate": a price of time ("heart rate" is not)
            _WHAT
            + r"\b(?:cost|costs|costing|pay|paid|paying|price|charge|charges|salary|fee|fees|rent|"
            r"earn|earns|earned|earning|earnings|wage|wages|income|"
            r"spend|spent|(?:hourly|daily|day|weekly|nightly)\s+rates?)\b",
            re.IGNORECASE,
        ),
        _MONEY,
    ),
    (re.compile(r"^\W*(?:and\s+|but\s+|so\s+)?(?:at\s+)?what\s+time\b", re.IGNORECASE), _CLOCK),
    # "What temperature for the banana bread?", "How hot should the oven be?"
    (
        re.compile(
            _WHAT + r"\b(?:temperature|temp)\b|^\W*(?:\w+\s+){0,2}?how\s+(?:hot|cold|warm)\b",
            re.IGNORECASE,
        ),
        _TEMPERATURE,
    ),
    # "How far did I run on Monday?", "What distance was the ride?"
    (
        re.compile(_WHAT + r"\bdistance\b|^\W*(?:\w+\s+){0,2}?how\s+far\b", re.IGNORECASE),
        _DISTANCE,
    ),
    # "What grade did I get on the psych paper?", "What was the score?"
    # (asked for directly: "the film that has a score composed by…" is music)
    (
        re.compile(
            r"^\W*(?:and\s+)?what(?:['’]s|\s+(?:is|was|were|are))?\s+(?:(?:my|the|his|her|our|"
            r"their|your)\s+)?(?:final\s+|overall\s+)?(?:grades?|marks?|scores?|results?)\b",
            re.IGNORECASE,
        ),
        _GRADE,
    ),
    # "What did my stout score at the competition?": a score, as "What was the score?"
    (re.compile(r"^\W*(?:and\s+)?what\s+did\b[^?]*\bscore\b", re.IGNORECASE), _GRADE),
    # "What size is my dress?", "What dose of Injectafer…?", "What was the OG of the
    # cider?": a measure, written with a figure or a letter. Asked for by its name, right
    # after "what" ("How much is in the band fund?" asks no measure)
    (
        re.compile(
            r"^\W*(?:and\s+)?(?:what|which)(?:['’]s|\s+(?:is|was|are|were))?\s+(?:(?:the|my|"
            r"our|his|her|their|its|your)\s+)?(?:[\w-]+\s+){0,2}?(?:size|dose|dosage|og|fg|abv|"
            r"gravity|weight|height|length|width|depth|capacity|volume|voltage|wattage|"
            r"pressure)\b",
            re.IGNORECASE,
        ),
        _MEASURE,
    ),
    (re.compile(r"^\W*(?:\w+\s+){0,2}?how\s+often\b", re.IGNORECASE), _FREQUENCY),
    (re.compile(r"^\W*(?:\w+\s+){0,2}?how\s+much\b", re.IGNORECASE), _AMOUNT),
    (re.compile(r"^\W*(?:\w+\s+){0,2}?how\s+long\b(?!\s+ago)", re.IGNORECASE), _DURATION),
    # "Why…" wants a reason ("because", "so that", "due to"): a sentence giving one leads
    # the answer. Preferred, not required: "The audit delayed the launch" is a reason too.
    (re.compile(r"^\W*(?:and\s+|but\s+|so\s+)?why\b", re.IGNORECASE), REASON),
    # "Where…" wants a place, preferred as a reason is
    (re.compile(r"^\W*(?:and\s+|but\s+|so\s+)?where\b", re.IGNORECASE), PLACE),
)


# A value the question asks for by name (an email address, a code, a price, a time of
# day) is stated beside what it is of: a sentence holding one that shares no word with
# the question ("NIF 245 883 120" for "What's my IBAN?") is another value.
# "How much…" asks for an amount of something too ("How much did the manure cost?"):
# "€15 late fee" is no answer for it.
SLOTS = frozenset(
    {_EMAIL, _PHONE, _IDENTIFIER, _MONEY, _RATE, MONEY_OR_RATE, _MEASURE, _CLOCK, _AMOUNT, _ADDRESS}
)
# The ways to reach a place or person: on a line of its own, of whatever its note is
# about ("rang Elm St Medical - appt w/ Dr Haddad fri" / "ph 03 9555 0142").
CONTACTS = frozenset({_EMAIL, _PHONE, _ADDRESS})
# What "how much" asks: a sum of money, or an amount that may be one.
QUANTITIES = frozenset({_MONEY, _RATE, MONEY_OR_RATE, _AMOUNT})

# A date written out ("Feb 12-21 2027", "14 March"): its digits are no number of a thing.
_SUM_OF_MONEY = re.compile(
    r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?[kKmM]?|\b\d[\d,]*(?:\.\d+)?\s?(?:euros?|dollars?|pounds?|quid)\b"
)
_WRITTEN_DATE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}"
    r"(?:\s*[-–]\s*\d{1,2})?(?:,?\s+(?:19|20)\d\d)?\b|"
    r"\b\d{1,2}(?:st|nd|rd|th)?(?:\s*[-–]\s*\d{1,2})?\s+(?:of\s+)?"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?(?:\s+(?:19|20)\d\d)?\b",
    re.IGNORECASE,
)


def states(kind: re.Pattern[str], text: str) -> bool:
    """The text states a value of the kind: a number or code is not one of a date's
    digits ("(need NIE first?)" beside "Feb 12-21 2027" gives no NIE number), a sum
    of money or a time of day."""
    if kind is _MEASURE:
        # nor a sum, a share, a date or a time: "€2,150, paid 50% today" gives no size
        text = _CLOCK.sub(" ", _SUM_OF_MONEY.sub(" ", _WRITTEN_DATE.sub(" ", text)))
        text = re.sub(r"\d[\d.,]*\s*(?:%|percent\b)", " ", text)
    if kind is _IDENTIFIER:
        # nor a sum of money or a time: "last bus 1:30am – (Doyle's Coaches ~€350?)"
        # gives no number to ring them on
        text = _CLOCK.sub(" ", _SUM_OF_MONEY.sub(" ", _WRITTEN_DATE.sub(" ", text)))
    return kind.search(text) is not None


# The words naming a value that notes write without naming it: "Dev: 07911 123 456" is
# his phone number (and "512-555-0192" his number), "train 06:30" its time, "jo@example.org" her email, though none
# says "phone", "time" or "email". A sentence holding such a value covers them.
_UNNAMED = {
    _PHONE: frozenset(terms("phone mobile cell number no")),
    # "What's Marco's number?" over "Marco – vox/guitar 512-555-0192"
    _IDENTIFIER: frozenset(terms("number no")),
    _EMAIL: frozenset(terms("email e-mail address")),
    _CLOCK: frozenset(terms("time")),
}


def named_by_value(question: str) -> tuple[re.Pattern[str], frozenset[str]] | None:
    """The kind of value the question asks for, when notes write it without naming it,
    and the question's words naming it: a sentence the pattern finds covers those
    words. None for any other question. Read once per question, not per sentence."""
    found = asked(question)
    if found is None or found[0] not in _UNNAMED:
        return None
    if found[0] is _IDENTIFIER and not frozenset(terms(found[1])) & _UNNAMED[_IDENTIFIER]:
        return None  # a code, a PIN, a reference is written with its name ("door code 5821#")
    return found[0], _UNNAMED[found[0]] & frozenset(terms(question))


# "Pip's microchip number", "the policy no.": the word naming which number is asked, which
# a note writes beside it ("Microchip # 985 112 006"). Not whose ("her number"), nor how
# it is reached ("phone number").
_QUALIFIED_NUMBER = re.compile(r"\b([a-z][\w-]*)\s+(?:number|no\.?|num|#)(?!\w)", re.IGNORECASE)
_NOT_QUALIFIERS = frozenset(
    "the a an my our your his her their its this that whose which what whats phone mobile "
    "cell contact tel work home landline "
    # whose number: "the freezer repair company number" is the company's phone
    "company firm business shop office".split()
)


def number_named(question: str) -> frozenset[str]:
    """The terms of the word naming the number asked ("microchip" in "what's Pip's
    microchip number"); empty when the question names none ("what's her number")."""
    found = _QUALIFIED_NUMBER.search(question)
    if found is None or (word := found.group(1).lower()) in _NOT_QUALIFIERS:
        return frozenset()
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return frozenset()  # whose, typed without its apostrophe: "chloes moms number"
    return frozenset(terms(word))


# "What's Sadia Rahman's hourly rate?": whose value the question asks for, the name
# right before the words asking for it.
_OWNER = re.compile(r"\b((?:[A-Z][\w-]*\.?\s+){0,2}[A-Z][\w-]*)['’]s\b")


def owner(question: str, asking: str) -> frozenset[str]:
    """The name terms of the person whose value the question asks for ("Mia's hourly
    rate", with ``asking`` "rate"); empty when the value is no one's ("the first dance
    at Hannah & Rob's wedding"). A capitalised opener ("What's") is no one."""
    for found in _OWNER.finditer(question, 1):
        if asking.lower() in re.findall(r"[\w-]+", question[found.end() :].lower())[:3]:
            return frozenset(terms(found.group(1))) - _HONORIFICS
    return frozenset()


# What follows an owner's "'s": up to three words, to a preposition or the question's end
# ("Raf's parkrun PB?", "Mia's rate for the logo").
_POSSESSED = re.compile(
    r"\s*((?:(?!(?:for|to|at|from|in|on|of|with|and|or|by|about|after|before|is|was|are|were|"
    r"did|does|do|be)\b)[\w-]+\s*){1,3})"
)


_AUXILIARY = re.compile(r"\b(?:did|does|do|will|would|can|could|should|has|have|had)\b", re.I)


def possessions(question: str) -> list[tuple[frozenset[str], frozenset[str]]]:
    """Each "Name's thing" of the question, as (the owner's name terms, the thing's
    terms): "What's Raf's parkrun PB?" -> ({raf}, {parkrun, pb}). Nobody's for "What's"."""
    out = []
    for found in _OWNER.finditer(question, 1):
        thing = _POSSESSED.match(question, found.end())
        if thing is None:
            continue
        name = frozenset(terms(found.group(1))) - _HONORIFICS
        thing_words = thing.group(1).split()
        if len(thing_words) > 1 and _AUXILIARY.search(question, 0, found.start()):
            thing_words = thing_words[:-1]  # "What did Sofia's mum want?": "want" is the doing
        things = frozenset(terms(" ".join(thing_words))) - WHEN_WORDS
        if name and things:
            out.append((name, things))
    return out


# "Who is our manager?", "my property manager": the asker's own thing, the words after
# "my"/"our" up to a preposition or the question's end.
_MINE = re.compile(
    r"\b(?:my|our)\s+((?:(?!(?:for|to|at|from|in|on|of|with|and|or|by)\b)[\w-]+\s*){1,3})", re.I
)
# "Sun Hex's manager", "Ben's friend's studio": a thing of someone named.
_NAMED_OWNER = re.compile(r"\b[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*['’]s\s+([\w-]+)")


def own_things(question: str) -> frozenset[str]:
    """The terms of what the question asks of the asker's own ("our manager" -> manag)."""
    found: set[str] = set()
    for m in _MINE.finditer(question):
        found.update(terms(m.group(1)))
    return frozenset(found) - WHEN_WORDS


def things_of_others(text: str) -> frozenset[str]:
    """The terms of the things the text says are someone else's ("Sun Hex's manager")."""
    return frozenset(t for m in _NAMED_OWNER.finditer(text) for t in terms(m.group(1)))


# "the club rent now": when the value is asked for, not what it is of
WHEN_WORDS = frozenset(terms("now current currently today nowadays anymore latest"))

# "How much is a flight to Lisbon?", "How much was the Christmas order from Greenway?":
# the thing priced, the last word before its preposition or the question's end.
_PRICED = re.compile(
    # (typed, the article goes: "how much is level 5 swim")
    r"^\W*(?:and\s+)?how\s+much\s+(?:is|are|was|were)\s+(?:(?:a|an|the|my|our|his|her|their)\s+|"
    r"(?!(?:left|there|it|that|this|these|those|remaining|owed|due|still|in|on|at)\b))"
    r"(?P<thing>[\w-]+(?:\s+[\w-]+){0,2}?)\s*(?:\b(?:to|at|from|for|in|on|of|with|per|an?|each|"
    r"every|now)\b|[?.!]|$)",
    re.IGNORECASE,
)


# "How much flour goes in…", "how many eggs…": the thing measured, right after the words.
_MEASURED = re.compile(
    r"^\W*(?:and\s+)?how\s+(?:much|many)\s+(?!(?:is|are|was|were|did|do|does|has|have|had|"
    r"will|would|can|could|should|of|more|less|longer|time|money|per|a|an|each|the|for|in|"
    r"on|at|to|from|with|it|that|this|these|those|i|we|you|he|she|they)\b)(?P<thing>[\w-]+)",
    re.IGNORECASE,
)


def measured(question: str) -> str | None:
    """The term of what a "How much flour…?" question measures; None otherwise. The
    amount is stated beside it: "75 g butter" answers for butter, not for flour."""
    found = _MEASURED.search(question)
    if found is None:
        return None
    named = terms(found["thing"])
    return named[0] if named else None


_ASKED_OF_A_TIME = re.compile(
    r"\s*\b(?:(?:this|last|next)\s+(?:year|month|week|weekend|summer|winter|spring|autumn|fall)|"
    r"today|tonight)\b.*$",
    re.IGNORECASE,
)


def priced(question: str) -> str | None:
    """The term of the thing a "How much is the …?" question prices; None otherwise."""
    found = _PRICED.search(question)
    if found is None:
        return None
    # (not the time it is asked of: "how much was the insurance this year")
    thing = _ASKED_OF_A_TIME.sub("", found["thing"])
    named = [t for t in terms(thing) if t not in WHEN_WORDS]
    return named[-1] if named else None


# "Dr. Feng" is Feng: another doctor is not him.
_HONORIFICS = frozenset(terms("dr mr mrs ms miss mx prof sir dame"))


def expected(question: str) -> re.Pattern[str] | None:
    """The phrase an answer to ``question`` must contain; None when any sentence may do."""
    found = asked(question)
    return found[0] if found else None


_AFTER_ASKING = frozenset({"for", "to", "at", "on", "in", "from", "with"})


_FOLLOWED = re.compile(r"\s*\([^()]*\)\s*$")


def without_followed(question: str) -> str:
    """A follow-up as the offline plan reads it, "whats her number (who's our childminder
    again)", without the question it follows; any other question as it is."""
    return _FOLLOWED.sub("", question)


def asked(question: str) -> tuple[re.Pattern[str], str] | None:
    """The kind of phrase the answer must contain and the word of the question that asks
    for it ("pay" in "How much did I pay for…", "rent" in "What's the allotment rent?"):
    what the value is *of* is the rest of the question."""
    # an offline follow-up carries the question it follows in parentheses ("whats her
    # number (who's our childminder again)"): the kind asked is the follow-up's own
    question = without_followed(question) or question
    for asks, kind in _ASKS:
        if m := asks.search(question):
            words = re.findall(r"[^\W_]+", m.group(0))
            while words and words[-1].lower() in _AFTER_ASKING:
                words.pop()  # "the code to get in": "code" asks, "to" follows it
            asking = words[-1] if words else ""
            if (
                kind is _IDENTIFIER
                and asking.lower() in ("number", "no")
                and not number_named(question)
            ):
                # "the number for the espresso machine guy", "whats their number": a number
                # no word names the kind of is someone's phone ("11ish" is none)
                kind = _PHONE
            return kind, asking
    return None
