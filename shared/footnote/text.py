"""Text primitives shared by indexing and retrieval: sentences, terms, hashes."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache

from footnote import proper_nouns

# Small English stop list: words that carry no topic, so they neither match in
# BM25 nor count as overlap when a citation is checked against its source.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn
    doing don down during each few for from further had hadn has hasn have haven having he
    her here hers herself him himself his how i if in into is isn it its itself just let
    me more most mustn my myself no nor not of off on once only or other ought our ours
    ourselves out over own same shan she should shouldn so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was wasn we were weren what when where which while who whom why will with won
    would wouldn you your yours yourself yourselves s t d ll m o re ve y also may might
    must shall us""".split()
)

# Question words and chat filler: stop words for queries only.
QUERY_FILLER = frozenset(
    """tell give list find please remind know recall say said note notes wrote write
    written my mine anything something thing things item items ever many much still
    moment actually exactly really""".split()
)

# Spelled-out counts in time phrases ("two weeks ago", "a couple of days"). Query
# analysis and the dating of a note's own phrases read the same words; each
# pattern chooses which of them it accepts.
NUMBER_WORDS: Mapping[str, int] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "sixty": 60,
    "ninety": 90,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 5,
}

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
# Words that record a decision. Query analysis reads them as the decision intent.
DECISION_VERBS = re.compile(
    r"\b(?:decid\w*|decision\w*|chose|choose|chosen|choosing|settled?\s+on|"
    r"go(?:ing)?\s+w(?:ith|/|(?=\s))|went\s+w(?:ith|/|(?=\s))|opt(?:ed)?\s+for|agreed?\s+(?:on|to)|"
    r"ruled?\s+out|picked)\b",
    re.IGNORECASE,
)
# A sentence ends at a full stop before a capital or a number, at a blank line, before a
# list item, and after a citation marker ("… [N1]. → Going w/ Camélia [N2]."): an
# answer's claims are cited one by one, whatever the next one opens with.
_SENTENCE_END = re.compile(
    # (a citation marker after a closing "?)" belongs to the sentence before it)
    r"(?<=[.!?…])[\"')\]]*\s+(?!\[N\d+\])(?=[\"'(\[]?[A-Z0-9À-Ý])|\n\s*\n|\n(?=\s*[-*•\d]+[.)]?\s)"
    r"|(?<=\][.!?])\s+"
)
_ABBREVIATIONS = (
    "e.g.",
    "i.e.",
    "etc.",
    "vs.",
    "mr.",
    "mrs.",
    "dr.",
    "prof.",
    "no.",
    "fig.",
    "al.",
    "approx.",
    "inc.",
    "st.",
)
# Control, zero-width and invisible formatting characters, among them the bidi marks,
# embeddings, overrides and isolates (U+061C, U+202A-E, U+2066-9) that make text read
# other than it is stored, and the tag characters (U+E0000-7F) that hide text.
_CONTROL = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
    r"\U000e0000-\U000e007f]"
)


def normalize(text: str) -> str:
    """NFKC, no control or zero-width characters, tidy line ends and spaces."""
    text = unicodedata.normalize("NFKC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


def words(text: str) -> list[str]:
    return [_folded(w) for w in _WORD.findall(text)]


def _folded(word: str) -> str:
    """A word as it is compared: lowered, unaccented, with a straight apostrophe."""
    return unaccented(word.lower().replace("’", "'"))


def word_spans(text: str) -> list[tuple[int, int, str]]:
    """Each word of ``text`` as written, with where it starts and ends."""
    return [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(text)]


def unaccented(word: str) -> str:
    """ "tomás" -> "tomas", "café" -> "cafe", "zoë" -> "zoe": people type names and words
    with or without their accents, and each must find the other. Only a Latin letter
    loses its marks ("が" is no "か"). Changing this changes the terms stored with each
    chunk: re-index every tenant after it (the re-indexer's "all" job)."""
    return word if word.isascii() else "".join(_latin_base(c) for c in word)


def in_order(letters: str, word: str) -> bool:
    """``letters`` occur in ``word`` in order ("wks" in "weeks", "pg" in "postgres"): a
    contraction's or an abbreviation's letters in the word it shortens."""
    rest = iter(word)
    return all(c in rest for c in letters)


@lru_cache(maxsize=4096)
def _latin_base(char: str) -> str:
    parts = unicodedata.normalize("NFKD", char)
    base = parts[:1]
    if base.isascii() and base.isalpha() and all(unicodedata.combining(c) for c in parts[1:]):
        return base
    return char


# The languages whose words are stemmed and stopped as that language's (PyStemmer's
# Snowball stemmers, the stop-words package's lists); the temporal reader knows the same ones.
LANGUAGES = {
    "en": "english",
    "es": "spanish",
    "de": "german",
    "fr": "french",
    "it": "italian",
    "pt": "portuguese",
    "nl": "dutch",
}


@lru_cache(maxsize=len(LANGUAGES))
def _stemmer(language: str = "en"):  # type: ignore[no-untyped-def]
    import Stemmer  # PyStemmer: the Snowball stemmer bm25s uses as well

    return Stemmer.Stemmer(LANGUAGES.get(language, "english"))


@lru_cache(maxsize=200_000)
def stem(word: str, language: str = "en") -> str:
    return str(_stemmer(language).stemWord(word))


@lru_cache(maxsize=len(LANGUAGES))
def stop_words(language: str = "en") -> frozenset[str]:
    """Words of ``language`` that carry no topic (unaccented, as :func:`words` reads)."""
    if language not in LANGUAGES or language == "en":
        return STOPWORDS
    from stop_words import get_stop_words  # its lists: only when another language is read

    # Its longer entries include words a person searches for ("trabajo", "tiempo",
    # "nuevo"): only the short function words are stopped.
    listed = get_stop_words(LANGUAGES[language])
    return frozenset(unaccented(w.lower()) for w in listed if len(w) <= _STOP_MAX_LETTERS)


_STOP_MAX_LETTERS = 4


def language_of_text(text: str, prior: str = "en") -> str:
    """The language ``text`` is written in, by the function words it uses, else
    ``prior`` (the reader's language for a question; English for a note).

    Each language scores the distinct words of ``text`` that are in its full stop-word
    list (the stop-words package's; for English, :data:`STOPWORDS`) and the words
    written with a letter only it uses among the languages read here (taken from the
    same lists: "ß", "ü" are German, "ñ" Spanish). Another language than ``prior`` is
    read when it scores two more than ``prior`` and holds a tenth of the distinct words
    at least: "¿Qué dijo María?" (que, dijo) is Spanish, "Wann hat Lea Geburtstag?"
    German; a note of English shorthand naming "Tu/Th" and "Señora Ruiz" is not
    Spanish, and a lone word ("Raclette") is the prior's. A list of items ("Äpfel,
    Spülmittel, Nudeln") is read by its letters."""
    raw = {w.lower() for w in _LETTERS.findall(text[:5000])}
    seen = {unaccented(w) for w in raw if len(w) > 1}
    if not seen:
        return prior if prior in LANGUAGES else "en"
    score = {lang: len(seen & function_words(lang)) for lang in LANGUAGES}
    letters = _letter_languages()
    for w in raw:
        if not w.isascii():
            for lang in {letters[c] for c in w if c in letters}:
                score[lang] += 1
    prior = prior if prior in LANGUAGES else "en"
    best = max(LANGUAGES, key=lambda lang: (score[lang], lang == prior))
    if score[best] >= score[prior] + _LEAD and score[best] * 10 >= len(seen):
        return best
    return prior


_LEAD = 2  # how many more function words another language than the prior needs
_LETTERS = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=len(LANGUAGES))
def function_words(language: str) -> frozenset[str]:
    """All the stop words of ``language`` (unaccented), long ones included: to tell a
    language by, not to drop from search."""
    if language not in LANGUAGES or language == "en":
        return STOPWORDS  # the package's English list holds "de", "un" and content words
    from stop_words import get_stop_words

    return frozenset(unaccented(w.lower()) for w in get_stop_words(LANGUAGES[language]))


@lru_cache(maxsize=1)
def _letter_languages() -> dict[str, str]:
    """Each letter that only one language's stop words use among the languages read
    here, and that language ("ß": German, "ñ": Spanish)."""
    from stop_words import get_stop_words

    def letters(lang: str) -> set[str]:
        if lang == "en":
            return set()
        listed = get_stop_words(LANGUAGES[lang])
        return {c for w in listed for c in w.lower() if c.isalpha() and not c.isascii()}

    used = {lang: letters(lang) for lang in LANGUAGES}
    return {
        c: lang
        for lang, own in used.items()
        for c in own
        if not any(c in used[other] for other in LANGUAGES if other != lang)
    }


# "to-do", "to do list", a heading "To do:": one word, a to-do list ("todo"), though
# both of its words are stopwords. "I need to do X" stays two, and so does "what am I
# meant to do" (what was prescribed, not a list).
_TODO = re.compile(
    r"\bto-do(s?)\b|\bto\s+do(?=\s+lists?\b|\s*:)|"
    r"(?<!meant\s)(?<!supposed\s)\bto\s+do(?=\s*$)",
    re.IGNORECASE | re.MULTILINE,
)


def terms(
    text: str,
    extra_stopwords: frozenset[str] = frozenset(),
    language: str = "en",
    stemmed_as: str | None = None,
    compounds: bool = False,
    parts_marked: bool = False,
) -> list[str]:
    """Stemmed content words in order: the unit of keyword search and overlap.
    ``language``: whose stemmer and stop words (a note's, as written; a question's, as
    it is written). ``stemmed_as``: another language's stemmer, for a question's words
    read as notes in that language were stemmed. ``compounds``: a compound's parts
    follow its own stem (``proper_nouns.compound_parts``), for keyword search;
    ``parts_marked``: each after :data:`PART_MARK`, as a chunk stores them. Changing
    which parts are found changes the terms stored with each German chunk: re-index
    (the re-indexer's "all" job) for notes indexed before to hold them."""
    out = []
    stopped = stop_words(language)
    stemmer_language = stemmed_as or language
    # (only text read and stemmed as a language a tagger reads: an English or Spanish
    # text never loads one)
    split = compounds and stemmer_language == language and proper_nouns.tagged(language)
    mark = PART_MARK if parts_marked else ""
    text = _TODO.sub(lambda m: f"todo{m[1] or ''}", text)
    for written in _WORD.findall(text):
        w = _folded(written)
        w = w.split("'")[0] if "'" in w else w
        if not w or w in stopped or w in extra_stopwords:
            continue
        if len(w) == 1 and not w.isdigit():
            continue
        out.append(stem(w, stemmer_language))
        if split and _maybe_compound(written):
            # analysed as a noun is written (the tagger reads "zahnarzttermin" as no
            # compound), so a question typed in lower case splits as the note does
            noun = written[:1].upper() + written[1:]
            for part in proper_nouns.compound_parts(noun, language):
                part = unaccented(part)
                if part not in stopped and part not in extra_stopwords:
                    out.append(mark + stem(part, stemmer_language))
    return out


# What a chunk's stored terms write before a compound's part ("+nachzahl" after
# "steuernachzahl"): BM25 matches it as the part's term but does not count it in the
# chunk's length, as Lucene discounts a token at its compound's position ("discount
# overlaps"). Counted, a note writing compounds grows longer than the words it holds
# and its other words weigh less (a second answer note fell from 8th to 9th).
PART_MARK = "+"
# What a part found counts for in BM25's term frequency, against 1 for a word written
# alone: a note titled "Schlüsselübergabe" (the handover being planned) holds the
# "Schlüssel" and "Übergabe" of "Wie viele Schlüssel hat Jonas bei der Übergabe
# bekommen?" less than the note saying "3 Schlüssel" under "Übergabe" (at 1 it ranked
# first; docs/quality.md).
PART_WEIGHT = 0.5


def unmarked(term: str) -> str:
    """A stored term as keyword search matches it (a compound's part without its mark)."""
    return term[1:] if term.startswith(PART_MARK) else term


def indexed_length(stored: Iterable[str]) -> int:
    """How many words a chunk's stored terms count for BM25: its compounds' parts not."""
    return sum(1 for t in stored if not t.startswith(PART_MARK))


def term_counts(stored: Iterable[str]) -> dict[str, float]:
    """Each term's frequency in a chunk's stored terms for BM25, a compound's part
    counting :data:`PART_WEIGHT`."""
    counts: dict[str, float] = {}
    for t in stored:
        if t.startswith(PART_MARK):
            counts[t[1:]] = counts.get(t[1:], 0.0) + PART_WEIGHT
        else:
            counts[t] = counts.get(t, 0.0) + 1.0
    return counts


# A word as long as this is more often a compound than not where nouns join (German
# "Steuernachzahlung", "Hausverwaltung"); shorter words split more into misreadings
# ("Kickoff": kick + off) than into parts a note writes alone. Measured on the German
# everyday notebooks (docs/quality.md).
_COMPOUND_MIN_LETTERS = 10


def _maybe_compound(word: str) -> bool:
    """A word of letters, long enough to be a compound of nouns
    (``_COMPOUND_MIN_LETTERS``), in lower case after its first letter: not a short
    word, an acronym, a brand's inner capitals ("BahnCard") or a code."""
    return len(word) >= _COMPOUND_MIN_LETTERS and word[1:].islower() and word.isalpha()


# A full stop that ends no sentence: after an initial ("J. Doe") or a capitalised
# word of two or three letters, which is a title's abbreviation in any language ("Sr.
# Gómez", "Dra. Ruiz", "Hr. Wagner") far more often than a sentence's last word; or
# after a day or ordinal of one or two digits ("am 24. Februar", "el 3. piso"), or a
# list item's number ("1. Anmeldung").
_NO_END = re.compile(r"\b[A-Za-z]\.$|\b[A-Z][^\W\d_A-Z]{1,2}\.$|(?:^|\s)\d{1,2}\.$")


def abbreviated(before: str) -> bool:
    """Whether the full stop ``before`` ends with marks an abbreviation ("Dr.", "Sra.",
    "e.g.", "J.") rather than a sentence's end."""
    tail = before.rstrip()
    return tail.lower().endswith(_ABBREVIATIONS) or bool(_NO_END.search(tail))


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans (start, end) over ``text``; blank lines and list items also split."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        cut = match.start()
        candidate = text[start:cut]
        if abbreviated(candidate):
            continue
        if candidate.strip():
            _add_span(spans, text, _trim(text, start, cut))
        start = match.end()
    if text[start:].strip():
        _add_span(spans, text, _trim(text, start, len(text)))
    return spans


# a letter, not in a citation marker ("518-555-0143 [N1]." holds none)
_LETTER = re.compile(r"\[N\d+\]|([^\W\d_])")


def _add_span(spans: list[tuple[int, int]], text: str, span: tuple[int, int]) -> None:
    """Append a sentence's span; a value alone after a full stop on its line (no letter
    in it) is the end of the sentence before it: "Maggie, order by mon. 518-555-0143"."""
    lettered = any(m.group(1) for m in _LETTER.finditer(text, *span))
    if spans and "\n" not in text[spans[-1][1] : span[0]] and not lettered:
        spans[-1] = (spans[-1][0], span[1])
    else:
        spans.append(span)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def sha256(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x1f")
    return digest.hexdigest()


# A phone number: seven digits or more, spaced or not ("07700 900 412", "+44 20 7946
# 0321"); not a date ("2026-02-28"), a code headed by a year ("invoice 2026-009"), a room
# ("room 305") or an amount ("12,900").
PHONE = re.compile(
    r"(?<![\w.,])(?!\d{4}-\d{2}-\d{2})(?!(?:19|20)\d\d-\d{1,3}\b(?![ -]?\d))"
    r"\+?\(?\d(?:[ ()-]{0,2}\d){6,}(?![\w.,]\d)"
)
# A number given to a thing: a code headed by a year ("2026-017", no date) or after "#".
_NUMBERED = re.compile(r"\b(?:19|20)\d\d-\d{1,4}\b(?!-\d)|#\s?\d{2,}\b")
# An email address.
EMAIL = re.compile(r"\S@\S")


def value_terms(text: str) -> list[str]:
    """The words naming the values ``text`` writes without naming them: "Owen Marsh – 0113
    496 0734, owen@calder.co.uk" holds a phone number and an email though it says neither.
    Indexed beside the words, so "What's Owen's phone number?" finds the note that holds
    it among the many naming Owen."""
    found: list[str] = []
    if PHONE.search(text):
        found += terms("phone number")
    elif _NUMBERED.search(text):
        found += terms("number")  # "invoice 2026-017", "inv #1049": the invoice's number
    if EMAIL.search(text):
        found += terms("email")
    return found
