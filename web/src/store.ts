// What the client holds for the signed-in user, in one typed place. Each view keeps
// its own small state beside its code and registers a reset here; a change of user
// (sign-in, sign-out, account deleted) resets all of it at once, aborts what is in
// flight and starts a new epoch, so a response for an earlier user is dropped.
import type { Note } from "./api/types";
import { noteLabel } from "./text";

/** The signed-in user, as far as the client needs one (a Firebase User). */
export interface SignedInUser {
  readonly uid: string;
  readonly email: string | null;
}

/** A note as last seen; `retryUntil`: after "Retry indexing", a stale "failed" is not shown again until then. */
export type ListedNote = Note & { retryUntil?: number };

/** What the client knows of a note it cites or finds but has not listed. */
export interface KnownNote {
  readonly title: string;
  readonly label: string;
}

export class Store {
  private currentUser: SignedInUser | null = null;
  private currentEpoch = 0;
  private session = new AbortController();
  private readonly resets: Array<() => void> = [];
  /** id -> note, as the notes list last saw it. */
  readonly notes = new Map<string, ListedNote>();
  /** noteId -> title and label of cited or found notes the list has not loaded. */
  private readonly titles = new Map<string, KnownNote>();

  get user(): SignedInUser | null { return this.currentUser; }
  /** One per signed-in session: compare it after an await to drop a stale response. */
  get epoch(): number { return this.currentEpoch; }
  /** Aborted at the next change of user. */
  get signal(): AbortSignal { return this.session.signal; }

  isCurrent(epoch: number): boolean { return epoch === this.currentEpoch; }

  /** Run `reset` at every change of user, so the next one starts empty. */
  onReset(reset: () => void): void { this.resets.push(reset); }

  /**
   * Forget everything of the user who was signed in: requests in flight, what the
   * client holds and (through the views' resets) every piece of the page that showed it.
   */
  switchUser(user: SignedInUser | null): void {
    this.session.abort();
    this.session = new AbortController();
    this.currentEpoch += 1;
    this.notes.clear();
    this.titles.clear();
    this.currentUser = null;
    for (const reset of this.resets) reset();
    this.currentUser = user;
  }

  remember(note: Pick<Note, "id" | "title" | "text">): void {
    this.titles.set(note.id, { title: note.title || "", label: noteLabel(note) });
  }

  known(noteId: string): KnownNote | undefined {
    const note = this.notes.get(noteId);
    return note ? { title: note.title || "", label: noteLabel(note) } : this.titles.get(noteId);
  }
}
