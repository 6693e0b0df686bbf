""" "Who…?" is answered by a sentence that names someone, or declined."""

from __future__ import annotations

from datetime import UTC, datetime

from footnote.domain import Chunk, MemoryType, Source
from footnote.generation import people
from footnote.generation.extractive import compose
from footnote.generation.prompt import NOT_ENOUGH
from footnote.query.analysis import analyze

WRITTEN = datetime(2026, 3, 8, 20, tzinfo=UTC)
ASKED = datetime(2026, 4, 5, tzinfo=UTC)


def _source(cid: str, title: str, text: str) -> Source:
    body = f"{title}\n\n{text}" if title else text
    chunk = Chunk(
        f"{cid}_c", f"{cid}_n", "t", 0, body, (), MemoryType.NOTE, WRITTEN, (), "m", title
    )
    return Source(cid, chunk, 1.0)


def _answer(question: str, sources: list[Source]) -> str:
    return compose(question, sources, analyze(question, ASKED))


RENO = [
    _source(
        "N1",
        "",
        "First night without the space heater — furnace actually working ok after the "
        "tune-up ($189). Pat and Ruth from next door brought a lemon cake.",
    ),
    _source(
        "N2",
        "Electrical done",
        "Final inspection passed on Friday. Rosa left spare breakers + labeled the panel.",
    ),
    _source("N3", "Quotes", "- Bright Spark: $14,800\n- Mendez: $12,900\nGoing with Rosa."),
]


def test_a_who_question_is_not_answered_by_a_sentence_naming_nobody() -> None:
    answer = _answer("Who did we hire for the electrical work?", RENO)
    # "working" shares a word with the question; the sentence names no one
    assert "furnace" not in answer and "lemon cake" not in answer
    assert "Rosa" in answer and "[N2]" in answer


def test_a_speakers_label_says_who_spoke_not_who_did_what_was_asked() -> None:
    club = [
        _source(
            "N1",
            "Coaches meeting",
            "Brendan (chairman): Halloween blitz Sat 1 Nov, U8–U12, need 2 volunteers "
            "per team for the BBQ",
        )
    ]
    assert _answer("Who won the Halloween blitz?", club) == NOT_ENOUGH
    # a label holding the question's word answers it
    assert "Brendan" in _answer("Who is the chairman?", club)


def test_the_notebooks_names_are_its_words_never_written_in_lowercase() -> None:
    texts = [
        "Aoife made a great save. Player of the match: Aoife.",
        "First night in the house. Going with Rosa. BBQ for the U8s.",
        "first aid kit in the car",
    ]
    names = people.names_in(texts)
    assert {"aoife", "rosa"} <= names
    # sentence openers, abbreviations and codes are no one
    assert not names & {"first", "going", "player", "bbq", "u8s"}


def test_who_asks_for_someone_and_whose_does_not() -> None:
    assert people.asks_who("Who did we hire?") and people.asks_who("and who's bringing cake?")
    assert not people.asks_who("Whose birthday is next?")
    assert people.asks_speaker("Who suggested the new venue?")
    assert not people.asks_speaker("Who won the match?")


def test_the_questions_own_word_for_a_person_names_no_one() -> None:
    obs = [_source("N1", "obs feedback", "EBI: less teacher talk in the starter.")]
    assert _answer("Who is the head teacher?", obs) == NOT_ENOUGH


def test_our_thing_is_not_answered_by_someone_elses() -> None:
    gig = [
        _source(
            "N1",
            "Mohawk recap",
            "Sun Hex's manager (Carla) gave card - wants us for a Dallas show in Feb.",
        )
    ]
    assert _answer("Who is our manager?", gig) == NOT_ENOUGH
    assert "Carla" in _answer("Who is Sun Hex's manager?", gig)


def test_who_is_the_role_is_answered_by_the_line_naming_someone_in_that_role() -> None:
    course = [
        _source(
            "N1",
            "Wound care course",
            "Fee €450, hospital covers 75%. First day Thu 12 Nov, 09:30, St Stephen's Green "
            "campus room 2.14.",
        ),
        _source("N2", "course day 1", "Lecturer: Dr Karen Tobin. Next session 10 Dec."),
    ]
    answer = _answer("Who is the lecturer on the wound care course?", course)
    assert "Karen Tobin" in answer and "Stephen" not in answer
    assert people.role_asked("Who's the 9R form captain?") == frozenset({"9r", "form", "captain"})


def test_a_role_no_note_names_is_declined_not_answered_by_a_near_one() -> None:
    school = [
        _source(
            "N1",
            "observation",
            "Observed by Mr Patel (deputy head) next Tuesday P3, 10Y1. Less teacher talk.",
        ),
        _source("N2", "Properties", "Unit 1: Tasha Greene, $1,350/mo, lease ends 5/31/27"),
    ]
    # "deputy head" and "teacher talk" each hold a word of the role, no line the role
    assert _answer("Who is the head teacher?", school) == NOT_ENOUGH
    assert _answer("Who is my property manager?", school) == NOT_ENOUGH
    assert "Patel" in _answer("Who is the deputy head?", school)


def test_a_name_asked_for_is_answered_only_by_a_sentence_that_writes_one() -> None:
    band = [
        _source(
            "N1",
            "Marco call",
            "Marco: wants to record 3 songs in Jan at Ben's friend's studio, $600/day.",
        ),
        _source("N2", "Dec", "Ben says the studio is Arlyn Studios on Annie St. Ben paid."),
    ]
    assert people.name_asked("What's the name of Ben's friend's studio?")
    assert people.name_asked("What's Mr Patel's first name?")
    assert people.name_asked("What was the wine called?")
    assert not people.name_asked("What did Marco name as the price?")
    assert "Arlyn" in _answer("What's the name of Ben's friend's studio?", band)
    assert _answer("What's the name of Ben's friend's studio?", band[:1]) == NOT_ENOUGH
    patel = [_source("N1", "obs", "Observed by Mr Patel (deputy head) next Tuesday P3.")]
    assert _answer("What's Mr Patel's first name?", patel) == NOT_ENOUGH
    # "Freddie's dad": the name the question gives is not his dad's first name
    parents = [
        _source("N1", "parents eve", "Freddie's dad: handwriting – not joining yet."),
        _source("N2", "trip", "Freddie's epipen goes with me. Tyler + Kacper didn't pay."),
    ]
    assert _answer("What is Freddie's dad's first name?", parents) == NOT_ENOUGH


def test_a_name_is_read_beside_what_it_names() -> None:
    care = [_source("N1", "carers", "Rang Brightwell Homecare, manager is Denise.")]
    assert _answer("What's Denise's surname?", care) == NOT_ENOUGH
    named = [_source("N1", "carers", "Rang Brightwell Homecare, manager is Denise Walsh.")]
    assert "Walsh" in _answer("What's Denise's surname?", named)
    downloads = [_source("N1", "stats", "ep2 (Jonah) 980 / ep3 (quilting guy, S2 leftover) 610")]
    assert _answer("What's the quilting guy's name?", downloads) == NOT_ENOUGH
    starter = [_source("N1", "sourdough", "Feeding 1:1:1 daily. starter name: Bruno.")]
    assert "Bruno" in _answer("what's my sourdough starter called", starter)
    puppy = [_source("N1", "Maria", "Maria: Her name is Shadow! She sleeps all day.")]
    assert "Shadow" in _answer("What is the name of Maria's second puppy?", puppy)


def test_a_name_is_read_beside_what_it_names_in_brackets() -> None:
    club = [
        _source(
            "N1",
            "running club",
            "Met the group at the lido, ~30 people. Ingrid (club captain) says bring a "
            "headtorch.\n- [ ] ask about kit → email secretary (Tomasz)",
        )
    ]
    assert "Ingrid" in _answer("What's the club captain's name?", club)
    assert "Tomasz" in _answer("What's the secretary called?", club)
    whatsapp = [_source("N1", "parents chat", 'Zoe (Milo\'s mum): "Milo is off sick Sat x"')]
    assert "Zoe" in _answer("What's Milo's mum called?", whatsapp)
    # the bracket must hold the whole of what is named
    assert _answer("What's the club treasurer's name?", club) == NOT_ENOUGH
    # ... or the phrase beside it ends with it, the sentence holding the rest
    match = [
        _source("N1", "Flitwick (A)", "Theo got a yellow for dissent – word with his dad (Gaz)")
    ]
    assert "Gaz" in _answer("What's Theo's dad called?", match)


def test_a_brand_or_a_business_asked_for_is_a_name() -> None:
    cam = [_source("N1", "fox", "Fox on the trail cam at 3:12am, circling the run for 10 min.")]
    assert _answer("What brand is the trail cam?", cam) == NOT_ENOUGH
    bought = [_source("N1", "coop", "Auto door is a ChickenGuard Pro, $289 from Bunnings.")]
    assert "ChickenGuard" in _answer("What brand is the auto door?", bought)
    assert people.name_asked("Which bank is the mortgage with?") == "any"
    # with a word before what is named, and more kinds of business
    assert people.name_asked("Which damp company gave us the quote?") == "any"
    assert people.name_asked("Which newspaper does Marcy write for?") == "any"
    damp = [_source("N1", "offer", "Asked for £5k off for the damp (damp co quoted £4,300 to fix)")]
    assert _answer("Which damp company gave us the quote?", damp) == NOT_ENOUGH
    quoted = [_source("N1", "offer", "Damp quote from Dryrite Ltd: £4,300 to fix the back wall")]
    assert "Dryrite" in _answer("Which damp company gave us the quote?", quoted)


def test_a_labelled_line_in_the_third_person_names_its_speaker() -> None:
    committee = [
        _source("N1", "running order", "1. Gaudete\n— interval, 20 min (mulled wine + raffle) —"),
        _source(
            "N2",
            "committee mtg 2",
            "Me: we need 4 stewards on the night\nPaddy (came in late): he'll do mulled wine "
            "at the interval, €3 a cup",
        ),
    ]
    assert "Paddy" in _answer("Who's doing the mulled wine?", committee)


def test_whoever_speaks_in_the_note_titled_by_the_role_is_its_name() -> None:
    call = [
        _source("N1", "call w/ accountant", "Mei: my fee is $220 per BAS.\nMei: BAS is quarterly."),
        _source("N2", "BAS", "Sent the fares to Mei for the BAS."),
    ]
    assert "Mei" in _answer("What's my accountant's name?", call)


def test_an_id_asked_for_is_no_name_the_notes_must_hold() -> None:
    from footnote.generation.names import name_phrases

    assert name_phrases("What's my Skyrizi Complete ID number?") == [("skyrizi", "complet")]


def test_found_by_use_a_speaker_and_a_full_name_answer_who_and_what_name() -> None:
    choir = [_source("N1", "choir", "Concert Sat 12 Dec.\nGerry: he'll do the raffle.")]
    # the line says only the question's word, and who says it
    assert "Gerry" in _answer("Who's doing the raffle?", choir)
    plumber = [_source("N1", "plumber", "Called Dan Price – 07700 900 461. Quote £180 + parts.")]
    assert "Dan Price" in _answer("What's the plumber's surname?", plumber)
    assert "Dan Price" in _answer("What's the plumber's first name?", plumber)
    only_first = [_source("N1", "plumber", "Called Dan – 07700 900 461. Quote £180 + parts.")]
    assert _answer("What's the plumber's surname?", only_first) == NOT_ENOUGH


def test_a_sentence_opening_on_he_brings_the_one_naming_him() -> None:
    swap = [
        _source(
            "N1",
            "swap w/ Ravi",
            "Ravi needs Sun 8 Nov off (his sister's 30th). He does my Wed 4 Nov night, "
            "I do his Sun 8 Nov night. Karen OK'd.",
        )
    ]
    answer = _answer("Who's covering my Wed 4 Nov night?", swap)
    assert answer.startswith("Ravi needs Sun 8 Nov off"), answer
    # a sentence before it not opening on a name is no antecedent
    call = [
        _source(
            "N1",
            "Maya",
            "Recording Thu 17 Sept, remote on Riverside. She only has AirPods so mailed her "
            "the loaner mic, tracking 9400 1118 9922 3344.",
        )
    ]
    assert "Recording" not in _answer("What's the tracking number for the mic?", call)


def test_a_line_labelled_by_what_is_named_opens_with_its_name() -> None:
    deal = _source(
        "N1",
        "Publisher call",
        "term sheet came in. rev split 70/30 after recoup?? need a lawyer to look\n"
        "Lawyer: Dana Whitcombe 416-555-0187, $350/hr, she guesses ~4 hrs for the review\n"
        "Sam: contract by Friday",
    )
    answer = _answer("What's the lawyer called?", [deal])
    assert "Dana Whitcombe" in answer
    # a label that is no word of what is asked names nothing of it
    assert _answer("What's the agent called?", [deal]) == NOT_ENOUGH


def test_in_a_line_of_the_thing_the_name_a_decision_takes_is_its_name() -> None:
    renewal = _source(
        "N1",
        "",
        "landlord insurance renewal – FBD €612 for both (was €574), Zurich €598. "
        "went w Zurich. starts 1 May",
    )
    assert "Zurich" in _answer("Which insurer did I go with in the end?", [renewal])
    undecided = _source(
        "N1", "", "landlord insurance renewal – FBD €612 for both (was €574), Zurich €598"
    )
    assert _answer("Which insurer did I go with in the end?", [undecided]) == NOT_ENOUGH


def test_who_is_answered_by_the_best_sentence_writing_a_name_the_notes_also_write_lowercase() -> (
    None
):
    suppliers = [
        _source(
            "N1",
            "Suppliers",
            "Plumb Centre - acct no PC-447120, trade counter Penarth Rd\n"
            "price check 15mm copper:\n- city plumbing £14.80\n- plumb centre £16.20",
        ),
        _source(
            "N2",
            "Suppliers - switched",
            "opened account with City Plumbing - acct CP-20931, 10% trade discount. "
            "going to use them as main supplier from now on",
        ),
    ]
    answer = _answer("who's my main supplier now", suppliers)
    assert "City Plumbing" in answer and "[N2]" in answer and "Penarth" not in answer, answer
