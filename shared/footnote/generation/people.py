""" "Who…?" is answered by a sentence that names someone.

"Who did we hire for the electrical work?" over "First night without the space heater —
furnace working ok after the tune-up" shares a word ("working") and names nobody: it is
about the topic, not an answer. Someone is named by a name the notebook writes as one
(a capitalised word inside a sentence, "Going with Rosa"; a speaker's label), by a word
for a person ("my sister", "the plumber"), by the writer's "I", or by a pronoun for one
mentioned before ("they're the ones performing"). A speaker is the
answer when the question asks who said or proposed something, or when the line is their
own "I"; otherwise a label says who spoke, not who did what was asked ("Brendan
(chairman): Halloween blitz Sat 1 Nov" does not say who won it). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from footnote.domain import Source
from footnote.generation.names import CALENDAR
from footnote.generation.sentences import Candidate
from footnote.generation.speakers import first_person, said
from footnote.text import DECISION_VERBS, STOPWORDS, shortened, spelled_out, terms

# "Who…", "And who's…", "Whom…"; not "Whose…" (a thing of someone's).
_ASKS_WHO = re.compile(r"^\W*(?:(?:and|but|so|then)\s+)?(?:who|whom)(?!se)\b", re.IGNORECASE)
# "Who said / suggested / asked for…": the speaker of the line is the answer.
_ASKS_SPEAKER = re.compile(
    r"\bwho(?:m)?\s+(?:\w+\s+)?(?:said|says|say|suggest\w*|propos\w*|ask\w*|want\w*|"
    r"mention\w*|recommend\w*|rais\w*|offer\w*|volunteer\w*|complain\w*|brought\s+up|"
    r"thinks?|thought|agree\w*|disagree\w*|objected|pushed|argued|insisted|promised)\b",
    re.IGNORECASE,
)
# Words for a person a note writes instead of a name.
_PERSON_WORDS = re.compile(
    r"\b(?:mum|mom|mother|dad|father|parents?|sister|brother|siblings?|wife|husband|partner|"
    r"girlfriend|boyfriend|fianc[ée]e?|son|daughter|kids?|children|child|baby|grandma|"
    r"grandpa|granny|nan|aunt|auntie|uncle|cousin|nephew|niece|in-laws?|family|friends?|"
    r"neighbou?rs?|colleagues?|boss|manager|coach|teacher|tutor|doctor|dentist|"
    r"nurse|vet|plumber|electrician|builder|contractor|landlord|landlady|tenants?|client|"
    r"customer|agent|lawyer|accountant|mechanic|cleaner|babysitter|nanny|guy|woman|man|"
    r"lady|girl|boy|everyone|nobody|somebody|someone)\b",
    re.IGNORECASE,
)
_WRITER = re.compile(r"\b(?:I|me)\b")
# A person the sentence refers back to ("they're the ones performing"): named before.
_PRONOUN = re.compile(r"\b(?:he|she|they|him|her|them)\b|\b(?:he|she|they)['’]", re.IGNORECASE)
# A word and what comes before it: a capital after a word, a comma, a colon or a joining
# mark is inside a sentence ("Going with Rosa", "Player of the match: Aoife"), not at its
# start (where every word is capitalised).
# (a capital after "=" or an arrow is inside its sentence: "speaker = Mereana", "-> Dev")
_WORD = re.compile(
    r"\b(?:(?<=[\w,:;&+(/=>→@]\s)(?P<inner>[A-Z])|(?P<first>[A-Z])|(?P<lower>[a-z]))[\w'’-]*"
)
# A line's label: "Brendan (chairman): …", "Player of the match: Aoife".
_LABEL = re.compile(r"^\W*([A-Z][\w'’.-]*(?:\s+[\w'’.-]+){0,3}?(?:\s*\([^()]*\))?):\s")


BY_NAME = 2  # ``names_someone``: by a name, a word for a person, or "I"
BY_PRONOUN = 1  # only by a pronoun for someone named before


# "Who is the lecturer on…", "Who's our form captain?": the role asked for.
_ROLE = re.compile(
    r"^\W*(?:(?:and|but|so)\s+)?who(?:['’]s|\s+is|\s+was|\s+are|\s+were)\s+"
    r"(?:the|our|my|his|her|their)\s+(?P<role>[\w-]+(?:\s+(?!(?:on|of|for|at|in|with|to|from)\b)[\w-]+){0,2})",
    re.IGNORECASE,
)


def role_asked(question: str) -> frozenset[str]:
    """The terms of the role a "Who is the …?" question asks for ("lecturer" in "Who is
    the lecturer on the wound care course?"); empty for any other question."""
    found = _ROLE.search(question)
    return frozenset(terms(found["role"])) if found else frozenset()


# "What's the name of Ben's friend's studio?", "What's the quilting guy's name?", "Mr
# Patel's first name", "What is the wine called?": a name is what is asked for.
_ASKS_NAME = re.compile(
    r"\b(?:(?P<part>first|last|sur|christian|given|family)[\s-]?name|"
    r"(?:full|nick|user|brand|band|company|business|street)[\s-]?name|['’]s\s+name|"
    r"name\s+of|(?:what|which)(?:['’]s|\s+(?:is|was|are|were))\s+[^?]*?\bcalled|"
    # "What brand is the trail cam?", "Which bank is the mortgage with?": a name of a
    # maker or a business
    r"^\W*(?:and\s+)?(?:what|which)\s+(?:[a-z]+\s+)?(?:brand|make|bank|company|firm|agency|shop|"
    r"store|restaurant|caf[eé]|pub|hotel|venue|airline|school|hospital|clinic|garage|supplier|"
    r"insurer|insurance|newspaper|caterer|builder|solicitor|conveyancer|broker|provider|"
    r"charity|gym)s?)\b",
    re.IGNORECASE,
)
# Titles written before a name: not a name themselves.
_HONORIFICS = frozenset("mr mrs ms miss dr prof sir".split())
# A word, or a mark that closes a phrase: a name beside a word of the question is its
# name only within the phrase ("ep2 (Jonah) 980 / ep3 (quilting guy" names no guy).
_TOKEN = re.compile(r"[\w'’-]+|[()/;.!?]")
_NEAR = 3  # words between a name and the thing it names, at most
_NAMING = re.compile(r"(?:\bname\s+is|\bnamed|\bcalled|\bdubbed)\s$", re.IGNORECASE)


def name_asked(question: str) -> str | None:
    """What name the question asks for: "first" (the word before the person's other
    name), "last" (the word after), "any" (a name near what it names), or None."""
    found = _ASKS_NAME.search(question)
    if found is None:
        return None
    part = (found["part"] or "").lower()
    if part in ("first", "christian", "given"):
        return "first"
    return "last" if part in ("last", "sur", "family") else "any"


def gives_a_name(
    text: str, names: frozenset[str], asked: frozenset[str], about: frozenset[str], part: str
) -> bool:
    """The sentence writes a name of the notebook (``names_in``) that the question does
    not already give (``asked``), beside a word of what it is the name of (``about``):
    for a first name the word before the person's name ("Karen Tobin" for "Tobin's first
    name"), for a last name the word after, else within a few words of the thing in the
    same phrase ("the studio is Arlyn Studios"). "Marco: record at Ben's friend's studio"
    names no studio; "manager is Denise" gives no surname."""
    tokens = [m.group(0) for m in _TOKEN.finditer(said(text) or text)]

    def of_it(token: str) -> bool:
        # (or writes it short: "physio - Sam at …" names the physiotherapist)
        return bool(frozenset(terms(token)) & about) or any(
            shortened(token.lower(), word) for word in about
        )

    if about and part == "any" and _apposed(text, names, asked, about):
        return True
    if about and part == "any" and frozenset(terms(text)) & about:
        # "landlord insurance renewal – FBD €612, Zurich €598. went w Zurich": in a line
        # of the thing, the name a decision takes is its name
        for chosen in DECISION_VERBS.finditer(said(text) or text):
            after = _TOKEN.findall((said(text) or text)[chosen.end() :])[:2]
            if any(
                w[:1].isupper() and (low := _bare(w).lower()) in names and low not in asked
                for w in after
            ):
                return True
    label, colon, rest = text.partition(":")
    if about and part != "last" and colon and len(label.split()) <= 3:
        # "Lawyer: Dana Whitcombe 416-555-0187": a line labelled by what is named opens
        # with its name
        opening = _TOKEN.search(rest)
        if (
            frozenset(terms(label)) & about
            and opening is not None
            and opening.group(0)[:1].isupper()
            and (low := _bare(opening.group(0)).lower()) in names
            and low not in asked
        ):
            return True

    for i, token in enumerate(tokens):
        low = _bare(token).lower()
        if not token[:1].isupper() or low not in names or low in asked or low in _HONORIFICS:
            continue
        if part == "first":
            if i + 1 < len(tokens) and of_it(tokens[i + 1]):
                return True
            continue
        if part == "last":
            if i > 0 and of_it(tokens[i - 1]):
                return True
            continue
        if not about or _NAMING.search(" ".join(tokens[max(0, i - 2) : i]) + " "):
            # "his name is Kyle", "a puppy called Shadow": the sentence names it
            return True
        for step in (-1, 1):
            j = i + step
            while 0 <= j < len(tokens) and abs(j - i) <= _NEAR and tokens[j][0].isalnum():
                if of_it(tokens[j]):
                    return True
                j += step
    return False


# A name and what it is, one in brackets after the other: "Marcy (club president)",
# "ask treasurer (Colin)", "Jade (Jayden's mum): …".
_APPOSED = re.compile(
    r"(?P<name>[A-Z][\w'’-]+)\s*\((?P<role>[^()]{1,40})\)|"
    r"(?P<role2>(?:[\w'’-]+\s+){0,2}[\w'’-]+)\s*\((?P<name2>[A-Z][\w'’-]+)\)"
)


def _apposed(
    text: str, names: frozenset[str], asked: frozenset[str], about: frozenset[str]
) -> bool:
    """The text writes a name beside what it names, one of them in brackets: the words
    beside the name end with what ``about`` names, the sentence holds the rest of it.
    Written so, a capitalised word opening a sentence ("… ~20 people. Marcy (club
    president) says …") is a name too, though ``names`` holds only those capitalised
    inside one or twice."""
    for m in _APPOSED.finditer(text):
        name, role = (m["name"], m["role"]) if m["name"] else (m["name2"], m["role2"])
        low = _bare(name).lower()
        a_name = low in names or (
            not name.isupper() and low not in STOPWORDS and low not in CALENDAR
        )
        # what is named ends the phrase beside the name ("club president", "his dad");
        # the sentence holds the rest ("Alfie … his dad (Gaz)" for Alfie's dad)
        said_role = spelled_out(terms(role), role)  # "(facility mgr)": manager
        if (
            a_name
            and low not in asked
            and said_role
            and said_role[-1] in about
            and about <= frozenset(said_role) | frozenset(terms(text))
        ):
            return True
    return False


def asks_who(question: str) -> bool:
    return _ASKS_WHO.search(question) is not None


def asks_speaker(question: str) -> bool:
    """The question asks who said, asked or proposed something: a line's speaker answers."""
    return _ASKS_SPEAKER.search(question) is not None


def notebook_names(sources: Sequence[Source], pool: Sequence[Candidate]) -> frozenset[str]:
    """The names the notes quoted write (``names_in``), and those of who speaks in their
    sentences."""
    return names_in([s.chunk.text for s in sources], [c.speaker for c in pool if c.speaker])


def names_in(texts: Iterable[str], speakers: Iterable[str] = ()) -> frozenset[str]:
    """The names a notebook writes: words it never writes in lowercase, capitalised
    inside a sentence at least once or capitalised twice ("Aoife made a great save" and
    "Player of the match: Aoife"), that are no day or month, abbreviation or code; and its
    speakers' names."""
    inner: set[str] = set()
    seen: dict[str, int] = {}
    lower: set[str] = set()
    for text in texts:
        for m in _WORD.finditer(text):
            word = _bare(m.group(0))
            low = word.lower()
            if not m.group("lower") and (word.isupper() or not word.isalpha()):
                continue  # "BBQ", "U8", "K&T": an abbreviation or a code, not a name
            if m.group("lower"):
                lower.add(low)
                continue
            seen[low] = seen.get(low, 0) + 1
            if m.group("inner"):
                inner.add(low)
    found = {
        w
        for w, n in seen.items()
        if w not in lower and (w in inner or n >= 2) and w not in STOPWORDS and w not in CALENDAR
    }
    found.update(name for s in speakers if (name := bare_name(s)))
    return frozenset(found)


def bare_name(speaker: str) -> str:
    """A speaker label's first name, lowercased: "Mei (Lin & Partners)" -> "mei"."""
    first = speaker.split()[:1]
    return _bare(first[0]).lower() if first else ""


def _bare(word: str) -> str:
    return word.removesuffix("'s").removesuffix("’s").rstrip("'’-")


def names_someone(
    text: str,
    speaker: str,
    names: frozenset[str],
    speaker_answers: bool,
    asked: frozenset[str] = frozenset(),
) -> int:
    """How the sentence (said by ``speaker``, if anyone) names a person: 2 by a name of
    the notebook (``names_in``), a word for a person or the writer's "I"; 1 only by a
    pronoun for someone mentioned before ("they're the ones performing"); 0 not at all.
    Its speaker counts when ``speaker_answers`` (``asks_speaker``), when the line is in
    their own "I", or when their label holds a word the question asks with (``asked``:
    "Brendan (chairman): …" for "Who is the chairman?")."""
    words = said(text) or text
    if labelled := _LABEL.match(words):
        # "Brendan (chairman): Halloween blitz Sat 1 Nov": a label says who spoke
        speaker, words = speaker or labelled.group(1), words[labelled.end() :]
    if speaker and (
        speaker_answers
        or first_person(words)
        or frozenset(terms(speaker)) & asked
        # "Paddy (came in late): he'll do mulled wine": the note's writer reports what
        # the labelled person said they would do
        or _PRONOUN.match(words.lstrip()) is not None
    ):
        return BY_NAME
    # a word for a person counts unless it is the question's own ("Who is the head
    # teacher?" is not answered by "less teacher talk")
    if any(not set(terms(m.group(0))) <= asked for m in _PERSON_WORDS.finditer(words)):
        return BY_NAME
    if not speaker and _WRITER.search(words):
        return BY_NAME
    if any(_bare(w).lower() in names for w in re.findall(r"[A-Z][\w'’-]*", words)):
        return BY_NAME
    return BY_PRONOUN if _PRONOUN.search(words) else 0
