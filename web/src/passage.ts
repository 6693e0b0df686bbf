// Where a citation sits in its note: the cited passage (the indexed chunk's snippet),
// and within it the sentence the answer quotes (its claim).
//
// Snippets come from the indexed chunk with whitespace collapsed, note-side "[N1]"
// rewritten to "(N1)" and long ones cut with "…", so the passage match is on words
// with any whitespace between them, shortening from the end until it is found.
// A claim is matched on its words alone (case, whitespace and punctuation aside), so a
// sentence the offline generator quoted is found whatever it did to the punctuation;
// a model's paraphrase is not found, and the passage is marked instead.

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

const MARKER = /\[(N\d+)\]/g;
// Markers cited together ("[N1][N2]", "[N1], [N2]") and the sentence's end after them.
const AFTER_MARKER = /^[\s,;]*([.!?…]?)/;

/**
 * Each [N#] marker of an answer, in order, with the claim it cites: the text from the
 * previous marker (or the start of its line) up to it, without its markers, bullets or
 * the previous sentence's end. Answers are checked sentence by sentence, each ending
 * with its markers ("It cost 85 euros [N1]."), so that is the sentence that carries it.
 * Markers cited together share the claim.
 */
export function claimsOf(answer: string): { cid: string; claim: string }[] {
  const out: { cid: string; claim: string }[] = [];
  let from = 0;
  let previous = "";
  for (const m of answer.matchAll(MARKER)) {
    let segment = answer.slice(from, m.index);
    from = m.index + m[0].length;
    segment = segment.slice(segment.lastIndexOf("\n") + 1) // the marker's line
      .replace(/^[\s.,;:!?…)\]]*/, "") // the end of the sentence before
      .replace(/^(?:[-*•]|\d+[.)])\s+/, "") // a list item's bullet
      .trim();
    if (!/[\p{L}\p{N}]/u.test(segment)) { // cited together with the marker before
      out.push({ cid: m[1]!, claim: previous });
      continue;
    }
    const end = AFTER_MARKER.exec(answer.slice(from).replace(/^(?:[\s,;]*\[N\d+\])*/, ""))?.[1] ?? "";
    previous = /[.!?…]$/.test(segment) ? segment : segment + end;
    out.push({ cid: m[1]!, claim: previous });
  }
  return out;
}

interface Token { word: string; start: number; end: number }

/** Words (letters, marks and digits), lower-cased, with where each is in the text. */
function tokens(s: string): Token[] {
  return [...s.matchAll(/[\p{L}\p{M}\p{N}]+/gu)].map((m) => ({
    word: m[0].normalize("NFC").toLowerCase(), start: m.index, end: m.index + m[0].length,
  }));
}

// "Lena: " ahead of a quoted line: who said it, which the note may say elsewhere (a
// label heading the lines under it) or not at all.
const SPEAKER_LABEL = /^\s*\p{Lu}[\p{L}\p{N}.'’-]*(?:\s\p{Lu}[\p{L}\p{N}.'’-]*){0,2}:\s+/u;
const SENTENCE_GAP = /[.!?…]["'”’)\]]*\s+/g;
/** A claim has at least this many words: "Yes." is found in too many notes to mean one place. */
const MIN_CLAIM_WORDS = 2;
/** The indexed chunk a snippet starts: at most this long (CHUNK_SIZE), title included. */
const CHUNK_CHARS = 450;

/** The claim, then without its speaker label, then without its first sentence(s): the
 * answer's sentence may start with words of its own ("Yes. It cost 85 euros"). */
function claimVariants(claim: string): string[] {
  const starts = [0, ...[...claim.matchAll(SENTENCE_GAP)].map((m) => m.index + m[0].length)];
  const out: string[] = [];
  for (const start of starts) {
    const piece = claim.slice(start);
    out.push(piece, piece.replace(SPEAKER_LABEL, ""));
  }
  return [...new Set(out)];
}

/** [start, end) grown to the whole sentence(s) it is in: after the sentence end, line
 * break or label before it, to its own sentence end (or line end) after it. */
function wholeSentences(text: string, start: number, end: number): [number, number] {
  const REACH = 300;
  const from = Math.max(0, start - REACH);
  let s = start;
  let boundary = -1;
  for (const m of text.slice(from, start).matchAll(/[.!?…]["'”’)\]]*\s+|:\s+|\n/g)) boundary = from + m.index + m[0].length;
  if (boundary !== -1) s = boundary;
  else if (from === 0) s = 0;
  if (s < start) {
    // Not the bullet of a list item, nor the spaces before the sentence.
    const lead = /^\s*(?:(?:[-*•]|\d+[.)]|\[[ xX]?\])\s+)?/.exec(text.slice(s, start))![0];
    s += lead.length;
  }
  let e = end;
  const after = text.slice(end, end + REACH);
  const stop = /[.!?…]+["'”’)\]]*(?=\s|$)|\n/.exec(after);
  if (stop) e = end + (stop[0] === "\n" ? stop.index : stop.index + stop[0].length);
  else if (end + REACH >= text.length) e = end + after.trimEnd().length;
  return [Math.min(s, start), Math.max(e, end)];
}

/**
 * [start, end) of the sentence(s) of text that a claim quotes, or null when its words
 * are not there in order (a paraphrase). Whitespace, case and punctuation may differ,
 * and a leading speaker label ("Lena: ") may be missing from the note. When the claim
 * is there more than once, the occurrence in the cited passage wins (`near`: the
 * passage's range; the chunk behind it runs on for up to CHUNK_CHARS), then the nearest.
 */
export function findClaim(text: string, claim: string, near: [number, number] | null = null): [number, number] | null {
  if (!text || !claim) return null;
  const hay = tokens(text);
  for (const variant of claimVariants(claim)) {
    const needle = tokens(variant).map((t) => t.word);
    if (needle.length < MIN_CLAIM_WORDS) continue;
    let best: { start: number; end: number; cost: number } | null = null;
    for (let i = 0; i + needle.length <= hay.length; i += 1) {
      if (!needle.every((w, k) => hay[i + k]!.word === w)) continue;
      const start = hay[i]!.start;
      const end = hay[i + needle.length - 1]!.end;
      let cost = 0;
      if (near) {
        const [p0, p1] = near;
        const chunkEnd = Math.max(p1, p0 + CHUNK_CHARS);
        if (end <= p0) cost = CHUNK_CHARS + (p0 - end); // before the passage
        else if (start >= p1) cost = start < chunkEnd ? 1 + (start - p1) / CHUNK_CHARS : CHUNK_CHARS + (start - chunkEnd);
      }
      if (!best || cost < best.cost) best = { start, end, cost };
      if (cost === 0) break;
    }
    if (best) return wholeSentences(text, best.start, best.end);
  }
  return null;
}

/** What the note dialog marks for a citation: the claim's sentence(s) when they are in
 * the note, else the cited passage; null when neither is (the note was edited since). */
export function findCited(
  text: string,
  { passage = null, claim = null, title = "" }: { passage?: string | null; claim?: string | null; title?: string },
): { range: [number, number]; what: "sentence" | "passage" } | null {
  const around = passage ? findPassage(text, passage, title) : null;
  const sentence = claim ? findClaim(text, claim, around) : null;
  if (sentence) return { range: sentence, what: "sentence" };
  return around ? { range: around, what: "passage" } : null;
}

/** One quoted note of an offline answer: its heading (title and date), its source and its lines. */
export interface QuoteBlock {
  heading: string;
  cid: string;
  lines: string[];
}

const QUOTE_HEADING = /^(.*\S) \[(N\d+)\]:$/;

/**
 * The blocks of an answer that quotes notes (the offline answer: each quoted note under a
 * heading "Title, 7 May 2026 [N1]:", then its lines, each citing that note alone), or
 * null when the answer is not all in that shape (a model's prose).
 */
export function quoteBlocks(answer: string): QuoteBlock[] | null {
  const blocks: QuoteBlock[] = [];
  for (const part of answer.trim().split(/\n\s*\n/)) {
    const [first, ...lines] = part.split("\n");
    const head = QUOTE_HEADING.exec(first ?? "");
    if (!head || !lines.length) return null;
    const cid = head[2]!;
    for (const line of lines) {
      const cited = [...line.matchAll(MARKER)].map((m) => m[1]);
      if (!cited.length || cited.some((c) => c !== cid)) return null;
    }
    blocks.push({ heading: head[1]!, cid, lines });
  }
  return blocks.length ? blocks : null;
}

/** The claims an answer cites, as ``claimsOf``; of a quoting answer, its quoted lines' (a heading names its note, it is not a claim). */
export function quotedClaims(answer: string): { cid: string; claim: string }[] {
  const blocks = quoteBlocks(answer);
  return blocks ? claimsOf(blocks.flatMap((b) => b.lines).join("\n")) : claimsOf(answer);
}
