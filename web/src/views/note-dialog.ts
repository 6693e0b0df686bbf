// The note dialog: a note read in full (the cited sentence marked, else the cited
// passage; its tags as chips),
// edited (text, title and tags) or deleted.
import type { Api } from "../api/client";
import { currentNote, describeError } from "../api/errors";
import type { Note } from "../api/types";
import { $, el, formatDate, toast } from "../dom";
import { findCited } from "../passage";
import type { Store } from "../store";
import { parseTags, tagItems, tagsText } from "../tags";
import { noteLabel } from "../text";
import { STATUS_TEXT, typeOf, type NoteOpening, type NotesView } from "./notes";

export interface NoteDialog {
  open(id: string, options?: NoteOpening): Promise<void>;
}

export function noteDialog(store: Store, api: Api, notes: NotesView, hidePreview: () => void): NoteDialog {
  const dialog = $<HTMLDialogElement>("note-dialog");
  const title = $("note-dialog-title");
  const meta = $("note-meta");
  const tags = $<HTMLUListElement>("note-dialog-tags");
  const body = $("note-body");
  const error = $("note-dialog-error");
  const editForm = $<HTMLFormElement>("note-edit");
  const actions = $("note-actions");
  const close = $<HTMLButtonElement>("note-close");
  const editButton = $<HTMLButtonElement>("note-edit-button");
  let returnFocus: Element | null = null;
  // The note as shown: what an edit starts from, and the version (ETag) it applies to.
  let shown: Pick<Note, "id" | "title" | "text" | "tags" | "etag"> | null = null;

  async function open(id: string, { passage = null, claim = null, edit = false }: NoteOpening = {}): Promise<void> {
    returnFocus = document.activeElement;
    hidePreview();
    dialog.dataset.noteId = id;
    error.textContent = "";
    const listed = store.notes.get(id);
    title.textContent = listed ? noteLabel(listed) : "Loading note…";
    body.replaceChildren();
    meta.textContent = "";
    tags.replaceChildren();
    shown = null;
    setEditing(false);
    if (!dialog.open) dialog.showModal();
    let note: Note;
    const { epoch } = store;
    try {
      note = await api.getNote(id);
    } catch (err) {
      if (!store.isCurrent(epoch) || dialog.dataset.noteId !== id) return;
      title.textContent = "Note unavailable";
      error.textContent = (err as { status?: number }).status === 404 ? "This note no longer exists." : describeError(err);
      close.focus();
      return;
    }
    if (!store.isCurrent(epoch) || dialog.dataset.noteId !== id) return;
    if (store.notes.has(id)) notes.putNote(note);
    store.remember(note);
    render(note, { passage, claim });
    if (edit) setEditing(true, note);
  }

  /** The note's title, line of facts, tags and text, as they are now; focus stays where it is. */
  function show(note: Note): void {
    title.textContent = noteLabel(note);
    meta.textContent = [
      `Updated ${formatDate(note.updatedAt)}`,
      typeOf(note) ? `memory type: ${typeOf(note)}` : "",
      STATUS_TEXT[note.indexStatus || ""] || "",
    ].filter(Boolean).join(" · ");
    tags.replaceChildren(...tagItems(note.tags));
    body.replaceChildren(note.text);
    shown = { id: note.id, title: note.title || "", text: note.text, tags: note.tags || [], etag: note.etag };
  }

  /** The note, with what a citation cites marked, focused and scrolled to: the answer's
   * sentence where the note says it, else the passage it was found in. */
  function render(note: Note, { passage = null, claim = null }: NoteOpening = {}): void {
    show(note);
    const cited = passage || claim ? findCited(note.text, { passage, claim, title: note.title }) : null;
    if (cited) {
      const { range } = cited;
      const mark = el("mark", { id: "cited-passage", tabindex: "-1", dataset: { cited: cited.what },
        text: note.text.slice(range[0], range[1]) });
      body.replaceChildren(note.text.slice(0, range[0]), mark, note.text.slice(range[1]));
      mark.scrollIntoView({ block: "center" });
      mark.focus();
    } else {
      if (passage || claim) error.textContent = "The cited passage is no longer in this note: it was edited after the answer.";
      close.focus();
    }
  }

  function setEditing(on: boolean, note?: Note): void {
    editForm.hidden = !on;
    body.hidden = on;
    tags.hidden = on; // the form's tags field says them while editing
    actions.hidden = on;
    if (on) {
      const current = note || shown || { title: "", text: "", tags: [] };
      $<HTMLInputElement>("edit-title").value = current.title || "";
      $<HTMLTextAreaElement>("edit-text").value = current.text || "";
      $<HTMLInputElement>("edit-tags").value = tagsText(current.tags);
      $("edit-text").focus();
    }
  }

  close.addEventListener("click", () => dialog.close());
  editButton.addEventListener("click", () => setEditing(true));
  $("edit-cancel").addEventListener("click", () => { error.textContent = ""; setEditing(false); editButton.focus(); });
  $("note-delete-button").addEventListener("click", () => {
    const id = dialog.dataset.noteId;
    if (!id) return;
    const original = [...actions.childNodes];
    const keep = el("button", { type: "button", text: "Keep it", onclick: () => { actions.replaceChildren(...original); $("note-delete-button").focus(); } });
    actions.replaceChildren(el("span", { text: "Delete this note?" }),
      el("button", { type: "button", class: "danger", text: "Yes, delete", onclick: async () => { actions.replaceChildren(...original); await notes.deleteNote(id); } }),
      keep);
    keep.focus();
  });
  editForm.addEventListener("keydown", (e: KeyboardEvent) => {
    if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); error.textContent = ""; setEditing(false); editButton.focus(); }
  });
  editForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const id = dialog.dataset.noteId;
    if (!id) return;
    const text = $<HTMLTextAreaElement>("edit-text").value;
    error.textContent = "";
    if (!text.trim()) { error.textContent = "A note cannot be empty."; return; }
    const fields = { text, title: $<HTMLInputElement>("edit-title").value.trim(), tags: parseTags($<HTMLInputElement>("edit-tags").value) };
    // Only over the version shown: an edit made meanwhile elsewhere is not overwritten unseen.
    const version = shown?.id === id ? shown.etag : null;
    const { epoch } = store;
    try {
      const note = await api.updateNote(id, fields, version);
      if (!store.isCurrent(epoch)) return;
      notes.putNote(note, { prepend: !store.notes.has(id) });
      void notes.refresh();
      setEditing(false);
      render(note);
      toast("Note updated. It is being indexed again.", id);
    } catch (err) {
      if (!store.isCurrent(epoch)) return;
      const current = currentNote(err);
      if (current && dialog.dataset.noteId === id) {
        // What was typed stays in the form; the note behind it is now the current one,
        // so saving again replaces that version knowingly, and Cancel shows it.
        if (store.notes.has(id)) notes.putNote(current);
        show(current);
        error.textContent = "Not saved: this note was changed elsewhere while you edited it. "
          + "Save again to replace that version with yours, or Cancel to see it.";
        return;
      }
      error.textContent = `Not saved. ${describeError(err)}`;
    }
  });
  dialog.addEventListener("close", () => {
    delete dialog.dataset.noteId;
    if (returnFocus instanceof HTMLElement && document.contains(returnFocus)) returnFocus.focus();
  });

  store.onReset(() => {
    body.replaceChildren();
    for (const node of [title, meta, error]) node.textContent = "";
    tags.replaceChildren();
    editForm.reset();
    if (dialog.open) dialog.close();
    shown = null;
  });

  return { open };
}
