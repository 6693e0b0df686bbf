"""Tags in the web client, against the real local stack: written in the new-note form,
shown as chips in the notes list and the note dialog at desktop width and at 375 px
(a long one cut, never widening the page), edited in the dialog and still there after
a reload; a note tagged on another device (the API) shows its tags, and an edit made
there meanwhile is not overwritten unseen (If-Match).

Screenshots of the list and the dialog go to build/screenshots, to be looked at."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Locator, Page, ViewportSize, expect

from footnote.dev.demo import DEMO_PASSWORD
from tests.browser.conftest import SHOTS
from tests.browser.test_web_client import save_note, sign_up

pytestmark = [pytest.mark.emulator, pytest.mark.browser]

WIDTHS: dict[str, ViewportSize] = {
    "desktop": {"width": 1280, "height": 800},
    "phone": {"width": 375, "height": 812},
}
# As long as a tag may be (50 characters): wider than a row at 375 px.
LONG = "kitchen-renovation-quotes-from-three-contractors-x"
FOCUS = "window.dispatchEvent(new Event('focus'))"


def chips(scope: Locator) -> Locator:
    return scope.locator("ul.tags > li.tag")


# What sticks out past the screen's right edge, named by tag and class.
STICKING_OUT = """width => [...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > width)
  .map(e => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}px`)"""


def fits(page: Page, width: int) -> None:
    """Nothing is wider than the screen: no sideways scrolling."""
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, page.evaluate(STICKING_OUT, width)


def shoot(page: Page, name: str) -> None:
    """The screen as a person sees it (the viewport, not the whole page)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def all_visible(found: Locator, texts: list[str]) -> None:
    expect(found).to_have_text(texts)
    for i in range(len(texts)):
        expect(found.nth(i)).to_be_visible()


@pytest.mark.parametrize("width", list(WIDTHS))
def test_tags_are_written_shown_as_chips_and_edited(
    browser: Browser, web_url: str, email: str, width: str
) -> None:
    size = WIDTHS[width]
    context = browser.new_context(viewport=size, has_touch=width == "phone")
    page = context.new_page()
    try:
        sign_up(page, web_url, email)
        tags = page.get_by_label("Tags (optional)")

        # Past the API's limit: its own words, and what was typed stays to be fixed.
        tags.fill(", ".join(f"t{i}" for i in range(21)))
        page.locator("#note-text").fill("Too many tags.")
        page.get_by_role("button", name="Save note").click()
        expect(page.locator("#note-error")).to_have_text("The note was not saved. At most 20 tags.")
        expect(page.locator("#note-error")).to_be_visible()
        expect(page.locator("#notes-list > li")).to_have_count(0)

        tags.fill("")
        save_note(page, "Ask about the boiler service in October.", title="Landlord")
        tags.fill("home, todo, Home, , " + LONG)
        note = save_note(
            page, "Buy oat milk, descaler and filters for the coffee machine.", title="Groceries"
        )
        expect(tags).to_have_value("")  # ready for the next note
        item = page.locator(f'#notes-list > li[data-note-id="{note}"]')
        all_visible(chips(item), ["home", "todo", LONG])
        # The long tag is cut inside its row, not wider than it.
        long = chips(item).nth(2)
        assert long.evaluate("e => e.scrollWidth > e.clientWidth")
        assert long.evaluate(
            "e => e.getBoundingClientRect().right <= e.closest('li.note').getBoundingClientRect().right"
        )
        expect(long).to_have_attribute("title", LONG)
        fits(page, size["width"])
        expect(page.locator("#toast")).to_be_hidden(timeout=10_000)
        item.evaluate("e => e.scrollIntoView({block: 'center'})")  # not under the sticky bar
        shoot(page, f"{width}-tags-list")

        # The dialog shows them too, and edits them.
        item.get_by_role("button", name="Groceries", exact=True).click()
        dialog = page.get_by_role("dialog", name="Groceries")
        expect(dialog).to_be_visible()
        all_visible(chips(dialog), ["home", "todo", LONG])
        fits(page, size["width"])
        shoot(page, f"{width}-tags-dialog")

        dialog.get_by_role("button", name="Edit").click()
        edit = page.locator("#edit-tags")
        expect(edit).to_have_value(f"home, todo, {LONG}")
        edit.fill("home, errands ,  weekly shop")
        shoot(page, f"{width}-tags-dialog-edit")
        dialog.get_by_role("button", name="Save changes").click()
        all_visible(chips(dialog), ["home", "errands", "weekly shop"])
        expect(page.locator("#note-dialog-error")).to_be_empty()
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        all_visible(chips(item), ["home", "errands", "weekly shop"])

        # Kept by the API: a reload (GET /notes, GET /notes/{id}) shows them.
        page.reload()
        all_visible(chips(item), ["home", "errands", "weekly shop"])
        item.get_by_role("button", name="Groceries", exact=True).click()
        all_visible(chips(dialog), ["home", "errands", "weekly shop"])
        page.keyboard.press("Escape")

        # Signed out, no tag is left on the page.
        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_role("button", name="Sign in")).to_be_visible()
        expect(page.locator(".tag")).to_have_count(0)
        dom = page.evaluate("document.documentElement.textContent")
        assert "errands" not in dom and "weekly shop" not in dom
        assert page.locator("#note-tags").input_value() == ""
        assert page.locator("#edit-tags").input_value() == ""
    finally:
        context.close()


def test_a_note_tagged_on_another_device_shows_its_tags_and_is_not_overwritten_unseen(
    page: Page, web_url: str, new_user
) -> None:
    phone = new_user()  # the same account, writing through the API as the phone app does
    note = phone.add_note("Passport renewal: book the photo booth first.", tags=["travel", "admin"])

    page.goto(web_url)
    page.get_by_label("Email").fill(phone.email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    item = page.locator(f'#notes-list > li[data-note-id="{note}"]')
    all_visible(chips(item), ["travel", "admin"])

    # Retagged on the phone: the open list follows (the change feed).
    retagged = phone.call("PATCH", f"/notes/{note}", json={"tags": ["travel", "urgent"]})
    assert retagged.status_code == 200, retagged.text
    page.evaluate(FOCUS)
    all_visible(chips(item), ["travel", "urgent"])

    # Being edited here while the phone edits it again: nothing is overwritten unseen.
    item.get_by_role("button", name="Edit").click()
    dialog = page.get_by_role("dialog")
    edit = page.locator("#edit-tags")
    expect(edit).to_have_value("travel, urgent")
    again = phone.call("PATCH", f"/notes/{note}", json={"tags": ["travel", "done"]})
    assert again.status_code == 200, again.text
    edit.fill("travel, laptop")
    dialog.get_by_role("button", name="Save changes").click()
    error = page.locator("#note-dialog-error")
    expect(error).to_contain_text("changed elsewhere")
    expect(error).to_be_visible()
    expect(edit).to_have_value("travel, laptop")  # what was typed is kept
    all_visible(chips(item), ["travel", "done"])  # the list shows the phone's version

    # Saving again, knowingly, replaces it.
    dialog.get_by_role("button", name="Save changes").click()
    all_visible(chips(dialog), ["travel", "laptop"])
    expect(error).to_be_empty()
    current = phone.call("GET", f"/notes/{note}")
    assert current.json()["tags"] == ["travel", "laptop"], current.text
