"""The open web client follows the change feed: notes created, edited and deleted on
another device (the API called directly) appear, change and leave the list on a
refresh trigger (window focus), without reloading the page or re-paging GET /notes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Request, expect

from footnote.dev.demo import DEMO_PASSWORD
from tests.browser.test_web_client import INDEX_TIMEOUT
from tests.browser.test_what_is_shown import RECORD_STATUSES

pytestmark = [pytest.mark.emulator, pytest.mark.browser]

FOCUS = "window.dispatchEvent(new Event('focus'))"


def test_notes_written_on_another_device_reach_the_open_list(
    page: Page, web_url: str, new_user
) -> None:
    phone = new_user()  # the same account, writing through the API
    first = phone.add_note("Kickoff moved to the second week of March.")

    page.add_init_script(RECORD_STATUSES)
    page.goto(web_url)
    page.get_by_label("Email").fill(phone.email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    items = page.locator("#notes-list > li")
    expect(items.locator(".note-text", has_text="Kickoff moved")).to_be_visible()
    page.evaluate("window.__notReloaded = true")
    listed: list[str] = []

    def on_request(request: Request) -> None:
        if re.search(r"/api/notes\?", request.url):
            listed.append(request.url)

    page.on("request", on_request)

    # Created elsewhere: listed first (newest), after focus.
    second = phone.add_note("The beta waitlist passed 3,000 people on Tuesday.")
    page.evaluate(FOCUS)
    created = page.locator(f'#notes-list > li[data-note-id="{second}"]')
    expect(created).to_be_visible()
    expect(items.first).to_have_attribute("data-note-id", second)
    # The feed carries its index state: a badge from the first paint, never an empty
    # one, and live until it is indexed.
    expect(created).to_have_attribute("data-status", "indexed", timeout=INDEX_TIMEOUT)
    expect(created.get_by_role("status")).to_have_text("Indexed")
    badges = [b for i, b in page.evaluate("window.__shown") if i == second]
    assert badges and all(b in ("Indexing…", "Indexed") for b in badges), badges

    # Edited elsewhere: changed in place.
    edited = phone.call("PATCH", f"/notes/{first}", json={"text": "Kickoff is in April now."})
    assert edited.status_code == 200, edited.text
    page.evaluate(FOCUS)
    item = page.locator(f'#notes-list > li[data-note-id="{first}"]')
    expect(item.locator(".note-text", has_text="Kickoff is in April now.")).to_be_visible()
    expect(page.get_by_text("Kickoff moved to the second week of March.")).to_be_hidden()
    expect(items).to_have_count(2)
    expect(items.nth(1)).to_have_attribute("data-note-id", first)

    # Deleted elsewhere: gone.
    gone = phone.call("DELETE", f"/notes/{second}")
    assert gone.status_code == 204, gone.text
    page.evaluate(FOCUS)
    expect(created).to_be_hidden()
    expect(items).to_have_count(1)

    assert page.evaluate("window.__notReloaded") is True  # the page was never reloaded
    assert listed == [], listed  # and the list was never paged again
