// Citations: an answer's [N#] markers as chips (with a preview of the passage), and
// the Sources panel listing the cited notes. Either opens the note on the sentence the
// answer quotes from it (its claim), found in the cited passage.
import type { Api } from "../api/client";
import type { Citation } from "../api/types";
import { $, el, formatDate } from "../dom";
import { claimsOf, quoteBlocks, quotedClaims } from "../passage";
import type { Store } from "../store";
import { withoutTitle } from "../text";
import type { NoteOpener } from "./notes";

const MARKER = /\[(N\d+)\]/g;
// Below this support (the API's description says so) a citation is marked weak: the
// note supports the sentence only in part, and the reader should check it.
const WEAK_SUPPORT = 0.7;

export function weaklySupported(citation: Citation): boolean {
  return citation.support < WEAK_SUPPORT;
}

export interface Citations {
  /** Answer text with its [N#] markers as chips; text always as text nodes. */
  renderAnswer(container: HTMLElement, text: string, citations: readonly Citation[]): void;
  /** The cited notes; `answer`, the text citing them, says which sentence each is opened on. */
  renderSources(citations: readonly Citation[], answer?: string): void;
  hidePreview(): void;
}

export function citations(store: Store, api: Api, openNote: NoteOpener): Citations {
  const preview = $("preview");
  const sourcesList = $("sources-list");
  const sourcesEmpty = $("sources-empty");
  // What the sources panel shows, to redraw it once titles are known.
  let shown: { cited: readonly Citation[]; answer: string } = { cited: [], answer: "" };

  const labelOf = (noteId: string): string => store.known(noteId)?.label ?? "Open note";
  const snippetOf = (noteId: string, snippet: string): string => withoutTitle(snippet, store.known(noteId)?.title);

  /** Read the titles of cited notes the list has not loaded, then redraw the sources. */
  async function learnTitles(noteIds: readonly string[]): Promise<void> {
    const { epoch } = store;
    const missing = [...new Set(noteIds)].filter((id) => !store.known(id));
    if (!missing.length) return;
    await Promise.all(missing.map(async (id) => {
      try {
        const note = await api.getNote(id);
        if (store.isCurrent(epoch)) store.remember(note);
      } catch { /* deleted since: its snippet stays as it is */ }
    }));
    if (store.isCurrent(epoch)) drawSources(shown.cited, shown.answer, false);
  }

  function chip(cid: string, citation: Citation | undefined, claim: string): HTMLButtonElement {
    const n = cid.replace(/^N/, "");
    const weak = citation !== undefined && weaklySupported(citation);
    const label = citation
      ? `Source ${n}: ${store.known(citation.noteId) ? labelOf(citation.noteId) : "a note"}, ${formatDate(citation.createdAt)}${weak ? ", weakly supported" : ""}. Opens the note.`
      : `Source ${n}`;
    const button = el("button", {
      type: "button", class: weak ? "chip weak" : "chip", text: n, "aria-label": label,
      dataset: citation ? { cid, noteId: citation.noteId } : { cid }, disabled: !citation,
    });
    if (weak) button.title = "The note only partly supports this sentence: check it.";
    if (citation) {
      button.setAttribute("aria-describedby", "preview");
      button.addEventListener("click", () => openNote(citation.noteId, { passage: citation.snippet, claim }));
      button.addEventListener("mouseenter", () => showPreview(button, citation));
      button.addEventListener("focus", () => showPreview(button, citation));
      button.addEventListener("mouseleave", hidePreview);
      button.addEventListener("blur", hidePreview);
    }
    return button;
  }

  function showPreview(anchor: HTMLElement, citation: Citation): void {
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

  function hidePreview(): void { preview.hidden = true; }

  function renderAnswer(container: HTMLElement, text: string, cited: readonly Citation[]): void {
    const byCid = new Map(cited.map((c) => [c.cid, c]));
    /** ``part`` as text nodes, its markers as chips opening the note on their claims. */
    function inline(part: string): Node[] {
      const claims = claimsOf(part); // one a marker, in the same order
      const nodes: Node[] = [];
      let last = 0;
      for (const [i, m] of [...part.matchAll(MARKER)].entries()) {
        if (m.index > last) nodes.push(document.createTextNode(part.slice(last, m.index)));
        nodes.push(chip(m[1]!, byCid.get(m[1]!), claims[i]?.claim ?? ""));
        last = m.index + m[0].length;
      }
      if (last < part.length) nodes.push(document.createTextNode(part.slice(last)));
      return nodes;
    }
    const blocks = quoteBlocks(text);
    if (!blocks) {
      container.replaceChildren(...inline(text));
      return;
    }
    // The offline answer quotes notes: each a quotation under its title and date, each
    // line with its chip (the heading names the note; its lines are what is cited).
    container.replaceChildren(...blocks.map((b) => el("figure", { class: "quote" },
      el("figcaption", { class: "quote-head", text: b.heading }),
      el("blockquote", {}, ...b.lines.map((line) => el("p", { class: "quote-line" }, ...inline(line)))))));
  }

  function renderSources(cited: readonly Citation[], answer = ""): void {
    drawSources(cited, answer, true);
  }

  function drawSources(cited: readonly Citation[], answer: string, learn: boolean): void {
    shown = { cited, answer };
    // A source opens on the sentence it is first cited for (reversed: the first one is set last).
    const claims = new Map(quotedClaims(answer).reverse().map(({ cid, claim }) => [cid, claim]));
    sourcesList.replaceChildren();
    const byNote = new Map<string, Citation[]>();
    for (const c of cited) byNote.set(c.noteId, [...(byNote.get(c.noteId) ?? []), c]);
    for (const [noteId, cs] of byNote) {
      const first = cs[0]!;
      const numbers = cs.map((c) => c.cid.replace(/^N/, ""));
      sourcesList.append(el("li", { class: "source", dataset: { noteId } },
        el("p", { class: "source-head" },
          ...cs.map((c, i) => el("span", {
            class: weaklySupported(c) ? "chip static weak" : "chip static", text: numbers[i]!, "aria-hidden": "true",
          })),
          el("button", { type: "button", class: "link", text: labelOf(noteId),
            "aria-label": `Open the note cited as ${numbers.join(", ")}`,
            onclick: () => openNote(noteId, { passage: first.snippet, claim: claims.get(first.cid) ?? null }) })),
        el("p", { class: "hint", text: cs.some(weaklySupported)
          ? `${formatDate(first.createdAt)} · weakly supported: check what it says`
          : formatDate(first.createdAt) }),
        el("blockquote", { text: snippetOf(noteId, first.snippet) })));
    }
    if (learn) void learnTitles([...byNote.keys()]);
    sourcesEmpty.hidden = byNote.size > 0;
    sourcesEmpty.textContent = "Cited notes appear here.";
  }

  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !preview.hidden) hidePreview();
  });

  store.onReset(() => {
    shown = { cited: [], answer: "" };
    sourcesList.replaceChildren();
    sourcesEmpty.hidden = false;
    $("preview-date").textContent = "";
    $("preview-snippet").textContent = "";
    hidePreview();
  });

  return { renderAnswer, renderSources, hidePreview };
}
