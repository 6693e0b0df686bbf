"""What each screen shows, and only that: every view's visibility on every screen at
desktop width and at 375 px, the signed-out screen after a sign-out (nothing of the
previous user, on screen or in the DOM), and note statuses that are never stale.

Screenshots of every screen go to build/screenshots, beside the other browser tests', to be
looked at."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.browser.conftest import PASSWORD, SHOTS
from tests.browser.test_web_client import ANSWER_TIMEOUT, INDEX_TIMEOUT, ask, save_note

pytestmark = [pytest.mark.emulator, pytest.mark.browser]

WIDTHS: dict[str, ViewportSize] = {
    "desktop": {"width": 1280, "height": 860},
    "phone": {"width": 375, "height": 812},
}

# Every view a screen may show, by the element that is the view.
VIEWS = {
    "sign-in": "#auth-view",
    "tabs": "#tabs",
    "sign-out": "#sign-out",
    "notes": "#notes-view",
    "ask": "#ask-view",
    "conversations": "#ask-view .conversations",
    "search": "#search-view",
}
SCREENS = {
    "signed-out": {"sign-in"},
    "notes": {"tabs", "sign-out", "notes"},
    "ask": {"tabs", "sign-out", "ask", "conversations"},
    "search": {"tabs", "sign-out", "search"},
}


def shows_only(page: Page, screen: str) -> None:
    """The screen's views are visible and every other view is hidden."""
    for name, selector in VIEWS.items():
        view = page.locator(selector)
        if name in SCREENS[screen]:
            expect(view, f"{screen}: {name} should be visible").to_be_visible()
        else:
            expect(view, f"{screen}: {name} should be hidden").to_be_hidden()


def shoot(page: Page, width: str, screen: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{width}-{screen}.png"), full_page=True)


def tab(page: Page, name: str) -> None:
    page.get_by_role("navigation", name="Views").get_by_role("button", name=name).click()


@pytest.mark.parametrize("width", list(WIDTHS))
def test_every_screen_shows_only_its_views_and_sign_out_leaves_nothing(
    browser: Browser, web_url: str, email: str, width: str
) -> None:
    context = browser.new_context(viewport=WIDTHS[width], has_touch=width == "phone")
    page = context.new_page()
    title = f"Storage choice {width}"
    text = (
        "We chose Firestore over Postgres because it syncs in real time to the mobile app. "
        "There is no database server to manage."
    )
    question = "Why did we choose Firestore over Postgres for the mobile app?"
    try:
        page.goto(web_url)
        expect(page.get_by_role("button", name="Sign in")).to_be_visible()
        shows_only(page, "signed-out")
        shoot(page, width, "signed-out")

        page.get_by_label("Email").fill(email)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Create account").click()
        expect(page.locator("#who")).to_have_text(email)
        # The address is whole when the bar has room for it (at 375 px it was cut at
        # 45% of the screen with the row half empty).
        cut = page.locator("#who").evaluate("e => e.scrollWidth > e.clientWidth + 1")
        assert not cut, page.locator("#who").evaluate("e => [e.scrollWidth, e.clientWidth]")
        shows_only(page, "notes")

        note = save_note(page, text, title=title)
        item = page.locator(f'#notes-list > li[data-note-id="{note}"]')
        expect(page.locator("#toast")).to_be_visible()  # "Note saved…"
        tab(page, "Search")
        expect(page.locator("#toast")).to_be_hidden()  # the toast ends with its view
        tab(page, "Notes")
        expect(item).to_have_attribute("data-status", "indexed", timeout=INDEX_TIMEOUT)
        expect(item.get_by_role("status")).to_have_text("Indexed")
        expect(item.locator(".type")).to_be_visible()  # the memory type it was indexed as
        shows_only(page, "notes")
        shoot(page, width, "notes")

        answer = ask(page, question)
        expect(answer).to_contain_text("syncs in real time")
        shows_only(page, "ask")
        expect(answer.locator(".turn-meta")).to_contain_text("confidence")
        listed = page.locator("#conversation-list button.conversation")
        expect(listed).to_have_count(1)
        toggle = page.locator("#conversations-toggle")
        if width == "phone":
            # Above the thread, the list opens under its "Conversations (1)" row.
            expect(listed.first).to_be_hidden()
            toggle.click()
        expect(listed.first).to_be_visible()
        # The whole question shows in the list, not its first ~20 characters.
        expect(listed.first.locator(".conversation-title")).to_have_text(question)
        clipped = listed.first.locator(".conversation-title").evaluate(
            "e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1"
        )
        assert not clipped
        # The sources panel names the note once: its snippet does not repeat the title.
        source = page.locator("#sources-list > li").first
        expect(source.locator("button.link")).to_have_text(title)
        expect(source.locator("blockquote")).not_to_contain_text(title)
        shoot(page, width, "ask")

        # Reopened, the answer keeps its confidence and strategy line.
        page.get_by_role("button", name="New", exact=True).click()
        expect(page.locator("#thread > li")).to_have_count(0)
        if width == "phone":
            toggle.click()
        listed.first.click()
        expect(page.locator("#thread > li")).to_have_count(2)
        expect(page.locator("#thread .turn.assistant .turn-meta")).to_contain_text(
            re.compile(r"confidence \d\.\d\d · \w")
        )
        shoot(page, width, "ask-reopened")

        page.evaluate("window.scrollTo(0, 0)")
        tab(page, "Search")
        shows_only(page, "search")
        # Tapping Search stays at the top of the page (it jumped ~1,500 px down at 375 px).
        assert page.evaluate("window.scrollY") < 50
        expect(page.get_by_label("Search your notes")).to_be_in_viewport()
        page.get_by_label("Search your notes").fill("Firestore mobile sync")
        page.get_by_label("Search your notes").press("Enter")
        hit = page.locator(f'#search-results > li[data-note-id="{note}"]').first
        expect(hit).to_be_visible(timeout=ANSWER_TIMEOUT)
        expect(hit.locator(".result-title")).to_have_text(title)
        expect(hit.locator(".result-text")).not_to_contain_text(title)
        expect(hit.locator(".type")).to_be_visible()
        # A match people can read: every query word is in the note, so a full match,
        # never a fused rank score that reads 0 for the only passage.
        expect(hit.locator(".result-head strong")).to_have_text("100% match")
        # Words a person reads, never a raw fused score ("recency −0.1058").
        for row in page.locator("#search-results > li").all():
            assert not re.search(r"\d\.\d{3}|recency", row.inner_text()), row.inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= WIDTHS[width]["width"]
        shoot(page, width, "search")

        # Sign out: only sign-in shows, and nothing of the previous user is left.
        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_role("button", name="Sign in")).to_be_visible()
        shows_only(page, "signed-out")
        shoot(page, width, "signed-out-after")
        for trace in (email, title, question, "Postgres", "syncs in real time"):
            expect(page.get_by_text(trace)).to_have_count(0)
        dom = page.evaluate("document.documentElement.textContent")
        leaks = [t for t in (email, title, question, "Postgres", "Firestore") if t in dom]
        assert not leaks, leaks
        typed = page.evaluate(
            "[...document.querySelectorAll('input:not([type=checkbox]), textarea')]"
            ".filter(e => e.value).map(e => e.id)"
        )
        assert typed == [], typed
        assert email not in page.evaluate("JSON.stringify({...localStorage, ...sessionStorage})")
        expect(page.locator("#toast")).to_be_hidden()
        expect(page.get_by_role("dialog")).to_have_count(0)
    finally:
        context.close()


# Recorded from before the client runs: every status a note of the list ever showed.
RECORD_STATUSES = """
window.__shown = [];
new MutationObserver(() => {
  for (const li of document.querySelectorAll('#notes-list > li')) {
    const badge = li.querySelector('.status');
    window.__shown.push([li.dataset.noteId, badge ? badge.textContent : null]);
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def test_a_listed_indexed_note_never_shows_indexing(page: Page, web_url: str, email: str) -> None:
    page.goto(web_url)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.locator("#who")).to_have_text(email)
    notes = [
        save_note(page, "Signups reached 1,240 in the first week of the beta."),
        save_note(page, "We decided to ship the relaunch checklist on Friday."),
    ]
    for note in notes:
        expect(page.locator(f'#notes-list > li[data-note-id="{note}"]')).to_have_attribute(
            "data-status", "indexed", timeout=INDEX_TIMEOUT
        )
    # "It becomes searchable once indexed" (said of the last note saved) ends with its
    # Indexed badge: it outlived it, covering the first card, until its timer ran out.
    expect(page.locator("#toast")).to_be_hidden(timeout=500)

    # Loaded again from GET /notes (as on every sign-in): Indexed from the first paint.
    page.add_init_script(RECORD_STATUSES)
    page.reload()
    items = page.locator("#notes-list > li")
    expect(items).to_have_count(2)
    for note in notes:
        item = page.locator(f'#notes-list > li[data-note-id="{note}"]')
        expect(item.get_by_role("status")).to_have_text("Indexed")
        expect(item.locator(".type")).not_to_be_empty()
    page.wait_for_timeout(3000)  # a few poll rounds: it stays Indexed
    for note in notes:
        expect(page.locator(f'#notes-list > li[data-note-id="{note}"] .status')).to_have_text(
            "Indexed"
        )
    shown = page.evaluate("window.__shown")
    stale = [s for s in shown if s[1] not in ("Indexed", None, "")]
    assert not stale, stale
    assert shown, "the recorder saw no list"
