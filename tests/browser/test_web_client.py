"""The web client in Chromium against the real local stack (emulators, functions, Hosting)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import PASSWORD

pytestmark = [pytest.mark.emulator, pytest.mark.browser]

INDEX_TIMEOUT = 120_000  # ms; the first note of a session loads the embedding model
ANSWER_TIMEOUT = 60_000

WATCH_STREAM = """() => {
  window.__seen = [];
  new MutationObserver(() => {
    const a = [...document.querySelectorAll('#thread .turn.assistant')].pop();
    if (a) window.__seen.push({busy: a.getAttribute('aria-busy'),
      deltas: a.querySelectorAll('.delta').length, done: a.hasAttribute('data-message-id')});
  }).observe(document.getElementById('thread'), {subtree: true, childList: true, attributes: true});
}"""


def sign_up(page: Page, web_url: str, email: str) -> None:
    page.goto(web_url)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("heading", name="Notes", exact=True)).to_be_visible()
    expect(page.locator("#who")).to_have_text(email)


def save_note(page: Page, text: str, title: str = "") -> str:
    page.get_by_role("button", name="Notes").click()
    if title:
        page.get_by_label("Title (optional)").fill(title)
    page.locator("#note-text").fill(text)
    page.get_by_role("button", name="Save note").click()
    item = page.locator("#notes-list > li").first
    expect(item.locator(".note-text")).to_have_text(text)
    return str(item.get_attribute("data-note-id"))


def wait_indexed(page: Page, note_id: str) -> None:
    item = page.locator(f'#notes-list > li[data-note-id="{note_id}"]')
    expect(item).to_have_attribute("data-status", "indexed", timeout=INDEX_TIMEOUT)
    expect(item.get_by_role("status")).to_have_text("Indexed")


def ask(page: Page, question: str):
    page.get_by_role("button", name="Ask", exact=True).first.click()
    before = page.locator("#thread .turn.assistant").count()
    box = page.get_by_role("textbox", name="Ask your notes")
    box.fill(question)
    box.press("Enter")  # Enter sends
    answer = page.locator("#thread .turn.assistant").nth(before)
    expect(answer).to_have_attribute("data-message-id", re.compile(r"\w+"), timeout=ANSWER_TIMEOUT)
    return answer


def test_sign_up_index_stream_cite_and_follow_up(
    page: Page, web_url: str, email: str, shots: Path
) -> None:
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    sign_up(page, web_url, email)
    firestore = save_note(
        page,
        "We chose Firestore over Postgres because it syncs in real time to the mobile app. "
        "There is no database server to manage.",
        title="Storage choice",
    )
    expect(page.locator(f'li[data-note-id="{firestore}"]')).to_have_attribute(
        "data-status", "pending"
    )
    hostile = save_note(page, 'Lunch <img src=x onerror="window.__xss=1"> at the Thai place.')
    wait_indexed(page, firestore)
    wait_indexed(page, hostile)
    # Note text is shown as text, never parsed as HTML.
    assert page.locator("#notes-list img").count() == 0
    assert page.evaluate("window.__xss") is None

    chats: list[dict] = []  # type: ignore[type-arg]
    page.on(
        "request",
        lambda r: (
            chats.append(json.loads(r.post_data or "{}")) if r.url.endswith("/api/chat") else None
        ),
    )
    page.get_by_role("button", name="Ask", exact=True).first.click()
    page.evaluate(WATCH_STREAM)
    answer = ask(page, "Why did we choose Firestore?")

    # It streamed: text was on the page while the answer was still busy.
    seen = page.evaluate("window.__seen")
    assert any(s["busy"] == "true" and s["deltas"] >= 1 and not s["done"] for s in seen), seen
    expect(answer).to_contain_text("Firestore")
    chip = answer.locator("button.chip").first
    expect(chip).to_be_enabled()
    expect(chip).to_have_attribute("aria-label", re.compile(r"^Source 1: Storage choice, "))

    # Hover and focus preview the snippet and the note's date.
    chip.hover()
    preview = page.get_by_role("tooltip")
    expect(preview).to_be_visible()
    expect(preview).to_contain_text("syncs in real time")
    expect(page.locator("#preview-date")).to_contain_text("Storage choice · ")
    page.keyboard.press("Escape")
    expect(preview).to_be_hidden()
    chip.focus()
    expect(preview).to_be_visible()

    # The sources panel lists the cited note.
    sources = page.locator("#sources-list > li")
    expect(sources).to_have_count(1)
    expect(sources.first).to_have_attribute("data-note-id", firestore)
    page.screenshot(path=str(shots / "desktop-answer.png"), full_page=True)

    # A citation opens the note with the cited passage highlighted and focused.
    chip.click()
    dialog = page.get_by_role("dialog", name="Storage choice")
    expect(dialog).to_be_visible()
    mark = dialog.locator("mark#cited-passage")
    expect(mark).to_contain_text("We chose Firestore over Postgres")
    expect(mark).to_be_focused()
    expect(mark).to_be_in_viewport()
    page.screenshot(path=str(shots / "desktop-citation.png"))
    page.keyboard.press("Escape")  # Esc closes
    expect(dialog).to_be_hidden()

    # A follow-up continues the same conversation.
    follow = ask(page, "Why did we pick Firestore over Postgres?")
    expect(follow).to_contain_text("Firestore")
    assert len(chats) == 2
    first_id = chats[0].get("conversationId")
    assert first_id is None and chats[1]["conversationId"]
    conversations = page.locator("#conversation-list button.conversation")
    expect(conversations).to_have_count(1)
    expect(conversations.first).to_contain_text("Why did we choose Firestore?")

    # Reopening it from the list shows all four turns.
    page.get_by_role("button", name="New", exact=True).click()
    expect(page.locator("#thread > li")).to_have_count(0)
    conversations.first.click()
    expect(page.locator("#thread > li")).to_have_count(4)
    expect(page.locator("#thread .turn.assistant button.chip").first).to_be_enabled()

    # Search says in words what found each passage; no raw fused score is shown.
    page.get_by_role("button", name="Search", exact=True).click()
    page.get_by_label("Search your notes").fill("Firestore mobile sync")
    page.get_by_label("Search your notes").press("Enter")
    first = page.locator("#search-results > li").first
    expect(first).to_have_attribute("data-note-id", firestore)
    expect(first.locator(".result-head .hint")).to_contain_text("found by")
    assert not re.search(r"\d\.\d{3}", first.inner_text()), first.inner_text()
    # Served with firebase.json's Content-Security-Policy: nothing was refused, nothing threw.
    assert not problems, problems


def test_edit_and_delete_are_never_cited_at_phone_width(
    browser: Browser, web_url: str, email: str, shots: Path, firestore_client
) -> None:
    from tests.emulator.test_end_to_end import _chunks

    context = browser.new_context(viewport={"width": 375, "height": 812}, has_touch=True)
    page = context.new_page()
    try:
        sign_up(page, web_url, email)
        launch = save_note(page, "The launch date is set for March 3 in Lisbon.")
        plants = save_note(page, "Our office plants need water every Monday.")
        wait_indexed(page, launch)
        wait_indexed(page, plants)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        expect(ask(page, "Where is the launch?")).to_contain_text("Lisbon")
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        expect(page.locator("#toast")).to_be_hidden(timeout=10_000)
        page.screenshot(path=str(shots / "phone-answer.png"), full_page=True)

        # Edit through the note dialog; the old text is never cited again.
        page.get_by_role("button", name="Notes").click()
        item = page.locator(f'#notes-list > li[data-note-id="{launch}"]')
        item.get_by_role("button", name="Edit").click()
        page.locator("#edit-text").fill("The launch moved to Berlin on April 9.")
        page.get_by_role("button", name="Save changes").click()
        expect(item).to_have_attribute("data-status", "pending")
        page.keyboard.press("Escape")
        wait_indexed(page, launch)
        answer = ask(page, "Where is the launch?")
        expect(answer).to_contain_text("Berlin")
        expect(answer).not_to_contain_text("Lisbon")
        expect(page.locator("#sources-list")).not_to_contain_text("Lisbon")

        # Delete it; once the indexer has removed its chunks it is never cited.
        page.get_by_role("button", name="Notes").click()
        item.get_by_role("button", name="Delete").click()
        item.get_by_role("button", name="Yes, delete").click()
        expect(item).to_have_count(0)
        deadline = time.monotonic() + 60
        while _chunks(firestore_client, launch) and time.monotonic() < deadline:
            time.sleep(0.25)
        assert not _chunks(firestore_client, launch)
        answer = ask(page, "Where is the launch?")
        expect(answer).not_to_contain_text("Berlin")
        expect(page.locator("#sources-list")).not_to_contain_text("Berlin")
        assert answer.locator(f'button.chip[data-note-id="{launch}"]').count() == 0
    finally:
        context.close()


def test_a_second_user_sees_nothing_of_the_first(page: Page, web_url: str, email: str) -> None:
    sign_up(page, web_url, email)
    secret = save_note(page, "My locker code hint is Pickles the cat.")
    wait_indexed(page, secret)
    expect(ask(page, "What is my locker code hint?")).to_contain_text("Pickles")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Answers from your own notes")).to_be_visible()

    sign_up(page, web_url, "other-" + email)
    expect(page.locator("#notes-list > li")).to_have_count(0)
    expect(page.locator("#notes-more")).to_have_text("No notes yet: write your first one above.")
    page.get_by_role("button", name="Ask", exact=True).first.click()
    expect(page.locator("#conversation-list")).to_have_text("No conversations yet.")
    answer = ask(page, "What is my locker code hint? Pickles?")
    expect(answer).not_to_contain_text("Pickles the cat")
    assert answer.locator("button.chip:enabled").count() == 0
    expect(page.locator("#sources-list > li")).to_have_count(0)
    page.get_by_role("button", name="Search", exact=True).click()
    page.get_by_label("Search your notes").fill("Pickles locker")
    page.get_by_label("Search your notes").press("Enter")
    expect(page.locator("#search-meta")).to_have_text("Nothing in your notes matches that.")
    expect(page.locator("#search-results > li")).to_have_count(0)


def test_conversations_come_from_the_api_after_a_reload_with_cleared_storage(
    page: Page, web_url: str, email: str
) -> None:
    """The list is the API's, not this browser's: with localStorage cleared (signed
    out too, as on another device) the conversation is listed and reopens."""
    sign_up(page, web_url, email)
    # No notes: the answer says so at once, and the conversation is recorded.
    ask(page, "What is on the   roadmap for May?")
    listed = page.locator("#conversation-list button.conversation")
    expect(listed).to_have_count(1)
    conversation_id = listed.first.get_attribute("data-conversation-id")
    assert conversation_id
    assert page.evaluate("Object.keys(localStorage).filter(k => k.includes('conversations'))") == []

    page.evaluate("localStorage.clear()")
    page.reload()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#who")).to_have_text(email)
    page.get_by_role("button", name="Ask", exact=True).first.click()
    expect(listed).to_have_count(1)
    expect(listed.first).to_have_attribute("data-conversation-id", conversation_id)
    expect(listed.first).to_contain_text("What is on the roadmap for May?")
    expect(listed.first).to_contain_text("1 question")
    listed.first.click()
    expect(page.locator("#thread > li")).to_have_count(2)
    expect(page.locator("#thread .turn.user .turn-text")).to_contain_text("roadmap for May?")
    expect(listed.first).to_have_attribute("aria-current", "true")


def test_a_failed_note_shows_failed_and_retry_indexes_it(
    page: Page, web_url: str, email: str, stack
) -> None:
    import requests

    sign_up(page, web_url, email)
    # The embedder fails (the dev host's test-only fault switch): indexing fails.
    requests.post(
        f"{stack.api_url}/_faults", json={"embedder": {"mode": "error"}}, timeout=10
    ).raise_for_status()
    try:
        note = save_note(page, "Quarterly budget review moved to the second week of June.")
        item = page.locator(f'#notes-list > li[data-note-id="{note}"]')
        expect(item).to_have_attribute("data-status", "failed", timeout=INDEX_TIMEOUT)
        expect(item.get_by_role("status")).to_have_text("Indexing failed")
    finally:
        requests.delete(f"{stack.api_url}/_faults", timeout=10).raise_for_status()
    item.get_by_role("button", name="Retry indexing").click()
    wait_indexed(page, note)
    expect(item.get_by_role("button", name="Retry indexing")).to_have_count(0)


# A note as people write them, one fact a line: its one chunk's snippet (what the
# citation carries) runs over four lines, and the answer quotes one of them.
DINNER = (
    "Attendees: Priya, Tom, Lena and me.\n"
    "Priya booked the table at Osteria Nonna for 8 pm.\n"
    "Tom brought two bottles of Barolo from his trip.\n"
    "The set menu cost 85 euros per person, wine not included.\n"
    "Lena paid the whole bill and we sent her our shares the next day.\n"
    "Next time we book earlier: the terrace was full."
)
COST = "The set menu cost 85 euros per person, wine not included."
SCREENS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 375, "height": 812}}


@pytest.mark.parametrize("width", list(SCREENS))
def test_a_citation_marks_the_sentence_it_cites_and_new_is_on_the_first_screen(
    browser: Browser, web_url: str, email: str, shots: Path, width: str
) -> None:
    screen = SCREENS[width]
    phone = width == "phone"
    context = browser.new_context(viewport=screen, has_touch=phone)  # type: ignore[arg-type]
    page = context.new_page()
    try:
        sign_up(page, web_url, email)
        note = save_note(page, DINNER, title="Team dinner")
        wait_indexed(page, note)
        answer = ask(page, "How much did the set menu cost?")
        expect(answer).to_contain_text("85 euros per person")
        expect(page.locator("#toast")).to_be_hidden(timeout=10_000)

        # New conversation is on the first screen, above the thread: no scrolling past
        # the question form and the sources to start another one.
        new = page.get_by_role("button", name="New", exact=True)
        expect(new).to_be_visible()
        top = new.evaluate("e => e.getBoundingClientRect().top + window.scrollY")
        assert top < screen["height"], top
        thread = page.locator("#thread")
        listed = page.locator("#conversation-list button.conversation")
        toggle = page.locator("#conversations-toggle")
        if phone:
            # A compact row: "Conversations (1)" opens the list under it, New beside it.
            expect(toggle).to_be_visible()
            expect(toggle).to_have_text("Conversations (1)")
            expect(toggle).to_have_attribute("aria-expanded", "false")
            expect(listed.first).to_be_hidden()
            assert new.bounding_box()["y"] < thread.bounding_box()["y"]  # type: ignore[index]
            row = toggle.bounding_box()
            assert row and abs(row["y"] - new.bounding_box()["y"]) < 12  # type: ignore[index]
        else:
            # Beside the thread, as it was: the list shown, no toggle.
            expect(toggle).to_be_hidden()
            expect(page.get_by_role("heading", name="Conversations", exact=True)).to_be_visible()
            expect(listed.first).to_be_visible()
            assert new.bounding_box()["x"] < thread.bounding_box()["x"]  # type: ignore[index]
        page.evaluate("window.scrollTo(0, 0)")
        expect(new).to_be_in_viewport()
        page.screenshot(path=str(shots / f"{width}-cited-answer.png"))
        page.screenshot(path=str(shots / f"{width}-cited-answer-full.png"), full_page=True)
        if phone:
            toggle.click()
            expect(toggle).to_have_attribute("aria-expanded", "true")
            expect(listed.first).to_be_visible()
            expect(listed.first).to_contain_text("How much did the set menu cost?")
            page.screenshot(path=str(shots / f"{width}-conversations-open.png"))
            toggle.click()
            expect(listed.first).to_be_hidden()

        # The offline answer is shown as a quote: the note's title and date, its lines.
        expect(answer.locator("figure.quote figcaption")).to_contain_text("Team dinner")
        # A line's chip opens the note on the sentence the answer quotes, not on its
        # passage (the snippet covers the four lines before it too).
        answer.locator(".quote-line", has_text="85 euros per person").locator("button.chip").click()
        dialog = page.get_by_role("dialog", name="Team dinner")
        expect(dialog).to_be_visible()
        mark = dialog.locator("mark#cited-passage")
        expect(mark).to_have_text(COST)
        expect(mark).to_have_attribute("data-cited", "sentence")
        expect(mark).to_be_focused()
        expect(mark).to_be_in_viewport()
        expect(dialog.locator("#note-body")).to_contain_text("Priya booked the table")
        page.screenshot(path=str(shots / f"{width}-cited-sentence.png"))
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()

        # So does the note's entry under Sources.
        page.locator("#sources-list").get_by_role(
            "button", name=re.compile("Open the note cited as 1")
        ).click()
        first_quoted = answer.locator(".quote-line").first.inner_text()
        expect(mark).to_have_attribute("data-cited", "sentence")
        assert mark.inner_text().strip().rstrip(".") in first_quoted, first_quoted
        expect(mark).to_be_focused()
        page.keyboard.press("Escape")

        # New starts over from the top of the page.
        page.evaluate("window.scrollTo(0, 0)")
        new.click()
        expect(page.locator("#thread > li")).to_have_count(0)
        expect(page.get_by_role("textbox", name="Ask your notes")).to_be_focused()
    finally:
        context.close()
