// Footnote's web client. Every piece of note or answer text reaches the page through
// textContent / createTextNode, never as HTML.
import { initializeApp } from "firebase/app";
import {
  browserLocalPersistence,
  connectAuthEmulator,
  createUserWithEmailAndPassword,
  initializeAuth,
  onAuthStateChanged,
  signInWithEmailAndPassword,
  signOut,
} from "firebase/auth";
import { Api, describeError } from "./api.js";
import { findPassage } from "./passage.js";
import "./styles.css";

const $ = (id) => document.getElementById(id);
const MARKER = /\[(N\d+)\]/g;
const POLL_MS = 1200;
const FEED_MS = 20_000; // while signed in and the page is shown: what changed on other devices
const REVEAL_MS = 140; // between two streamed sentences arriving at once
const MAX_REVEAL_MS = 1500; // the longest a complete answer waits for its sentences to show

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function formatDate(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A chunk's text starts with its note's title (the indexer puts it there): not twice. */
function withoutTitle(text, title) {
  const t = (title || "").replace(/\s+/g, " ").trim();
  const s = (text || "").replace(/^\s+/, "");
  if (!t || !s.replace(/\s+/g, " ").startsWith(t)) return text;
  // Skip the title's words, whatever whitespace stands between them in the text.
  const words = t.split(" ");
  let rest = s;
  for (const w of words) rest = rest.replace(/^\s*/, "").slice(w.length);
  return rest.replace(/^[\s:—–-]+/, "") || text;
}

function noteLabel(note) {
  if (note && note.title) return note.title;
  const first = ((note && note.text) || "").trim().split(/\n/)[0];
  return first.length > 60 ? `${first.slice(0, 59)}…` : first || "Untitled note";
}

let toastTimer = 0;
function toast(message) {
  $("toast").textContent = message;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(clearToast, 4000);
}
// A toast belongs to the view it was shown in: leaving the view (or signing out) ends it.
function clearToast() {
  clearTimeout(toastTimer);
  $("toast").textContent = "";
}

// -- Firebase Auth -----------------------------------------------------------------
async function firebaseConfig() {
  // Hosting serves the project's web config here; the local dev server serves the
  // demo project's, with `authEmulator` saying where the Auth emulator answers.
  const response = await fetch("/__/firebase/init.json");
  if (!response.ok) throw new Error("Hosting did not serve /__/firebase/init.json");
  return response.json();
}

const state = {
  user: null,
  api: null,
  auth: null, // the Firebase Auth instance: signing out after the account is deleted
  notes: new Map(), // id -> note, as last seen
  cursor: null,
  hasMore: true,
  loadingNotes: false,
  listTicket: 0, // a page asked for before the list was reloaded is dropped
  listed: false, // the first page of the list has been asked for
  feedToken: null, // GET /notes/changes: where the list's last sync ended
  feedBusy: false,
  feedAgain: false, // asked to refresh while a sync ran: sync once more after it
  feedTimer: 0,
  conversationId: null,
  streamingId: null, // a new conversation whose first answer is streaming
  conversations: [], // GET /conversations, pages so far, most recent activity first
  conversationsCursor: null,
  conversationsState: "idle", // idle | loading | loaded | failed
  conversationsTicket: 0, // a response for an earlier sign-in or reset is dropped
  citationsByCid: new Map(),
  titles: new Map(), // noteId -> {title, label} of cited notes the list has not loaded
  pollTimer: 0,
  session: new AbortController(), // aborted at sign-out: nothing in flight lands afterwards
  searchTicket: 0,
  openTicket: 0,
  epoch: 0, // one per signed-in session: a response for an earlier one is dropped
  shownCitations: [], // what the sources panel shows, to redraw it once titles are known
  importId: null, // the import being followed
  importTimer: 0,
  exportTimer: 0,
  exportUrl: null, // the object URL of the downloaded archive, revoked at sign-out
};

async function boot() {
  let config;
  try {
    config = await firebaseConfig();
  } catch (err) {
    $("auth-error").textContent = `Footnote could not start. ${describeError(err)}`;
    return;
  }
  const app = initializeApp(config);
  // initializeAuth without a popup/redirect resolver: e-mail sign-in needs no auth iframe.
  const auth = initializeAuth(app, { persistence: browserLocalPersistence });
  if (config.authEmulator) connectAuthEmulator(auth, config.authEmulator, { disableWarnings: true });
  state.auth = auth;
  state.api = new Api(config.apiBase || "/api", () => auth.currentUser.getIdToken());
  state.api.signal = state.session.signal;

  const credentials = async (action, label) => {
    const email = $("email").value.trim();
    const password = $("password").value;
    $("auth-error").textContent = "";
    if (!email || password.length < 6) {
      $("auth-error").textContent = "Enter your email and a password of at least 6 characters.";
      return;
    }
    try {
      await action(auth, email, password);
    } catch (err) {
      $("auth-error").textContent = `${label} failed: ${authMessage(err)}`;
    }
  };
  $("auth-form").addEventListener("submit", (e) => { e.preventDefault(); credentials(signInWithEmailAndPassword, "Sign in"); });
  $("sign-up").addEventListener("click", () => credentials(createUserWithEmailAndPassword, "Creating the account"));
  $("sign-out").addEventListener("click", async () => {
    await signOut(auth);
    $("auth-form").reset(); // not even the last user's email stays on the sign-in page
    $("auth-error").textContent = "";
  });
  onAuthStateChanged(auth, (user) => onUser(user));
}

function authMessage(err) {
  const code = (err && err.code) || "";
  const known = {
    "auth/email-already-in-use": "an account with this email exists; sign in instead.",
    "auth/invalid-credential": "the email or password is wrong.",
    "auth/wrong-password": "the email or password is wrong.",
    "auth/user-not-found": "there is no account with this email.",
    "auth/invalid-email": "that is not a valid email address.",
    "auth/weak-password": "the password must have at least 6 characters.",
    "auth/network-request-failed": "the sign-in service could not be reached.",
    "auth/user-disabled": "this account was deleted.",
  };
  return known[code] || (err && err.message) || String(err);
}

function onUser(user) {
  if (user && state.user && user.uid === state.user.uid) return; // a token refresh
  resetSession();
  state.user = user;
  const signedIn = Boolean(user);
  $("auth-view").hidden = signedIn;
  $("tabs").hidden = !signedIn;
  $("account").hidden = !signedIn;
  $("who").textContent = user ? user.email : "";
  if (signedIn) {
    $("password").value = "";
    $("auth-notice").textContent = "";
    showView("notes", false);
    loadMoreNotes().then(() => {
      if (user !== state.user) return;
      state.listed = true;
      refreshNotes(); // the first sync: its token is where later refreshes start
    });
    state.feedTimer = setInterval(() => { if (!document.hidden) refreshNotes(); }, FEED_MS);
    forgetStoredConversations(user);
    loadConversations(false);
  } else {
    for (const id of ["notes-view", "ask-view", "search-view"]) $(id).hidden = true;
    $("auth-title").focus();
  }
}

/**
 * Forget everything of the user who was signed in: requests in flight, what the
 * client holds (notes, titles, conversations, citations) and every piece of the page
 * that showed it (lists, answers, sources, search results, the note dialog, the
 * preview, the toast, messages, and what was typed into any form). Runs on every
 * change of user, so the next one, or the signed-out screen, starts empty.
 */
function resetSession() {
  state.session.abort();
  state.session = new AbortController();
  if (state.api) state.api.signal = state.session.signal;
  if (asking) asking.abort();
  clearTimeout(state.pollTimer);
  clearInterval(state.feedTimer);
  state.feedToken = null;
  state.feedBusy = false;
  state.feedAgain = false;
  state.listed = false;
  state.listTicket += 1;
  state.notes.clear();
  state.titles.clear();
  state.cursor = null;
  state.hasMore = true;
  state.loadingNotes = false;
  state.conversationId = null;
  state.streamingId = null;
  state.conversations = [];
  state.conversationsCursor = null;
  state.conversationsState = "idle";
  state.conversationsTicket += 1;
  state.searchTicket += 1;
  state.openTicket += 1;
  state.epoch += 1;
  state.shownCitations = [];
  state.citationsByCid.clear();
  for (const id of ["notes-list", "thread", "sources-list", "search-results", "conversation-list", "note-body"]) {
    $(id).replaceChildren();
  }
  for (const id of ["notes-more", "search-meta", "who", "note-dialog-title", "note-meta", "preview-date",
    "preview-snippet", "note-error", "ask-error", "search-error", "conversations-error", "note-dialog-error"]) {
    $(id).textContent = "";
  }
  $("sources-empty").hidden = false;
  $("more-conversations").hidden = true;
  for (const form of ["note-form", "ask-form", "search-form", "note-edit", "import-form"]) $(form).reset();
  resetDataCard();
  if ($("note-dialog").open) $("note-dialog").close();
  delete $("note-dialog").dataset.current;
  hidePreview();
  clearToast();
}

// -- views -----------------------------------------------------------------------
function showView(name, focus = true) {
  clearToast();
  for (const tab of document.querySelectorAll(".tab")) {
    if (tab.dataset.view === name) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
  for (const view of ["notes", "ask", "search"]) $(`${view}-view`).hidden = view !== name;
  // The list failed to load (offline at sign-in, say): opening Ask tries again.
  if (name === "ask" && state.conversationsState === "failed") loadConversations(false);
  if (focus) {
    const target = { notes: "notes-title", ask: "question", search: "search-query" }[name];
    $(target).focus();
  }
}
for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showView(tab.dataset.view));

// -- notes -------------------------------------------------------------------------
const STATUS_TEXT = { pending: "Indexing…", indexed: "Indexed", failed: "Indexing failed" };
// A note whose state the client has not been told yet ("unknown") shows none, rather
// than a guess that may be stale; the poller asks for it.
const LIVE = new Set(["pending", "unknown"]);
const statusOf = (note) => note.indexStatus || "unknown";
// The memory type a note was given, or else the one it was indexed as.
const typeOf = (note) => note.type || note.memoryType || "";

function noteItem(note) {
  const status = statusOf(note);
  const li = el("li", { class: "note", dataset: { noteId: note.id, status } });
  const title = el("h3", { class: "note-title" }, el("button", {
    type: "button", class: "link", text: noteLabel(note), onclick: () => openNote(note.id),
  }));
  const text = el("p", { class: "note-text", text: note.text });
  const badge = el("span", { class: `status status-${status}`, role: "status", text: STATUS_TEXT[status] || "" });
  const meta = el("p", { class: "note-meta" },
    el("time", { datetime: note.updatedAt || note.createdAt, text: formatDate(note.updatedAt || note.createdAt) }),
    typeOf(note) ? el("span", { class: "type", title: "Memory type", text: typeOf(note) }) : null,
    badge);
  const actions = el("div", { class: "row note-actions" },
    el("button", { type: "button", text: "Edit", "aria-label": `Edit ${noteLabel(note)}`, onclick: () => openNote(note.id, { edit: true }) }),
    el("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete ${noteLabel(note)}`, onclick: () => confirmDelete(note.id, li) }));
  if (status === "failed") {
    actions.prepend(el("button", { type: "button", class: "retry", text: "Retry indexing", onclick: () => retryIndex(note.id) }));
  }
  li.append(title, text, meta, actions);
  return li;
}

function putNote(note, { prepend = false } = {}) {
  state.notes.set(note.id, note);
  const existing = document.querySelector(`#notes-list li[data-note-id="${CSS.escape(note.id)}"]`);
  const item = noteItem(note);
  if (existing) existing.replaceWith(item);
  else if (prepend) $("notes-list").prepend(item);
  else $("notes-list").append(item);
  schedulePoll();
}

function dropNote(id) {
  state.notes.delete(id);
  document.querySelector(`#notes-list li[data-note-id="${CSS.escape(id)}"]`)?.remove();
}

async function loadMoreNotes() {
  if (!state.user || state.loadingNotes || !state.hasMore) return;
  state.loadingNotes = true;
  $("notes-list").setAttribute("aria-busy", "true");
  $("notes-more").textContent = "Loading notes…";
  const user = state.user;
  const ticket = state.listTicket;
  try {
    const page = await state.api.listNotes(state.cursor);
    if (user !== state.user || ticket !== state.listTicket) return;
    for (const note of page.notes) if (!state.notes.has(note.id)) putNote(note);
    state.cursor = page.cursor;
    state.hasMore = page.hasMore;
    $("notes-more").textContent = state.hasMore ? "" : state.notes.size ? "That's all your notes." : "No notes yet: write your first one above.";
  } catch (err) {
    if (user === state.user && ticket === state.listTicket) $("notes-more").textContent = `Could not load notes. ${describeError(err)}`;
  } finally {
    if (user === state.user && ticket === state.listTicket) {
      state.loadingNotes = false;
      $("notes-list").removeAttribute("aria-busy");
    }
  }
  // A tall screen may show the sentinel still: keep paging until it is off-screen.
  if (user === state.user && ticket === state.listTicket && state.hasMore && sentinelVisible) await loadMoreNotes();
}

// -- sync: the list follows the API's change feed (GET /notes/changes) ----------------
const versionOf = (note) => Number.parseInt(String((note && note.etag) || "").replace(/\D/g, ""), 10);
// The list's order, as GET /notes pages it: newest created first, ties by id.
function listedBefore(a, b) {
  const [ta, tb] = [Date.parse(a.createdAt), Date.parse(b.createdAt)];
  if (ta !== tb) return ta > tb;
  return a.id > b.id;
}

function applyChange(change) {
  if (change.deleted || !change.note) {
    if (state.notes.has(change.id)) dropNote(change.id);
    return;
  }
  const note = change.note;
  const had = state.notes.get(note.id);
  if (had) {
    // The feed sends its last seconds again: a version the list already shows is no news.
    if (versionOf(note) <= versionOf(had)) return;
    putNote(note); // edited elsewhere: its index state is unknown until the poller asks
    return;
  }
  // New to the list: in its place by created date, if the list reaches that far (a
  // note older than every listed one comes with its page, as it scrolls into view).
  const next = [...$("notes-list").children].find((li) => {
    const listed = state.notes.get(li.dataset.noteId);
    return listed && listedBefore(note, listed);
  });
  if (!next && state.hasMore) return;
  state.notes.set(note.id, note);
  const item = noteItem(note);
  if (next) next.before(item);
  else $("notes-list").append(item);
  schedulePoll();
}

/**
 * Apply what changed since the last sync (the first one, without a token, reads the
 * whole feed and keeps where it ended). Triggered by the user's own writes, window
 * focus and an interval; one sync at a time, and one more if asked meanwhile. A token
 * too old for the feed (410) reloads the list from GET /notes.
 */
async function refreshNotes() {
  if (!state.user || !state.listed) return;
  if (state.feedBusy) {
    state.feedAgain = true;
    return;
  }
  state.feedBusy = true;
  const epoch = state.epoch;
  try {
    do {
      state.feedAgain = false;
      let token = state.feedToken;
      for (;;) {
        const page = await state.api.noteChanges(token);
        if (epoch !== state.epoch) return;
        for (const change of page.changes) applyChange(change);
        token = page.token;
        if (!page.hasMore) break;
      }
      state.feedToken = token;
      if (!state.hasMore && !state.loadingNotes) {
        $("notes-more").textContent = state.notes.size ? "That's all your notes." : "No notes yet: write your first one above.";
      }
    } while (state.feedAgain);
  } catch (err) {
    if (epoch !== state.epoch) return;
    if (err.status === 410) reloadNotes();
    // Anything else: the next trigger tries again from the same token.
  } finally {
    if (epoch === state.epoch) state.feedBusy = false;
  }
}

function reloadNotes() {
  const user = state.user;
  state.listTicket += 1;
  state.feedToken = null;
  state.listed = false;
  state.notes.clear();
  $("notes-list").replaceChildren();
  state.cursor = null;
  state.hasMore = true;
  state.loadingNotes = false;
  clearTimeout(state.pollTimer);
  loadMoreNotes().then(() => {
    if (user !== state.user) return;
    state.listed = true;
    refreshNotes();
  });
}

window.addEventListener("focus", () => refreshNotes());
document.addEventListener("visibilitychange", () => { if (!document.hidden) refreshNotes(); });

let sentinelVisible = false;
new IntersectionObserver((entries) => {
  sentinelVisible = entries.some((e) => e.isIntersecting);
  if (sentinelVisible) loadMoreNotes();
}, { rootMargin: "200px" }).observe($("notes-sentinel"));

function schedulePoll() {
  clearTimeout(state.pollTimer);
  if ([...state.notes.values()].some((n) => LIVE.has(statusOf(n)))) state.pollTimer = setTimeout(pollPending, POLL_MS);
}

async function pollPending() {
  const user = state.user;
  const pending = [...state.notes.values()].filter((n) => LIVE.has(statusOf(n))).slice(0, 10);
  await Promise.all(pending.map(async (n) => {
    try {
      const fresh = await state.api.getNote(n.id);
      // After a retry the note keeps its "failed" state until the indexer has run again.
      if (fresh.indexStatus === "failed" && n.retryUntil > Date.now()) return;
      if (user === state.user && state.notes.has(n.id) && (fresh.indexStatus !== n.indexStatus || fresh.memoryType !== n.memoryType)) putNote(fresh);
    } catch (err) {
      if (err.status === 404) dropNote(n.id);
    }
  }));
  if (user === state.user) schedulePoll();
}

$("note-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const text = $("note-text").value;
  $("note-error").textContent = "";
  if (!text.trim()) {
    $("note-error").textContent = "Write something first.";
    return;
  }
  const fields = { text };
  if ($("note-title").value.trim()) fields.title = $("note-title").value.trim();
  if ($("note-type").value) fields.type = $("note-type").value;
  const button = e.submitter || e.target.querySelector("button[type=submit]");
  button.disabled = true;
  const user = state.user;
  try {
    const note = await state.api.createNote(fields);
    if (user !== state.user) return;
    putNote(note, { prepend: true });
    $("note-form").reset();
    $("notes-more").textContent = "";
    refreshNotes();
    toast("Note saved. It becomes searchable once indexed.");
  } catch (err) {
    if (user === state.user) $("note-error").textContent = `The note was not saved. ${describeError(err)}`;
  } finally {
    button.disabled = false;
  }
});

async function retryIndex(id) {
  // Re-saving the same text is a write to the note: the indexer runs again.
  const note = state.notes.get(id);
  const user = state.user;
  try {
    const saved = await state.api.updateNote(id, { text: note.text });
    if (user !== state.user) return;
    putNote({ ...saved, indexStatus: "pending", retryUntil: Date.now() + 30_000 });
    refreshNotes();
    toast("Indexing again.");
  } catch (err) {
    if (user === state.user) toast(`Retry failed. ${describeError(err)}`);
  }
}

function confirmDelete(id, item) {
  const actions = item.querySelector(".note-actions");
  const original = [...actions.childNodes];
  const keep = el("button", { type: "button", text: "Keep it", onclick: () => { actions.replaceChildren(...original); original.find((b) => b.classList.contains("danger"))?.focus(); } });
  const yes = el("button", { type: "button", class: "danger", text: "Yes, delete", onclick: () => deleteNote(id) });
  actions.replaceChildren(el("span", { text: "Delete this note?" }), yes, keep);
  keep.focus();
}

async function deleteNote(id) {
  const user = state.user;
  try {
    await state.api.deleteNote(id);
    if (user !== state.user) return;
    dropNote(id);
    refreshNotes();
    if ($("note-dialog").open && $("note-dialog").dataset.noteId === id) $("note-dialog").close();
    toast("Note deleted.");
  } catch (err) {
    if (user === state.user) toast(`The note was not deleted. ${describeError(err)}`);
  }
}

// -- note dialog -----------------------------------------------------------------
const dialog = $("note-dialog");
let dialogReturnFocus = null;

async function openNote(id, { passage = null, edit = false } = {}) {
  dialogReturnFocus = document.activeElement;
  hidePreview();
  dialog.dataset.noteId = id;
  $("note-dialog-error").textContent = "";
  $("note-dialog-title").textContent = state.notes.get(id) ? noteLabel(state.notes.get(id)) : "Loading note…";
  $("note-body").replaceChildren();
  $("note-meta").textContent = "";
  setEditing(false);
  if (!dialog.open) dialog.showModal();
  let note;
  const epoch = state.epoch;
  try {
    note = await state.api.getNote(id);
  } catch (err) {
    if (epoch !== state.epoch || dialog.dataset.noteId !== id) return;
    $("note-dialog-title").textContent = "Note unavailable";
    $("note-dialog-error").textContent = err.status === 404 ? "This note no longer exists." : describeError(err);
    $("note-close").focus();
    return;
  }
  if (epoch !== state.epoch || dialog.dataset.noteId !== id) return;
  if (state.notes.has(id)) putNote(note);
  remember(note);
  renderNote(note, passage);
  if (edit) setEditing(true, note);
}

function renderNote(note, passage) {
  $("note-dialog-title").textContent = noteLabel(note);
  $("note-meta").textContent = [
    `Updated ${formatDate(note.updatedAt)}`,
    typeOf(note) ? `memory type: ${typeOf(note)}` : "",
    STATUS_TEXT[note.indexStatus] || "",
  ].filter(Boolean).join(" · ");
  const body = $("note-body");
  const range = passage ? findPassage(note.text, passage, note.title) : null;
  if (range) {
    const mark = el("mark", { id: "cited-passage", tabindex: "-1", text: note.text.slice(range[0], range[1]) });
    body.replaceChildren(note.text.slice(0, range[0]), mark, note.text.slice(range[1]));
    mark.scrollIntoView({ block: "center" });
    mark.focus();
  } else {
    body.replaceChildren(note.text);
    if (passage) $("note-dialog-error").textContent = "The cited passage is no longer in this note: it was edited after the answer.";
    $("note-close").focus();
  }
  dialog.dataset.current = JSON.stringify({ title: note.title || "", text: note.text });
}

function setEditing(on, note) {
  $("note-edit").hidden = !on;
  $("note-body").hidden = on;
  $("note-actions").hidden = on;
  if (on) {
    const current = note || JSON.parse(dialog.dataset.current || "{}");
    $("edit-title").value = current.title || "";
    $("edit-text").value = current.text || "";
    $("edit-text").focus();
  }
}

$("note-close").addEventListener("click", () => dialog.close());
$("note-edit-button").addEventListener("click", () => setEditing(true));
$("edit-cancel").addEventListener("click", () => { setEditing(false); $("note-edit-button").focus(); });
$("note-delete-button").addEventListener("click", () => {
  const id = dialog.dataset.noteId;
  const actions = $("note-actions");
  const original = [...actions.childNodes];
  const keep = el("button", { type: "button", text: "Keep it", onclick: () => { actions.replaceChildren(...original); $("note-delete-button").focus(); } });
  actions.replaceChildren(el("span", { text: "Delete this note?" }),
    el("button", { type: "button", class: "danger", text: "Yes, delete", onclick: async () => { actions.replaceChildren(...original); await deleteNote(id); } }),
    keep);
  keep.focus();
});
$("note-edit").addEventListener("keydown", (e) => {
  if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); setEditing(false); $("note-edit-button").focus(); }
});
$("note-edit").addEventListener("submit", async (e) => {
  e.preventDefault();
  const id = dialog.dataset.noteId;
  const text = $("edit-text").value;
  if (!text.trim()) { $("note-dialog-error").textContent = "A note cannot be empty."; return; }
  const user = state.user;
  try {
    const note = await state.api.updateNote(id, { text, title: $("edit-title").value.trim() });
    if (user !== state.user) return;
    putNote(note, { prepend: !state.notes.has(id) });
    refreshNotes();
    setEditing(false);
    renderNote(note, null);
    toast("Note updated. It is being indexed again.");
  } catch (err) {
    if (user === state.user) $("note-dialog-error").textContent = `Not saved. ${describeError(err)}`;
  }
});
dialog.addEventListener("close", () => {
  delete dialog.dataset.noteId;
  if (dialogReturnFocus && document.contains(dialogReturnFocus)) dialogReturnFocus.focus();
});

// -- citations: chips, preview, sources ------------------------------------------------
const preview = $("preview");

// What the client knows of a note it cites or finds: from the list, or read once.
function remember(note) {
  state.titles.set(note.id, { title: note.title || "", label: noteLabel(note) });
}
function known(noteId) {
  const note = state.notes.get(noteId);
  return note ? { title: note.title || "", label: noteLabel(note) } : state.titles.get(noteId);
}
const labelOf = (noteId) => (known(noteId) ? known(noteId).label : "Open note");
const snippetOf = (noteId, snippet) => withoutTitle(snippet, known(noteId)?.title);

/** Read the titles of cited notes the list has not loaded, then redraw the sources. */
async function learnTitles(noteIds) {
  const epoch = state.epoch;
  const missing = [...new Set(noteIds)].filter((id) => !known(id));
  if (!missing.length) return;
  await Promise.all(missing.map(async (id) => {
    try {
      const note = await state.api.getNote(id);
      if (epoch === state.epoch) remember(note);
    } catch { /* deleted since: its snippet stays as it is */ }
  }));
  if (epoch === state.epoch) renderSources(state.shownCitations, false);
}

function chip(cid, citation) {
  const n = cid.replace(/^N/, "");
  const label = citation
    ? `Source ${n}: ${known(citation.noteId) ? labelOf(citation.noteId) : "a note"}, ${formatDate(citation.createdAt)}. Opens the note.`
    : `Source ${n}`;
  const button = el("button", {
    type: "button", class: "chip", text: n, "aria-label": label,
    dataset: citation ? { cid, noteId: citation.noteId } : { cid }, disabled: !citation,
  });
  if (citation) {
    button.setAttribute("aria-describedby", "preview");
    button.addEventListener("click", () => openNote(citation.noteId, { passage: citation.snippet }));
    button.addEventListener("mouseenter", () => showPreview(button, citation));
    button.addEventListener("focus", () => showPreview(button, citation));
    button.addEventListener("mouseleave", hidePreview);
    button.addEventListener("blur", hidePreview);
  }
  return button;
}

function showPreview(anchor, citation) {
  $("preview-date").textContent = `${labelOf(citation.noteId)} · ${formatDate(citation.createdAt)}`;
  $("preview-snippet").textContent = snippetOf(citation.noteId, citation.snippet);
  preview.hidden = false;
  const r = anchor.getBoundingClientRect();
  const width = Math.min(320, window.innerWidth - 16);
  const left = Math.max(8, Math.min(r.left + window.scrollX, window.scrollX + window.innerWidth - width - 8));
  preview.style.width = `${width}px`;
  preview.style.left = `${left}px`;
  preview.style.top = `${r.bottom + window.scrollY + 6}px`;
}

function hidePreview() { preview.hidden = true; }

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !preview.hidden) hidePreview();
});

/** Answer text with its [N#] markers as chips; text always as text nodes. */
function renderAnswer(container, text, citations) {
  const byCid = new Map((citations || []).map((c) => [c.cid, c]));
  const nodes = [];
  let last = 0;
  for (const m of text.matchAll(MARKER)) {
    if (m.index > last) nodes.push(document.createTextNode(text.slice(last, m.index)));
    nodes.push(chip(m[1], byCid.get(m[1])));
    last = m.index + m[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  container.replaceChildren(...nodes);
}

function renderSources(citations, learn = true) {
  state.shownCitations = citations || [];
  const list = $("sources-list");
  list.replaceChildren();
  const byNote = new Map();
  for (const c of citations || []) {
    if (!byNote.has(c.noteId)) byNote.set(c.noteId, []);
    byNote.get(c.noteId).push(c);
  }
  for (const [noteId, cs] of byNote) {
    const first = cs[0];
    list.append(el("li", { class: "source", dataset: { noteId } },
      el("p", { class: "source-head" },
        ...cs.map((c) => el("span", { class: "chip static", text: c.cid.replace(/^N/, ""), "aria-hidden": "true" })),
        el("button", { type: "button", class: "link", text: labelOf(noteId),
          "aria-label": `Open the note cited as ${cs.map((c) => c.cid.replace(/^N/, "")).join(", ")}`,
          onclick: () => openNote(noteId, { passage: first.snippet }) })),
      el("p", { class: "hint", text: formatDate(first.createdAt) }),
      el("blockquote", { text: snippetOf(noteId, first.snippet) })));
  }
  if (learn) learnTitles([...byNote.keys()]);
  $("sources-empty").hidden = byNote.size > 0;
  $("sources-empty").textContent = "Cited notes appear here.";
}

// -- ask -------------------------------------------------------------------------------
function turnItem(role, text) {
  const body = el("div", { class: "turn-text" });
  if (text) body.textContent = text;
  const li = el("li", { class: `turn ${role}` }, el("p", { class: "visually-hidden", text: role === "user" ? "You asked:" : "Footnote answered:" }), body);
  $("thread").append(li);
  return li;
}

function finishAnswer(li, done) {
  const body = li.querySelector(".turn-text");
  renderAnswer(body, done.answer, done.citations);
  li.dataset.messageId = done.messageId;
  li.classList.toggle("no-answer", !done.citations || done.citations.length === 0);
  const meta = done.meta || {};
  const strategy = meta.retrieval && meta.retrieval.strategy;
  const bits = [];
  if (done.citations && done.citations.length) bits.push(`${done.citations.length} source${done.citations.length > 1 ? "s" : ""}`);
  if (typeof meta.confidence === "number") bits.push(`confidence ${meta.confidence.toFixed(2)}`);
  if (strategy) bits.push(strategy.replaceAll("_", " "));
  if (meta.fallbacks && meta.fallbacks.length) bits.push(`fallback: ${meta.fallbacks.join(", ")}`);
  li.querySelector(".turn-meta")?.remove();
  const footer = el("p", { class: "turn-meta hint", text: bits.join(" · ") });
  if (done.messageId && done.citations && done.citations.length) {
    footer.append(" ", el("button", { type: "button", class: "link", text: "Show sources",
      onclick: () => showMessageSources(done.messageId) }));
  }
  li.append(footer);
}

async function showMessageSources(messageId) {
  const user = state.user;
  try {
    const { sources } = await state.api.sources(messageId);
    if (user !== state.user) return;
    renderSources(sources);
    $("sources-title").scrollIntoView({ block: "nearest" });
  } catch (err) {
    if (user === state.user) $("ask-error").textContent = `The sources could not be shown. ${describeError(err)}`;
  }
}

$("question").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    $("ask-form").requestSubmit();
  }
});

let asking = null;
$("ask-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const message = $("question").value.trim();
  $("ask-error").textContent = "";
  if (!message || asking) return;
  const types = [...document.querySelectorAll("#type-filter input:checked")].map((i) => i.value);
  const body = { message, ragConfig: { enableRag: $("use-rag").checked, types } };
  if (state.conversationId) body.conversationId = state.conversationId;
  turnItem("user", message);
  const answer = turnItem("assistant", "");
  const text = answer.querySelector(".turn-text");
  answer.setAttribute("aria-busy", "true");
  text.append(el("span", { class: "typing", text: "Thinking…" }));
  $("question").value = "";
  $("ask-button").disabled = true;
  const controller = new AbortController();
  asking = controller;
  const user = state.user;
  let streamed = "";
  let started = null; // a new conversation, named by the stream's meta before the answer
  // Sentences that arrive together (the extractive generator writes a whole answer in
  // ~70 ms) still appear one after another: each fades in a moment after the last.
  const stagger = window.matchMedia("(prefers-reduced-motion: reduce)").matches ? 0 : REVEAL_MS;
  let revealAt = 0;
  try {
    const done = await state.api.chatStream(body, (name, data) => {
      if (user !== state.user) return;
      if (name === "meta" && data.conversationId && !body.conversationId) {
        // Listed (and marked current) at once; it is the current conversation only
        // once the answer is done and recorded.
        started = data.conversationId;
        state.streamingId = started;
        conversationActive(started, message, 0);
      } else if (name === "delta") {
        text.querySelector(".typing")?.remove();
        streamed += data.text;
        // Each checked sentence appears as it arrives (and fades in, so it is seen to).
        const piece = el("span", { class: "delta" });
        const now = performance.now();
        const start = Math.max(now, revealAt);
        piece.style.animationDelay = `${Math.round(start - now)}ms`;
        revealAt = start + stagger;
        renderAnswer(piece, data.text, []);
        text.append(piece);
      }
    }, controller.signal);
    const showing = Math.min(revealAt - performance.now(), MAX_REVEAL_MS);
    if (showing > 0) await new Promise((resolve) => { setTimeout(resolve, showing); });
    if (user !== state.user) return;
    state.conversationId = done.conversationId;
    state.streamingId = null;
    conversationActive(done.conversationId, message);
    finishAnswer(answer, done);
    renderSources(done.citations);
  } catch (err) {
    if (user !== state.user) return;
    answer.remove();
    if (started) {
      // Never recorded: it leaves the list again.
      state.conversations = state.conversations.filter((c) => c.id !== started);
      state.streamingId = null;
      renderConversationList();
    }
    $("ask-error").textContent = `No answer. ${describeError(err)}`;
    if (!streamed) $("question").value = message;
  } finally {
    if (asking === controller) asking = null;
    if (user === state.user) {
      answer.removeAttribute("aria-busy");
      $("ask-button").disabled = false;
      $("question").focus();
    }
  }
});

// Conversations come from the API (GET /conversations), a page at a time, so they
// are the same on every device; this browser keeps none of them.
async function loadConversations(more) {
  if (!state.user || (more && !state.conversationsCursor)) return;
  const ticket = ++state.conversationsTicket;
  state.conversationsState = "loading";
  $("conversations-error").textContent = "";
  renderConversationList();
  try {
    const page = await state.api.listConversations(more ? state.conversationsCursor : null);
    if (ticket !== state.conversationsTicket) return;
    // A conversation asked in since the first page moved to the top: not twice.
    const known = new Set(more ? state.conversations.map((c) => c.id) : []);
    const fresh = page.conversations.filter((c) => !known.has(c.id));
    state.conversations = more ? [...state.conversations, ...fresh] : fresh;
    state.conversationsCursor = page.cursor;
    state.conversationsState = "loaded";
  } catch (err) {
    if (ticket !== state.conversationsTicket) return;
    state.conversationsState = "failed";
    $("conversations-error").textContent = `Could not load your conversations. ${describeError(err)}`;
  }
  renderConversationList();
}

// An answer just arrived: its conversation is now the most recent (as the API will
// list it), without asking for the list again.
function conversationActive(id, question, added = 2) {
  const now = new Date().toISOString();
  const existing = state.conversations.find((c) => c.id === id);
  const item = existing
    ? { ...existing, updatedAt: now, messageCount: existing.messageCount + added }
    : { id, title: question.split(/\s+/).join(" ").trim(), createdAt: now, updatedAt: now, messageCount: added };
  state.conversations = [item, ...state.conversations.filter((c) => c.id !== id)];
  renderConversationList();
}

// Earlier versions kept this user's conversation ids in localStorage; the API lists
// them now, so the copy is removed rather than left behind.
function forgetStoredConversations(user) {
  try { localStorage.removeItem(`footnote:conversations:${user.uid}`); } catch { /* storage off */ }
}

function renderConversationList() {
  const list = $("conversation-list");
  list.replaceChildren();
  const loading = state.conversationsState === "loading";
  list.setAttribute("aria-busy", String(loading));
  const items = state.user ? state.conversations : [];
  for (const c of items) {
    const streaming = c.id === state.streamingId;
    const current = streaming || (c.id === state.conversationId && !state.streamingId);
    const turns = Math.floor((c.messageCount || 0) / 2);
    const when = streaming ? "answering…" : `${formatDate(c.updatedAt)} · ${turns} ${turns === 1 ? "question" : "questions"}`;
    list.append(el("li", {},
      el("button", { type: "button", class: "conversation", "aria-current": current ? "true" : null,
        title: c.title || null, dataset: { conversationId: c.id }, disabled: streaming,
        onclick: () => openConversation(c.id) },
        el("span", { class: "conversation-title", text: c.title || "Untitled conversation" }),
        el("span", { class: "hint", text: when }))));
  }
  if (!items.length && loading) list.append(el("li", { class: "hint", text: "Loading conversations…" }));
  else if (!items.length && state.conversationsState === "loaded") list.append(el("li", { class: "hint", text: "No conversations yet." }));
  const more = $("more-conversations");
  more.hidden = !state.user || !state.conversationsCursor;
  more.disabled = loading;
}

$("more-conversations").addEventListener("click", () => loadConversations(true));

async function openConversation(id) {
  $("ask-error").textContent = "";
  const ticket = ++state.openTicket;
  try {
    const { messages } = await state.api.messages(id);
    if (ticket !== state.openTicket) return; // signed out, or another one opened since
    state.conversationId = id;
    $("thread").replaceChildren();
    let lastCitations = [];
    for (const m of messages) {
      const li = turnItem(m.role, m.role === "user" ? m.text : "");
      if (m.role === "assistant") {
        // How it was found, as recorded with the answer: the same line as when it was asked.
        const meta = m.meta || {};
        finishAnswer(li, { answer: m.text, citations: m.citations, messageId: m.id,
          meta: { confidence: meta.confidence, retrieval: { strategy: meta.strategy } } });
        lastCitations = m.citations;
      }
    }
    renderSources(lastCitations);
    renderConversationList();
    $("question").focus();
  } catch (err) {
    if (ticket !== state.openTicket) return;
    if (err.status === 404) {
      state.conversations = state.conversations.filter((c) => c.id !== id);
      renderConversationList();
    }
    $("ask-error").textContent = `Could not open the conversation. ${describeError(err)}`;
  }
}

$("new-conversation").addEventListener("click", () => {
  state.conversationId = null;
  $("thread").replaceChildren();
  renderSources([]);
  renderConversationList();
  $("question").focus();
});

// -- import and export ------------------------------------------------------------------
const JOB_POLL_MS = 1000;

/** The import/export card as a new user sees it: nothing in progress, nothing reported. */
function resetDataCard() {
  clearTimeout(state.importTimer);
  clearTimeout(state.exportTimer);
  state.importId = null;
  if (state.exportUrl) URL.revokeObjectURL(state.exportUrl);
  state.exportUrl = null;
  for (const id of ["import-status", "export-status"]) $(id).textContent = "";
  $("import-problems").replaceChildren();
  $("import-progress").hidden = true;
  $("import-cancel").hidden = true;
  $("import-start").disabled = false;
  $("export-start").disabled = false;
  $("export-link").hidden = true;
  $("export-link").removeAttribute("href");
  $("delete-account-form").reset();
  $("delete-account-error").textContent = "";
  $("delete-account").disabled = false;
}

// -- account deletion -------------------------------------------------------------------
$("delete-account-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const typed = $("delete-account-confirm").value.trim();
  const email = (state.user && state.user.email) || "";
  $("delete-account-error").textContent = "";
  if (!email || typed.toLowerCase() !== email.toLowerCase()) {
    $("delete-account-error").textContent = `To delete this account, type the address you sign in with (${email}).`;
    $("delete-account-confirm").focus();
    return;
  }
  const epoch = state.epoch;
  $("delete-account").disabled = true;
  try {
    await state.api.deleteAccount(typed);
  } catch (err) {
    if (epoch !== state.epoch) return;
    $("delete-account").disabled = false;
    $("delete-account-error").textContent = `Your account was not deleted. ${describeError(err)}`;
    return;
  }
  // The account can no longer sign in (the API disabled it before answering); its data
  // is being deleted. Sign out here, which clears the page as for any sign-out.
  await signOut(state.auth);
  $("auth-form").reset();
  $("auth-error").textContent = "";
  $("auth-notice").textContent = "Your account and everything in it are being deleted. It can no longer sign in.";
});

function plural(n, one, many = `${one}s`) { return `${n} ${n === 1 ? one : many}`; }

function showImport(job) {
  const running = job.status === "queued" || job.status === "running";
  const counts = [`${plural(job.imported, "note")} imported`];
  if (job.duplicates) counts.push(`${plural(job.duplicates, "note")} already here`);
  if (job.failed) counts.push(`${plural(job.failed, "file")} not imported`);
  const lead = { queued: "Starting the import…", running: "Importing…", done: "Import finished:",
    cancelled: "Import cancelled:", failed: "The import failed:" }[job.status] || job.status;
  $("import-status").textContent = [lead, running && !job.found ? "" : counts.join(", ") + ".", job.reason || ""]
    .filter(Boolean).join(" ");
  $("import-progress").hidden = !running;
  if (job.found) $("import-progress").removeAttribute("value"); // indeterminate: the total is unknown until the end
  $("import-cancel").hidden = !running;
  $("import-start").disabled = running;
  $("import-problems").replaceChildren(...job.problems.map((p) => el("li", { text: `${p.file}: ${p.reason}` })));
}

async function pollImport(epoch) {
  if (epoch !== state.epoch || !state.importId) return;
  try {
    const job = await state.api.getImport(state.importId);
    if (epoch !== state.epoch) return;
    showImport(job);
    if (job.status === "queued" || job.status === "running") {
      state.importTimer = setTimeout(() => pollImport(epoch), JOB_POLL_MS);
    } else {
      state.importId = null;
      refreshNotes(); // the imported notes join the list, each at its own date
    }
  } catch (err) {
    if (epoch === state.epoch) $("import-status").textContent = `Could not follow the import. ${describeError(err)}`;
  }
}

$("import-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const file = $("import-file").files[0];
  if (!file) { $("import-status").textContent = "Choose a file to import first."; return; }
  const epoch = state.epoch;
  $("import-start").disabled = true;
  $("import-problems").replaceChildren();
  $("import-status").textContent = `Uploading ${file.name}…`;
  try {
    const job = await state.api.startImport(file);
    if (epoch !== state.epoch) return;
    state.importId = job.id;
    showImport(job);
    state.importTimer = setTimeout(() => pollImport(epoch), JOB_POLL_MS);
  } catch (err) {
    if (epoch !== state.epoch) return;
    $("import-start").disabled = false;
    $("import-status").textContent = `The import could not start. ${describeError(err)}`;
  }
});

$("import-cancel").addEventListener("click", async () => {
  if (!state.importId) return;
  const epoch = state.epoch;
  try {
    const job = await state.api.cancelImport(state.importId);
    if (epoch === state.epoch) showImport(job);
  } catch (err) {
    if (epoch === state.epoch) $("import-status").textContent = `Could not cancel. ${describeError(err)}`;
  }
});

async function pollExport(epoch, id) {
  if (epoch !== state.epoch) return;
  try {
    const job = await state.api.getExport(id);
    if (epoch !== state.epoch) return;
    if (job.status !== "done") {
      state.exportTimer = setTimeout(() => pollExport(epoch, id), JOB_POLL_MS);
      return;
    }
    const blob = await state.api.exportArchive(job.download);
    if (epoch !== state.epoch) return;
    state.exportUrl = URL.createObjectURL(blob);
    const link = $("export-link");
    link.href = state.exportUrl;
    link.download = `footnote-export-${job.finishedAt.slice(0, 10)}.zip`;
    link.hidden = false;
    $("export-status").textContent = `Your archive is ready: ${plural(job.notes, "note")} and ${plural(job.conversations, "conversation")}.`;
    $("export-start").disabled = false;
    link.focus();
  } catch (err) {
    if (epoch !== state.epoch) return;
    $("export-start").disabled = false;
    $("export-status").textContent = `The export failed. ${describeError(err)}`;
  }
}

$("export-start").addEventListener("click", async () => {
  const epoch = state.epoch;
  $("export-start").disabled = true;
  $("export-link").hidden = true;
  $("export-status").textContent = "Preparing your archive…";
  try {
    const job = await state.api.startExport();
    if (epoch === state.epoch) pollExport(epoch, job.id);
  } catch (err) {
    if (epoch !== state.epoch) return;
    $("export-start").disabled = false;
    $("export-status").textContent = `The export could not start. ${describeError(err)}`;
  }
});

// -- search ----------------------------------------------------------------------------
$("search-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const query = $("search-query").value.trim();
  if (!query) return;
  $("search-error").textContent = "";
  $("search-results").setAttribute("aria-busy", "true");
  const ticket = ++state.searchTicket;
  try {
    const result = await state.api.search(query);
    if (ticket !== state.searchTicket) return; // signed out, or searched again since
    const list = $("search-results");
    list.replaceChildren();
    for (const r of result.results) {
      // Only what contributed: a signal that scored 0 is neither listed nor named.
      const scored = Object.entries(r.breakdown || {}).filter(([, v]) => Math.abs(Number(v)) >= 0.00005);
      const breakdown = el("dl", { class: "breakdown", "aria-label": "Score breakdown" });
      for (const [k, v] of scored) {
        breakdown.append(el("div", {}, el("dt", { text: k }), el("dd", { text: Number(v).toFixed(4) })));
      }
      const via = (r.sources || []).filter((s) => !(s in (r.breakdown || {})) || scored.some(([k]) => k === s));
      const title = r.title || "";
      list.append(el("li", { class: "result", dataset: { noteId: r.noteId } },
        title ? el("h2", { class: "result-title", text: title }) : null,
        el("p", { class: "result-head" },
          // How well the passage matches (its support: the better of meaning and the share
          // of the query's words it holds), not the fused rank score, which is relative to
          // the other candidates and reads 0 when a passage is the only one.
          el("strong", { title: `rank score ${Number(r.score).toFixed(4)}`, text: `${Math.round(100 * Number(r.similarity))}% match` }),
          r.memoryType ? el("span", { class: "type", title: "Memory type", text: r.memoryType }) : null,
          el("span", { class: "hint", text: [formatDate(r.createdAt),
            via.length ? `via ${via.join(" + ")}` : ""].filter(Boolean).join(" · ") })),
        el("p", { class: "result-text", text: withoutTitle(r.text, title) }),
        scored.length ? breakdown : null,
        el("button", { type: "button", class: "link", text: "Open note", onclick: () => openNote(r.noteId, { passage: r.text }) })));
    }
    const strategy = result.meta && result.meta.strategy;
    $("search-meta").textContent = result.results.length
      ? `${result.results.length} ${result.results.length === 1 ? "passage" : "passages"} · ${strategy ? strategy.replaceAll("_", " ") : ""}`
      : "Nothing in your notes matches that.";
  } catch (err) {
    if (ticket === state.searchTicket) $("search-error").textContent = `Search failed. ${describeError(err)}`;
  } finally {
    if (ticket === state.searchTicket) $("search-results").removeAttribute("aria-busy");
  }
});

boot();
