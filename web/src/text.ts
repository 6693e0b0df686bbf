// How notes and counts are written on the page: pure functions of their input.

/** A note's name in lists and dialogs: its title, else its first line (cut at 60). */
export function noteLabel(note: { title?: string | null; text?: string | null } | null | undefined): string {
  if (note && note.title) return note.title;
  const first = ((note && note.text) || "").trim().split(/\n/)[0] ?? "";
  return first.length > 60 ? `${first.slice(0, 59)}…` : first || "Untitled note";
}

/** A chunk's text starts with its note's title (the indexer puts it there): not twice. */
export function withoutTitle(text: string, title: string | null | undefined): string {
  const t = (title || "").replace(/\s+/g, " ").trim();
  const s = (text || "").replace(/^\s+/, "");
  if (!t || !s.replace(/\s+/g, " ").startsWith(t)) return text;
  // Skip the title's words, whatever whitespace stands between them in the text.
  let rest = s;
  for (const w of t.split(" ")) rest = rest.replace(/^\s*/, "").slice(w.length);
  return rest.replace(/^[\s:—–-]+/, "") || text;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "hybrid_reranked" as people read it. */
export const spaced = (name: string): string => name.replaceAll("_", " ");
