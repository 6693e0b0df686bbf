"""Bringing notes in and taking them out, in Chromium against the local stack: an
Obsidian vault picked in the Import form is uploaded straight to the stack's Cloud
Storage server (through the upload URL the API hands out, never in an API request's
body), lands in the list with its own dates and a report of what was not imported;
"Download my data" saves a zip that holds them; signing out leaves no trace of either."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from footnote.dev.stack import Stack
from tests.browser.conftest import SHOTS
from tests.browser.test_web_client import ANSWER_TIMEOUT, INDEX_TIMEOUT, sign_up

pytestmark = [pytest.mark.emulator, pytest.mark.browser]


def _vault(folder: Path) -> Path:
    path = folder / "My vault.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        # As a zipped vault has them: each file's date is when it was last edited.
        z.writestr(
            zipfile.ZipInfo("My vault/Pricing.md", date_time=(2023, 3, 9, 10, 0, 0)),
            "---\ntitle: Pricing call\ncreated: 2023-03-09T10:00:00Z\n---\n"
            "We decided to charge 8 euros a month.\n",
        )
        z.writestr(
            zipfile.ZipInfo("My vault/Garden.md", date_time=(2023, 6, 2, 8, 0, 0)),
            "# Garden\nPlanted the tomatoes by the fence.\n",
        )
        z.writestr("My vault/Empty.md", "")
    path.write_bytes(buffer.getvalue())
    return path


def test_import_a_vault_then_download_everything(
    page: Page, web_url: str, email: str, tmp_path: Path, stack: Stack
) -> None:
    sign_up(page, web_url, email)
    card = page.locator("#data-card")
    expect(card).to_be_visible()
    sent: list[tuple[str, str]] = []
    page.on("request", lambda r: sent.append((r.method, r.url)))
    vault = _vault(tmp_path)
    page.get_by_label("Import from another app").set_input_files(str(vault))
    page.get_by_role("button", name="Import", exact=True).click()
    status = page.locator("#import-status")
    expect(status).to_contain_text("Import finished", timeout=ANSWER_TIMEOUT)
    # The file went to Cloud Storage in one PUT to the upload session, same-origin
    # through the local web origin; no API request carried it.
    puts = [url.split("?")[0] for method, url in sent if method == "PUT"]
    assert puts == [f"{web_url}/upload/storage/v1/b/{stack.bucket}/o"], sent
    assert not [url for method, url in sent if method == "POST" and "/api/imports?" in url]
    from google.cloud import storage  # type: ignore[attr-defined]

    stored = [
        blob.download_as_bytes()
        for blob in storage.Client(project=stack.project).list_blobs(stack.bucket, prefix="users/")
        if "/uploads/" in blob.name and blob.name.endswith("/My vault.zip")
    ]
    assert stored == [vault.read_bytes()]  # the object the import read, byte for byte
    expect(status).to_contain_text("2 notes imported, 1 file not imported")
    expect(page.locator("#import-problems li")).to_have_text(
        ["My vault/Empty.md: empty note: nothing to import"]
    )
    expect(page.locator("#import-progress")).to_be_hidden()
    # The imported notes join the list at their own dates: March 2023 is the oldest.
    pricing = page.locator("#notes-list > li", has_text="8 euros a month")
    expect(pricing).to_be_visible(timeout=ANSWER_TIMEOUT)
    expect(pricing).to_contain_text("2023")
    expect(page.locator("#notes-list > li").last).to_contain_text("8 euros a month")
    # Reached the list through the change feed, each shows its index state, live.
    expect(pricing.locator(".status")).to_have_text(
        re.compile(r"^(Indexing…|Indexed)$"), timeout=ANSWER_TIMEOUT
    )
    expect(pricing).to_have_attribute("data-status", "indexed", timeout=INDEX_TIMEOUT)
    expect(pricing.locator(".status")).to_have_text("Indexed")
    card.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "desktop-import.png"), full_page=True)

    page.get_by_role("button", name="Download my data").click()
    link = page.get_by_role("link", name="Save the archive")
    expect(link).to_be_visible(timeout=ANSWER_TIMEOUT)
    expect(page.locator("#export-status")).to_contain_text("2 notes")
    with page.expect_download() as download:
        link.click()
    saved = tmp_path / "export.zip"
    download.value.save_as(saved)
    with zipfile.ZipFile(saved) as z:
        notes = json.loads(z.read("notes.json"))
    assert sorted(n["title"] for n in notes) == ["Garden", "Pricing call"]
    assert {n["title"]: n["created"][:10] for n in notes}["Pricing call"] == "2023-03-09"

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    for trace in ("Import finished", "Empty.md", "Your archive is ready"):
        expect(page.get_by_text(trace)).to_have_count(0)
    expect(card).to_be_hidden()


def test_delete_my_account_signs_out_and_the_account_cannot_sign_in_again(
    page: Page, web_url: str, email: str, stack: Stack
) -> None:
    from tests.browser.conftest import PASSWORD
    from tests.browser.test_web_client import save_note

    sign_up(page, web_url, email)
    save_note(page, "A note that goes with the account.")
    form = page.locator("#delete-account-form")
    form.scroll_into_view_if_needed()
    expect(form).to_be_visible()
    confirm = page.get_by_label("To confirm, type the address you sign in with")
    button = page.get_by_role("button", name="Delete my account")
    # Another address deletes nothing: the account stays signed in, and says why.
    confirm.fill("someone.else@footnote.test")
    button.click()
    expect(page.locator("#delete-account-error")).to_contain_text(
        f"type the address you sign in with ({email})"
    )
    expect(page.locator("#notes-view")).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "desktop-delete-account.png"), full_page=True)
    # Its own address, in any case, deletes it: signed out at once, and told so.
    confirm.fill(email.upper())
    button.click()
    expect(page.locator("#auth-notice")).to_contain_text("being deleted", timeout=ANSWER_TIMEOUT)
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    for hidden in ("#tabs", "#account", "#notes-view", "#ask-view", "#search-view"):
        expect(page.locator(hidden)).to_be_hidden()
    expect(page.get_by_text("A note that goes with the account.")).to_have_count(0)
    expect(page.get_by_label("Email")).to_have_value("")
    page.screenshot(path=str(SHOTS / "desktop-account-deleted.png"), full_page=True)
    # The password no longer signs in.
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#auth-error")).to_contain_text("Sign in failed")
    expect(page.locator("#notes-view")).to_be_hidden()
    # One message at a time: the refusal replaces the deletion's notice, not stacked under it.
    expect(page.locator("#auth-notice")).to_be_hidden()
    page.screenshot(path=str(SHOTS / "desktop-account-deleted-sign-in.png"), full_page=True)
