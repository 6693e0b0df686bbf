import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Api } from "../src/api/client";
import { ApiError } from "../src/api/errors";
import PAGE from "../index.html?raw";
import type { Note, NoteCreate, NotePatch } from "../src/api/types";
import { Store } from "../src/store";
import { parseTags, tagList, tagsText } from "../src/tags";
import { noteDialog } from "../src/views/note-dialog";
import { notesView } from "../src/views/notes";

beforeEach(() => {
  document.body.innerHTML = new DOMParser().parseFromString(PAGE, "text/html").body.innerHTML;
});

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const settle = async (): Promise<void> => { for (let i = 0; i < 20; i += 1) await Promise.resolve(); };
const chips = (root: ParentNode): string[] => [...root.querySelectorAll(".tag")].map((t) => t.textContent || "");

const note = (fields: Partial<Note> = {}): Note => ({
  id: "n1", text: "Buy oat milk and descaler.", title: "Groceries", tags: ["home", "todo"], type: null,
  createdAt: "2026-03-01T09:00:00Z", updatedAt: "2026-03-01T09:00:00Z", etag: '"3"', indexStatus: "indexed",
  memoryType: "task", ...fields,
});

describe("parseTags", () => {
  it("splits on commas, trims, and drops the empty ones", () => {
    expect(parseTags("home, todo")).toEqual(["home", "todo"]);
    expect(parseTags("  home ,todo,, ,")).toEqual(["home", "todo"]);
    expect(parseTags("")).toEqual([]);
    expect(parseTags(" , ,")).toEqual([]);
  });

  it("keeps a tag of several words, its spaces made single", () => {
    expect(parseTags("road  trip,\tsummer 2026 ")).toEqual(["road trip", "summer 2026"]);
  });

  it("keeps a repeat once in any case, as first written", () => {
    expect(parseTags("Home, todo, home, TODO, Todo")).toEqual(["Home", "todo"]);
    expect(parseTags("Straße, STRASSE")).toEqual(["Straße", "STRASSE"]); // only case, not spelling
  });

  it("reads back what the edit field shows", () => {
    const tags = ["home", "road trip", "Q3"];
    expect(tagsText(tags)).toBe("home, road trip, Q3");
    expect(parseTags(tagsText(tags))).toEqual(tags);
    expect(tagsText(null)).toBe("");
  });
});

describe("tag chips", () => {
  it("are a list named Tags, one chip per tag, the whole tag in its tooltip", () => {
    const long = "a-very-long-tag-that-a-phone-wrote-".padEnd(50, "x");
    const list = tagList(["home", long])!;
    expect(list.tagName).toBe("UL");
    expect(list.getAttribute("aria-label")).toBe("Tags");
    expect(chips(list)).toEqual(["home", long]);
    expect(list.querySelectorAll("li.tag")[1]?.getAttribute("title")).toBe(long);
  });

  it("are nothing for a note without tags", () => {
    expect(tagList([])).toBeNull();
    expect(tagList(undefined)).toBeNull();
  });

  it("show a tag as text, never as HTML", () => {
    const list = tagList(['<img src=x onerror="window.__xss=1">'])!;
    expect(list.querySelector("img")).toBeNull();
    expect(chips(list)).toEqual(['<img src=x onerror="window.__xss=1">']);
  });
});

/** The notes list and the dialog over an API that remembers what it was sent. */
function notesPage(notes: Note[]) {
  const created: NoteCreate[] = [];
  const patched: [string, NotePatch, string | null | undefined][] = [];
  const api = {
    listNotes: vi.fn(async () => ({ notes, cursor: null, hasMore: false })),
    noteChanges: vi.fn(async () => ({ changes: [], token: "t", hasMore: false })),
    getNote: vi.fn(async (id: string) => notes.find((n) => n.id === id)!),
    createNote: vi.fn(async (fields: NoteCreate) => {
      created.push(fields);
      return note({ id: "new", text: fields.text, title: fields.title || "", tags: fields.tags || [], indexStatus: "pending" });
    }),
    updateNote: vi.fn(async (id: string, fields: NotePatch, ifMatch?: string | null) => {
      patched.push([id, fields, ifMatch]);
      return note({ ...fields, id, tags: fields.tags || [], etag: '"4"', indexStatus: "pending" } as Partial<Note>);
    }),
  };
  const store = new Store();
  const view = notesView(store, api as unknown as Api, vi.fn());
  const dialog = noteDialog(store, api as unknown as Api, view, vi.fn());
  store.switchUser({ uid: "alice", email: "alice@example.com" });
  view.start();
  return { api, store, dialog, created, patched };
}

const row = (id: string): HTMLElement => document.querySelector<HTMLElement>(`#notes-list > li[data-note-id="${id}"]`)!;

describe("tags in the notes list", () => {
  it("shows a note's tags as chips in its row, under its text", async () => {
    notesPage([note(), note({ id: "n2", tags: [] })]);
    await settle();
    const tags = row("n1").querySelector("ul.tags")!;
    expect(chips(tags)).toEqual(["home", "todo"]);
    expect(tags.previousElementSibling?.classList.contains("note-text")).toBe(true);
    expect(row("n2").querySelector("ul.tags")).toBeNull(); // no empty list for a note without tags
  });

  it("sends the new note's tags as a list, and none when the field is blank", async () => {
    const { created } = notesPage([]);
    await settle();
    $<HTMLTextAreaElement>("note-text").value = "Call the plumber.";
    $<HTMLInputElement>("note-tags").value = " home, todo ,Home,, ";
    $<HTMLFormElement>("note-form").requestSubmit();
    await settle();
    expect(created[0]).toEqual({ text: "Call the plumber.", tags: ["home", "todo"] });
    expect(chips(row("new"))).toEqual(["home", "todo"]);
    expect($<HTMLInputElement>("note-tags").value).toBe(""); // the form is ready for the next note

    $<HTMLTextAreaElement>("note-text").value = "No tags here.";
    $<HTMLInputElement>("note-tags").value = " , ";
    $<HTMLFormElement>("note-form").requestSubmit();
    await settle();
    expect(created[1]).toEqual({ text: "No tags here." });
  });

  it("shows the API's own words when a limit is passed, and keeps what was typed", async () => {
    const { api } = notesPage([]);
    await settle();
    api.createNote.mockRejectedValueOnce(new ApiError(400, "invalid_argument", "at most 20 tags"));
    const typed = Array.from({ length: 21 }, (_, i) => `t${i}`).join(", ");
    $<HTMLTextAreaElement>("note-text").value = "Too many tags.";
    $<HTMLInputElement>("note-tags").value = typed;
    $<HTMLFormElement>("note-form").requestSubmit();
    await settle();
    expect($("note-error").textContent).toBe("The note was not saved. At most 20 tags.");
    expect($<HTMLInputElement>("note-tags").value).toBe(typed);
  });
});

describe("tags in the note dialog", () => {
  it("shows them as chips, edits them through a comma-separated field, over the version shown", async () => {
    const { dialog, patched } = notesPage([note()]);
    await settle();
    await dialog.open("n1");
    expect(chips($("note-dialog-tags"))).toEqual(["home", "todo"]);

    $("note-edit-button").click();
    expect($<HTMLInputElement>("edit-tags").value).toBe("home, todo");
    expect($("note-dialog-tags").hidden).toBe(true); // the field says them while editing
    $<HTMLInputElement>("edit-tags").value = "home, errands, , HOME";
    $<HTMLFormElement>("note-edit").requestSubmit();
    await settle();
    expect(patched).toEqual([["n1", { text: "Buy oat milk and descaler.", title: "Groceries", tags: ["home", "errands"] }, '"3"']]);
    expect($("note-dialog-tags").hidden).toBe(false);
    expect(chips($("note-dialog-tags"))).toEqual(["home", "errands"]);
    expect(chips(row("n1"))).toEqual(["home", "errands"]);
  });

  it("clears every tag when the field is emptied", async () => {
    const { dialog, patched } = notesPage([note()]);
    await settle();
    await dialog.open("n1", { edit: true });
    $<HTMLInputElement>("edit-tags").value = "  ";
    $<HTMLFormElement>("note-edit").requestSubmit();
    await settle();
    expect(patched[0]?.[1].tags).toEqual([]);
    expect($("note-dialog-tags").children).toHaveLength(0);
    expect(row("n1").querySelector("ul.tags")).toBeNull();
  });

  it("after an edit made elsewhere, saves nothing, keeps what was typed and shows the note as it is now", async () => {
    const { api, dialog } = notesPage([note()]);
    await settle();
    await dialog.open("n1", { edit: true });
    const now = note({ tags: ["phone"], etag: '"5"', text: "Buy oat milk." });
    api.updateNote.mockRejectedValueOnce(new ApiError(412, "precondition_failed", "the note has changed", { current: now }));
    $<HTMLInputElement>("edit-tags").value = "laptop";
    $<HTMLFormElement>("note-edit").requestSubmit();
    await settle();
    expect($("note-dialog-error").textContent).toMatch(/^Not saved: this note was changed elsewhere/);
    expect($("note-edit").hidden).toBe(false);
    expect($<HTMLInputElement>("edit-tags").value).toBe("laptop");
    expect(chips(row("n1"))).toEqual(["phone"]);

    // Saving again applies over the version now shown.
    $<HTMLFormElement>("note-edit").requestSubmit();
    await settle();
    expect(api.updateNote).toHaveBeenLastCalledWith("n1", expect.objectContaining({ tags: ["laptop"] }), '"5"');
    expect($("note-dialog-error").textContent).toBe("");
  });

  it("keeps nothing of a note's tags after sign-out", async () => {
    const { store, dialog } = notesPage([note()]);
    await settle();
    await dialog.open("n1", { edit: true });
    $<HTMLInputElement>("note-tags").value = "draft";
    store.switchUser(null);
    expect($("note-dialog-tags").children).toHaveLength(0);
    expect($<HTMLInputElement>("edit-tags").value).toBe("");
    expect($<HTMLInputElement>("note-tags").value).toBe("");
    expect(document.querySelectorAll(".tag")).toHaveLength(0);
  });
});
