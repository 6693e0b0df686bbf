"""Answers from everyday notes: a list is answered by the list, and a note named in
passing is no second source."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from footnote.domain import Chunk, MemoryType, Source
from footnote.generation.counting import named_count
from footnote.generation.extractive import asks_when, compose
from footnote.generation.prompt import NOT_ENOUGH
from footnote.generation.sums import added_up
from footnote.query.analysis import analyze
from footnote.text import sentences, shortened, terms, value_terms

WRITTEN = datetime(2026, 2, 20, 20, tzinfo=UTC)
ASKED = datetime(2026, 4, 5, tzinfo=UTC)


def _source(cid: str, title: str, text: str) -> Source:
    body = f"{title}\n\n{text}"
    chunk = Chunk(
        f"{cid}_c", f"{cid}_n", "t", 0, body, (), MemoryType.NOTE, WRITTEN, (), "m", title
    )
    return Source(cid, chunk, 1.0)


def _answer(question: str, sources: list[Source]) -> str:
    return compose(question, sources, analyze(question, ASKED))


def _written(cid: str, text: str, when: datetime, tags: str = "", title: str = "") -> Source:
    """A note written ``when``, its stored terms holding its ``tags`` too."""
    chunk = Chunk(
        f"{cid}_c",
        f"{cid}_n",
        "t",
        0,
        f"{title}\n\n{text}" if title else text,
        tuple(terms(f"{title} {text} {tags}")),
        MemoryType.NOTE,
        when,
        (),
        "m",
        title,
    )
    return Source(cid, chunk, 1.0)


def test_a_list_question_is_answered_by_the_whole_list_of_one_note() -> None:
    notes = [
        _source(
            "N1",
            "To read",
            "- The Covenant of Water\n- Mrs Dalloway\n- Stoner (Léa keeps pushing it)\n"
            "- The Power Broker\n- Yoga by Emmanuel Carrère\n- Piranesi by Susanna Clarke",
        ),
        _source("N2", "Reading goals", "- read 30 books\n- more non-fiction to read"),
    ]
    answer = _answer("What's on my to-read list?", notes)
    assert "[N2]" not in answer
    for book in ("Covenant of Water", "Mrs Dalloway", "Stoner", "Power Broker", "Yoga", "Piranesi"):
        assert book in answer


def test_a_heading_line_brings_the_items_under_it() -> None:
    notes = [
        _source(
            "N1",
            "Postmortem",
            "Attendees: me, Priscilla, Tom\nAction items:\n- Diego: alert on processor "
            "error rate\n- Tom: reduce consul propagation time\n- Priscilla: failover doc",
        ),
        _source("N2", "Card auth incident", "14:02 alert: p99 card auth latency 4.2s"),
    ]
    answer = _answer("What action items came out of the card auth postmortem?", notes)
    assert "propagation" in answer and "failover doc" in answer and "[N2]" not in answer


def test_a_list_that_says_too_little_of_the_question_is_not_its_answer() -> None:
    bikes = [
        _source(
            "N1",
            "bike jobs",
            "Canyon (race bike):\n- chain 0.5% on the checker -> replace\n- rear brake pads "
            "worn\n- bar tape gross",
        )
    ]
    assert _answer("What tyre pressure do I run on the Canyon?", bikes) == NOT_ENOUGH
    assert "brake pads" in _answer("What's wrong with the Canyon?", bikes)


def test_a_figure_is_read_from_a_note_holding_the_names_asked_about() -> None:
    podcast = [
        _source("N1", "launch", "LAUNCH DAY. Ep1 live at 5am. 312 downloads by 6pm."),
        _source("N2", "guests", "Bex finally replied! She can record on the 8th."),
    ]
    assert _answer("How many downloads did the Bex episode get?", podcast) == NOT_ENOUGH
    assert "312" in _answer("How many downloads did the launch episode get?", podcast)
    # things set side by side are each told in their own note
    players = [
        _source("N1", "Kim Warwick", "Kim Warwick won 3 singles titles and 26 doubles titles."),
        _source("N2", "Jorge Lozano", "Jorge Lozano is a Mexican tennis coach."),
    ]
    question = "How many more singles titles did Kim Warwick win than Jorge Lozano?"
    assert "3 singles titles" in _answer(question, players)


def test_an_address_is_asked_for_and_a_year_or_a_date_is_none() -> None:
    shop = [
        _source("N1", "Jonah recording", "In person at Jonah's shop. He showed me a 1979 Gorgar."),
        _source(
            "N2",
            "booking tracker",
            "Jonah Pike – yes! in person at his shop in Burbank, 1120 N Hollywood Way, Wed 30 Sept",
        ),
    ]
    answer = _answer("What's the address of Jonah's shop?", shop)
    assert answer.startswith("Jonah Pike") and "1120 N Hollywood Way" in answer
    dated = [_source("N1", "Jonah", "Recording at Jonah's shop Sat 24 Jan, a 1979 Gorgar.")]
    assert _answer("What's the address of Jonah's shop?", dated) == NOT_ENOUGH


def test_a_note_about_someone_by_its_opening_holds_their_things() -> None:
    adoption = _source(
        "N1",
        "Adoption day",
        "Brought Juno home from Second Chance Paws! 14 wks.\nAdoption fee $325.\n"
        "Microchip # 985 112 006 437 201 (HomeAgain) – need to register it",
    )
    todo = _source("N2", "juno todo", "- [x] sign up for Adolescent Manners (paid $195)")
    answer = _answer("What's Juno's microchip number?", [adoption, todo])
    assert answer.startswith("Microchip # 985 112 006 437 201")
    # a name met later in the note is not whom the note is about
    run = _source("N1", "parkrun", "23:05 new PB!! Raf paced me, legend.")
    assert _answer("What's Raf's parkrun PB?", [run]) == NOT_ENOUGH


def test_an_answer_saying_only_the_questions_words_tells_nothing() -> None:
    setlist = [_source("N1", "Concert songs", "Silent Night\nWalking in the Air\nJoy to the World")]
    assert _answer("What song replaced Walking in the Air?", setlist) == NOT_ENOUGH
    swapped = [_source("N1", "setlist", "Swapping Walking in the Air for Carol of the Bells.")]
    assert "Carol of the Bells" in _answer("What song replaced Walking in the Air?", swapped)


def test_a_count_at_the_moment_is_the_one_written_last() -> None:
    from datetime import timedelta

    sept = _source("N1", "first night", "First night back – 42 signed in! Tenors only 4.")
    nov = _source("N2", "", "Gerry out for 6 weeks w/ his hip so tenors are down to 3.")
    nov = replace(nov, chunk=replace(nov.chunk, created_at=WRITTEN + timedelta(days=40)))
    answer = _answer("How many tenors have we got at the moment?", [sept, nov])
    assert answer.startswith("Gerry out for 6 weeks") and "[N2]" in answer


def test_a_total_asked_for_is_the_line_stating_it() -> None:
    order = [
        _source(
            "N1",
            "parts order",
            "Pushys order #PY-448201:\nKMC X11 chain $62.95\nShimano L05A pads x2 $55.80\n"
            "Supacaz bar tape $39.99\ntotal $158.74",
        )
    ]
    answer = _answer("How much did the Pushys parts order come to?", order)
    assert answer.startswith("total $158.74")


def test_a_sum_written_out_is_added_up_for_a_total() -> None:
    rcmp = [
        _source(
            "N1",
            "RCMP check",
            "Fingerprints done at Commissionaires. $75 + $25 RCMP fee. Results in 3-4 wks.",
        )
    ]
    answer = _answer("How much did the fingerprints cost altogether?", rcmp)
    assert "$75 + $25 RCMP fee (= $100) [N1]" in answer
    # a rate or a multiple needs more than adding: no sum is made up
    soil = [_source("N1", "soil", "Soil: veg mix, $89/m3 + $65 delivery. Need ~3m3.")]
    assert "(=" not in _answer("How much did the soil cost altogether?", soil)


def test_sums_a_line_lists_are_added_up_for_a_total() -> None:
    order = [
        _source(
            "N1",
            "Sparkwise acct",
            "Hendry kitchen order: downlights x6 $252, GPOs $96, 2.5 TPS 100m $189, floor box "
            "$145\nRep: Dom 027 555 6612",
        )
    ]
    answer = _answer("What did the Sparkwise order for the Hendry kitchen come to?", order)
    assert answer.endswith("floor box $145 (= $682) [N1].")
    # a rate among them is not added as it stands
    soil = [_source("N1", "soil", "Soil: veg mix $89/m3, delivery $65")]
    assert "(=" not in _answer("What did the soil come to?", soil)
    # nor a share paid of a sum
    dress = [_source("N1", "dress", "Blush Bridal. €2,150, paid 50% today (€1,075)")]
    assert "(=" not in _answer("How much is the Blush Bridal dress in total?", dress)


def test_lines_each_stating_a_sum_are_added_up_for_a_total() -> None:
    costs = [
        _source(
            "N1",
            "bike costs",
            "Receipts in the drawer\nBike stuff this year:\nchain £32\nnew tyres £78.50\n"
            "service £45\nlights £20\nAsk Sam about the rack",
        )
    ]
    answer = _answer("What do my bike costs this year add up to?", costs)
    assert "(= £175.50) [N1]" in answer and "chain £32 + new tyres £78.50" in answer
    spent = _answer("How much have I spent on bike stuff so far this year?", costs)
    assert "(= £175.50)" in spent
    # a count is no sum of money; of a run naming whom each line is for, only theirs
    assert "(=" not in _answer("How many bike things did I buy in total?", costs)
    invoices = [
        _source(
            "N1",
            "invoices",
            "Sent:\nINV-041 Ferrer batch 2 – €1,058.20\nINV-042 LinguaBridge – €1,034.40\n"
            "INV-043 Ferrer batch 3 – €400",
        )
    ]
    ferrer = _answer("How much have I invoiced Ferrer in total?", invoices)
    assert "(= €1,458.20)" in ferrer and "LinguaBridge" not in ferrer
    # a run of rates or of mixed currencies is not added up
    rates = [_source("N1", "quotes", "Costs this year:\nshirts £18.50 x12\nshorts £9 x12")]
    assert "(=" not in _answer("What do the costs this year add up to?", rates)


def test_the_sums_of_two_things_named_are_found_and_added_up() -> None:
    takings = [
        _source("N1", "takings July", "Total $36,980 (school hols)\nBest day Sun 12th $2,105"),
        _source("N2", "takings Aug", "Total $35,760 – rain\nBest day Sat 29th $1,980."),
        _source("N3", "fridge 2", "Fridge guy: thermostat gone. New one fitted $240. Running now"),
        _source("N4", "machine service", "Dave came 2pm:\n- descale\n$685 incl GST"),
        _source("N5", "survey", "Mark: property under £450k, conveyancer has to request it"),
    ]
    # each part's note states its total (not its best day), each cited; then the sum
    assert _answer("What did July and August take between them?", takings) == (
        "Total $36,980 (school hols) [N1]. Total $35,760 – rain [N2]. "
        "July + August: $36,980 + $35,760 = $72,740 [N1][N2]."
    )
    # a note titled by the part with one sum in it, the sentence ending on it
    answer = _answer("How much did the machine and the fridge cost?", takings)
    assert (
        answer
        == "$685 incl GST [N4]. New one fitted $240 [N3]. machine + fridge: $685 + $240 = $925 [N4][N3]."
    )
    # a sum not beside the part is not its sum ("under £450k, conveyancer …")
    assert "= £" not in _answer(
        "What are the survey and the conveyancer costing between them?", takings
    )
    # a couple is one party: no sum of two
    assert "=" not in _answer("How much did Mel and Jo pay for the fridge?", takings)


def test_a_note_titled_by_another_month_does_not_answer_for_the_month_asked() -> None:
    takings = [_source("N1", "takings Sept", "Total $41,150\nBest day Sat 26th $2,480")]
    assert _answer("What were our takings for October?", takings) == NOT_ENOUGH
    assert "$41,150" in _answer("What were our takings for September?", takings)
    # a line naming the month asked answers, whatever month its note is titled by
    club = [_source("N1", "book club – March", "Loved it.\nNext: April 19, Piranesi, at mine")]
    assert "April 19" in _answer("When is the April book club?", club)


def test_an_answer_naming_another_weekday_than_the_one_asked_is_none() -> None:
    pantry = [_source("N1", "pantry", "Pre-Thanksgiving Tuesday: 171 households – record!")]
    assert _answer("How many households came last Saturday?", pantry) == NOT_ENOUGH
    assert "171" in _answer("How many households came on Tuesday?", pantry)
    # short names count as the day: "Sat" is Saturday
    fixtures = [_source("N1", "fixtures", "Sat 28 Nov A @ Shefford Town Blues, KO 10:30")]
    assert "Shefford" in _answer("What time is kick off on Saturday?", fixtures)


def test_a_measure_is_asked_for_by_its_name_and_stated_beside_its_name_or_unit() -> None:
    dress = [
        _source("N1", "the dress!!", "Blush Bridal. €2,150, paid 50% today, rest at the fitting")
    ]
    # a price and a share are no size
    assert _answer("What size is my dress?", dress) == NOT_ENOUGH
    sized = [_source("N1", "the dress!!", "Blush Bridal, size 12. €2,150, paid 50% today")]
    assert "size 12" in _answer("What size is my dress?", sized)
    brews = [
        _source("N1", "comp entries", "Oatmeal Stout → 16B (not 16A)"),
        _source("N2", "Oatmeal stout #17", "OG 1.060\nFG 1.018 day 14"),
        _source("N3", "cider", "cider from Kuipers orchard juice (5 gal, $40)"),
    ]
    assert "FG 1.018" in _answer("What was the FG of the oatmeal stout?", brews)
    # another brew's gravity is not the cider's
    assert _answer("What was the OG of the cider?", brews) == NOT_ENOUGH
    # "What did … score": a score, which a plan to brew is not
    plan = [_source("N1", "comp", "Thinking oatmeal stout (brew by mid Sept!!) + the Märzen")]
    assert _answer("What did my stout score at the competition?", plan) == NOT_ENOUGH


def test_words_written_small_are_found_by_their_initials_in_capitals() -> None:
    poa = [
        _source("N1", "POA", "Dad signed today.\nLawyer: Deborah Fine, Fine & Associates"),
        _source("N2", "bloods", "Dr Leung: kidney function down a bit"),
    ]
    # "power of attorney" is "POA" in the note's title
    assert "[N1]" in _answer("Where are the power of attorney papers from?", poa)
    from footnote.query.acronyms import spelled_small

    assert ("poa", frozenset({"power", "attorney"})) in spelled_small(
        "Who drew up the power of attorney papers?"
    )
    # initials of words written small count only where a note writes them in capitals:
    # "pap" is no word of "Pap smear booked"
    smear = [_source("N1", "gp", "pap smear booked for Tues")]
    assert _answer("Where are the power of attorney papers?", smear) == NOT_ENOUGH


def test_these_days_is_no_word_a_note_must_say() -> None:
    assert "day" not in analyze("Who's Dad's PSW these days?", ASKED).keywords
    assert "now" in analyze("Who's playing the Snowman now?", ASKED).keywords


def test_a_figure_with_its_unit_is_an_amount() -> None:
    meds = [_source("N1", "Dad – meds list", "Metformin 500mg – twice daily w/ meals")]
    assert "500mg" in _answer("How much metformin is Dad taking?", meds)


def test_a_long_line_written_with_doubt_states_it() -> None:
    gigs = [
        _source(
            "N1",
            "Crow Bar",
            "Short set, 30 min\nSaltwater Riot's manager Dani Kaur wants us on their "
            "Sunshine Coast shows in Oct?? Kira following up",
        )
    ]
    assert "Dani Kaur" in _answer("Who's the manager of Saltwater Riot?", gigs)
    # a short line asking is still a question
    asking = [_source("N1", "Crow Bar", "Short set, 30 min\nSaltwater Riot's manager??")]
    assert _answer("Who's the manager of Saltwater Riot?", asking) == NOT_ENOUGH


def test_every_line_of_a_note_titled_by_someone_is_about_them() -> None:
    notes = [
        _source(
            "N1",
            "Fiona",
            "Fiona: GST Sept–Oct is due 28 Nov, not the 30th\nProvisional tax 2nd instalment"
            " 15 Jan – $3,200 again\nKeep the Fluke receipt, claimable. Start a van logbook –"
            " 90% business use\nHer fee for the yr-end accounts $1,450 + GST",
        ),
        _source("N2", "GST / tax", "Fiona (accountant) 021 555 8120"),
        _source("N3", "unpaid / todo", "[ ] GST Sept–Oct due 30 Nov?? check w/ Fiona"),
        # (a conversation: someone speaks as "I", so the labelled lines are people's turns)
        _source("N4", "call w/ Fiona", "Fiona: I can do the GST return for you\nMe: great"),
    ]
    answer = _answer("What's Fiona charging to do the year-end accounts?", notes)
    assert answer.startswith("Her fee for the yr-end accounts $1,450 + GST [N1]")


def test_a_place_is_asked_for_by_where() -> None:
    vet = [
        _source(
            "N1",
            "vet – Dr. Osei",
            "Booster due in March, reminder card from Paws Plus\n"
            "Greenway Vets – Dr. Osei, Unit 4, 22 Mill Lane\nOffice 01632 960 111",
        )
    ]
    answer = _answer("Where is Dr. Osei's office?", vet)
    assert answer.startswith("Greenway Vets – Dr. Osei, Unit 4, 22 Mill Lane")
    # a place of the note that is not its thing's ("from Paws Plus") does not lead
    assert "Paws Plus" not in answer
    # none naming the thing: the place in the note titled by it
    puppy = [
        _source(
            "N1",
            "Puppy class – wk 1",
            "Not the usual hall – it is the Riverside site, 9 Canal St.\nTrainer is Marco.\n"
            "(no class on the 24th)",
        )
    ]
    assert "9 Canal St" in _answer("Where is the puppy class held?", puppy)


def test_a_duration_written_short_answers_how_long() -> None:
    jonah = [
        _source("N1", "Jonah recording", "In person at Jonah's shop. 2 SM7Bs into the H6. 71 min.")
    ]
    assert "71 min" in _answer("How long was the Jonah recording?", jonah)


def test_a_sum_stated_right_after_the_thing_is_its_sum() -> None:
    said = "Need to get Dad to stop driving. Sell the Micra? {}"
    sale = [_source("N1", "DVLA", said.format("Sarah's neighbour interested, maybe £1,800."))]
    assert "£1,800 [N1]" in _answer("How much could we get for the Micra?", sale)
    # the short question before it on its line says what the sentence is about
    car = [_source("N1", "car", "Sell the Fiesta? Tom's colleague interested, maybe £2,300.")]
    assert "£2,300" in _answer("How much could we get for the Fiesta?", car)
    apart = [_source("N1", "DVLA", said.format("Dad is fine. Parking was £1,800."))]
    assert _answer("How much could we get for the Micra?", apart) == NOT_ENOUGH
    # a line of its own is another item of a list
    beds = [_source("N1", "garden", "4 raised beds\nBed D – garlic\nSoil: veg mix, $89/m³")]
    assert _answer("How much did the raised beds cost?", beds) == NOT_ENOUGH
    # a long sentence says what it is about itself
    day = "Spent most of it chasing walls at Mrs Begum's (8 Cranbrook Rd). Bought him boots, £64."
    assert _answer("How much did I charge Mrs Begum?", [_source("N1", "", day)]) == NOT_ENOUGH


def test_a_note_named_in_passing_that_adds_nothing_is_not_cited() -> None:
    notes = [
        _source("N1", "physio", "left calf tight since Sunday's long run. soleus strain, mild"),
        _source("N2", "long run", "14k easy 5:50, calf ok, stopped to stretch twice"),
    ]
    answer = _answer("What did the physio say was wrong with my calf?", notes)
    assert "soleus" in answer and "[N2]" not in answer


def test_a_follow_up_opening_with_and_asks_when() -> None:
    assert asks_when("and when do I start?")
    assert asks_when("But when is it due?")


def test_a_value_asked_for_by_name_must_be_stated_beside_it() -> None:
    bank = [
        _source("N1", "admin", "IBAN is in the bank app, not writing it here.\nNIF 245 883 120")
    ]
    assert _answer("What's my IBAN?", bank) == NOT_ENOUGH
    wifi = [_source("N1", "office", "guest wifi password: sunflower2026, on the fridge")]
    assert "sunflower2026" in _answer("what's the password for the guest wifi?", wifi)
    shoes = [_source("N1", "shoes", "Pegasus 40 at ~620km – retire soon. try on Novablast 5")]
    assert _answer("How much did I pay for the Pegasus 40?", shoes) == NOT_ENOUGH
    bought = [_source("N1", "shoes", "bought the Pegasus 40 today, paid 120€ in the sale")]
    assert "120€" in _answer("How much did I pay for the Pegasus 40?", bought)
    teacher = [_source("N1", "school", "Miss Hartley: Ava needs to practise her times tables")]
    assert _answer("What's Miss Hartley's email address?", teacher) == NOT_ENOUGH
    nursery = [_source("N1", "nursery", "Little Oaks closed 24 Dec – 2 Jan for the holidays")]
    assert _answer("What time does Little Oaks close?", nursery) == NOT_ENOUGH
    hours = [_source("N1", "nursery", "Little Oaks closes at 6pm, late fee after that")]
    assert "6pm" in _answer("What time does Little Oaks close?", hours)


def test_a_weekday_in_the_plural_is_no_name_the_notes_must_hold() -> None:
    rota = [_source("N1", "school run rota", "Mon – me\nWed – Priyanka takes both girls")]
    assert "Priyanka" in _answer("who does the school run on Wednesdays?", rota)


def test_a_count_or_a_rank_is_not_a_value_asked_for_by_name() -> None:
    chat = [_source("N1", "John", "John: Last week I scored 40 points, my highest ever.")]
    assert "40 points" in _answer("What was the highest number of points John scored?", chat)


def test_a_code_the_question_names_must_be_in_the_note_that_answers() -> None:
    notes = [
        _source("N1", "INC-2334 DB failover", "Root cause: runaway analytics query."),
        _source("N2", "standup", "INC-2310 resolved, PM pending"),
    ]
    assert _answer("What was the root cause of INC-2310?", notes) == NOT_ENOUGH
    assert "runaway" in _answer("What was the root cause of INC-2334?", notes)


def test_an_amount_is_taken_from_the_sentence_about_what_it_is_of() -> None:
    notes = [
        _source("N1", "garden", "planted the plum tree by the fence, mulched w/ compost"),
        _source("N2", "club", "Ines (treasurer): pay the club fee by 1 May or €10 extra"),
    ]
    # "pay" is shared with the fee's sentence, but the fee is not what the tree cost
    assert _answer("How much did I pay for the plum tree?", notes) == NOT_ENOUGH
    bought = [_source("N1", "garden", "plum tree from the nursery on Elm St, paid €35")]
    assert "€35" in _answer("How much did I pay for the plum tree?", bought)
    rent = [_source("N1", "club", "paid the club rent €142 by transfer")]
    assert "€142" in _answer("How much is the club rent now?", rent)


def test_what_someone_said_needs_a_note_that_reports_their_words() -> None:
    named_only = [
        _source("N1", "infra ideas", "- shard the events table\n- cache warmup (Omar, infra team)")
    ]
    assert _answer("What did Omar say about the cache warmup?", named_only) == NOT_ENOUGH
    reported = [_source("N1", "infra sync", "Omar says cache warmup should run before deploys")]
    assert "before deploys" in _answer("What did Omar say about the cache warmup?", reported)
    labelled = [_source("N1", "infra sync", "Omar: cache warmup is flaky, run it twice")]
    assert "flaky" in _answer("What did Omar say about the cache warmup?", labelled)
    # someone named by a role: the role reports the words, or titles the note
    todo = [_source("N1", "TODO", "- [ ] book Pepper's recheck w/ derm specialist\n- [ ] rota")]
    assert _answer("What did the derm specialist say about Pepper?", todo) == NOT_ENOUGH
    said = [_source("N1", "Pepper", "derm specialist says it's atopic, start Cytopoint")]
    assert "atopic" in _answer("What did the derm specialist say about Pepper?", said)


def test_an_email_is_an_address() -> None:
    inbox = [_source("N1", "committee", "Email from Dr. Feng: happy to join the committee")]
    assert _answer("What's Dr. Feng's email?", inbox) == NOT_ENOUGH
    card = [_source("N1", "committee", "Dr. Feng (Geography) feng@uni.example, office 3044")]
    assert "feng@uni.example" in _answer("What's Dr. Feng's email?", card)


def test_the_day_a_plan_was_written_does_not_date_it() -> None:
    planned = [_source("N1", "audit", "my fire safety audit: expected sometime in the spring")]
    assert _answer("When is my fire safety audit?", planned) == NOT_ENOUGH
    booked = [_source("N1", "audit", "my fire safety audit is booked for Thu 12 March, 10:00")]
    assert "12 March" in _answer("When is my fire safety audit?", booked)


def test_how_many_counts_a_series_of_notes_or_a_list() -> None:
    log = [
        _source(f"N{i}", f"pottery log #{i}", text)
        for i, text in enumerate(
            ["thrown 2 bowls, too thick at the base", "trimmed, glaze test", "first mug!"],
            start=1,
        )
    ]
    answer = _answer("How many sessions are in my pottery log?", log)
    assert answer.startswith("3 ") and all(f"[N{i}]" in answer for i in (1, 2, 3))
    wishlist = [_source("N1", "birthday ideas", "- kite\n- puzzle (1000)\n- headphones")]
    assert _answer("How many birthday ideas do I have?", wishlist).startswith("3 ")
    stated = [_source("N1", "metrics", "MRR 20.1k\nsignups 312\nchurned 6")]
    assert "312" in _answer("How many signups did we get?", stated)


def test_how_many_are_still_open_counts_the_unticked_boxes_of_one_checklist() -> None:
    todo = "[x] sign off the rota\n[ ] order more vaccine\n[x] email the vet school\n[ ] renew membership"
    notes = [
        _source("N1", "TODO", todo),
        _source("N2", "TODO", "- [ ] book the car service\n- [ ] call Sam\n- [ ] bins"),
    ]
    answer = _answer("How many items are still unticked on my TODO list?", notes)
    # the best-ranked checklist's two open boxes, not both notes' seven items
    assert answer.startswith("2 ") and "[N1]" in answer and "[N2]" not in answer
    # without "open"/"left"/"unticked" the checklist's items are counted as before
    assert not _answer("How many items are on my TODO list?", notes).startswith("2 ")


def test_a_checklist_question_is_answered_by_the_boxes_it_asks_about() -> None:
    todo = "- [x] groceries\n- [ ] fix the bike light\n- [x] call Mum\n- [ ] return library books"
    notes = [_source("N1", "Weekend", todo)]
    left = _answer("What's left on my todo list?", notes)
    assert "bike light" in left and "library books" in left
    assert "groceries" not in left and "call Mum" not in left
    done = _answer("What have I ticked off my todo list?", notes)
    assert "groceries" in done and "call Mum" in done and "bike light" not in done
    # a question that names no state gets the whole list
    whole = _answer("What's on my todo list?", notes)
    assert all(item in whole for item in ("groceries", "bike light", "call Mum", "library"))
    # a count of what is left names what is left
    count = _answer("How many things are left on my todo list?", notes)
    assert count.startswith("2 ") and "bike light" in count and "groceries" not in count


def test_checkbox_words_of_a_todo_question_are_read_off_the_boxes_not_searched() -> None:
    analysis = analyze("How many items are still unticked on my TODO list?", ASKED)
    assert analysis.keywords == ("todo",)
    # a question about anything else keeps its words: "done" may be what a note says
    assert "done" in analyze("When was the migration done?", ASKED).keywords


def test_a_bare_weekday_in_a_plan_is_the_next_one() -> None:
    from footnote.generation.dates import resolve_phrases

    friday = datetime(2026, 1, 9, 16, tzinfo=UTC)  # a Friday
    plan = resolve_phrases("farm gives straw away - go Sat morning w/ the trailer", friday)
    assert plan[0].meaning == "Saturday, 10 January 2026" and not plan[0].past
    record = resolve_phrases("went to the farm Sat, got straw", friday)
    assert record[0].meaning == "Saturday, 3 January 2026" and record[0].past


def test_a_holiday_is_a_date_not_a_name_the_notes_must_spell() -> None:
    gifts = [_source("N1", "Xmas gifts", "Mia: art set, book\nJo: balance bike, torch")]
    assert "balance bike" in _answer("Which gifts did I get Jo for Christmas?", gifts)
    # a name still must be there
    assert _answer("Which gifts did I get Rosa for Christmas?", gifts) == NOT_ENOUGH


def test_a_question_ending_in_an_exclamation_is_still_a_question() -> None:
    chat = [_source("N1", "", "Jon: I've been to Lisbon yesterday! Loved it.\nGina: Lisbon?! Wow.")]

    def favour_the_exclamation(question: str, texts: Sequence[str]) -> list[float]:
        return [1.0 if "?!" in t else 0.0 for t in texts]

    question = "When was Jon in Lisbon?"
    answer = compose(question, chat, analyze(question, ASKED), favour_the_exclamation)
    assert "19 February 2026" in answer


def test_shorthand_in_a_note_answers_the_words_it_stands_for() -> None:
    grades = [_source("N1", "grades", "linalg midterm back: 86!! rank-nullity q was fine")]
    assert "86" in _answer("What did I get on the linear algebra midterm?", grades)
    apps = [_source("N1", "Internship apps", "- Moderna – deadline Dec 1\n- resume + transcript")]
    assert "Moderna" in _answer("Which internship applications have a deadline?", apps)
    # and the other way round: a question in shorthand, a note in full
    party = [_source("N1", "Priya", "birthday dinner for Priya at Lupa, Saturday 8pm")]
    assert "Lupa" in _answer("Where is Priya's bday dinner?", party)
    gifts = [_source("N1", "Xmas presents", "Sam: climbing shoes, a head torch")]
    assert "climbing shoes" in _answer("What are we getting Sam for Christmas?", gifts)
    # a street written short is the street the question spells out
    fine = [_source("N1", "fine!!", "Parking fine on Flinders Ln at 11:52pm on 19 Sept. $198.")]
    assert "$198" in _answer("How much was the parking fine in Flinders Lane?", fine)
    # a month written short is the month the question spells out
    bill = [_source("N1", "money", "Carer invoice Oct: 62 visits x 45 min = £1,139.25")]
    assert "£1,139.25" in _answer("How much was the carers' bill for October?", bill)
    # "auto" is automatic
    gate = [
        _source("N1", "coop shopping", "[ ] auto door\n[x] feeder"),
        _source("N2", "fox", "Ordered a HenSafe auto door – $279 – shuts at dusk."),
    ]
    assert "HenSafe" in _answer("What brand is the automatic coop door?", gate)


def test_shorthand_is_read_where_it_is_written_not_in_a_word_with_its_stem() -> None:
    # "wedding" and "fries" stem to "wed" and "fri", as "Wed" and "Fri" do: only the
    # shorthand as written stands for the weekday.
    wedding = [_source("N1", "Wedding ideas", "fairy lights, long tables, fries at midnight")]
    assert _answer("What am I doing on Wednesday?", wedding) == NOT_ENOUGH
    assert _answer("What's planned for Friday?", wedding) == NOT_ENOUGH
    week = [_source("N1", "This week", "Wed – dentist 3pm\nFri – drinks with Ana")]
    assert "dentist" in _answer("What am I doing on Wednesday?", week)


def test_a_sign_is_read_as_the_word_it_stands_for() -> None:
    sale = [_source("N1", "Sale", "Everything 15% off till Sunday, plants excluded")]
    assert "Sunday" in _answer("Until when is the 15 percent discount on?", sale)
    heat = [_source("N1", "Heatwave plan", "BOM says 41° on Thursday, shade cloth on the racks")]
    assert "shade cloth" in _answer("What's the plan if it hits 41 degrees?", heat)


def test_a_sentence_naming_a_day_answers_which_day() -> None:
    # "day" is the kind of date asked for: "on Thursday" says it, as "next month" says
    # "month" (and "41°" is 41 degrees)
    heat = [_source("N1", "Heatwave plan", "BOM says 41° on Thursday. Shade cloth on the racks.")]
    assert "Thursday" in _answer("Which day was it supposed to hit 41 degrees?", heat)
    born = [_source("N1", "Nat Wolff", "Nat Wolff (born December 17, 1994) is an actor")]
    assert "1994" in _answer("What year was Nat Wolff born?", born)


def test_another_note_sharing_one_word_is_no_second_source() -> None:
    # "No scores kept" shares "score" with the question and nothing else: a neighbour,
    # not the rest of the answer.
    notes = [
        _source("N1", "Match v Riverside", "Lost 3-1 in the rain. Tom got our goal."),
        _source("N2", "Season notes", "No scores kept at this age anyway."),
    ]
    answer = _answer("What was the score against Riverside?", notes)
    assert "3-1" in answer and "[N1]" in answer and "[N2]" not in answer


def test_a_one_word_neighbour_still_counts_towards_answering() -> None:
    # Whether the notes address the question is judged on every sentence that could join
    # the answer (the curry note alone covers one word of three); only the citation
    # of the one-word neighbour goes.
    notes = [
        _source("N1", "Dinner", "curry too salty -> half the fish sauce next time"),
        _source("N2", "Bike", "change the tyres before spring"),
    ]
    answer = _answer("What did I want to change about the curry?", notes)
    assert answer != NOT_ENOUGH
    assert "fish sauce" in answer and "[N1]" in answer and "[N2]" not in answer


def test_a_title_is_named_without_its_closing_qualifier() -> None:
    from footnote.generation.names import titles_named

    notes = [
        _source("N1", "Piranesi (book club)", "Next: April 19, at mine."),
        _source("N2", "Reading goals", "read 30 books"),
    ]
    assert titles_named("What did Léa think of Piranesi?", notes) == frozenset({"N1"})
    # a question naming only the qualifier names no note
    assert titles_named("When is book club?", notes) == frozenset()


def test_a_price_asked_for_now_is_the_price_stated() -> None:
    # "now" says when the rent is asked for, not what it is of: the rent is.
    notes = [_source("N1", "Flat", "Landlord called. New rent £1,150 from 1 June.")]
    assert "£1,150" in _answer("What's the rent now?", notes)


def test_a_day_rate_is_a_price() -> None:
    notes = [
        _source(
            "N1",
            "Call w/ Ana",
            "Ana: wants more days, she's free from May. Agreed: €400 per day from June.",
        )
    ]
    answer = _answer("What's Ana's new day rate?", notes)
    assert answer.startswith("Agreed: €400 per day")


def test_a_list_question_without_a_list_quotes_one_note_and_no_one_word_neighbours() -> None:
    notes = [
        _source(
            "N1",
            "Picnic",
            "Shopping list for the picnic at Jo's: rolls, brie, grapes, lemonade. Jo brings plates.",
        ),
        _source("N2", "Garden", "Bought a new list of seeds."),
        _source("N3", "Work", "Shopping centre parking is £4 now."),
    ]
    answer = _answer("What was on the shopping list for the picnic at Jo's?", notes)
    assert "brie" in answer and "[N1]" in answer
    assert "[N2]" not in answer and "[N3]" not in answer


def test_a_phone_number_is_seven_digits_or_more() -> None:
    # "room 305" is a number beside the person's name, not their phone number
    group = [_source("N1", "Study group", "w/ Dev and Hana, Sundays 4pm, room 305 if free")]
    assert _answer("What's Dev's phone number?", group) == NOT_ENOUGH
    contacts = [_source("N1", "Contacts", "Dev (study group): 07911 123 456, text first")]
    assert "07911 123 456" in _answer("What's Dev's phone number?", contacts)


def test_a_code_headed_by_a_year_is_a_number_but_no_phone_number() -> None:
    assert value_terms("sent invoice 2026-017 to Lumen") == terms("number")
    assert value_terms("Kasia: 0161 496 0288") == terms("phone number")
    late = [_source("N1", "payments", "Kasia says 2026-009 got lost in their accounting")]
    assert _answer("What's Kasia's phone number?", late) == NOT_ENOUGH


def test_a_name_the_text_writes_only_as_who_speaks_is_lent_from_the_title() -> None:
    review = [
        _source(
            "N1",
            "Chloe 6 month review",
            "Chloe: loving it, wants to do more colour\nme: pass level 2 first\n"
            "agreed: pay up to £8.00/hr from april",
        ),
        _source("N2", "jan to do", "[x] pay Chloe's college fees £320"),
    ]
    answer = _answer("what's chloe's pay rise from april?", review)
    assert "£8.00/hr" in answer and "[N1]" in answer, answer


def test_asked_per_unit_a_later_value_is_one_per_unit_too() -> None:
    letter = _source(
        "N1", "letter home", "deposit £50 by 23 jan via ParentPay, total cost £265 per pupil"
    )
    later = Source(
        "N2",
        replace(
            _source("N2", "trip money", "balance £215 due fri 27th march on ParentPay").chunk,
            created_at=datetime(2026, 3, 1, tzinfo=UTC),
        ),
        1.0,
    )
    answer = _answer("what's the total cost per pupil", [letter, later])
    assert "£265" in answer and answer.startswith("deposit") and "[N1]" in answer, answer


def test_the_time_a_price_is_asked_of_is_no_thing_priced() -> None:
    todo = [_source("N1", "feb to do", "[x] renew insurance - Hiscox £612, paid 30 jan")]
    answer = _answer("how much was the insurance this year", todo)
    assert "£612" in answer and "[N1]" in answer, answer


def test_a_companys_number_is_its_phone() -> None:
    coaches = [
        _source("N1", "coach quotes", "Kingsway Coaches - £1,950 (57 seater) Bev 0121 496 0732")
    ]
    answer = _answer("what's the coach company number", coaches)
    assert "0121 496 0732" in answer and "[N1]" in answer, answer


def test_a_price_asked_per_unit_may_be_written_without_its_currency() -> None:
    clients = [
        _source(
            "N1",
            "clients",
            "- Hoffmann (legal) – rate 0.15/word\n- Lumen Games – PM Tobias, pays via Payoneer, "
            "rate 0.10/word",
        )
    ]
    answer = _answer("what rate does lumen pay per word", clients)
    assert "0.10/word" in answer and "[N1]" in answer, answer


def test_someones_value_is_theirs_not_the_one_beside_their_name() -> None:
    contract = [
        _source(
            "N1",
            "Tom – new contract",
            "wants more hours, can start in May. agreed pay rise to $30/hr from June. "
            "Ana is back in March.",
        )
    ]
    # the rate in the note titled by Tom is Tom's, whoever else the note names
    assert "$30/hr" in _answer("What's Tom's new hourly rate?", contract)
    assert _answer("What's Ana's hourly rate?", contract) == NOT_ENOUGH


def test_a_stated_count_skips_punctuation_and_money() -> None:
    from footnote.generation.counting import stated_count

    budget = "Spent so far: $2,300 Paint + brushes $140"
    shop = "B&Q: masking tape, dust sheets, paint (need 6 litres, 2 coats), rollers"
    # "(need 6" states the litres; "$2,300 Paint" is money beside paint, not a count
    assert stated_count(["litr"], [budget, shop]) == 1
    assert stated_count(["paint"], [budget]) is None


def test_a_name_the_question_gives_brings_its_note_in_though_it_shares_one_word() -> None:
    notes = [
        _source("N1", "Hosting", "Cloud Run hosts the API behind the load balancer."),
        _source("N2", "Storage", "Firestore keeps the notes, one document per note."),
    ]
    answer = _answer("What do my notes say about Firestore and Cloud Run?", notes)
    assert "[N1]" in answer and "[N2]" in answer


def test_a_price_is_of_the_thing_priced() -> None:
    notes = [
        _source(
            "N1", "Conference", "ESA 2026 registration: early bird $310 (student) until Feb 1."
        ),
        _source(
            "N2",
            "TODO",
            "- [ ] book ESA travel, flight to??? check location\n- [ ] results draft (Nov 12)\n"
            "- [x] return the lab reports",
        ),
    ]
    # "$310" prices the registration; "Nov 12" is a date, not a price
    assert _answer("How much is a flight to the ESA conference?", notes) == NOT_ENOUGH
    assert "$310" in _answer("How much is the registration for ESA?", notes)


def test_how_much_is_typed_without_its_article_asks_a_price() -> None:
    swim = [
        _source(
            "N1",
            "swim update",
            "noah PASSED level 4!!\nlevel 5 starts sat nov 14, same time 9:15\n"
            "$135 this time (8 wks)\nregister by nov 1",
        )
    ]
    # the line naming level 5 holds numbers, not its price: the price is the next line's
    answer = _answer("how much is level 5 swim", swim)
    assert "$135" in answer and "9:15" not in answer, answer


def test_the_hours_given_after_a_weekday_tell_what_time() -> None:
    group = [
        _source(
            "N1",
            "writing group",
            "friday writing group - Mei, Jordan + me\nfridays 9-12, regenstein 4th floor",
        )
    ]
    assert "9-12" in _answer("what time is writing group", group)


def test_a_yes_no_question_is_answered_by_the_doing_it_asks_about() -> None:
    deadline = [_source("N1", "Grants", "Marsden internal deadline is actually Sept 26!")]
    assert _answer("Did I get the Marsden grant?", deadline) == NOT_ENOUGH
    got = [_source("N1", "Grants", "Got the Marsden grant!! three years funded")]
    assert "Got the Marsden" in _answer("Did I get the Marsden grant?", got)
    booked = [_source("N1", "Comporta", "Rain plan: tent in the pine grove. Tent booked.")]
    assert "booked" in _answer("and did they end up booking the tent?", booked)


def test_how_many_people_counts_the_names_listed_in_the_sentence_about_the_group() -> None:
    notes = [
        _source("N1", "Progress report", "Outline:\n1. status\n2. draft\n3. plan\n4. committee"),
        _source(
            "N2",
            "Committee meeting scheduling",
            "Doodle results: everyone free Thurs Dec 11. Room: ESC 3044. "
            "Members: Delgado, Okonkwo, Dr. Feng (Geography). Report goes out a week before.",
        ),
    ]
    # not the report's four outline items: the three names of the committee
    answer = _answer("How many people are on my committee?", notes)
    assert answer.startswith("3 ") and "[N2]" in answer and "[N1]" not in answer
    group = [
        _source("N1", "study group", "orgo study group w/ Dev, Hana & Luis – Sundays 4pm"),
        _source("N2", "party", "Guests: Ana, Tom, Li, Bea and Sam. Cake from Lidl."),
    ]
    assert _answer("How many people are in my orgo study group?", group).startswith("3 ")
    assert _answer("How many guests are coming to the party?", group).startswith("5 ")
    # a count of things is not a count of names
    assert not _answer("How many tables do I need for the party?", group).startswith("5 ")


def test_a_question_the_next_speaker_agrees_to_is_what_was_agreed() -> None:
    meeting = (
        "Zoom, 30 min.\nMarek: the results are solid. Fig 3 needs error bars.\n"
        "Me: can the full chapter draft be Dec 5 instead of Nov 30?\nMarek: fine."
    )
    notes = [_source("N1", "Marek feedback", meeting)]
    answer = _answer("What's the new deadline for the full chapter draft?", notes)
    # quoted with the reply that settles it, which dates it
    assert "Dec 5" in answer and "Marek: fine [N1]." in answer, answer
    # a question nobody answered stays a question: it answers nothing
    open_question = meeting.replace("\nMarek: fine.", "\nMarek: let me check with Ana.")
    assert (
        _answer(
            "What's the new deadline for the full chapter draft?",
            [_source("N1", "Marek feedback", open_question)],
        )
        == NOT_ENOUGH
    )


def test_a_value_asked_for_comes_from_another_note_on_the_same_thing() -> None:
    notes = [
        _source(
            "N1",
            "Club email",
            "Siobhan (secretary): spring fair Sat 9 May, need 2 helpers per team for the cake "
            "stall. Me: asked for the hall keys before May, it's locked by 6:30.",
        ),
        _source("N2", "Spring fair plan", "Teams of 6. Arrive 9:15 for a 10:00 start."),
    ]
    answer = _answer("What time do we need to be at the spring fair?", notes)
    # "6:30" is when the hall locks, not a time for the fair
    assert answer.startswith("Arrive 9:15") and "[N2]" in answer, answer
    # a note sharing one word only is not about the fair: no time, no answer
    lone = [notes[0], _source("N2", "Plan", "Teams of 6. Arrive 9:15 for a 10:00 start.")]
    assert _answer("What time do we need to be at the spring fair?", lone) == NOT_ENOUGH


def test_what_something_ended_up_costing_is_the_latest_note_that_prices_it() -> None:
    def dated(cid: str, title: str, text: str, day: int) -> Source:
        source = _source(cid, title, text)
        return Source(cid, replace(source.chunk, created_at=WRITTEN.replace(day=day)), 1.0)

    notes = [
        dated("N1", "Roofing", "Kowalski Roofing (Piotr): re-felt the flat roof, cost $6,200.", 3),
        dated("N2", "Roof done", "New felt is on, two rotten joists replaced. Cost $6,900.", 17),
    ]
    assert "$6,900" in _answer("What did the roof end up costing?", notes)
    # the quote is still what was quoted: without "end up", "total", "now"… the best match
    assert "$6,200" in _answer("What was the roofing quote?", notes)


def test_how_things_stand_is_told_by_the_note_written_last() -> None:
    def dated(cid: str, title: str, text: str, day: int) -> Source:
        source = _source(cid, title, text)
        return Source(cid, replace(source.chunk, created_at=WRITTEN.replace(day=day)), 1.0)

    notes = [
        dated("N1", "Club dues", "Club dues: 9 of 14 paid. Still owed: Ana, Bo, Cai, Dee.", 2),
        dated("N2", "Treasurer", "Only Cai's dues still outstanding, chased him Friday.", 19),
    ]
    answer = _answer("Whose club dues are still outstanding?", notes)
    assert answer.startswith("Only Cai's") and "[N1]" not in answer, answer
    budget = [
        dated("N1", "Reno", "Budget for phase 1: $28k. Electrician booked.", 2),
        dated("N2", "Final tally", "UNDER BUDGET!! ~$3.7k left", 19),
    ]
    left = _answer("How much of the phase 1 budget is left?", budget)
    assert "$3.7k" in left and "[N1]" not in left, left
    # asked without "still", "now", "in the end"…, both notes are quoted as before
    assert "Ana" in _answer("Whose club dues were owed?", notes)


def test_a_line_adding_only_the_names_asked_about_is_no_source_of_a_stated_value() -> None:
    show = _source(
        "N1", "Run of show", "16:00 ceremony 18:30 dinner 21:00 first dance 01:00 shuttles"
    )
    # tagged with the couple, as a planner's notes are: the quoted note holds their names
    show = replace(show, chunk=replace(show.chunk, terms=("run", "show", "maja", "toma")))
    notes = [show, _source("N2", "Kickoff", "Call w/ Maja & Tomas (Dutch couple). Budget 30k.")]
    answer = _answer("What time is the first dance at Maja & Tomas's wedding?", notes)
    # the time is stated in the run of show; the kickoff call only names the couple
    assert "21:00" in answer and "[N2]" not in answer, answer
    # a line that adds a word of the question stays: it says what the first does not
    left = [
        _source("N1", "Budget", "Spent so far: $15,300 electrical, $640 misc."),
        _source("N2", "Budget check", "Under budget, ~$3.7k left of phase 1."),
    ]
    assert "[N2]" in _answer("How much of the phase 1 budget is left?", left)


def test_a_series_the_question_names_by_its_titles_is_counted_over_a_stated_goal() -> None:
    notes = [
        _source("N1", "2026 goals", "run a half. 25 films (last yr 19). watch more Ozu"),
        _source(
            "N2", "Watched Jan", "1. Tokyo Story – 5/5\n2. Aftersun – 4/5\n3. Past Lives – 4/5"
        ),
        _source("N3", "Watched Feb", "4. Perfect Days – 5/5\n5. Monster – 3/5"),
    ]
    answer = _answer("How many films have I watched so far this year?", notes)
    # "25 films" is a goal; the notes titled "Watched …" keep the count
    assert answer.startswith("5 ") and "[N2]" in answer and "[N3]" in answer, answer
    # asked without a word of those titles, the stated number answers as before
    assert "25 films" in _answer("How many films is my goal this year?", notes)


def test_notes_of_one_kind_titled_kind_dash_which_are_a_series() -> None:
    notes = [
        _source("N1", "callout - Hassan", "sunday callout 4pm, blocked kitchen drain"),
        _source("N2", "callout - Bluebell pub", "sat night 11pm callout, burst pipe in cellar"),
        _source("N3", "callout - Mrs Evans", "sunday callout, no hot water, diverter valve"),
        _source("N4", "Gas Safe renewal", "assessor said tightness test was textbook"),
    ]
    answer = _answer("how many emergency callouts have i done this year", notes)
    assert answer.startswith("3 in your notes") and "[N4]" not in answer, answer


def test_each_line_of_a_note_is_its_own_entry() -> None:
    debrief = (
        "guinea fowl a bit dry – brine next time\ntortelli = hit, Luca had thirds\n"
        "tiramisù too sweet -> 80g sugar next time\nFede brought a Barolo, wow"
    )
    notes = [_source("N1", "dinner party debrief", debrief)]
    answer = _answer("What did I want to change about the tiramisù after the dinner party?", notes)
    # the line about the tiramisù, not the whole note run together
    assert answer == "tiramisù too sweet -> 80g sugar next time [N1].", answer


def test_a_paragraph_wrapped_mid_sentence_is_read_as_one() -> None:
    from footnote.generation.speakers import attributed_sentences

    pasted = (
        "Forwarded from the landlord: the boiler service is booked for the morning of\n"
        "the 14th, and the engineer needs access to the airing cupboard.\nshort line\nnext"
    )
    read = [sentence for sentence, _ in attributed_sentences(pasted)]
    # a long unended line running on in lower case was wrapped; short lines are entries
    assert read[0].endswith("airing cupboard.") and read[1:] == ["short line", "next"], read


def test_a_weekday_as_notes_shorten_it_is_that_day() -> None:
    rota = "Mon – me\nTue – Kemi\nWed – Priyanka (Isla's mum) takes both girls\nThu – me"
    answer = _answer("Who does the school run on Wednesdays?", [_source("N1", "school run", rota)])
    assert answer.startswith("Wed – Priyanka"), answer


def test_a_label_line_runs_on_into_its_value_but_not_into_a_list() -> None:
    from footnote.generation.speakers import attributed_sentences

    note = "Phase 1 spent so far:\nElectrical $12,900 + panel $2,400\nAction items:\n- call Tony\n- bins"
    read = [sentence for sentence, _ in attributed_sentences(note)]
    assert read[0] == "Phase 1 spent so far:\nElectrical $12,900 + panel $2,400", read
    # a label over items heads a list: the items stay apart (the list answer reads them)
    assert read[1:] == ["Action items:", "- call Tony", "- bins"], read


def test_notes_written_at_the_same_moment_are_not_ordered_by_chance() -> None:
    notes = [
        _source("N1", "Club dues", "Club dues: 9 of 14 paid. Still owed: Ana, Bo, Cai, Dee."),
        _source("N2", "Treasurer", "Only Cai's dues still outstanding, chased him Friday."),
    ]
    # same creation time: neither note is the later one, so both stay, whatever the
    # order of a set of ids (HotpotQA's passages all share one date)
    answer = _answer("Whose club dues are still outstanding?", notes)
    assert "[N1]" in answer and "[N2]" in answer, answer


def test_the_event_a_window_is_anchored_to_is_still_what_the_question_is_about() -> None:
    debrief = _source(
        "N1",
        "dinner party debrief",
        "guinea fowl a bit dry – brine next time\ntiramisù too sweet -> 80g sugar next time",
    )
    question = "What did I want to change about the tiramisù after the dinner party?"
    # the debrief's title dates the event: "after the dinner party" becomes a window,
    # and its words left the question's keywords
    analysis = analyze(question, ASKED, {"dinner party": WRITTEN.date()})
    assert analysis.window is not None and "dinner" not in analysis.keywords
    answer = compose(question, [debrief], analysis)
    assert answer == "tiramisù too sweet -> 80g sugar next time [N1].", answer
    # a calendar phrase names no words a note must say: the March note need not say "March"
    march = [_source("N1", "Cooking log", "panna cotta too sweet -> less sugar")]
    assert "[N1]" in compose(
        "Which dessert was too sweet in March?",
        march,
        analyze("Which dessert was too sweet in March?", ASKED),
    )


def test_a_label_speaks_for_its_own_line_or_for_the_lines_it_heads() -> None:
    from footnote.generation.speakers import attributed_sentences

    note = (
        "Flor de Lis: €5,800, very classic\n"
        "Atelier Camélia: €6,400, meadow style\n"
        "→ Going w/ Camélia, fits the brief\n"
        "Sofia:\n"
        "- market slide too busy\n"
        "- one number per slide"
    )
    said = dict(attributed_sentences(note))
    assert said["Atelier Camélia: €6,400, meadow style"] == "Atelier Camélia"
    assert said["→ Going w/ Camélia, fits the brief"] == ""  # the writer's, not Camélia's
    assert said["- one number per slide"] == "Sofia"


def test_the_notes_quoted_must_hold_every_name_the_question_gives() -> None:
    notes = [
        _source("N1", "Photographer", "Duarte Lemos photo quote for Ana & Ben: €3,200 for 10 hrs"),
        _source("N2", "Venue visit", "Sublime Comporta with Sofia and Graça, loved the pines"),
    ]
    # Duarte's quote is for another wedding; the note naming Comporta says nothing of it
    assert _answer("How much did Duarte quote for the Comporta wedding?", notes) == NOT_ENOUGH
    assert "€3,200" in _answer("How much did Duarte quote for Ana and Ben?", notes)


def test_a_name_is_held_by_a_notes_tags_and_a_place_by_its_adjective() -> None:
    from footnote.generation.names import missing_names

    tagged = _source("N1", "Run of show", "21:00 first dance, 01:00 shuttles")
    tagged = replace(tagged, chunk=replace(tagged.chunk, terms=("run", "show", "hannah", "rob")))
    assert missing_names("When is the first dance at Hannah and Rob's wedding?", [tagged]) == []
    school = _source("N1", "Westminster School", "a boarding school at Marion, South Australia")
    assert missing_names("Which Australian suburb has Westminster School?", [school]) == []


def test_someones_thing_is_told_by_a_sentence_that_says_whose_it_is() -> None:
    notes = [_source("N1", "parkrun", "23:05 new PB!! Raf paced me")]
    # the PB is the writer's; Raf is named only for pacing
    assert _answer("What's Raf's parkrun PB?", notes) == NOT_ENOUGH
    assert "23:05" in _answer("What's my parkrun PB?", notes)
    theirs = [_source("N1", "parkrun", "Raf ran 21:40, his PB. I paced the 25 min bus")]
    assert "21:40" in _answer("What's Raf's parkrun PB?", theirs)
    # a note titled by the owner is theirs throughout
    titled = [_source("N1", "Raf - training", "Parkrun PB 21:40 on Saturday")]
    assert "21:40" in _answer("What's Raf's parkrun PB?", titled)


def test_a_price_in_a_note_titled_by_what_it_prices_or_written_bare_is_found() -> None:
    bike = [
        _source(
            "N1",
            "Bike service",
            "Took the bike in for a service on Monday. They replaced the chain; it cost 85 "
            "euros. The tyres will need replacing in spring.",
        )
    ]
    # the sentence stating the price leads, though only the title names the service
    for question in ("How much did the bike service cost?", "How much was the bike service?"):
        assert _answer(question, bike).startswith("They replaced the chain; it cost 85 euros")
    groceries = [_source("N1", "Groceries", "Milk 1.19\nCoffee beans 8.99\nOlive oil 6.49")]
    assert _answer("How much are the coffee beans?", groceries) == "Coffee beans 8.99 [N1]."
    assert _answer("How much is the butter?", groceries) == NOT_ENOUGH


def test_a_person_named_never_alone_covers_a_when_question() -> None:
    sync = [
        _source(
            "N1",
            "Marketing sync",
            "Tom: I will draft the newsletter copy by Friday.\nLena: I can review it Monday.",
        )
    ]
    # Tom speaks, so his name is in his line; his birthday is not
    assert _answer("When is Tom's birthday?", sync) == NOT_ENOUGH
    assert "Friday" in _answer("When will Tom draft the newsletter copy?", sync)


def test_a_value_named_by_the_word_asking_for_it_joins_from_the_note_holding_the_rest() -> None:
    from footnote.generation.answer_types import asked

    question = "What's the code to get into the machiya?"
    found = asked(question)
    assert found is not None and found[1] == "code"  # not "to"
    notes = [
        _source("N1", "Hotels", 'Kyoto: machiya "Kiyomizu-an", door code comes 1 day before'),
        _source("N2", "Kyoto arrival", "Machiya is tiny & perfect. Left a map. Door code 5821#"),
    ]
    # the best line names the code but not its value; the note that holds the machiya
    # too states it under the asked word
    assert _answer(question, notes) == "Door code 5821# [N2]."


BANANA_BREAD = (
    "Banana bread: mash 3 ripe bananas, mix with 75 g melted butter, 150 g sugar and 1 "
    "egg. Stir in 1 teaspoon baking soda and 190 g flour. Bake at 175 degrees C for 60 "
    "minutes."
)


def test_a_temperature_is_asked_for_by_name_and_an_amount_is_of_the_thing_measured() -> None:
    recipe = [_source("N1", "Banana bread recipe", BANANA_BREAD)]
    assert _answer("What temperature for the banana bread?", recipe).startswith(
        "Bake at 175 degrees C"
    )
    # "75 g butter" is an amount, but of the butter
    assert _answer("How much flour goes in the banana bread?", recipe).startswith(
        "Stir in 1 teaspoon baking soda and 190 g flour"
    )


def test_a_sentence_heading_a_list_is_answered_with_its_list() -> None:
    todo = [
        _source(
            "N1",
            "Weekend",
            "To do this weekend:\n- Fix the leaking kitchen tap\n- Return library books\n"
            "- Book a haircut",
        )
    ]
    answer = _answer("What's on this weekend?", todo)
    assert "kitchen tap" in answer and "haircut" in answer, answer


def test_an_item_holding_none_of_the_question_words_itself_brings_its_list() -> None:
    packing = [
        _source(
            "N1",
            "Packing – Lisbon",
            "- passport\n- charger + adapter\n- swimsuit\n- sunglasses\nFlight TP573 Fri 06:55",
        )
    ]
    # "passport" matches only through the title: the question is the list's
    answer = _answer("What do I need to pack for Lisbon?", packing)
    assert "passport" in answer and "swimsuit" in answer and "sunglasses" in answer, answer
    # a list whose note lacks a name the question gives is not read as its answer
    plain = [_source("N1", "Packing", "- adapter\n- small towel\n- coin purse")]
    assert _answer("What did I want to pack for Japan?", plain) == NOT_ENOUGH


def test_an_inline_label_after_a_blank_line_still_speaks_for_its_line_only() -> None:
    from footnote.generation.speakers import attributed_sentences

    # the indexed text opens with the title and a blank line; "Attendees:" lists people,
    # it does not say the lines under it (an answer read "Attendees: The set menu cost …")
    note = (
        "Team dinner\n\nAttendees: Priya, Tom, Lena and me.\n"
        "The set menu cost 85 euros per person.\n\nSofia:\n- one number per slide"
    )
    said = dict(attributed_sentences(note))
    assert said["Attendees: Priya, Tom, Lena and me."] == "Attendees"
    assert said["The set menu cost 85 euros per person."] == ""
    assert said["- one number per slide"] == "Sofia"  # a heading label still speaks
    menu = [_source("N1", "Team dinner", note.split("\n\n", 1)[1])]
    assert _answer("How much did the set menu cost?", menu).startswith("The set menu cost")


def test_how_far_is_answered_by_a_distance() -> None:
    run = [_source("N1", "Run log", "Left knee a bit sore after. 8k tempo, 41:10.")]
    # the knee sentence shares "run" through the title as much as the distance does
    assert _answer("How far did I run?", run).startswith("8k tempo, 41:10 [N1].")


def test_a_value_stated_then_a_question_after_a_dash_still_states_it() -> None:
    bills = [_source("N1", "Bills", "Rent £950, due on the 1st\nGym £35 - cancel in January?")]
    # the line states the gym's price, then asks about cancelling it
    assert "£35" in _answer("How much do I spend on the gym?", bills)
    # a line that only asks still answers nothing
    asking = [_source("N1", "Bills", "Rent £950\nhow much is the gym - can I cancel?")]
    assert _answer("How much do I spend on the gym?", asking) == NOT_ENOUGH


def test_a_day_stated_then_a_question_after_a_dash_still_dates_it() -> None:
    catering = [
        _source(
            "N1",
            "catering – Brunswick Primary",
            "Mrs Okoye rang: staff lunch, ~30 people\n"
            "Wants the quote by next Wed – like Moreland but with a hot option?",
        )
    ]
    # the line states the day, then asks about the menu (written Friday 20 February)
    assert "25 February" in _answer("When does Mrs Okoye want the quote by?", catering)


def test_a_price_per_unit_is_asked_by_its_unit_and_answered_by_a_rate() -> None:
    suppliers = [
        _source(
            "N1",
            "suppliers",
            "Coffee – Northside Roasters, house blend $38/kg, decaf $42/kg\n"
            "Venues: Glenview Manor – €95pp all in\nGranary – hire €4,000, bring own caterer",
        ),
        _source("N2", "takings", "Total $36,980 (school hols)"),
    ]
    # "per" and "a" name the unit, not the thing measured
    assert "$38/kg" in _answer("How much per kilo is the house blend?", suppliers)
    assert "$42/kg" in _answer("How much a kilo is the decaf?", suppliers)
    # "€95pp" says "per head"
    assert "€95pp" in _answer("How much per head is Glenview?", suppliers)
    # a total is no price per head, nor is another's rate
    assert _answer("How much per head is the school paying?", suppliers) == NOT_ENOUGH
    assert _answer("How much per head is the Granary?", suppliers) == NOT_ENOUGH
    # "per month" ends the thing priced: a date's number is no price of the broadband
    moving = [_source("N1", "moving", "[ ] broadband – Virgin install Wed 9 Dec\n[ ] post")]
    assert _answer("How much is the Virgin broadband per month?", moving) == NOT_ENOUGH
    priced = [_source("N1", "moving", "[x] broadband – Virgin, £28 a month, install Wed 9 Dec")]
    assert "£28" in _answer("How much is the Virgin broadband per month?", priced)


def test_show_is_a_word_of_the_topic_unless_it_commands() -> None:
    assert "show" in analyze("What did I win at the show?", ASKED).keywords
    assert analyze("Show me my todos", ASKED).keywords == ("todo",)


def test_a_value_in_a_note_titled_by_the_thing_answers_its_price() -> None:
    notes = [
        _source("N1", "dept meeting", "Ravi: tech budget down 15%, order reagents before 1 Oct"),
        _source(
            "N2",
            "reagents order",
            "Ordered via Ravi: copper sulfate 500g, magnesium ribbon x2. Total £187.60, "
            "budget code CH-26-04",
        ),
    ]
    answer = _answer("How much did the reagents cost?", notes)
    assert "£187.60" in answer and "[N2]" in answer


def test_a_grade_is_answered_by_a_grade_and_a_title_may_state_it() -> None:
    notes = [
        _source(
            "N1",
            "Orgo midterm 1 – 78/100",
            "lost pts on stereochem. class avg 64 so not terrible.\nMidterm 2 on Nov 19.",
        ),
        _source("N2", "Psych paper", "5 pages, APA. intro done, 2/5 pages."),
    ]
    assert "78/100" in _answer("What score did I get on the first orgo midterm?", notes)
    # pages are no grade: the notes do not say it
    assert _answer("What grade did I get on the psych paper?", notes) == NOT_ENOUGH


def test_what_is_ticked_or_left_is_read_from_the_checklist_not_a_list_without_boxes() -> None:
    notes = [
        _source(
            "N1",
            "Weekend to-do",
            "To do this weekend:\n- Fix the leaking kitchen tap\n- Return library books",
        ),
        _source("N2", "Weekend", "- [x] groceries\n- [ ] fix the bike light\n- [x] call Mum"),
    ]
    done = _answer("What have I done on my weekend list?", notes)
    assert "groceries" in done and "call Mum" in done and "kitchen tap" not in done
    # a question about no box keeps the best list
    assert "kitchen tap" in _answer("What's on my weekend to-do list?", notes)


def test_a_sum_written_out_is_answered_by_its_result() -> None:
    notes = [
        _source(
            "N1",
            "money",
            "Band fund: $1,140 - 357 - 89 + 300 (Mohawk) + merch. Ben says balance now "
            "$2,076. Studio deposit $300 due Dec 15",
        )
    ]
    answer = _answer("How much is in the band fund?", notes)
    assert answer.startswith("Ben says balance now $2,076")


def test_a_sum_of_money_or_a_time_is_no_number_to_ring() -> None:
    coach = [
        _source(
            "N1",
            "call w/ venue",
            "Last bus to town 1:30am – should book a minibus (Kelly's Coaches ~€350?)",
        )
    ]
    assert _answer("What's the number for Kelly's Coaches?", coach) == NOT_ENOUGH
    rung = [_source("N1", "minibus", "Kelly's Coaches 01 555 2871, ~€350 for the night")]
    assert "01 555 2871" in _answer("What's the number for Kelly's Coaches?", rung)


def test_a_note_naming_another_numbered_thing_answers_not_for_this_one() -> None:
    flats = [
        _source("N1", "to do", "- [ ] Flat 2 EPC is a C, expires 2028\n- [ ] meter readings"),
    ]
    assert _answer("What EPC rating does Flat 1 have?", flats) == NOT_ENOUGH
    assert "EPC is a C" in _answer("What EPC rating does Flat 2 have?", flats)
    # a note naming no flat may still be about the one asked
    boiler = [
        _source(
            "N1",
            "boiler",
            "Engineer came to the flat: the boiler is 14 yrs old, budget for a new one",
        )
    ]
    assert "14 yrs old" in _answer("How old is the boiler in Flat 2?", boiler)


def test_the_sentence_naming_the_day_asked_about_answers() -> None:
    from datetime import timedelta

    fixtures = _source(
        "N1",
        "fixtures Mar–Apr",
        "Sat 21 Mar H v Ampthill Town\nSat 28 Mar A @ Harlow Rovers, KO 10:30\n"
        "Sat 4 Apr H v Potton Utd",
    )
    recap = _source("N2", "", "Ampthill at home – won 3-1! Every kid played at least half.")
    recap = replace(recap, chunk=replace(recap.chunk, created_at=WRITTEN + timedelta(days=25)))
    # asked on Thursday 26 March 2026: "this Saturday" is the 28th
    asked = datetime(2026, 3, 26, 18, tzinfo=UTC)

    def ask(question: str) -> str:
        return compose(question, [recap, fixtures], analyze(question, asked))

    assert ask("Who are we playing this Saturday?").startswith("Sat 28 Mar A @ Harlow Rovers")
    # the day said by its date, "KO" is kick off
    assert "KO 10:30" in ask("What time is kick off on Saturday?")
    # the day's sentence alone, in a note saying nothing else of the question
    five = _source("N3", "5-a-side", "Fixtures:\nSat 28 Mar v Rovers, KO 10:30\nSat 4 Apr v Albion")
    only = compose(
        "Who are we playing this Saturday?",
        [five],
        analyze("Who are we playing this Saturday?", asked),
    )
    assert "Sat 28 Mar v Rovers" in only
    # a weekday naming a thing ("the Saturday fixtures") is no day asked about
    assert not ask("Which team were the Saturday fixtures against first?").startswith("Sat 28")


def test_a_line_about_another_numbered_thing_is_passed_over_in_its_note() -> None:
    certs = [
        _source(
            "N1",
            "gas certs",
            "CP12s:\nFlat 2 – runs out 28 Oct!! get it done\nFlat 1 – done 11 Mar, next due 10 Mar 2027",
        )
    ]
    answer = _answer("When does the gas cert for Flat 1 run out?", certs)
    assert "10 Mar 2027" in answer and "28 Oct" not in answer


def test_which_thing_was_done_is_told_by_the_sentence_doing_it() -> None:
    movers = [
        _source(
            "N1",
            "quotes",
            "Aire Valley Removals – £1,150 (+£300 packing)\nPickfords – £1,600, book by Fri",
        ),
        _source("N2", "", "Booked Tadcaster Movers for the 27th, £200 deposit paid"),
    ]
    answer = _answer("Which removal firm did we book?", movers)
    assert answer.startswith("Booked Tadcaster Movers"), answer


def test_a_reason_is_preferred_only_from_a_sentence_about_the_thing() -> None:
    match = [
        _source(
            "N1",
            "Flitwick (A)",
            "Lost 2-3 to a late goal. Ref no show so their coach reffed. "
            "Theo got a 10 min sin bin for dissent.",
        )
    ]
    answer = _answer("Why did Theo get sin binned?", match)
    assert answer.startswith("Theo got a 10 min sin bin for dissent"), answer


def test_why_after_an_answer_is_not_that_answer_again() -> None:
    from footnote.generation.extractive import ExtractiveGenerator

    deposit = [
        _source(
            "N1",
            "Sam's deposit",
            "Agent: Sam's deposit is £780. Proposed deductions – oven clean £60, missing blind "
            "£30.\nSam OK with the oven but says the blind was never there. Dropping that one.",
        )
    ]
    first = "Which deduction did I drop from Sam's deposit?"
    said = _answer(first, deposit)
    assert "missing blind" in said

    def ask(question: str, history: list[tuple[str, str]]) -> str:
        generator = ExtractiveGenerator()
        return "".join(
            generator.execute(question, deposit, analyze(question, ASKED), False, history, False)
        )

    history = [("user", first), ("assistant", said)]
    why = ask(f"why? ({first})", history)
    assert "never there" in why and why != said
    # asked again of something else, what was said stands
    assert ask(first, history) == said


def test_a_value_asked_for_by_name_is_cited_from_the_note_stating_it() -> None:
    notes = [
        _source("N1", "insurance", "Renewal came in at £468!! Paid.\nPolicy no. SB-77310942"),
        _source("N2", "money", "Landlord insurance – Simply Business £412/yr, renews 3 Sept"),
    ]
    answer = _answer("What's the policy number for my landlord insurance?", notes)
    assert "SB-77310942" in answer and "[N2]" not in answer


def test_a_number_asked_for_someone_is_theirs_not_a_neighbours_line() -> None:
    suppliers = _source(
        "N1",
        "Suppliers",
        "Bread - Bäckerei Krume, Hanna 030 618 2290. drop 6:30 daily\n"
        "Cups/lids - Papier-Paul online, min order €150 for free delivery\n"
        "Beans - Röstwerk Spree, Dirk 0176 4412 8830",
    )
    # "phone" names what is asked for, which every number is lent: it says nothing of whose
    assert _answer("What's the phone number for Papier-Paul?", [suppliers]) == NOT_ENOUGH
    answer = _answer("What's the phone number for Röstwerk Spree?", [suppliers])
    assert "0176 4412 8830" in answer and "030 618" not in answer


def test_a_price_of_time_written_short_answers_per_hour_and_a_wage_is_money() -> None:
    ayla = _source(
        "N1",
        "Ayla trial",
        "really good w/ customers. HIRED, starts Sat 31 Jan\npay: agreed €13.50/h first 3 months",
    )
    rota = _source("N2", "Rota December", "Mon 22 - me + Mehmet\nSat: Ayla + Mehmet")
    answer = _answer("What is Ayla on per hour?", [rota, ayla])
    assert "€13.50/h" in answer
    # "earn" asks for money: a day of the rota naming him is no wage
    assert _answer("How much does Mehmet earn an hour?", [rota, ayla]) == NOT_ENOUGH


def test_actually_says_nothing_of_what_is_asked() -> None:
    dishwasher = _source(
        "N1", "", "dishwasher fixed - heating element gone. €312 all in (incl the €95 call out)"
    )
    assert "heating element" in _answer("What was actually broken on the dishwasher?", [dishwasher])


def test_a_heading_without_its_colon_is_answered_by_its_list() -> None:
    order = _source(
        "N1",
        "",
        "Healesville Bee Supplies order\n- 10 wired frames + foundation $48\n"
        "- 1 full depth box (pine) $42\n- queen excluder $18\n= $108. pick up Sat",
    )
    answer = _answer("What was in the Healesville order?", [order])
    assert "wired frames" in answer and "queen excluder" in answer
    # an item above the next item heads nothing: a question about one item is that item
    plan = _source(
        "N1",
        "Wedding",
        "- [x] timeline from Elena\n- [x] second shooter (Rosa)\n- [ ] print family formals list",
    )
    answer = _answer("Who's my second shooter for the wedding?", [plan])
    assert "Rosa" in answer and "formals" not in answer


def test_a_number_named_by_its_kind_is_written_beside_that_word() -> None:
    pip = _source("N1", "Pip", "Pip - F, ~8 months, black. 2.6kg, wormed. vaccine #2 due 14 Mar")
    assert _answer("What's Pip's microchip number?", [pip]) == NOT_ENOUGH
    chipped = _source("N1", "Pip", "Pip - F, ~8 months, black. Microchip # 985 112 006 437 201")
    assert "985 112 006 437 201" in _answer("What's Pip's microchip number?", [chipped])


def test_asked_what_was_done_an_open_box_is_no_answer() -> None:
    todo = _source(
        "N1",
        "Martinez/Cho prep",
        "[x] second shooter (Rosa)\n[ ] book motel in Carmel Valley for Fri night\n[ ] charge batteries",
    )
    assert _answer("Which motel did I book in Carmel Valley?", [todo]) == NOT_ENOUGH
    booked = _source("N2", "", "booked the Valley Lodge motel in Carmel Valley, $149 ✔")
    assert "Valley Lodge" in _answer("Which motel did I book in Carmel Valley?", [todo, booked])


def test_an_email_asked_of_someone_somewhere_is_an_address() -> None:
    late = _source(
        "N1", "", "Olive & Ash still hasn't paid, 2 days late now. emailed Marcus (owner), nudge"
    )
    assert _answer("What's Marcus's email at Olive & Ash?", [late]) == NOT_ENOUGH


def test_days_listed_are_no_people_counted() -> None:
    days = "AL approved ✔ 6–10 April (Easter hols) + Sat 28 & Sun 29 March for Mum's birthday"
    ranked = [(days, "N1", frozenset(terms(days)))]
    assert named_count(["peopl"], frozenset(terms("table mum birthday")), ranked) is None
    guests = "table for Mum's birthday: Raj, Priya & Dev"
    found = named_count(
        ["peopl"],
        frozenset(terms("table mum birthday")),
        [(guests, "N1", frozenset(terms(guests)))],
    )
    assert found is not None and found.startswith("3 in your notes")


def test_a_later_line_calling_the_thing_by_its_name_tells_its_price_now() -> None:
    suppliers = _source(
        "N1", "Suppliers", "Beans - Röstwerk Spree. House blend Kreuzberg Crema €21.50/kg"
    )
    later = _source("N2", "", "beans this week: 10kg Crema (€23/kg now...), 2kg decaf")
    later = replace(later, chunk=replace(later.chunk, created_at=datetime(2026, 3, 1, tzinfo=UTC)))
    answer = _answer("What am I paying per kilo for the house blend now?", [suppliers, later])
    assert answer.startswith("beans this week") and "€23/kg" in answer


def test_a_number_no_word_names_the_kind_of_is_a_phone() -> None:
    repair = _source("N1", "Espresso machine", "Uwe came 11ish. group 2 gasket replaced")
    contacts = _source(
        "N2", "Staff contacts", "Mehmet 0176 2210 4587\nmachine emergencies: Brandt 030 2291 4476"
    )
    answer = _answer("What's the number for the espresso machine guy?", [repair, contacts])
    assert "030 2291 4476" in answer and "11ish" not in answer


def test_a_follow_up_asks_its_own_kind_of_value_not_the_one_it_follows() -> None:
    bev = _source(
        "N1",
        "Bev – childminder",
        "Bev Harris – childminder for early starts / nights\n07700 900318\n£6.50/hr, after 8pm £8/hr",
    )
    # as the plan reads "whats her number" after "who's our childminder again"
    answer = _answer("what's her number (who's our childminder again)", [bev])
    assert answer.startswith("07700 900318")


def test_a_follow_up_is_answered_by_a_line_holding_its_own_words() -> None:
    wedding = [
        _source(
            "N1",
            "wedding cake - Laurent/Mehta",
            "Sophie Laurent + Dev Mehta, sat dec 11\n3 tier lemon elderflower, 120 guests\n"
            "quote $780 + $60 delivery to Brock House",
        ),
        _source(
            "N2",
            "tasting - Sophie + Dev",
            "tasting done. top tier now chocolate raspberry\n"
            "flowers from their florist Petal & Stem, we just place them",
        ),
    ]
    # as the offline plan asks a follow-up: its words, then the question it follows
    answer = _answer("who is doing their flowers (where is the wedding)", wedding)
    assert "Petal & Stem" in answer and "[N2]" in answer and "Brock" not in answer, answer


def test_a_follow_ups_lines_need_cover_only_its_own_words() -> None:
    sitter = [
        _source("N1", "house", "Kylie (Bev + Ray's daughter next door) will house sit!!"),
        _source(
            "N2",
            "new date",
            "told kylie about the new date - she'll move in sat 17 apr instead\n"
            "she's bringing her cat Mochi - fine by us",
        ),
    ]
    answer = _answer("is she bringing any pets (who's house sitting for us)", sitter)
    assert "Mochi" in answer and "[N2]" in answer, answer


def test_a_value_named_by_the_questions_word_is_of_what_its_note_is_about() -> None:
    rent = [
        _source(
            "N1",
            "rent",
            "reminder from gareth: rent £68 due 1 oct\n"
            "bank transfer to Hollins Lane Allotment Soc, ref = plot no",
        ),
        _source("N2", "AGM", "muck delivery sat 4 april, £5 a barrow"),
    ]
    answer = _answer("how much is the allotment rent now", rent)
    assert "£68" in answer and "[N1]" in answer and "£5" not in answer, answer


def test_a_number_on_its_own_line_is_of_what_its_note_is_about() -> None:
    practice = [
        _source(
            "N1",
            "",
            "rang Elm St Medical - appt w/ Dr Haddad fri 10.40\nbring his boxes\nph 03 9555 0142",
        )
    ]
    assert "03 9555 0142" in _answer("what's the elm st medical phone number", practice)
    # a line naming whose number it is belongs to them, not to the note's subject
    cat = [
        _source(
            "N1",
            "cat sit",
            "Mr Whiskers (old ginger tom)\n- litter every visit\n"
            "€20/visit. Jean's mobile 087 614 2290",
        )
    ]
    assert _answer("whats tom whelans phone number", cat) == NOT_ENOUGH


def test_what_was_not_yet_done_is_the_open_boxes_of_the_checklist() -> None:
    trip = [
        _source(
            "N1",
            "sydney trip - dad",
            "[x] webster packs x2\n[x] med list printed\n[ ] GP letter - in folder\n"
            "[x] home BP machine\n[ ] spare glasses\nflight sun 21st 10.05am, back 4 jan",
        )
    ]
    answer = _answer("what hadnt i packed yet for dads trip", trip)
    assert "GP letter" in answer and "spare glasses" in answer, answer
    assert "webster" not in answer and "med list" not in answer, answer


def test_asked_what_happened_a_plan_is_no_answer() -> None:
    todo = _source(
        "N1",
        "march to do",
        "[ ] ring Kev re remortgage\n[x] self assessment paid 31 jan\n"
        "[ ] get 3 quotes for new boiler at Whitworth before next winter",
    )
    assert _answer("what did the boiler quotes come back at", [todo]) == NOT_ENOUGH
    goals = _source(
        "N1",
        "new year",
        "rate up to £10.20/hr from this month\ngoals 2026:\n- pass 18th ed\n- pass AM2\n"
        "- get ECS gold card",
    )
    assert _answer("how did i do in the AM2", [goals]) == NOT_ENOUGH
    # the same item in a list of what was done is what happened
    done = _source("N1", "jan", "results:\n- pass AM2\n- pass 18th ed")
    assert "AM2" in _answer("how did i do in the AM2", [done])


def test_a_value_as_it_stands_is_the_latest_by_the_questions_word_for_it() -> None:
    def dated(cid: str, text: str, day: int, tags: str = "") -> Source:
        return _written(cid, text, datetime(2026, 1, day, tzinfo=UTC), tags)

    notes = [
        dated("N1", "rent in:\njan - Whitworth £875 in on the 1st ✓", 2),
        # later, a price of the same flat that is no rent ...
        dated("N2", "expenses\n3 new smoke alarms Whitworth £36", 12),
        # ... and the rent, in a note the flat's tag names
        dated("N3", "Jess + Hana first rent £925 paid ✓", 30, "whitworth money"),
    ]
    answer = _answer("what's the rent at whitworth now", notes)
    assert answer.startswith("Jess + Hana first rent £925") and "[N3]" in answer, answer


def test_a_later_value_in_a_note_sharing_only_words_of_the_thing_is_not_its_latest() -> None:
    def dated(cid: str, title: str, text: str, month: int, day: int, tags: str) -> Source:
        return _written(cid, text, datetime(2026, month, day, tzinfo=UTC), tags, title)

    notes = [
        dated(
            "N1",
            "oven 2",
            "Rick came out. thermostat sensor on oven 2 is shot. part $240 + labor $180.",
            1,
            14,
            "equipment",
        ),
        dated(
            "N2",
            "oven 2 fixed",
            "Rick back, new sensor in. bill $438 total (part went up to $258). baking even again",
            1,
            26,
            "equipment",
        ),
        # a later to-do naming the oven beside a sum of something else
        dated(
            "N3",
            "TODO",
            "[ ] Q1 estimated tax $1,800 by the 15th\n[x] oven 2 door hinge\n[x] year end inventory done",
            3,
            7,
            "todo",
        ),
    ]
    answer = _answer("what did the oven 2 repair cost in the end", notes)
    assert "$438" in answer and "[N2]" in answer, answer


def test_a_value_the_note_says_to_look_up_is_not_known() -> None:
    move = [
        _source(
            "N1", "moving admin", "mail redirection through aus post for 6 mths - look up the cost"
        )
    ]
    assert _answer("how much is aus post mail redirection for 6 months", move) == NOT_ENOUGH
    # once found, it is the answer
    found = [_source("N1", "moving admin", "mail redirection through aus post for 6 mths $110.50")]
    assert "$110.50" in _answer("how much is aus post mail redirection for 6 months", found)


def test_asked_of_a_period_before_every_note_a_line_of_another_time_is_no_answer() -> None:
    january = datetime(2026, 1, 18, tzinfo=UTC)
    sick = _written("N1", "Finn off sick. hoping ruby doesnt get it before the party", january)
    question = "what did ruby get for her birthday last year"
    asked = analyze(question, datetime(2026, 3, 4, tzinfo=UTC))
    assert compose(question, [sick], asked) == NOT_ENOUGH
    # a note of this year telling of last year says so
    told = _written("N1", "ruby got a scooter for her birthday in 2025", january)
    assert "scooter" in compose(question, [told], asked)


def test_asked_whether_there_is_a_thing_a_line_not_naming_it_is_no_answer() -> None:
    centre = [
        _source("N1", "trip", "Nant Gwynant Outdoor Centre quoted £215pp, 2 nights full board")
    ]
    assert _answer("is there wifi at nant gwynant", centre) == NOT_ENOUGH
    wifi = [_source("N1", "trip", "Nant Gwynant Outdoor Centre: wifi in the lounge only")]
    assert "wifi in the lounge" in _answer("is there wifi at nant gwynant", wifi)


def test_a_period_named_outright_is_what_a_text_is_about_whenever_saved() -> None:
    band = _written(
        "N1",
        "Dead by Sunrise was a rock band formed by Chester Bennington. It was formed in 2005.",
        datetime(2026, 1, 18, tzinfo=UTC),
    )
    question = "Which rock band did Chester Bennington form in 2005?"
    answer = compose(question, [band], analyze(question, datetime(2026, 3, 4, tzinfo=UTC)))
    assert "Dead by Sunrise" in answer, answer


def test_a_value_in_a_note_saying_less_of_the_thing_than_another_is_not_its_value() -> None:
    season = _source(
        "N1",
        "spring season",
        "first spring practice Wed 29 Apr. first game Sat 9 May. league sends schedule next wk",
    )
    outdoor = _source(
        "N2",
        "spring outdoor",
        "registration open till 15 Apr\npractices move to Wed 6:30 at Stan Wadlow Park",
    )
    # the game's note names no time; the time in the other note is the practices'
    assert _answer("what time is the first spring game", [season, outdoor]) == NOT_ENOUGH
    # asked of what that note is about, its time answers
    answer = _answer("what time are spring practices", [season, outdoor])
    assert "6:30" in answer and "[N2]" in answer, answer


def test_a_place_from_another_note_is_told_by_its_own_words_not_its_title() -> None:
    schedule = _source("N1", "schedule", "practice Tues 6-7pm, Dieppe Park dome, field 2")
    drills = _source(
        "N2", "practice", "passing triangles, rondo 4v1. ordered 6 more pinnies from Sport Chek $42"
    )
    answer = _answer("where is tuesday practice", [schedule, drills])
    assert "Dieppe Park" in answer and "[N2]" not in answer, answer


def test_a_value_alone_after_a_full_stop_is_the_end_of_its_sentence() -> None:
    line = "Fernhill Farm - Maggie, order by mon for fri pickup. 518-555-0143"
    assert sentences(line) == [line]
    # as the answer carries it, with its marker; a line of its own stays apart
    assert sentences("order by mon. 518-555-0143 [N1].") == ["order by mon. 518-555-0143 [N1]."]
    assert sentences("order by mon.\n518-555-0143") == ["order by mon.", "518-555-0143"]
    suppliers = _source(
        "N1",
        "suppliers",
        "- Dahlia Row - Benny, opens 5am, 212-555-0178\n"
        "- Fernhill Farm - Maggie, order by mon for fri pickup. 518-555-0143",
    )
    answer = _answer("maggies number", [suppliers])
    assert "Maggie" in answer and "518-555-0143" in answer and "212" not in answer, answer


def test_initials_joined_by_an_ampersand_stand_for_the_names_spelled_out() -> None:
    notes = [
        _source("N1", "H&L", "H&L signed!! retainer $2,730 rcvd via zelle"),
        _source("N2", "K&M", "K&M signed, retainer $1,900"),
    ]
    answer = _answer("how much was the retainer for hannah and luis", notes)
    assert answer.startswith("H&L signed!! retainer $2,730") and "[N1]" in answer, answer


def test_how_tall_is_answered_by_the_height_and_how_heavy_by_the_weight() -> None:
    assert {"height"} <= set(analyze("how tall is he", ASKED).keywords)
    check = _source("N1", "PHN check", "nurse - all grand\nweight 11.6kg, height 86cm")
    assert _answer("how tall is he", [check]).startswith("weight 11.6kg, height 86cm")
    marrow = _source("N1", "show results", "heaviest marrow - Dave (14.2kg!!)")
    assert "14.2kg" in _answer("how heavy was the winning marrow", [marrow])


def test_a_name_beside_the_short_form_of_what_it_names_is_its_name() -> None:
    physio = _source(
        "N1", "physio", "physio - Sam at Moonee Ponds Sports Physio, $98\nleft ITB tight"
    )
    answer = _answer("what's the physiotherapist called", [physio])
    assert answer.startswith("physio - Sam at Moonee Ponds"), answer


def test_asked_whether_it_happened_a_line_saying_it_is_still_to_do_tells_nothing() -> None:
    nct = _source(
        "N1", "car", "NCT fail:( front brake discs + rear left tyre. retest within 21 days"
    )
    assert _answer("did the car pass the nct retest", [nct]) == NOT_ENOUGH
    sleep = _source("N1", "sleep", "tash suggests melatonin - ask GP first")
    assert _answer("did the GP say melatonin is ok", [sleep]) == NOT_ENOUGH
    # a line telling the outcome answers
    passed = _source("N2", "car", "NCT retest passed, cert in the glovebox")
    assert "passed" in _answer("did the car pass the nct retest", [nct, passed])
    # asked what was said, what is still to do is the answer
    review = _source("N1", "placement", "Niamh: need to work on prioritising + time management")
    assert "prioritising" in _answer("what did niamh say i need to work on", [review])


def test_a_name_after_an_equals_sign_is_a_name_of_the_notebook() -> None:
    meeting = _source(
        "N1",
        "apr mtg",
        "renewals to 11/4: full 19\nApril mtg tue: speaker = Mereana (!) on meteorites",
    )
    answer = _answer("who's the speaker in april", [meeting])
    assert answer.startswith("April mtg tue: speaker = Mereana"), answer


def test_a_period_gone_by_written_short_is_the_period_asked_about() -> None:
    tally = _written(
        "N1",
        "renewals to 2/4: 31 paid\nlast yr's total was 58 memberships",
        datetime(2027, 4, 2, tzinfo=UTC),
        title="subs tally",
    )
    question = "how many members did we have last year"
    answer = compose(question, [tally], analyze(question, datetime(2027, 4, 12, tzinfo=UTC)))
    assert answer.startswith("last yr's total was 58"), answer


def test_shorthand_a_question_writes_is_the_thing_its_value_is_of() -> None:
    xmas = _source(
        "N1", "christmas", "decided: Christmas in Truro. driving down Wed 23rd Dec, back Mon 28th"
    )
    going = _source("N2", "plans", "Jan asking if we're going to the panto")
    answer = _answer("where are we going for xmas", [xmas, going])
    assert "Truro" in answer and "[N1]" in answer, answer


def test_a_plural_short_form_shortens_the_plural() -> None:
    assert shortened("certs", "certificates") and shortened("appts", "appointments")
    registered = _source("N1", "registered!", "got 2 birth certs (£12.50 each)\n[x] register birth")
    assert "£12.50" in _answer("how much were the birth certificates", [registered])


def test_a_match_score_told_by_its_result_s_initial_is_a_score() -> None:
    result = _source("N1", "Rd 2", "L 22-30 v St Brigid's. they're the real deal")
    assert _answer("what was the score v st brigids", [result]).startswith("L 22-30 v St Brigid's")


def test_a_later_value_is_of_the_thing_when_its_line_holds_every_word_the_lead_does() -> None:
    meds = _written(
        "N1",
        "Levothyroxine 75mcg - morning\nAmlodipine 5mg - morning",
        datetime(2026, 8, 24, tzinfo=UTC),
        title="MUM MEDS",
    )
    pay = _written(
        "N2",
        "carers allowance\n- paid every 4 wks into mum's acct",
        datetime(2026, 10, 1, tzinfo=UTC),
    )
    question = "how much levothyroxine is mum on now"
    asked = analyze(question, datetime(2026, 11, 9, tzinfo=UTC))
    answer = compose(question, [meds, pay], asked)
    assert answer.startswith("Levothyroxine 75mcg"), answer
    update = _written(
        "N3", "levothyroxine going UP to 100mcg (TSH high)", datetime(2026, 9, 28, tzinfo=UTC)
    )
    answer = compose(question, [meds, pay, update], asked)
    assert "100mcg" in answer.split("[")[0], answer


def test_a_sum_the_note_works_out_itself_is_not_added_again() -> None:
    assert added_up("full 19 ($1,140) + senior 12 ($480) + = 41, $1,620") is None
    tally = _source(
        "N1",
        "subs tally #3",
        "renewals to 11/4:\nfull 19 ($1,140)\nsenior/student 12 ($480)\n= 31, $1,620",
    )
    answer = _answer("how much have the renewals come to altogether", [tally])
    assert "$3,240" not in answer and "$1,620" in answer, answer


def test_a_line_ending_in_a_colon_is_answered_with_the_items_under_it() -> None:
    job = _source(
        "N1",
        "Fahy 2nd fix",
        "2nd fix day 1 done yday. sockets all in. Maeve asked for extras:\n"
        "- outdoor socket (IP66) by the patio\n- EV charger prep - cable only\nback thurs",
    )
    answer = _answer("what extras did maeve fahy want", [job])
    assert "outdoor socket" in answer and "EV charger" in answer, answer


def test_a_number_asked_for_is_one_line_s_not_a_list_s() -> None:
    van = _source(
        "N1",
        "van",
        "Transit Custom 191-G-4472\n- 187,400 km on the clock\n- CVRT due end of Feb!! book it\n"
        "- rear tyres getting low, Joe says 2 mths max",
    )
    assert _answer("what's the van reg", [van]).startswith("Transit Custom 191-G-4472")


def test_how_much_have_we_spent_is_the_running_sum_as_it_stands() -> None:
    early = _written("N1", "props list\nspent so far $36", datetime(2027, 2, 20, tzinfo=UTC))
    final = _written(
        "N2",
        "props - final check\n[x] bugle\nspent $36 + $24 + $8 + $11 (whistle) = $79 of the $400",
        datetime(2027, 3, 3, tzinfo=UTC),
    )
    question = "how much have we spent on props"
    answer = compose(question, [early, final], analyze(question, datetime(2027, 3, 4, tzinfo=UTC)))
    assert "$79" in answer and "[N2]" in answer, answer
