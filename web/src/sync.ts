// The notes list's rules for the change feed (GET /notes/changes), as pure functions.
import type { IndexStatus, Note } from "./api/types";

export type ShownStatus = IndexStatus | "unknown";

/** A note whose state the client has not been told yet shows none ("unknown"). */
export const statusOf = (note: Pick<Note, "indexStatus">): ShownStatus => note.indexStatus || "unknown";

/** States the poller follows until they settle. */
export const isLive = (note: Pick<Note, "indexStatus">): boolean => {
  const status = statusOf(note);
  return status === "pending" || status === "unknown";
};

/** The note's version, from its ETag ("3" -> 3); NaN when it has none. */
export const versionOf = (note: Pick<Note, "etag"> | undefined): number =>
  Number.parseInt(String(note?.etag || "").replace(/\D/g, ""), 10);

/** The list's order, as GET /notes pages it: newest created first, ties by id. */
export function listedBefore(a: Pick<Note, "createdAt" | "id">, b: Pick<Note, "createdAt" | "id">): boolean {
  const [ta, tb] = [Date.parse(a.createdAt), Date.parse(b.createdAt)];
  if (ta !== tb) return ta > tb;
  return a.id > b.id;
}

export type Placement = { kind: "replace" } | { kind: "skip" } | { kind: "before"; id: string } | { kind: "append" };

/**
 * Where a note the feed sends goes in a list showing `listed` (ids in order; `notes`
 * by id): in place if listed and newer, nowhere if no newer than the listed version,
 * else before the first listed note it comes before; at the end only when the list is
 * complete (a note older than every listed one comes with its page, as it scrolls into view).
 */
export function placement(note: Note, listed: readonly string[], notes: ReadonlyMap<string, Note>, hasMore: boolean): Placement {
  const had = notes.get(note.id);
  if (had) return versionOf(note) <= versionOf(had) ? { kind: "skip" } : { kind: "replace" };
  const next = listed.find((id) => {
    const other = notes.get(id);
    return other !== undefined && listedBefore(note, other);
  });
  if (next !== undefined) return { kind: "before", id: next };
  return hasMore ? { kind: "skip" } : { kind: "append" };
}
