import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Api } from "../src/api/client";
import type { Citation, Note } from "../src/api/types";
import PAGE from "../index.html?raw";
import { Store } from "../src/store";
import { citations } from "../src/views/citations";
import { noteDialog } from "../src/views/note-dialog";
import type { NotesView } from "../src/views/notes";

beforeEach(() => {
  document.body.innerHTML = new DOMParser().parseFromString(PAGE, "text/html").body.innerHTML;
});

const $ = (id: string): HTMLElement => document.getElementById(id)!;
const settle = async (): Promise<void> => { for (let i = 0; i < 20; i += 1) await Promise.resolve(); };

const dinner: Note = {
  id: "n1", title: "Team dinner", tags: [], type: null, etag: '"1"', indexStatus: "indexed", memoryType: "note",
  createdAt: "2026-03-14T21:00:00Z", updatedAt: "2026-03-14T21:00:00Z",
  text: "Attendees: Priya, Tom, Lena and me.\nPriya booked the table at Osteria Nonna.\nTom brought two bottles of wine.\nLena: The set menu cost 85 euros for the four of us.",
};
const citation: Citation = {
  cid: "N1", noteId: "n1", chunkId: "n1_000", createdAt: dinner.createdAt, score: 1, support: 1,
  snippet: `Team dinner ${dinner.text.replace(/\s+/g, " ")}`,
};
const answer = "Tom brought two bottles of wine [N1]. Lena: The set menu cost 85 euros for the four of us [N1].";
const api = { getNote: vi.fn(async () => dinner) } as unknown as Api;

describe("a citation opens its note on the sentence it cites", () => {
  it("gives each chip its own sentence, and a source the first one", () => {
    const open = vi.fn();
    const cites = citations(new Store(), api, open);
    cites.renderAnswer($("thread"), answer, [citation]);
    const chips = [...document.querySelectorAll<HTMLButtonElement>("#thread button.chip")];
    chips[1]!.click();
    expect(open).toHaveBeenLastCalledWith("n1", { passage: citation.snippet, claim: "Lena: The set menu cost 85 euros for the four of us." });
    cites.renderSources([citation], answer);
    document.querySelector<HTMLButtonElement>("#sources-list button.link")!.click();
    expect(open).toHaveBeenLastCalledWith("n1", { passage: citation.snippet, claim: "Tom brought two bottles of wine." });
  });

  it("marks a weakly supported citation, on its chip and under Sources", () => {
    const cites = citations(new Store(), api, vi.fn());
    const weak = { ...citation, support: 0.62 };
    cites.renderAnswer($("thread"), answer, [weak]);
    const chips = [...document.querySelectorAll<HTMLButtonElement>("#thread button.chip")];
    expect(chips.every((c) => c.classList.contains("weak"))).toBe(true);
    expect(chips[0]!.getAttribute("aria-label")).toContain("weakly supported");
    cites.renderSources([weak], answer);
    expect($("sources-list").textContent).toContain("weakly supported");
    expect(document.querySelectorAll("#sources-list .chip.static.weak")).toHaveLength(1);
    cites.renderAnswer($("thread"), answer, [citation]);
    expect(document.querySelectorAll("#thread button.chip.weak")).toHaveLength(0);
  });

  it("marks that sentence in the dialog, focused; a paraphrase marks the passage", async () => {
    const store = new Store();
    store.switchUser({ uid: "alice", email: "alice@example.com" });
    const notes = { putNote: vi.fn() } as unknown as NotesView;
    const dialog = noteDialog(store, api, notes, vi.fn());
    await dialog.open("n1", { passage: citation.snippet, claim: "Tom brought two bottles of wine." });
    await settle();
    const mark = document.querySelector<HTMLElement>("#note-body mark#cited-passage")!;
    expect([mark.textContent, mark.dataset.cited]).toEqual(["Tom brought two bottles of wine.", "sentence"]);
    expect(document.activeElement).toBe(mark);
    expect($("note-body").textContent).toBe(dinner.text);

    await dialog.open("n1", { passage: citation.snippet, claim: "Four of us had dinner for 85 euros." });
    await settle();
    const passage = document.querySelector<HTMLElement>("#note-body mark#cited-passage")!;
    expect([passage.textContent, passage.dataset.cited]).toEqual([dinner.text, "passage"]);
    expect($("note-dialog-error").textContent).toBe("");
  });
});
