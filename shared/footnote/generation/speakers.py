"""Who said a line, and whom it is about, in notes that record speakers.

Transcripts and meeting notes write "Caroline: I went to …": each line is one
turn. The offline generator reads a question that names a speaker against the
lines about that person (said by them, said to them, or naming them other than
in address), so it does not answer with another person's fact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypeVar

from footnote.domain import Source
from footnote.generation.names import TOKEN, name_phrases
from footnote.generation.sentences import ITEM_LINE
from footnote.text import split_sentences, terms

# "Caroline: I went to …": a line that records who said it (chat logs, meeting notes).
SPEAKER = re.compile(
    r"^\s*(?P<name>[A-Z][\w.'’-]*(?:\s[A-Z][\w.'’-]*){0,2}):\s+(?=\S)", re.MULTILINE
)
_PERSONAL = re.compile(
    r"\b(?:i|i'm|i’m|i've|i’ve|i'd|i’d|i'll|i’ll|me|my|we|we're|we’re|us|our|you|your|"
    r"you're|you’re|you've|you’ve)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = frozenset(
    {"i", "i'm", "i’m", "i've", "i’ve", "i'd", "i’d", "i'll", "i’ll", "me", "my", "mine"}
    | {"myself", "we", "we're", "we’re", "we've", "we’ve", "us", "our", "ours"}
)
_SECOND_PERSON = frozenset(
    {"you", "you're", "you’re", "you've", "you’ve", "you'd", "you’d", "you'll", "you’ll"}
    | {"your", "yours", "yourself"}
)
# Congratulations and sympathy answer the listener's news, whatever the pronouns
# ("I'm so sorry to hear about Max", "I love your turtles") — unless the rest of the
# line brings the speaker's own ("I like your idea, but I went to Paris instead").
# "Great job" and "well done" only as exclamations: "I got a great job" is news.
_CONDOLENCE = re.compile(
    r"(?:\b(?:i['’]?m\s+|i\s+am\s+|we['’]re\s+|i\s+|we\s+)?(?:so\s+|really\s+|just\s+)?)"
    r"(?:\b(?:congrats|congratulations|proud of you|good luck|happy for you|"
    r"sorry (?:to hear|for your|about your|['’]bout your)|glad (?:you|to hear)|"
    r"(?:love|like|enjoy|adore|admire) your)\b|"
    r"(?:^|[.!?]\s*)(?:well done|(?:great|good|nice|awesome) (?:job|work))\b(?=\s*[!,.]|\s+\w+ing\b))",
    re.IGNORECASE,
)
# Praise ("That slow cooker meal looks yum!") reacts to the listener's news when the
# line says nothing of the speaker; "I chose furniture that looks great" is their own.
_PRAISE = re.compile(
    r"\b(?:(?:sounds?|looks?|that['’]s|that is|what an?) (?:so |really |super )?"
    r"(?:great|awesome|amazing|fun|cool|yum|yummy|delicious|lovely|wonderful|"
    r"incredible|exciting|beautiful|fantastic|interesting|nice)|must (?:have )?been|must be|"
    r"sorry (?:about|['’]bout))\b",
    re.IGNORECASE,
)
# Chat drops the subject of its own news: "Been reading that book you recommended",
# "Went to a pride parade last week" speak of the speaker.
_ELIDED_I = re.compile(
    r"^\W*(?:just\s+|finally\s+|also\s+|recently\s+)?(?:been|went|got|took|had|made|"
    r"started|finished|tried|bought|found|joined|visited|saw|met|read|wrote|painted|ran|"
    r"signed|spent|gonna|going to|thinking|planning|working|feeling)\b",
    re.IGNORECASE,
)
_GREETING = re.compile(r"^\W*(?:hey|hi|hello|morning|evening)\b", re.IGNORECASE)
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”')
# A name in address ("Thanks, Caroline!", "Hey Mel,") is whom a line is said to, not
# what it is about.
_ADDRESS_WORDS = r"hey|hi|hello|thanks|thank you|congrats|congratulations|wow|oh|bye|dear"
_VOCATIVE = re.compile(
    rf"(?:\b(?i:{_ADDRESS_WORDS})\s+"
    r"|,\s*)[A-Z][\w'’-]*(?:\s[A-Z][\w'’-]*)?(?=\s*[,!?.]|$)"
    r"|^\s*[A-Z][\w'’-]*(?=\s*,)",
)
_ADDRESS_PREFIX = re.compile(rf"^(?:\W|\b(?:{_ADDRESS_WORDS})\b)+")


def attributed_sentences(text: str, continued: bool = False) -> list[tuple[str, str]]:
    """(sentence, speaker) in order; the speaker is the last "Name:" line label above it.
    A label heading its own line ("Sofia:" over her points) speaks for the lines under
    it; one followed by what was said on its line ("Atelier Camélia: €6,400, meadow
    style") for that line only: the next unlabelled line of a note is the writer's
    ("→ Going w/ Camélia", "Jonas owns the email"), not the label's.

    ``continued``: the text is a later chunk of its note, so what precedes its first
    label is the end of a turn, not a preamble."""
    # inline: what was said follows the colon on its line (a blank line above is no matter)
    labels = [
        (m.start("name"), m["name"], "\n" not in text[m.end("name") : m.end()])
        for m in SPEAKER.finditer(text)
    ]
    out: list[tuple[str, str]] = []
    # A chunk cut from a longer transcript may open mid-turn: in a two-party exchange
    # that turn is the other party's, the one the first labelled speaker answers.
    opening = listeners(text).get(labels[0][1], "") if labels and continued else ""
    for start, end in _line_sentences(text, joined=not labels):
        speaker = opening
        for at, name, inline in labels:
            if at > start:
                break
            speaker = "" if inline and "\n" in text[at:start] else name
        out.append((text[start:end], speaker))
    return out


def listeners(text: str) -> dict[str, str]:
    """Speaker label -> whom their lines answer or are answered by (the nearest other
    label in the note): in a two-party transcript, "you" in a line means that person."""
    labels = [m["name"] for m in SPEAKER.finditer(text)]
    out: dict[str, str] = {}
    for i, name in enumerate(labels):
        if name in out:
            continue
        before = [n for n in reversed(labels[:i]) if n != name]
        after = [n for n in labels[i + 1 :] if n != name]
        if before or after:
            out[name] = (before or after)[0]
    return out


def _line_sentences(text: str, joined: bool = False) -> list[tuple[int, int]]:
    """Sentence spans that never cross a line: in a transcript each line is one turn,
    and in a note each line one entry ("tortelli = hit, Luca had thirds" / "tiramisù
    too sweet -> 80g sugar next time"), ended or not by punctuation.

    ``joined``: a line wrapped mid-sentence (a pasted paragraph: a long line, unended,
    the next opening in lower case) runs on into the next."""
    spans: list[tuple[int, int]] = []
    start = 0
    lines = text.split("\n")
    offset = 0
    for i, line in enumerate(lines):
        offset += len(line) + 1
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if _wrapped(line, following, joined):
            continue
        end = offset - 1
        spans.extend((start + s, start + e) for s, e in split_sentences(text[start:end]))
        start = offset
    return spans


# A line this long, unended, whose next line opens in lower case, was wrapped.
_WRAP_WIDTH = 60


def _wrapped(line: str, following: str, paragraphs: bool) -> bool:
    """``line`` runs on into ``following``: wrapped mid-sentence, or a label whose value
    is on the next line ("Phase 1 spent so far:" / "Electrical $12,900 …"; a label over
    items heads a list, which stays apart). ``paragraphs``: the text is no transcript,
    whose lines are turns however long."""
    body = line.rstrip()
    if body.endswith(":") and following.strip() and not ITEM_LINE.match(following):
        return True
    return (
        paragraphs
        and len(body) >= _WRAP_WIDTH
        and body[-1:] not in ".!?:;"
        and following[:1].islower()
    )


def speaker_prefix(sentence: str, speaker: str) -> str:
    """A quoted sentence keeps who said it, so "I" in it reads right."""
    if not speaker or SPEAKER.match(sentence):
        return sentence
    return f"{speaker}: {sentence}"


def asked_people(question: str, sources: Sequence[Source]) -> list[frozenset[str]]:
    """Speakers of the sources that the question names, each as its set of name terms."""
    named = {t for phrase in name_phrases(question) for t in phrase}
    people: dict[str, frozenset[str]] = {}
    if not any(_voiced(s.chunk.text) for s in sources):
        # Labels over words of no one ("Kyoto: machiya…", "Client: Joana…") are the
        # fields of a list, not the turns of a conversation: nobody here speaks.
        return []
    for source in sources:
        for m in SPEAKER.finditer(source.chunk.text):
            name_terms = frozenset(terms(m["name"]))
            if name_terms and name_terms & named:
                people[m["name"]] = name_terms
    return list(people.values())


def _voiced(text: str) -> bool:
    """Some labelled line speaks as "I" or "we" or to "you", or two people take turns in
    a passage where someone does: the note is a conversation."""
    labels = set()
    for m in SPEAKER.finditer(text):
        labels.add(m["name"])
        end = text.find("\n", m.end())
        if _PERSONAL.search(text[m.end() : end if end >= 0 else len(text)]):
            return True
    return len(labels) >= 2 and bool(_PERSONAL.search(SPEAKER.sub("", text)))


def about(text: str, speaker: str, listener: str, people: Sequence[frozenset[str]]) -> bool:
    """The sentence is about one of the people the question asks about: said by them
    (unless it only speaks of the listener: "your race sounds fun", or reacts to the
    listener's news: "Congrats on the promotion!", which outweighs its pronouns), said
    to them about them ("you must be proud"), or naming them other than in address
    ("Thanks, Mel!")."""
    spoken = frozenset(terms(speaker))
    heard = frozenset(terms(listener))
    content = said(text)
    first, second = _voice(text, content)
    # A line that speaks of no one but turns to the listener by name ("That charity race
    # sounds great, Mel!") or praises ("looks yum!") reacts to what the listener told.
    reacts = not first and not second and (_addressed(text, listener) or bool(_PRAISE.search(text)))
    consoles = _consoles(content)
    named = frozenset(terms(content)) - spoken
    for p in people:
        if p <= spoken and not consoles and (first or not (second or reacts)):
            return True
        if heard and p <= heard and (consoles or ((second or reacts) and not first)):
            return True
        if p & named:
            return True
    return False


class Line(Protocol):
    """A quotable sentence and who said it to whom ("" when unknown)."""

    @property
    def text(self) -> str: ...
    @property
    def speaker(self) -> str: ...
    @property
    def listener(self) -> str: ...


L = TypeVar("L", bound=Line)

# "What did Gina say about …", "How does Jon describe …", "What does Nate recommend …":
# the question asks for the person's words, whoever the words are about.
_SPEECH_QUESTION = re.compile(
    r"\b(?:say|says|said|describe[sd]?|recommend(?:s|ed)?|suggest(?:s|ed)?)\b",
    re.IGNORECASE,
)


def whose_lines(
    question: str, lines: Sequence[L], people: Sequence[frozenset[str]]
) -> tuple[list[L], list[L]]:
    """The lines about the people the question asks about, and the lines provably about
    someone else, each in the order given.

    A question for someone's words ("What did Gina say about the photo?") is answered
    by any line they spoke, their praise of someone else's news included. A line to an
    unknown listener ("So glad you got to go", in a chunk holding one speaker's lines)
    is about someone, but not provably someone else; a line with no speaker is no one's.
    """
    speech = bool(_SPEECH_QUESTION.search(question))

    def theirs(line: L) -> bool:
        if speech and _said_by(line.speaker, people):
            return True
        return about(line.text, line.speaker, line.listener, people)

    mine: list[L] = []
    others: list[L] = []
    for line in lines:
        if theirs(line):
            mine.append(line)
        elif line.speaker and (line.listener or not _speaks_to_listener(line.text)):
            others.append(line)
    return mine, others


def _speaks_to_listener(text: str) -> bool:
    """The line speaks of the person it is said to ("you") and not of its speaker."""
    first, second = _voice(text, said(text))
    return second and not first


def _said_by(speaker: str, people: Sequence[frozenset[str]]) -> bool:
    """The line's speaker is one of the people the question asks about."""
    spoken = frozenset(terms(speaker))
    return bool(spoken) and any(p <= spoken for p in people)


def said(text: str) -> str:
    """What a line says, without its speaker's label or a name in address."""
    return _VOCATIVE.sub(" ", SPEAKER.sub("", text)).strip()


def first_person(text: str) -> bool:
    """The sentence speaks in the first person ("I", "we", "my", …); words inside quotes
    are a title or someone's words ("Here We Go Round the Mulberry Bush"), not its own."""
    return _persons(_QUOTED.sub(" ", text))[0]


def _consoles(line: str) -> bool:
    """The line congratulates or consoles its listener and brings no news of its own."""
    m = _CONDOLENCE.search(line)
    if m is None:
        return False
    return not _persons(line[: m.start()] + " " + line[m.end() :])[0]


def _addressed(text: str, listener: str) -> bool:
    """The line turns to its listener by name ("Thanks, Mel!", "Wow, Caroline") other
    than in a greeting ("Hey Caroline, that roadtrip was insane!" opens the speaker's
    own news); "Yeah," and "Thankfully," are no names."""
    line = SPEAKER.sub("", text)
    if not listener or _GREETING.search(line):
        return False
    name = listener.lower()
    for m in _VOCATIVE.finditer(line):
        word = _ADDRESS_PREFIX.sub("", m.group(0).lower()).split()
        if word and len(word[0]) >= 3 and name.startswith(word[0]):
            return True
    return False


def _voice(text: str, content: str) -> tuple[bool, bool]:
    """Whether a line speaks of its speaker (a first-person word, or the "I" chat drops:
    "Been reading …", read in what it says, ``content``) and of its listener."""
    first, second = _persons(text)
    return first or bool(_ELIDED_I.search(content)), second


def _persons(text: str) -> tuple[bool, bool]:
    """Whether a sentence speaks in the first person, and of the person addressed."""
    low = {w.lower() for w in TOKEN.findall(text)}
    return bool(low & _FIRST_PERSON), bool(low & _SECOND_PERSON)
