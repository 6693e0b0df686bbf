"""Dated, concise, speaker-aware extractive answers and relative dates read at the note's date."""

from __future__ import annotations

from datetime import UTC, datetime

from footnote.domain import Chunk, MemoryType, Source
from footnote.generation.answer_types import expected
from footnote.generation.citations import validate
from footnote.generation.dates import resolve_phrases
from footnote.generation.extractive import compose
from footnote.generation.prompt import NOT_ENOUGH
from footnote.query.analysis import analyze

MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday
MAY_25 = datetime(2023, 5, 25, 13, 0, tzinfo=UTC)  # a Thursday
ASKED = datetime(2023, 7, 1, tzinfo=UTC)


def _source(cid: str, text: str, when: datetime) -> Source:
    chunk = Chunk(f"{cid}_c", f"{cid}_n", "t", 0, text, (), MemoryType.NOTE, when, (), "m")
    return Source(cid, chunk, 1.0)


CHAT = [
    _source(
        "N1",
        "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.\n"
        "Melanie: Wow, that's cool, Caroline! What happened?",
        MAY_8,
    ),
    _source(
        "N2",
        "Melanie: I ran a charity race for mental health last Saturday. "
        "It made me realize that self-care is important.\nCaroline: That's great!",
        MAY_25,
    ),
]


def _answer(question: str, sources: list[Source] = CHAT) -> str:
    return compose(question, sources, analyze(question, ASKED))


def test_relative_phrases_are_read_against_the_day_the_note_was_written() -> None:
    meanings = {
        r.phrase: r.meaning
        for r in resolve_phrases(
            "Yesterday was fun; last Saturday too. Two weeks ago, last year, next month.", MAY_8
        )
    }
    assert meanings == {
        "Yesterday": "7 May 2023",
        "last Saturday": "Saturday, 6 May 2023",
        "Two weeks ago": "2 weeks before 8 May 2023",
        "last year": "2022",
        "next month": "June 2023",
    }


def test_a_when_question_is_answered_with_the_resolved_date_and_cited() -> None:
    text = _answer("When did Caroline go to the LGBTQ support group?")
    assert text == "7 May 2023 [N1]."
    checked = validate(text, CHAT)  # the note's date supports the claim
    assert checked.text == "7 May 2023 [N1]." and checked.citations[0].note_id == "N1_n"
    assert _answer("When did Melanie run a charity race?").startswith("Saturday, 20 May 2023 [N2]")


def test_a_sentence_with_its_own_date_is_quoted_and_a_plain_one_gets_the_note_date() -> None:
    notes = [
        _source("N1", "Decided to use Cloud Functions for the API.", MAY_8),
        _source("N2", "Week one signups were 340.", MAY_8),
        _source("N3", "The launch date moved to March 14 because the review is late.", MAY_8),
        _source("N4", "We signed the office lease with the landlord.", MAY_25),
    ]
    assert _answer("When is the launch?", notes) == (
        "The launch date moved to March 14 because the review is late [N3]."
    )
    assert _answer("When did we sign the office lease?", notes) == "25 May 2023 [N4]."


def test_a_question_about_the_wrong_person_is_declined() -> None:
    # Melanie ran the race; nothing Caroline said or was told is about one
    assert _answer("What did Caroline realize after her charity race?") == NOT_ENOUGH
    text = _answer("What did Melanie realize after the charity race?")
    assert "self-care is important [N2]" in text and "Caroline" not in text


def test_a_name_in_address_does_not_make_a_line_about_that_person() -> None:
    # "Caroline," is whom Melanie speaks to; the race and the realisation are Melanie's
    told = [
        _source(
            "N1",
            "Melanie: Caroline, I ran a charity race last Saturday. "
            "It made me realize that self-care is important.\nCaroline: Wow, good for you!",
            MAY_25,
        )
    ]
    assert _answer("What did Caroline realize after her charity race?", told) == NOT_ENOUGH


def test_a_line_said_to_the_person_about_them_answers_a_question_about_them() -> None:
    # "you" in Melanie's line is Caroline, the person she is talking to
    told = [
        _source(
            "N1",
            "Caroline: Guess what happened to me yesterday!\n"
            "Melanie: You won first prize at the pottery contest, amazing!",
            MAY_25,
        )
    ]
    text = _answer("What did Caroline win at the pottery contest?", told)
    assert "won first prize" in text and "[N1]" in text


def test_a_question_is_declined_when_a_line_about_someone_else_matches_it_better() -> None:
    # Caroline only mentions the show; the painting is Melanie's
    show = [
        _source(
            "N1",
            "Melanie: I painted a lake sunrise for the charity art show at the library.",
            MAY_25,
        ),
        _source("N2", "Caroline: The charity art show was so much fun!", MAY_25),
    ]
    question = "What did {} paint for the charity art show at the library?"
    assert _answer(question.format("Caroline"), show) == NOT_ENOUGH
    assert "a lake sunrise for the charity art show" in _answer(question.format("Melanie"), show)


def test_a_chunk_that_opens_mid_turn_gives_that_turn_to_the_other_party() -> None:
    # the second chunk of a long transcript note: its first line ends Melanie's turn
    chunk = Chunk(
        "N1_c",
        "N1_n",
        "t",
        1,
        "and then I took my kids to the pottery museum downtown.\n"
        "Caroline: That sounds like a lovely day out!\n"
        "Melanie: It was, they want to go back soon.",
        (),
        MemoryType.NOTE,
        MAY_25,
        (),
        "m",
    )
    text = _answer("Which museum did Melanie take her kids to?", [Source("N1", chunk, 1.0)])
    assert "pottery museum downtown" in text and "[N1]" in text
    asked = "Which museum did Caroline take her kids to?"
    assert _answer(asked, [Source("N1", chunk, 1.0)]) == NOT_ENOUGH


def test_an_undated_sentence_about_someone_else_is_no_answer_to_when() -> None:
    # The note was saved on 8 May; that is not when Kaiser was born.
    encyclopedic = [
        _source(
            "N1",
            "Henry J. Kaiser was an American industrialist known as the father of "
            "modern American shipbuilding.",
            MAY_8,
        )
    ]
    assert _answer("When was Henry J. Kaiser born?", encyclopedic) == NOT_ENOUGH
    # ... while a personal record's day of writing is the day it happened.
    diary = [_source("N1", "Dentist appointment went well, no cavities.", MAY_8)]
    assert _answer("When did I go to the dentist appointment?", diary) == "8 May 2023 [N1]."
    # "We" inside a quoted title is not the asker speaking of themselves.
    song = [_source("N1", 'The film "Here We Go Round the Mulberry Bush" was a comedy.', MAY_8)]
    assert _answer('When was "Here We Go Round the Mulberry Bush" released?', song) == NOT_ENOUGH


def test_a_reaction_addressed_to_the_listener_is_about_the_listener() -> None:
    # Caroline's line names no one but Melanie, whom it addresses: the race is Melanie's,
    # though only Caroline's line uses the question's words.
    reacted = [
        _source(
            "N1",
            "Melanie: I ran a 5K for mental health last Saturday.\n"
            "Caroline: That charity race sounds great, Mel!",
            MAY_25,
        )
    ]
    assert _answer("How was Caroline's charity race?", reacted) == NOT_ENOUGH
    assert "[N1]" in _answer("How was Melanie's charity race?", reacted)


def test_a_question_opening_with_a_relative_word_names_no_one_by_it() -> None:
    # "Whose" and "According" open the sentence; they are not names the notes lack.
    party = [_source("N1", "Melanie: We celebrated my daughter's birthday with a concert!", MAY_25)]
    assert "daughter's birthday" in _answer("Whose birthday did Melanie celebrate?", party)
    assert "concert" in _answer("According to Melanie, how was the birthday celebrated?", party)


def test_a_question_about_a_person_is_answered_from_one_passage() -> None:
    # The second passage holds a leftover question word ("store") but is not the source.
    passages = [
        _source("N1", "Gina: I just got accepted for a fashion internship!", MAY_25),
        _source("N2", "Gina: My clothing store is busy with new customers.", MAY_25),
    ]
    text = _answer("What did Gina get accepted for at her store?", passages)
    assert "fashion internship [N1]" in text and "[N2]" not in text


def test_congratulations_and_sympathy_are_about_the_listeners_news() -> None:
    # Maria congratulates and consoles; the promotion and the loss are John's.
    news = [
        _source(
            "N1",
            "John: I got promoted to assistant manager at work!\n"
            "Maria: Congrats on the promotion, that is huge.\n"
            "John: And sadly our old dog Max passed away last week.\n"
            "Maria: I'm so sorry to hear about Max.",
            MAY_25,
        )
    ]
    assert _answer("What did Maria recently get promoted to?", news) == NOT_ENOUGH
    assert _answer("What happened to Maria's dog Max?", news) == NOT_ENOUGH
    assert "promoted to assistant manager at work [N1]" in _answer(
        "What did John get promoted to?", news
    )


def test_a_question_about_what_someone_said_is_answered_by_their_words() -> None:
    # Gina's praise is about Jon's photo, but the question asks what Gina said.
    photo = [
        _source(
            "N1",
            "Jon: Here is my dance crew at the festival rehearsal.\n"
            "Gina: The dancers look so graceful, what a great shot!",
            MAY_25,
        )
    ]
    text = _answer("What does Gina say about the dancers in the photo?", photo)
    assert "look so graceful" in text and "[N1]" in text
    # ... while a question about Gina's own dancers is still not hers to answer.
    assert _answer("How graceful are Gina's dancers?", photo) == NOT_ENOUGH


def test_how_often_and_how_long_are_answered_by_a_sentence_that_says_so() -> None:
    park = [
        _source(
            "N1",
            "John: Taking the kids to the park is great for family bonding.\n"
            "Maria: Do you go there a lot?\n"
            "John: Yeah, we go a few times a week.",
            MAY_25,
        )
    ]
    # The frequency leads, though the bonding line shares more of the question's words.
    text = _answer("How often does John take his kids to the park for bonding?", park)
    assert text.startswith("John: Yeah, we go a few times a week [N1]")
    # No sentence says for how long: the notes do not answer it.
    assert _answer("How long has John taken his kids to the park?", park) == NOT_ENOUGH


def test_chat_lines_keep_their_speaker_without_a_pronoun_or_after_a_greeting() -> None:
    lines = [
        _source(
            "N1",
            "Melanie: Been reading that book you recommended, Nothing is Impossible.\n"
            "Caroline: Hey Melanie, that roadtrip this past weekend was insane!\n"
            "Gina: Yeah, they're the ones performing at the spring festival!\n"
            "Jon: I chose furniture for the studio that looks great and is comfy.",
            MAY_25,
        )
    ]
    # an elided "I": Melanie is reading it, though "you" recommended it
    assert "Nothing is Impossible" in _answer("What book is Melanie reading?", lines)
    # "Hey Melanie," greets; the roadtrip is Caroline's own news
    assert "roadtrip this past weekend" in _answer("How was Caroline's roadtrip?", lines)
    # "Yeah," is no name in address
    assert "spring festival" in _answer("Who is performing at Gina's spring festival?", lines)
    # praise of one's own choice is still one's own
    assert "comfy" in _answer("How did Jon choose the furniture for the studio?", lines)


def test_a_question_followed_by_a_photo_caption_still_asks() -> None:
    shown = [
        _source(
            "N1",
            "Melanie: Got any objects you treasure, like that necklace? "
            "(shared a photo: a stack of bowls)",
            MAY_25,
        )
    ]
    assert _answer("What objects does Melanie treasure, like her necklace?", shown) == NOT_ENOUGH


def test_a_when_question_is_never_dated_by_a_question_in_the_notes() -> None:
    asked = [
        _source(
            "N1",
            "Melanie: So when did you go to the LGBTQ support group, Caroline?\n"
            "Caroline: I went to the LGBTQ support group yesterday, it was powerful.",
            MAY_8,
        )
    ]
    assert _answer("When did Caroline go to the LGBTQ support group?", asked) == "7 May 2023 [N1]."


def test_a_line_to_an_unknown_listener_is_not_someone_elses_fact() -> None:
    # N1 holds only Maria's lines, so whom "you" means is unknown there.
    event = [
        _source(
            "N1", "Maria: So glad you and your family got to attend that kind of event.", MAY_25
        ),
        _source("N2", "John: Last week my family and I attended a live music event.", MAY_25),
    ]
    text = _answer("What kind of event did John and his family attend?", event)
    assert "live music event [N2]" in text


def test_sympathy_without_pronouns_is_about_the_listener() -> None:
    # "it must have been tough taking a break" is Melanie's break, said by Caroline.
    pottery = [
        _source(
            "N1",
            "Melanie: Last month I got hurt, so no pottery for a while.\n"
            "Caroline: Pottery relaxes, so it must have been tough taking a break from pottery.",
            MAY_25,
        )
    ]
    assert _answer("Why was Caroline's pottery break tough?", pottery) == NOT_ENOUGH


def test_news_of_ones_own_is_not_a_reaction_to_the_listener() -> None:
    # "great job", "like your …, but I …" and "sorry about the delay, I …" carry the
    # speaker's own news; only a bare congratulation or condolence is the listener's.
    own = [
        _source(
            "N1",
            "Caroline: I finally got a great job at the museum!\n"
            "Caroline: I like your idea, but I went to Paris instead.\n"
            "Mel: Great job, that's huge!",
            MAY_25,
        )
    ]
    assert "job at the museum [N1]" in _answer("What job did Caroline get at the museum?", own)
    assert "went to Paris instead" in _answer("Where did Caroline go instead?", own)


def test_how_often_and_how_long_ignore_lookalike_words() -> None:
    often = expected("How often does she paint?")
    long = expected("How long has she painted?")
    assert often is not None and long is not None
    assert not often.search("I had a great time painting")
    assert often.search("I paint three times a week")
    assert not long.search("One day I decided to paint, since it was raining")
    assert long.search("I have been painting since 2016")
    assert long.search("Seven years now")


def test_a_day_something_is_moved_to_is_ahead_and_a_bare_month_is_read_too() -> None:
    tuesday = datetime(2026, 11, 24, 9, tzinfo=UTC)

    def meanings(text: str) -> list[tuple[str, bool]]:
        return [(r.meaning, r.past) for r in resolve_phrases(text, tuesday)]

    # "moved" is past; the Thursday it was moved to is not
    assert meanings("Parent evening moved to Thursday.") == [("Thursday, 26 November 2026", False)]
    assert meanings("standup pushed to Fri") == [("Friday, 27 November 2026", False)]
    assert meanings("We met on Thursday") == [("Thursday, 19 November 2026", True)]
    # a month without day or year: the next one for what is due, the last for a record
    assert meanings("TÜV due in March.") == [("March 2027", False)]
    assert meanings("We moved in June.") == [("June 2026", True)]
    assert meanings("in Marching band") == []  # no month
    assert meanings("the trip in June 2027") == []  # names its date itself


def test_a_weekly_time_is_quoted_not_read_as_one_day() -> None:
    tuesday = datetime(2026, 11, 24, 21, tzinfo=UTC)
    # "every Wednesday" is no single Wednesday (it read as the day after writing, past
    # by the time it was asked)
    assert resolve_phrases("lesson with Lucía every Wednesday 6pm", tuesday) == []
    assert [r.meaning for r in resolve_phrases("see you Wednesday", tuesday)] == [
        "Wednesday, 25 November 2026"
    ]
    chunk = Chunk(
        "c1", "n1", "t", 0, "Spanish\n\nme gustaría = I would like\nlesson with Lucía every "
        "Wednesday 6pm", (), MemoryType.NOTE, tuesday, (), "m", "Spanish",
    )  # fmt: skip
    answer = compose(
        "When is my Spanish lesson?",
        [Source("N1", chunk, 1.0)],
        analyze("When is my Spanish lesson?", datetime(2026, 11, 26, 20, tzinfo=UTC)),
    )
    assert answer == "lesson with Lucía every Wednesday 6pm [N1].", answer
