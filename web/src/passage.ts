// Where a cited passage sits in its note. Snippets come from the indexed chunk with
// whitespace collapsed, note-side "[N1]" rewritten to "(N1)" and long ones cut with "…",
// so the match is on words with any whitespace between them, shortening from the end
// until it is found.

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function wordPattern(word: string): string {
  // "(N3)" in a snippet was "[N3]" in the note; "‹x›" was "<x>".
  return escape(word)
    .replace(/\\\((N\d+)\\\)/g, "[([]$1[)\\]]")
    .replace(/‹/g, "[‹<]")
    .replace(/›/g, "[›>]");
}

/**
 * [start, end) of the passage in text, or null. Indexed chunks start with the note's
 * title, which is not part of its text: a leading title (or a few leading words that
 * are not in the text) is skipped.
 */
export function findPassage(text: string, passage: string, title = ""): [number, number] | null {
  if (!text || !passage) return null;
  let clean = passage.replace(/…\s*$/, "").trim();
  if (title && clean.startsWith(title.trim())) clean = clean.slice(title.trim().length);
  const words = clean.split(/\s+/).filter(Boolean);
  const cut = /…\s*$/.test(passage);
  for (let start = 0; start < Math.min(words.length, 8); start += 1) {
    const rest = words.slice(start);
    for (let n = rest.length; n >= Math.min(rest.length, 4) && n > 0; n -= Math.max(1, Math.floor(n / 8))) {
      const m = new RegExp(rest.slice(0, n).map(wordPattern).join("\\s+")).exec(text);
      if (!m) continue;
      // Extend to the end of the sentence when the snippet was cut short.
      let end = m.index + m[0].length;
      if (n < rest.length || cut) {
        const stop = text.slice(end).search(/[.!?](\s|$)/);
        if (stop !== -1 && stop < 400) end += stop + 1;
      }
      return [m.index, end];
    }
  }
  return null;
}
