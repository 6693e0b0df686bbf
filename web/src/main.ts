// Footnote's web client: one page, a view per tab over one store (store.ts). This
// module starts Firebase Auth, builds the views and switches between them.
import { initializeApp } from "firebase/app";
import {
  browserLocalPersistence,
  connectAuthEmulator,
  initializeAuth,
  onAuthStateChanged,
  type Auth,
  type User,
} from "firebase/auth";
import { Api } from "./api/client";
import { describeError } from "./api/errors";
import { MEMORY_TYPES } from "./api/types";
import { $, clearToast, memoryTypeChoices } from "./dom";
import { Store } from "./store";
import { accountView, type Session } from "./views/account";
import { askView } from "./views/ask";
import { citations } from "./views/citations";
import { dataView } from "./views/data";
import { noteDialog, type NoteDialog } from "./views/note-dialog";
import { notesView, type NoteOpener } from "./views/notes";
import { searchView } from "./views/search";
import "./styles.css";

type ViewName = "notes" | "ask" | "search";
const VIEWS: readonly ViewName[] = ["notes", "ask", "search"];
const FOCUS: Readonly<Record<ViewName, string>> = { notes: "notes-title", ask: "question", search: "search-query" };

interface FirebaseWebConfig {
  apiKey: string;
  authDomain?: string;
  projectId: string;
  /** The local dev server's: where the Auth emulator answers. */
  authEmulator?: string;
  apiBase?: string;
}

async function firebaseConfig(): Promise<FirebaseWebConfig> {
  // Hosting serves the project's web config here; the local dev server serves the
  // demo project's, with `authEmulator` saying where the Auth emulator answers.
  const response = await fetch("/__/firebase/init.json");
  if (!response.ok) throw new Error("Hosting did not serve /__/firebase/init.json");
  return (await response.json()) as FirebaseWebConfig;
}

/** Firebase Auth and the API client, from the configuration Hosting serves. */
async function connect(store: Store): Promise<Session> {
  const config = await firebaseConfig();
  const app = initializeApp(config);
  // initializeAuth without a popup/redirect resolver: e-mail sign-in needs no auth iframe.
  const auth = initializeAuth(app, { persistence: browserLocalPersistence });
  if (config.authEmulator) connectAuthEmulator(auth, config.authEmulator, { disableWarnings: true });
  const api = new Api(config.apiBase || "/api", () => auth.currentUser!.getIdToken(), () => store.signal);
  return { auth, api };
}

async function boot(): Promise<void> {
  // The memory types come from the API's schema (domain.MemoryType), not a copy in HTML.
  memoryTypeChoices($<HTMLSelectElement>("note-type"), $<HTMLFieldSetElement>("type-filter"), MEMORY_TYPES);
  const store = new Store();
  const session = connect(store);
  session.catch(() => undefined); // reported below; a waiting click just does nothing
  const account = accountView(store, session);
  let auth: Auth;
  let api: Api;
  try {
    ({ auth, api } = await session);
  } catch (err) {
    $("auth-error").textContent = `Footnote could not start. ${describeError(err)}`;
    return;
  }

  // The views name each other through these: the dialog is built after the list.
  let dialog: NoteDialog | null = null;
  const openNote: NoteOpener = (id, options) => void dialog?.open(id, options);
  const notes = notesView(store, api, openNote);
  const cites = citations(store, api, openNote);
  dialog = noteDialog(store, api, notes, cites.hidePreview);
  const ask = askView(store, api, cites);
  searchView(store, api, openNote);
  dataView(store, api, () => void notes.refresh());
  store.onReset(clearToast);

  function showView(name: ViewName, focus = true): void {
    clearToast();
    for (const tab of document.querySelectorAll<HTMLElement>(".tab")) {
      if (tab.dataset.view === name) tab.setAttribute("aria-current", "page");
      else tab.removeAttribute("aria-current");
    }
    for (const view of VIEWS) $(`${view}-view`).hidden = view !== name;
    if (name === "ask") ask.shown();
    if (focus) $(FOCUS[name]).focus();
  }
  for (const tab of document.querySelectorAll<HTMLElement>(".tab")) {
    tab.addEventListener("click", () => showView(tab.dataset.view as ViewName));
  }

  onAuthStateChanged(auth, (user: User | null) => {
    if (user && store.user && user.uid === store.user.uid) return; // a token refresh
    store.switchUser(user);
    account.showUser(user);
    if (user) {
      showView("notes", false);
      notes.start();
      ask.start();
    }
  });
}

void boot();
