"""The offline grounder: what a claim states must be what its note states.

Each case is a note (written on a known day) and a sentence a model might write from
it: a paraphrase keeps its citation; the same sentence with one thing changed (a
number, a person, a date, a negation) loses it. English, Spanish and German.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from footnote.domain import Source
from footnote.generation.citations import SentenceChecker, complete_sentences, validate
from footnote.grounding import ClaimChecks, LocalGrounder, disagreement, negated, source_facts
from tests.factories import source

MONDAY = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)


def _note(text: str, cid: str = "N1", written: datetime = MONDAY, title: str = "") -> Source:
    s = source(cid, text)
    return dataclasses.replace(
        s, chunk=dataclasses.replace(s.chunk, created_at=written, title=title)
    )


def _kept(claim: str, note: Source, language: str = "en", others: tuple[Source, ...] = ()) -> bool:
    checks = ClaimChecks(LocalGrounder(), language, sources=[note, *others])
    return bool(checks.kept(claim, [note]))


CASES = [
    # (note, supported claim, wrong claim, language)
    (
        "School form due before Fri – sign + £12 trip money",
        "The school form is due before Friday 9 January, with £12 for the trip.",
        "The school form is due before Friday 16 January, with £12 for the trip.",
        "en",
    ),
    (
        "School form due before Fri – sign + £12 trip money",
        "The form has to be signed and comes with £12 of trip money.",
        "The form has to be signed and comes with £15 of trip money.",
        "en",
    ),
    (
        "Dentist moved to Thu 8 Jan, 4:15pm. Dr Okafor",
        "The dentist appointment with Dr Okafor is on Thursday 8 January at 4:15 pm.",
        "The dentist appointment with Dr Okafor is on Wednesday 7 January at 4:15 pm.",
        "en",
    ),
    (
        "Call w/ Priya: she'll send the contract by Wed. budget 3.2k",
        "Priya will send the contract by Wednesday, with a budget of 3,200.",
        "Priya will send the contract by Wednesday, with a budget of 2,300.",
        "en",
    ),
    (
        "Ana no viene a la cena del sábado, trae el postre Luis",
        "Para la cena del sábado 10 de enero, Luis trae el postre.",
        "Para la cena del sábado 10 de enero, Marta trae el postre.",
        "es",
    ),
    (
        "Training Sa 10 Uhr, Halle 2. Beitrag 45 € bis Fr",
        "Das Training ist am Samstag, 10. Januar, um 10 Uhr in Halle 2.",
        "Das Training ist am Samstag, 10. Januar, um 11 Uhr in Halle 2.",
        "de",
    ),
    (
        "Training Sa 10 Uhr, Halle 2. Beitrag 45 € bis Fr",
        "Der Beitrag von 45 € ist bis Freitag, 9. Januar, fällig.",
        "Der Beitrag von 45 € ist bis Freitag, 16. Januar, fällig.",
        "de",
    ),
    # a weekday the note dates itself is that day, not any of that week's
    (
        "performance Wed 7 Jan 9:30 at Little Oaks hall",
        "The performance is on Wednesday 7 January at 9:30 in the Little Oaks hall.",
        "The performance is on Wednesday 31 December at 9:30 in the Little Oaks hall.",
        "en",
    ),
]


@pytest.mark.parametrize(("note", "supported", "wrong", "language"), CASES)
def test_a_paraphrase_keeps_its_citation_and_one_changed_fact_loses_it(
    note: str, supported: str, wrong: str, language: str
) -> None:
    assert _kept(supported, _note(note), language), supported
    assert not _kept(wrong, _note(note), language), wrong


def test_a_name_another_note_gives_is_another_persons() -> None:
    note = _note("Logo round 1: Joana prefers direction A (the wave)")
    other = _note("Rui hates serif fonts", "N2")
    assert _kept("Joana preferred direction A, the wave.", note, others=(other,))
    assert not _kept("Rui preferred direction A, the wave.", note, others=(other,))


def test_a_claim_that_negates_what_the_note_affirms_loses_its_citation() -> None:
    note = _note("Inès: skipped (sick). Thomas hosted.")
    assert _kept("Inès skipped the meeting because she was sick.", note)
    assert not _kept("Thomas did not host the meeting.", note)
    note = _note("NOT on exam: eigenvalues")
    assert not _kept("Eigenvalues are on the exam.", note)


def test_a_quoted_line_and_its_heading_keep_their_citation() -> None:
    note = _note("Boiler service booked for the 14th.", title="House 2025")
    assert _kept("House 2025, 5 January 2026", note)
    assert _kept("Boiler service booked for the 14th.", note)


def test_a_code_and_a_resolved_year_in_a_quoted_line_keep_its_citation() -> None:
    # a booking code is one word, not the names "KX", "M" and "Q" another note gives
    code = _note("Finnair, booking ref KX7M2Q")
    other = _note("Call with M about Q and KX", "N2")
    assert _kept("Finnair, booking ref KX7M2Q", code, others=(other,))
    # the quote answer writes the year "last yr" means beside it
    goals = _note("- 30 books (last yr 24)")
    assert _kept("- 30 books (last yr 24) (last yr: 2025)", goals)


def test_a_number_agrees_in_words_or_digits() -> None:
    rates = _note("rush (<5 days) +30%")
    assert _kept("Jobs needed in under five days carry a 30% rush surcharge.", rates)
    assert not _kept("Jobs needed in under six days carry a 30% rush surcharge.", rates)
    # "ein Tisch" is an article, not the number 1 ("halb eins ein" is no "1 1")
    table = _note("Mama wird übermorgen 70! Tisch reserviert 12:30 für 18 Pers.")
    assert _kept("Um halb eins war ein Tisch für achtzehn Personen reserviert.", table, "de")
    assert not _kept("Um halb eins war ein Tisch für zwanzig Personen reserviert.", table, "de")


def test_the_day_a_note_is_written_is_no_amount_it_states() -> None:
    # written on the 20th: "£20" is not the note's "£15"
    collection = _note(
        "leaving do Fri, £15 collection -> Tomasz", written=datetime(2026, 2, 20, 19, tzinfo=UTC)
    )
    assert _kept("The collection for the leaving do is £15, to Tomasz.", collection)
    assert not _kept("The collection for the leaving do is £20, to Tomasz.", collection)


def test_a_number_counts_what_the_note_counts_with_it() -> None:
    # 16 is in the note, but it counts the caseload: the insulin is 18 units
    log = _note("caseload 16.\nrang Dr Okafor -> insulin changed to 18 units am / 10 units pm")
    assert _kept(
        "After you rang Dr Okafor the insulin changed to 18 units am and 10 units pm.", log
    )
    assert not _kept(
        "After you rang Dr Okafor the insulin changed to 16 units am and 10 units pm.", log
    )
    # a number the note's line counts with the word, its unit left out, is that count;
    # not one that counts another word ("Stage 6 lesson")
    dose = _note("losartán de la mañana sube a 100 mg, el de la noche sigue en 50")
    assert _kept(
        "El losartán de la mañana sube a 100 mg y el de la noche sigue en 50 mg.", dose, "es"
    )
    swim = _note("Ava's first Stage 6 lesson. 4 lengths front crawl without stopping!")
    assert not _kept("In her first Stage 6 lesson Ava swam 6 lengths of front crawl.", swim)
    # a count the note writes with other words is not compared ("3 wks", "three weeks")
    coat = _note("frame off for powder coat, ready in 3 wks")
    assert _kept("The powder-coated frame is ready in three weeks.", coat)


def test_a_quoted_line_with_dates_keeps_its_citation() -> None:
    bio = _note("Paul Manafort (born April 1, 1949) is an American lawyer.")
    # the quote answer writes what a date means beside it; "April 1" is also inside
    # "1 April 1949", and blanking it there left the number "949"
    assert _kept(
        "Paul Manafort (born April 1, 1949) is an American lawyer (April 1, 1949: 1 April 1949).",
        bio,
    )
    remote = _note("The Apple Remote was released in or after October 2005 by Apple Inc.")
    # a bounded period ("after October 2005") names its month
    assert _kept("The Apple Remote was released in or after October 2005 by Apple Inc.", remote)
    assert not _kept("The Apple Remote was released in or after October 2007 by Apple Inc.", remote)


def test_a_name_agrees_with_the_abbreviation_the_note_writes() -> None:
    incident = _note("yesterday 21:50 pg primary OOM -> patroni failed over to replica-2")
    assert _kept("The Postgres primary ran out of memory and Patroni failed over.", incident)
    hr = _note("Llamada con Nerea de RR. HH.: la evaluación anual es en marzo")
    assert _kept("Según Nerea de Recursos Humanos, la evaluación anual es en marzo.", hr, "es")
    train = source_facts(_note("train LDS -> EDB Mon 09:12"), "en")
    assert disagreement("The train from Leeds to Edinburgh is at 09:12.", train, "en") is None
    assert disagreement("The train from Leeds to Glasgow is at 09:12.", train, "en") == "name"
    # a short word is no abbreviation of a name as long as itself
    lea = _note("Birthday party for lea on the 9th, bring cake")
    assert not _kept("The birthday party for Lena is on the 9th.", lea)


def test_a_short_word_of_the_language_abbreviates_no_name() -> None:
    # "ab" (from) and "dad" have their letters in order in "Albers" and "Delgado": a
    # short word written in lower case with a vowel is read as a word, not a short form
    leave = "Elternzeit genehmigt, Herr Kühn hat unterschrieben\nab März wieder Vollzeit"
    assert _disagrees("Frau Albers hat die Elternzeit genehmigt.", leave, "de") == "name"
    pickup = "pickup 3:15 at the gym door, dad drives"
    assert (
        _disagrees("At 3:15 Delgado drives to the pickup at the gym door.", pickup, "en") == "name"
    )
    # capitals, or a word without vowels, still abbreviate ("HR", "pg")
    assert _disagrees("The leave was approved by Human Resources.", "leave ok by HR", "en") is None
    assert _disagrees("The leave was approved by Human Resources.", "leave ok by hr", "en") is None


def test_an_acronym_or_a_letter_is_not_a_persons_name() -> None:
    budget = _note("budget 3,200€ + IVA, 50% upfront")
    assert _kept("The budget is 3,200 euros plus VAT, with 50% upfront.", budget)
    tutor = _note("Este curso soy tutora de 4ºB: 23 alumnos (12 niñas, 11 niños)")
    assert _kept(
        "En tu tutoría de cuarto B tienes 23 alumnos: doce niñas y once niños.", tutor, "es"
    )


def _disagrees(claim: str, note: str, language: str) -> str | None:
    return disagreement(claim, source_facts(_note(note), language), language)


def test_a_german_name_is_told_from_a_noun_and_must_agree() -> None:
    # German capitalises every noun: "Küche" and "Abbau" are nouns a paraphrase may
    # bring, "Becker" and "Lena" are people it may not
    note = "Jonas hilft übermorgen beim Küchenabbau. Fliesenleger: Herr Yilmaz"
    assert _disagrees("Jonas hilft beim Abbau der alten Küche.", note, "de") is None
    assert _disagrees("Herr Becker hilft beim Abbau der alten Küche.", note, "de") == "name"
    assert _disagrees("Beim Abbau der alten Küche hilft Lena.", note, "de") == "name"
    # a title is no name of its own ("Herr" where the note writes "Hr."); a genitive
    # is its name's
    assert _disagrees("Den Fliesenleger macht Herr Yilmaz.", "Fliesen: Hr. Yilmaz", "de") is None
    lea = "Lea hat am Freitag Geburtstag, Raclette ab 19 Uhr"
    assert _disagrees("Zu Leas Geburtstag gibt es Raclette.", lea, "de") is None


def test_a_person_named_beside_the_right_one_is_checked_against_whom_the_note_names() -> None:
    # the note's clause names Rubén and Álvaro; the claim's names Rubén and Andrés,
    # whom the note names elsewhere
    dj = "DJ Rubén (lo recomendó Álvaro): 900 € 5h.\nPrimer baile: Andrés quiere Coldplay"
    assert _disagrees("Al DJ Rubén lo recomendó Álvaro; cobra 900 € por 5 horas.", dj, "es") is None
    assert (
        _disagrees("Al DJ Rubén lo recomendó Andrés; cobra 900 € por 5 horas.", dj, "es") == "name"
    )


def test_a_role_another_person_holds_in_the_notes_line_is_not_the_claims_persons() -> None:
    # two facts of two people in one clause: each restates one of the note's clauses
    trip = "hike w/ Ana, Ben, Carla – Sat 8am. Ben brings the map, Carla has the tent"
    assert _disagrees("Ben brings the map and Carla has the tent.", trip, "en") is None
    assert _disagrees("Ana brings the map and Carla has the tent.", trip, "en") == "name"
    # a clause naming no one is the person's its line names first
    review = "Léa: 4 stars, the chapter on whales is her favourite\nTom: too long"
    assert _disagrees("Léa said the chapter on whales was her favourite.", review, "en") is None
    assert _disagrees("Tom said the chapter on whales was his favourite.", review, "en") == "name"
    # and the person who heads the line, named again by the claim, is no one else
    bonus = "Kim Osei referral bonus – she gets $3k once I pass 90 days. dinner at Avec"
    assert (
        _disagrees("Kim Osei gets a $3k referral bonus once you pass 90 days.", bonus, "en") is None
    )


def test_an_event_the_note_dates_is_not_on_the_day_the_note_was_written() -> None:
    # written Monday 5 January: the review is the day after, the kickoff that day
    note = "kickoff done, went well.\nBudget review tomorrow 10am with Ines."
    written = datetime(2026, 1, 5, 18, tzinfo=UTC)
    facts = source_facts(_note(note, written=written), "en")
    assert disagreement("The kickoff was on Monday 5 January.", facts, "en") is None
    assert disagreement("The budget review with Ines is on 6 January at 10am.", facts, "en") is None
    assert (
        disagreement("The budget review with Ines was on 5 January at 10am.", facts, "en") == "date"
    )
    # a day the note writes across a comma is one day ("am Dienstag, 24. Februar")
    dentist = "Kontrolle bei Dr. Albrecht am Dienstag, 24. Februar um 8:30. Bonusheft mitnehmen!"
    facts = source_facts(_note(dentist, written=datetime(2026, 2, 2, 8, tzinfo=UTC)), "de")
    assert (
        disagreement("Kontrolle bei Dr. Albrecht am Dienstag, 24. Februar um 8:30", facts, "de")
        is None
    )
    # a clause that restates the claim and names its day keeps it, though another
    # restates more of it and names another day
    plan = (
        "- kitchen delivery Tue 13 January\n- kitchen delivery team calls to confirm Fri 9 January"
    )
    facts = source_facts(_note(plan, written=written), "en")
    assert (
        disagreement("The kitchen delivery team comes on Tuesday 13 January.", facts, "en") is None
    )
    # nor on a day the note names for another event
    two = "- charity market: Sun 11 January, 10am\n- next committee meeting: Wed 14 January 8pm"
    facts = source_facts(_note(two, written=written), "en")
    assert (
        disagreement("The next committee meeting is on Wednesday 14 January.", facts, "en") is None
    )
    assert (
        disagreement("The next committee meeting is on Sunday 11 January.", facts, "en") == "date"
    )


def test_a_title_is_no_name_and_the_name_after_it_is_one() -> None:
    # the title another note gives ("Prof. Mehta") is no person this note leaves out
    mtg = _note("both Helen + Mehta\nMehta: add significance tests (bootstrap)")
    other = _note("Annual review w/ Prof. Mehta and Dr. Okafor, 3pm", "N2")
    assert _kept("Prof Mehta wants you to add bootstrap significance tests.", mtg, others=(other,))
    assert not _kept(
        "Dr. Okafor wants you to add bootstrap significance tests.", mtg, others=(other,)
    )
    # a sentence's first word after a title is a name ("a.m." ends no sentence either)
    assert _disagrees("Mr. Delgado became the fourth chaperone.", "4th chaperone: Mr. Okoye", "en")
    due = "design a dashboard. due Monday 9am CT"
    assert _disagrees("It was due on Monday at 9 a.m. Central Time.", due, "en") is None


def test_a_name_another_note_gives_agrees_with_the_acronym_this_one_writes() -> None:
    call = _note("she has ~3k annotated PT sentences, can share under CC BY")
    other = _note("Portuguese data from Lisbon: ask Inês", "N2")
    claim = "She has about 3k annotated Portuguese sentences to share under CC BY."
    assert _kept(claim, call, others=(other,))
    # but not with any short word whose letters the name holds in order
    dad = _note("4th chaperone = Mr. Okoye (Zoe's dad), background check done")
    delgado = _note("Mr. Delgado can drive", "N2")
    assert not _kept("Delgado became the fourth chaperone.", dad, others=(delgado,))


def test_a_year_the_note_writes_as_a_number_is_a_year_it_names() -> None:
    acta = "- cuentas 2025: ingresos 2.140 €, gastos 1.865 € → aprobadas"
    assert _disagrees("Se aprobaron las cuentas de 2025: 2.140 € de ingresos.", acta, "es") is None
    assert (
        _disagrees("Se aprobaron las cuentas de 2024: 2.140 € de ingresos.", acta, "es") == "date"
    )


def test_an_amount_is_no_pair_of_the_notes_numbers_and_a_negation_ends_with_its_sentence() -> None:
    payroll = "Ramiro $3,200\nBeto $1,600\ntotal $9,000"
    assert _disagrees("La nómina suma $9,000 en total.", payroll, "es") is None
    assert _disagrees("La nómina suma $9,600 en total.", payroll, "es") == "number"
    assert _disagrees("The shift starts at 7:30.", "shift 7 to 30 min late", "en") is None
    away = "bin am Montag nicht da. Petra stellt den Kassenbericht vor"
    assert _disagrees("Petra stellt den Kassenbericht vor.", away, "de") is None


def test_a_month_the_note_abbreviates_is_the_month_it_names() -> None:
    bill = _note("Factura luz Iberdrola feb: 87,34€.", written=datetime(2026, 3, 6, 21, tzinfo=UTC))
    assert _kept("La factura de la luz de Iberdrola de febrero fue de 87,34€.", bill, "es")
    assert not _kept("La factura de la luz de Iberdrola de enero fue de 87,34€.", bill, "es")


def test_a_sentence_citing_two_notes_is_supported_by_both_together() -> None:
    plan = _note("gift: €150 each from me & Aoife? check w/ Mam", "N1")
    done = _note("Conor + Sinéad married!! gave €300 from both of us", "N2")
    checks = ClaimChecks(LocalGrounder(), "en", sources=[plan, done])
    claim = "You and Aoife gave Conor and Sinéad €300 between you."
    assert set(checks.kept(claim, [plan, done])) == {"N1", "N2"}
    assert not checks.kept(claim, [plan]) and not checks.kept(claim, [done])
    # together they still do not state another sum
    assert not checks.kept("You and Aoife gave Conor and Sinéad €400.", [plan, done])


def test_a_claim_and_its_note_are_read_in_the_language_each_is_written_in() -> None:
    # the reader's language is English; the note and the answer are Spanish
    note = _note("Ana no viene a la cena del sábado, trae el postre Luis")
    assert _kept("Luis trae el postre para la cena del sábado.", note, "en")
    assert not _kept("Ana viene a la cena del sábado.", note, "en")


def test_a_claim_that_gives_one_persons_words_to_another_loses_its_citation() -> None:
    debrief = _note(
        "panel went ok\nJess asked how I'd price it -> per seat\nTom asked about hiring"
    )
    assert _kept("Jess asked how you would price it, and you said per seat.", debrief)
    assert not _kept("Tom asked how you would price it, and you said per seat.", debrief)
    # a heading that names the person attributes its lines to them
    call = _note("Call w/ Priya:\n- contract by Wed\n- budget 3.2k")
    assert _kept("Priya will send the contract by Wednesday.", call)
    # a plural weekday names no one
    group = _note("study group w/ Dev – Sundays 4pm, room 305")
    assert _kept("The study group meets Sundays at 4pm in room 305.", group)


class CountingGrounder(LocalGrounder):
    def __init__(self) -> None:
        super().__init__()
        self.claims: list[str] = []

    def support(self, claim, sources, language, zone, others=(), asked=""):
        self.claims.append(claim)
        return super().support(claim, sources, language, zone, others, asked)


def test_each_sentence_is_checked_once_streamed_and_validated() -> None:
    notes = [_note("Firestore stores the notes.", "N1"), _note("Cloud Run hosts the API.", "N2")]
    answer = "Firestore stores the notes [N1]. Cloud Run hosts the API [N2]. Bananas are blue [N1]."
    grounder = CountingGrounder()
    checks = ClaimChecks(grounder, sources=notes)
    checker = SentenceChecker(notes, checks)
    shown = [checker.check(s) for s in complete_sentences([answer[:20], answer[20:]])]
    final = validate(answer, notes, checks)
    assert "".join(shown).strip() == final.text
    assert sorted(grounder.claims) == sorted(
        ["Firestore stores the notes.", "Cloud Run hosts the API.", "Bananas are blue."]
    )  # each once, though each sentence was checked streamed and again validated
    assert [c.support for c in final.citations] == [1.0, 1.0]


@pytest.mark.parametrize(
    ("note", "written", "language", "supported", "wrong"),
    [
        (
            "train LDS -> EDB Mon 19th 09:12, back Thu 22nd 17:45",
            datetime(2026, 1, 6, 19, 40, tzinfo=UTC),
            "en",
            "The train leaves on Monday 19 January at 09:12 and is back on Thursday 22 January.",
            "The train leaves on Monday 26 January at 09:12 and is back on Thursday 29 January.",
        ),
        (
            "next one in 12 wks",
            datetime(2026, 2, 20, 19, 5, tzinfo=UTC),
            "en",
            "The next one is on 15 May.",
            "The next one is on 15 June.",
        ),
        (
            "mtg w/ Sofia day after tmrw 11am",
            datetime(2026, 5, 12, 19, 15, tzinfo=UTC),
            "en",
            "The meeting with Sofia is on Thursday 14 May at 11am.",
            "The meeting with Sofia is on Friday 15 May at 11am.",
        ),
        (
            "Tutoría pasado mañana a las 15:00 en el aula.",
            datetime(2026, 3, 4, 16, 30, tzinfo=UTC),
            "es",
            "La tutoría es el viernes 6 de marzo a las 15:00 en el aula.",
            "La tutoría es el jueves 5 de marzo a las 15:00 en el aula.",
        ),
        (
            "Abgabe 5.12.",
            datetime(2026, 11, 20, 9, tzinfo=UTC),
            "de",
            "Die Abgabe ist am 5. Dezember.",
            "Die Abgabe ist am 6. Dezember.",
        ),
    ],
)
def test_a_date_the_note_writes_short_keeps_its_claim_and_another_day_loses_it(
    note: str, written: datetime, language: str, supported: str, wrong: str
) -> None:
    """The time reader's misreadings removed these claims: a clock time read as a month
    ("Mon 19th 09:12": 9 February), "wks", "tmrw" and "pasado mañana" not read."""
    source = _note(note, written=written)
    assert _kept(supported, source, language)
    assert not _kept(wrong, source, language)


def test_a_weekday_beside_its_day_across_a_comma_is_that_day() -> None:
    """The claim is read clause by clause ("Montag" | "13. April"): the weekday alone was
    read as the Monday after the note (30 March), which the note, written on a Friday
    with "13.04", does not name."""
    note = _note("Beginn verschoben auf 13.04", written=datetime(2026, 3, 27, 9, tzinfo=UTC))
    assert _kept("Der Beginn ist am Montag, den 13. April.", note, "de")
    assert not _kept("Der Beginn ist am Dienstag, den 13. April.", note, "de")
    assert not _kept("Der Beginn ist am Montag, den 20. April.", note, "de")
    # a note that names another Tuesday, and the day in digits: the wrong weekday
    # names a 13 April of another year
    moved = _note(
        "Yilmaz verschiebt auf Mo 13.04. (statt Di 07.04.)",
        written=datetime(2026, 3, 30, 19, tzinfo=UTC),
    )
    assert _kept("Yilmaz hat den Beginn auf Montag, den 13. April, verschoben.", moved, "de")
    assert not _kept("Yilmaz hat den Beginn auf Dienstag, den 13. April, verschoben.", moved, "de")
    assert not _kept("Yilmaz moved the start to Tuesday, 13 April.", moved, "en")


def test_function_words_and_an_amount_are_no_date_a_claim_states() -> None:
    """ "an die" was read as a Tuesday (dateparser's "die"), "mit etwa acht" as the 8th of
    a Wednesday ("mit"): each removed a correct citation."""
    offer = _note(
        "Angebot #2025-031 raus: 6.100 € netto. 2 Korrekturschleifen inkl.",
        written=datetime(2025, 11, 6, 16, tzinfo=UTC),
    )
    assert _kept("Das Angebot an die Bäckerei beläuft sich auf 6.100 € netto.", offer, "de")
    tiles = _note(
        "Yilmaz verschiebt auf Mo 13.04. braucht ca. 8 Arbeitstage.",
        written=datetime(2026, 3, 30, 19, tzinfo=UTC),
    )
    claim = (
        "Yilmaz hat auf Montag, den 13. April, verschoben und rechnet mit etwa acht Arbeitstagen."
    )
    assert _kept(claim, tiles, "de")


def test_a_day_counted_from_a_day_the_note_names_keeps_its_claim() -> None:
    """ "am Tag danach" after "Mo 16.03." is Tuesday 17 March, "2 Wochen vorher" before
    "Do 26.02." Thursday 12 February: read against the day the note was written they
    named nothing, and the correct claims lost their citations."""
    water = _note(
        "Start Rückbau Mo 16.03., 7:30\nWasser im Strang am Tag danach ganztägig abgestellt",
        written=datetime(2026, 3, 2, 9, tzinfo=UTC),
    )
    claim = "Am Dienstag, dem 17. März, war das Wasser im Strang ganztägig abgestellt."
    assert _kept(claim, water, "de")
    assert not _kept(claim.replace("Dienstag, dem 17.", "Mittwoch, dem 18."), water, "de")
    meeting = _note(
        "Nächste ETV Do 26.02., 18 Uhr\nAntrag schriftlich spätestens 2 Wochen vorher einreichen!",
        written=datetime(2026, 1, 19, 9, tzinfo=UTC),
    )
    claim = "Der Antrag muss spätestens am Donnerstag, 12. Februar, schriftlich eingereicht werden."
    assert _kept(claim, meeting, "de")
    assert not _kept(claim.replace("12. Februar", "19. Februar"), meeting, "de")


def test_a_full_stop_after_a_time_or_a_bracket_ends_the_clause() -> None:
    # "12:00. Contrato" and "9:30. Quiere" start sentences: their first words are no
    # one the claim's clause could have been given to
    yeray = (
        "Yeray empieza el lunes que viene de aprendiz en el obrador con Curro, de 6:00 a "
        "12:00. Contrato de formación, lo lleva Lourdes."
    )
    assert (
        _disagrees(
            "Yeray empieza como aprendiz en el obrador con Curro de 6:00 a 12:00.", yeray, "es"
        )
        is None
    )
    inspection = (
        "Me llamó la inspectora, Mercedes Vázquez: el jueves 20 no puede, la pasa al "
        "martes 25 de noviembre a las 9:30. Quiere que esté yo presente."
    )
    claim = "La inspectora Mercedes Vázquez pasó la visita al martes 25 de noviembre a las 9:30."
    assert _disagrees(claim, inspection, "es") is None
    # a negation reaches no word past its sentence's end
    heike = "Ute kann Samstag nicht (Dienst). Kassenprüfung verschoben auf Donnerstag"
    assert not any(t.startswith("kassenpruf") for t in negated(heike, "de"))
    assert _disagrees("Die Kassenprüfung wurde auf Donnerstag verschoben.", heike, "de") is None


def test_a_role_given_where_two_clauses_a_comma_joins_restate_the_claim() -> None:
    # no one clause restates "asked to cut her hours to care for her mother"; the two
    # the comma joins do, and they are Manoli's
    shifts = (
        "Manoli me pide reducir jornada, tiene que cuidar a su madre por las tardes.\n"
        "Inma L-V 13:00-20:30 (pasa a jornada completa)"
    )
    wrong = "Inma pidió reducir la jornada para cuidar a su madre."
    right = "Manoli pidió reducir la jornada para cuidar a su madre."
    assert _disagrees(wrong, shifts, "es") == "name"
    assert _disagrees(right, shifts, "es") is None


def test_part_of_a_full_name_another_note_writes_is_the_same_person() -> None:
    offer = _note("verbal offer to Jordan Kim: $182k base", cid="S1")
    other = _note("Aisha Patel – hire, bit slow coding", cid="S2")
    accepted = _note("Jordan accepted!! $182k + $5k sign-on")
    assert _kept(
        "Jordan Kim accepted $182k plus a $5k sign-on bonus.", accepted, others=(offer, other)
    )
    assert not _kept(
        "Aisha Patel accepted $182k plus a $5k sign-on bonus.", accepted, others=(offer, other)
    )
    # a part of the full name the note only abbreviates by chance ("MRR", Marcus) is
    # not the note's person
    investors = _note("Marcus Lee, Tidewater – met at Slush", cid="S3")
    call = _note("she wants to see 3 months of MRR growth before a partner mtg.")
    assert not _kept(
        "Marcus Lee wants to see three months of MRR growth.", call, others=(investors,)
    )
    # without the other note, "Kim" is a name the note does not give
    assert not _kept("Then Jordan Kim accepted $182k plus a $5k sign-on bonus.", accepted)


def test_an_amount_or_a_time_with_zero_cents_or_minutes_is_the_whole_number() -> None:
    assert _disagrees("Das kostet 3.120 € netto.", "3.120,00 € netto + MwSt", "de") is None
    assert _disagrees("Das kostet 3.120,00 € netto.", "3.120 € netto", "de") is None
    assert _disagrees("Das kostet 3.100 € netto.", "3.120,00 € netto", "de") == "number"
    assert _disagrees("It came to $5.00.", "paid $5 for parking", "en") is None
    # "10:00" is the note's "10" written alone, not the 10 of "10:30"
    assert _disagrees("Viene a las 10:00.", "viene el martes a las 10", "es") is None
    assert _disagrees("The call is at 10:00.", "call at 10:30 w/ Sam", "en") == "number"


def test_the_person_a_comma_joined_restating_is_given_to_may_stand_on_its_line() -> None:
    # the clauses restating "moved ... at the same time" name the sender; Farah, whom
    # the claim names, is on their line
    note = "email from Annex Family Centre: last class moved from Wed to Thu Feb 5, same time. Farah is sick"
    claim = "The last class was moved from Wednesday to Thursday 5 February at the same time because Farah was sick."
    assert (
        disagreement(
            claim,
            source_facts(_note(note, written=datetime(2026, 2, 3, 9, tzinfo=UTC)), "en"),
            "en",
        )
        is None
    )


def test_a_counted_offset_names_the_day_it_lands_on_not_every_day_of_its_month() -> None:
    note = "Kontrolle in 3 Monaten: Mo 30.6. 8:30"
    facts = source_facts(_note(note, written=datetime(2025, 3, 24, 10, tzinfo=UTC)), "de")
    assert disagreement("Die Kontrolle ist am Montag, 30. Juni, um 8:30 Uhr.", facts, "de") is None
    assert disagreement("Die Kontrolle ist im Juni.", facts, "de") is None
    assert (
        disagreement("Die Kontrolle ist am Montag, 23. Juni, um 8:30 Uhr.", facts, "de") == "date"
    )


def test_a_month_a_note_names_vouches_for_none_of_its_days_a_week_for_its_days() -> None:
    written = datetime(2025, 10, 2, 14, tzinfo=UTC)  # a Thursday
    lunch = _note(
        "Xmas lunch for the office. send menu options by end of next week",
        title="Oct lunch",
        written=written,
    )
    facts = source_facts(lunch, "en")
    assert disagreement("The menu options are due by Friday 3 October.", facts, "en") == "date"
    assert disagreement("The menu options are due by Friday 10 October.", facts, "en") is None


def test_a_name_the_question_gives_is_the_users_word_not_the_notes() -> None:
    note = _note("Geburtstag: Raclette ab 19 Uhr, Geschenk Gutschein", cid="N1")
    claim = "Zu Leas Geburtstag gibt es Raclette ab 19 Uhr."
    asked = "Was machen wir zu Leas Geburtstag?"
    assert bool(ClaimChecks(LocalGrounder(), "de", asked=asked).kept(claim, [note]))
    assert not ClaimChecks(LocalGrounder(), "de").kept(claim, [note])
    # whom the note gives a role is still checked: the question does not make it so
    chores = _note("Jess brings the cake, Tom the chairs", cid="N1")
    wrong = "Tom brings the cake."
    assert not ClaimChecks(LocalGrounder(), "en", asked="Did Tom bring the cake?").kept(
        wrong, [chores]
    )


def test_a_duration_the_note_writes_agrees_with_the_claims_count_ahead() -> None:
    written = datetime(2025, 11, 18, 17, tzinfo=UTC)
    clinic = source_facts(_note("X-ray looks great. next review 1 year.", written=written), "en")
    assert disagreement("The next review is in 1 year.", clinic, "en") is None
    assert disagreement("The next review is in 2 years.", clinic, "en") == "date"
    lease = source_facts(
        _note("need to reply within 2 weeks", written=datetime(2025, 10, 6, 18, tzinfo=UTC)), "en"
    )
    assert disagreement("You had until Monday 20 October to reply.", lease, "en") is None
    assert disagreement("You had until Monday 27 October to reply.", lease, "en") == "date"


def test_a_possessive_the_question_gives_is_the_users_word() -> None:
    op = _note("Mr Okafor came out at 2:40pm – all went well", cid="N1")
    other = _note("Mum wants to go to Dublin at Christmas", cid="N2")
    claim = "Mum's operation went well, Mr Okafor said at 2:40 pm."
    assert bool(
        ClaimChecks(
            LocalGrounder(), "en", sources=[op, other], asked="When was Mum's operation?"
        ).kept(claim, [op])
    )
    assert not ClaimChecks(
        LocalGrounder(), "en", sources=[op, other], asked="When was the operation?"
    ).kept(claim, [op])


def test_a_date_written_beside_a_negated_clause_states_nothing_it_negates() -> None:
    # the quote answer writes the day "en 30 días" lands on; the annotation states no
    # payment the note's "si no paga" negates
    note = "Si no paga en 30 días → monitorio con la abogada, Elena Ruiz."
    facts = source_facts(_note(note, written=datetime(2025, 11, 20, 12, tzinfo=UTC)), "es")
    quoted = "Si no paga en 30 días → monitorio con la abogada, Elena Ruiz (en 30 días: 20 diciembre 2025)."
    assert disagreement(quoted, facts, "es") is None
    assert (
        disagreement("Ya paga en 30 días, dijo la abogada Elena Ruiz.", facts, "es") == "negation"
    )


def test_a_negation_reaches_no_aside_and_a_correction_told_with_both_values_agrees() -> None:
    moved = "Fr. Pirker hat angerufen: 13:00 geht doch nicht (Doppelbuchung) → NEU 11:30 Uhr"
    claim = "Wegen einer Doppelbuchung wurde die Trauung auf 11:30 Uhr vorverlegt."
    assert _disagrees(claim, moved, "de") is None
    rent = "landlord agrees to $1,240/wk (not 1,260) + will fix the back door lock"
    assert _disagrees("The landlord agreed to $1,240 a week instead of $1,260.", rent, "en") is None
    assert _disagrees("The landlord agreed to $1,260 a week.", rent, "en") == "negation"
