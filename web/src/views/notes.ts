// The Notes view: the list (paged from GET /notes, kept in sync by the change feed),
// each note's live index state, the new-note form, retry and delete.
import type { Api } from "../api/client";
import { describeError } from "../api/errors";
import type { Note, NoteCreate } from "../api/types";
import { $, el, formatDate, noteSettled, toast } from "../dom";
import type { ListedNote, Store } from "../store";
import { isLive, placement, statusOf } from "../sync";
import { parseTags, tagList } from "../tags";
import { noteLabel } from "../text";

const POLL_MS = 1200;
const FEED_MS = 20_000; // while signed in and the page is shown: what changed on other devices
const ALL_SHOWN = (any: boolean): string => (any ? "That's all your notes." : "No notes yet: write your first one above.");

export const STATUS_TEXT: Readonly<Record<string, string>> = { pending: "Indexing…", indexed: "Indexed", failed: "Indexing failed" };
/** The memory type a note was given, or else the one it was indexed as. */
export const typeOf = (note: Note): string => note.type || note.memoryType || "";

/** How a note is opened: on a cited passage (and the answer's sentence quoting it), or to edit. */
export interface NoteOpening { passage?: string | null; claim?: string | null; edit?: boolean }

export interface NoteOpener {
  (id: string, options?: NoteOpening): void;
}

export interface NotesView {
  /** The list of a user who just signed in: first page, first sync, the feed's interval. */
  start(): void;
  putNote(note: ListedNote, options?: { prepend?: boolean }): void;
  deleteNote(id: string): Promise<void>;
  /** Apply what changed since the last sync (GET /notes/changes). */
  refresh(): Promise<void>;
}

interface ListState {
  cursor: string | null;
  hasMore: boolean;
  loading: boolean;
  ticket: number; // a page asked for before the list was reloaded is dropped
  listed: boolean; // the first page has been asked for: the feed may run
  feedToken: string | null; // where the list's last sync ended
  feedBusy: boolean;
  feedAgain: boolean; // asked to refresh while a sync ran: sync once more after it
  feedTimer: number;
  pollTimer: number;
  sentinelVisible: boolean;
}

const fresh = (ticket: number): ListState => ({
  cursor: null, hasMore: true, loading: false, ticket, listed: false, feedToken: null,
  feedBusy: false, feedAgain: false, feedTimer: 0, pollTimer: 0, sentinelVisible: false,
});

export function notesView(store: Store, api: Api, openNote: NoteOpener): NotesView {
  const list = $<HTMLUListElement>("notes-list");
  const more = $("notes-more");
  let s = fresh(0);

  const itemOf = (id: string): HTMLElement | null => list.querySelector(`li[data-note-id="${CSS.escape(id)}"]`);

  function noteItem(note: ListedNote): HTMLLIElement {
    const status = statusOf(note);
    const li = el("li", { class: "note", dataset: { noteId: note.id, status } });
    const title = el("h3", { class: "note-title" }, el("button", {
      type: "button", class: "link", text: noteLabel(note), onclick: () => openNote(note.id),
    }));
    const text = el("p", { class: "note-text", text: note.text });
    const badge = el("span", { class: `status status-${status}`, role: "status", text: STATUS_TEXT[status] || "" });
    const when = note.updatedAt || note.createdAt;
    const meta = el("p", { class: "note-meta" },
      el("time", { datetime: when, text: formatDate(when) }),
      typeOf(note) ? el("span", { class: "type", title: "Memory type", text: typeOf(note) }) : null,
      badge);
    const actions = el("div", { class: "row note-actions" },
      el("button", { type: "button", text: "Edit", "aria-label": `Edit ${noteLabel(note)}`, onclick: () => openNote(note.id, { edit: true }) }),
      el("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete ${noteLabel(note)}`, onclick: () => confirmDelete(note.id, li) }));
    if (status === "failed") {
      actions.prepend(el("button", { type: "button", class: "retry", text: "Retry indexing", onclick: () => void retryIndex(note.id) }));
    }
    const tags = tagList(note.tags); // under the text, where a tag written on another device shows too
    li.append(title, text);
    if (tags) li.append(tags);
    li.append(meta, actions);
    return li;
  }

  function putNote(note: ListedNote, { prepend = false } = {}): void {
    store.notes.set(note.id, note);
    const existing = itemOf(note.id);
    const item = noteItem(note);
    if (existing) existing.replaceWith(item);
    else if (prepend) list.prepend(item);
    else list.append(item);
    shown(note);
  }

  /** A note just put on the page: the poller follows it while it is pending, and once
   * it is not, a toast about its indexing has said its piece. */
  function shown(note: ListedNote): void {
    if (note.indexStatus !== "pending") noteSettled(note.id);
    schedulePoll();
  }

  function dropNote(id: string): void {
    store.notes.delete(id);
    itemOf(id)?.remove();
  }

  async function loadMore(): Promise<void> {
    if (!store.user || s.loading || !s.hasMore) return;
    s.loading = true;
    list.setAttribute("aria-busy", "true");
    more.textContent = "Loading notes…";
    const { epoch } = store;
    const { ticket } = s;
    const current = (): boolean => store.isCurrent(epoch) && ticket === s.ticket;
    try {
      const page = await api.listNotes(s.cursor);
      if (!current()) return;
      for (const note of page.notes) if (!store.notes.has(note.id)) putNote(note);
      s.cursor = page.cursor;
      s.hasMore = page.hasMore;
      more.textContent = s.hasMore ? "" : ALL_SHOWN(store.notes.size > 0);
    } catch (err) {
      if (current()) more.textContent = `Could not load notes. ${describeError(err)}`;
    } finally {
      if (current()) {
        s.loading = false;
        list.removeAttribute("aria-busy");
      }
    }
    // A tall screen may show the sentinel still: keep paging until it is off-screen.
    if (current() && s.hasMore && s.sentinelVisible) await loadMore();
  }

  /** The first page, then the first sync: its token is where later refreshes start. */
  function loadFirstPage(): void {
    const { epoch } = store;
    void loadMore().then(() => {
      if (!store.isCurrent(epoch)) return;
      s.listed = true;
      void refresh();
    });
  }

  function applyChange(change: { id: string; deleted: boolean; note: Note | null }): void {
    if (change.deleted || !change.note) {
      if (store.notes.has(change.id)) dropNote(change.id);
      return;
    }
    const note = change.note;
    const listed = [...list.children].map((li) => (li as HTMLElement).dataset.noteId || "");
    const where = placement(note, listed, store.notes, s.hasMore);
    // The feed carries each note's index state: an edited or new note shows it at once,
    // and the poller follows it while it is pending.
    if (where.kind === "replace") putNote(note);
    else if (where.kind === "before") {
      store.notes.set(note.id, note);
      itemOf(where.id)?.before(noteItem(note));
      shown(note);
    } else if (where.kind === "append") {
      store.notes.set(note.id, note);
      list.append(noteItem(note));
      shown(note);
    }
  }

  /**
   * Apply what changed since the last sync (the first one, without a token, reads the
   * whole feed and keeps where it ended). Triggered by the user's own writes, window
   * focus and an interval; one sync at a time, and one more if asked meanwhile. A token
   * too old for the feed (410) reloads the list from GET /notes.
   */
  async function refresh(): Promise<void> {
    if (!store.user || !s.listed) return;
    if (s.feedBusy) {
      s.feedAgain = true;
      return;
    }
    s.feedBusy = true;
    const { epoch } = store;
    try {
      do {
        s.feedAgain = false;
        let token = s.feedToken;
        for (;;) {
          const page = await api.noteChanges(token);
          if (!store.isCurrent(epoch)) return;
          for (const change of page.changes) applyChange(change);
          token = page.token;
          if (!page.hasMore) break;
        }
        s.feedToken = token;
        if (!s.hasMore && !s.loading) more.textContent = ALL_SHOWN(store.notes.size > 0);
      } while (s.feedAgain);
    } catch (err) {
      if (!store.isCurrent(epoch)) return;
      if ((err as { status?: number }).status === 410) reload();
      // Anything else: the next trigger tries again from the same token.
    } finally {
      if (store.isCurrent(epoch)) s.feedBusy = false;
    }
  }

  function reload(): void {
    const { feedTimer } = s;
    clearTimeout(s.pollTimer);
    s = { ...fresh(s.ticket + 1), feedTimer, sentinelVisible: s.sentinelVisible };
    store.notes.clear();
    list.replaceChildren();
    loadFirstPage();
  }

  function schedulePoll(): void {
    clearTimeout(s.pollTimer);
    if ([...store.notes.values()].some(isLive)) s.pollTimer = window.setTimeout(() => void pollPending(), POLL_MS);
  }

  async function pollPending(): Promise<void> {
    const { epoch } = store;
    const pending = [...store.notes.values()].filter(isLive).slice(0, 10);
    await Promise.all(pending.map(async (n) => {
      try {
        const latest = await api.getNote(n.id);
        // After a retry the note keeps its "failed" state until the indexer has run again.
        if (latest.indexStatus === "failed" && (n.retryUntil ?? 0) > Date.now()) return;
        if (store.isCurrent(epoch) && store.notes.has(n.id)
          && (latest.indexStatus !== n.indexStatus || latest.memoryType !== n.memoryType)) putNote(latest);
      } catch (err) {
        if ((err as { status?: number }).status === 404) dropNote(n.id);
      }
    }));
    if (store.isCurrent(epoch)) schedulePoll();
  }

  async function retryIndex(id: string): Promise<void> {
    // Re-saving the same text is a write to the note: the indexer runs again.
    const note = store.notes.get(id);
    if (!note) return;
    const { epoch } = store;
    try {
      const saved = await api.updateNote(id, { text: note.text });
      if (!store.isCurrent(epoch)) return;
      putNote({ ...saved, indexStatus: "pending", retryUntil: Date.now() + 30_000 });
      void refresh();
      toast("Indexing again.", id);
    } catch (err) {
      if (store.isCurrent(epoch)) toast(`Retry failed. ${describeError(err)}`);
    }
  }

  function confirmDelete(id: string, item: HTMLElement): void {
    const actions = item.querySelector<HTMLElement>(".note-actions");
    if (!actions) return;
    const original = [...actions.childNodes];
    const keep = el("button", { type: "button", text: "Keep it", onclick: () => {
      actions.replaceChildren(...original);
      original.find((b): b is HTMLElement => b instanceof HTMLElement && b.classList.contains("danger"))?.focus();
    } });
    const yes = el("button", { type: "button", class: "danger", text: "Yes, delete", onclick: () => void deleteNote(id) });
    actions.replaceChildren(el("span", { text: "Delete this note?" }), yes, keep);
    keep.focus();
  }

  async function deleteNote(id: string): Promise<void> {
    const { epoch } = store;
    try {
      await api.deleteNote(id);
      if (!store.isCurrent(epoch)) return;
      dropNote(id);
      void refresh();
      const dialog = $<HTMLDialogElement>("note-dialog");
      if (dialog.open && dialog.dataset.noteId === id) dialog.close();
      toast("Note deleted.");
    } catch (err) {
      if (store.isCurrent(epoch)) toast(`The note was not deleted. ${describeError(err)}`);
    }
  }

  const form = $<HTMLFormElement>("note-form");
  form.addEventListener("submit", async (e: SubmitEvent) => {
    e.preventDefault();
    const text = $<HTMLTextAreaElement>("note-text").value;
    const error = $("note-error");
    error.textContent = "";
    if (!text.trim()) {
      error.textContent = "Write something first.";
      return;
    }
    const fields: NoteCreate = { text };
    const title = $<HTMLInputElement>("note-title").value.trim();
    if (title) fields.title = title;
    const type = $<HTMLSelectElement>("note-type").value;
    if (type) fields.type = type as NoteCreate["type"];
    const tags = parseTags($<HTMLInputElement>("note-tags").value);
    if (tags.length) fields.tags = tags;
    const button = (e.submitter as HTMLButtonElement | null) || form.querySelector<HTMLButtonElement>("button[type=submit]")!;
    button.disabled = true;
    const { epoch } = store;
    try {
      const note = await api.createNote(fields);
      if (!store.isCurrent(epoch)) return;
      putNote(note, { prepend: true });
      form.reset();
      more.textContent = "";
      void refresh();
      toast("Note saved. It becomes searchable once indexed.", note.indexStatus === "pending" ? note.id : null);
    } catch (err) {
      if (store.isCurrent(epoch)) error.textContent = `The note was not saved. ${describeError(err)}`;
    } finally {
      button.disabled = false;
    }
  });

  window.addEventListener("focus", () => void refresh());
  document.addEventListener("visibilitychange", () => { if (!document.hidden) void refresh(); });
  new IntersectionObserver((entries) => {
    s.sentinelVisible = entries.some((e) => e.isIntersecting);
    if (s.sentinelVisible) void loadMore();
  }, { rootMargin: "200px" }).observe($("notes-sentinel"));

  store.onReset(() => {
    clearTimeout(s.pollTimer);
    clearInterval(s.feedTimer);
    s = { ...fresh(s.ticket + 1), sentinelVisible: s.sentinelVisible };
    list.replaceChildren();
    more.textContent = "";
    $("note-error").textContent = "";
    form.reset();
  });

  return {
    start() {
      loadFirstPage();
      s.feedTimer = window.setInterval(() => { if (!document.hidden) void refresh(); }, FEED_MS);
    },
    putNote,
    deleteNote,
    refresh,
  };
}
