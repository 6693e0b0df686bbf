import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Api } from "../src/api/client";
import PAGE from "../index.html?raw";
import spec from "../src/api/openapi.json";
import type { ChangePage, Note, NotePage, SearchHit } from "../src/api/types";
import { MEMORY_TYPES } from "../src/api/types";
import { memoryTypeChoices, noteSettled, toast } from "../src/dom";
import { Store } from "../src/store";
import { answerLine } from "../src/views/ask";
import { importLine } from "../src/views/data";
import { notesView } from "../src/views/notes";
import { contributions, foundBy, resultItem, searchSummary } from "../src/views/search";


beforeEach(() => {
  document.body.innerHTML = new DOMParser().parseFromString(PAGE, "text/html").body.innerHTML;
});

const note = (id: string, createdAt: string, indexStatus: Note["indexStatus"], version = 1): Note => ({
  id, text: `text of ${id}`, title: "", tags: [], type: null, createdAt, updatedAt: createdAt,
  etag: `"${version}"`, indexStatus, memoryType: indexStatus === "indexed" ? "decision" : null,
});

describe("memory types", () => {
  it("come from the API's schema, not a copy in the page", () => {
    expect(MEMORY_TYPES).toEqual(spec.components.schemas.MemoryType.enum);
    const select = document.getElementById("note-type") as HTMLSelectElement;
    const filter = document.getElementById("type-filter") as HTMLFieldSetElement;
    expect([...select.options].map((o) => o.value)).toEqual([""]);
    expect(filter.querySelectorAll("input")).toHaveLength(0);
    memoryTypeChoices(select, filter, MEMORY_TYPES);
    expect([...select.options].map((o) => o.value)).toEqual(["", ...MEMORY_TYPES]);
    expect([...filter.querySelectorAll<HTMLInputElement>("input[name=types]")].map((i) => i.value)).toEqual([...MEMORY_TYPES]);
    expect(filter.querySelector("label")?.textContent).toBe(` ${MEMORY_TYPES[0]}`);
  });
});

describe("search results", () => {
  const hit: SearchHit = {
    chunkId: "c1", noteId: "n1", title: "Storage choice", text: "Storage choice\nWe chose Firestore.",
    createdAt: "2026-11-24T07:51:00Z", memoryType: "decision", score: 0, similarity: 0.834,
    sources: ["dense", "keyword"], breakdown: { dense: 0.5, keyword: 0 },
  };

  it("names only the signals that scored", () => {
    expect(contributions(hit)).toEqual({ scored: [["dense", 0.5]], via: ["dense"] });
  });

  it("shows the match, the type and the text without its title, and opens the note on the passage", () => {
    const open = vi.fn();
    const li = resultItem(hit, open);
    expect(li.querySelector(".result-title")?.textContent).toBe("Storage choice");
    expect(li.querySelector("strong")?.textContent).toBe("83% match");
    expect(li.querySelector(".type")?.textContent).toBe("decision");
    expect(li.querySelector(".result-text")?.textContent).toBe("We chose Firestore.");
    expect(li.querySelector(".result-head .hint")?.textContent).toMatch(/ · found by its meaning$/);
    expect(li.querySelector("strong")?.getAttribute("title")).toBe("rank score 0.0000\ndense 0.5000");
    li.querySelector<HTMLButtonElement>("button")!.click();
    expect(open).toHaveBeenCalledWith("n1", { passage: hit.text });
  });

  it("shows no raw fused score, only words a person reads", () => {
    const scored = { ...hit, breakdown: { dense: 0.31, keyword: 0.2, recency: -0.1058 }, sources: ["dense", "keyword"] };
    const li = resultItem(scored, vi.fn());
    expect(li.textContent).not.toMatch(/\d\.\d{3}|recency/);  // "recency −0.1058" meant nothing
    expect(li.querySelector(".result-head .hint")?.textContent).toMatch(/found by its meaning and your words$/);
    expect(foundBy({ scored: [["recency", -0.1]], via: ["recency"] })).toBe("");
    expect(foundBy({ scored: [], via: ["keyword", "recency", "vector"] })).toBe("found by your words and its meaning");
  });

  it("says when nothing matches", () => {
    expect(searchSummary({ results: [], meta: {} as never })).toBe("Nothing in your notes matches that.");
    expect(searchSummary({ results: [hit], meta: { strategy: "keyword_recency" } as never })).toBe("1 passage · keyword recency");
  });
});

describe("lines under answers and imports", () => {
  it("says how an answer was found", () => {
    const citation = { cid: "N1", noteId: "n1", chunkId: "c1", createdAt: "2026-01-01T00:00:00Z", snippet: "s", score: 1, support: 1 };
    expect(answerLine({ answer: "a", messageId: "m", citations: [citation, { ...citation, cid: "N2" }],
      meta: { confidence: 0.8, retrieval: { strategy: "hybrid_reranked" }, fallbacks: ["reranker_skipped"] } }))
      .toBe("2 sources · confidence 0.80 · hybrid reranked · fallback: reranker_skipped");
    expect(answerLine({ answer: "a", messageId: "m", citations: [], meta: { confidence: null, retrieval: { strategy: null } } })).toBe("");
  });

  it("reports an import's counts once it has found files", () => {
    const job = { id: "i", status: "done", found: 3, imported: 2, duplicates: 0, failed: 1, problems: [],
      reason: null, createdAt: "", startedAt: null, finishedAt: null };
    expect(importLine(job)).toBe("Import finished: 2 notes imported, 1 file not imported.");
    expect(importLine({ ...job, status: "running", found: 0 })).toBe("Importing…");
  });
});

describe("the notes list", () => {
  function fakeApi(page: NotePage, feed: ChangePage): Api {
    return {
      listNotes: vi.fn(async () => page),
      noteChanges: vi.fn(async () => feed),
      getNote: vi.fn(async (id: string) => page.notes.find((n) => n.id === id) ?? feed.changes[0]!.note!),
    } as unknown as Api;
  }
  const settle = async (): Promise<void> => { for (let i = 0; i < 10; i += 1) await Promise.resolve(); };
  const badges = (): [string | undefined, string | null | undefined][] =>
    [...document.querySelectorAll<HTMLElement>("#notes-list > li")].map((li) => [li.dataset.noteId, li.querySelector(".status")?.textContent]);

  it("shows a note that arrives by the change feed with its index state, in its place", async () => {
    const listed = note("a", "2026-01-01T00:00:00Z", "indexed");
    const imported = note("b", "2025-06-01T00:00:00Z", "pending");
    const fresh = note("c", "2026-02-01T00:00:00Z", "indexed");
    const api = fakeApi({ notes: [listed], cursor: null, hasMore: false },
      { changes: [fresh, imported].map((n) => ({ id: n.id, changedAt: n.createdAt, deleted: false, note: n })), token: "t", hasMore: false });
    const store = new Store();
    const view = notesView(store, api, vi.fn());
    store.switchUser({ uid: "alice", email: "alice@example.com" });
    view.start();
    await settle();
    expect(badges()).toEqual([["c", "Indexed"], ["a", "Indexed"], ["b", "Indexing…"]]);
    expect(document.getElementById("notes-more")?.textContent).toBe("That's all your notes.");

    store.switchUser(null); // signed out: nothing of alice's is left
    expect(badges()).toEqual([]);
    expect(store.notes.size).toBe(0);
  });

  it("ends the toast about a saved note once its badge says Indexed", async () => {
    const saved = note("c", "2026-02-01T00:00:00Z", "indexed");
    const api = fakeApi({ notes: [], cursor: null, hasMore: false },
      { changes: [{ id: "c", changedAt: saved.createdAt, deleted: false, note: saved }], token: "t", hasMore: false });
    const store = new Store();
    const view = notesView(store, api, vi.fn());
    store.switchUser({ uid: "alice", email: "alice@example.com" });
    toast("Note saved. It becomes searchable once indexed.", "c");
    view.start();
    await settle();
    expect(badges()).toEqual([["c", "Indexed"]]);
    expect(document.getElementById("toast")?.textContent).toBe("");
  });
});

describe("the toast", () => {
  it("ends when the note it speaks of is indexed, not after it", () => {
    toast("Note saved. It becomes searchable once indexed.", "n1");
    noteSettled("n2");
    expect(document.getElementById("toast")?.textContent).toMatch(/once indexed/);
    noteSettled("n1");
    expect(document.getElementById("toast")?.textContent).toBe("");
  });
});
