// The Search view: passages that match a query, each with how well it matches and
// which signals found it.
import type { Api } from "../api/client";
import { describeError } from "../api/errors";
import type { SearchHit, SearchResponse } from "../api/types";
import { $, el, formatDate } from "../dom";
import type { Store } from "../store";
import { spaced, withoutTitle } from "../text";
import type { NoteOpener } from "./notes";

/** Only what contributed: a signal that scored 0 is neither listed nor named. */
export function contributions(hit: Pick<SearchHit, "breakdown" | "sources">): { scored: [string, number][]; via: string[] } {
  const breakdown = hit.breakdown || {};
  const scored = Object.entries(breakdown).filter(([, v]) => Math.abs(Number(v)) >= 0.00005);
  const via = (hit.sources || []).filter((s) => !(s in breakdown) || scored.some(([k]) => k === s));
  return { scored, via };
}

/** What finds a passage, as a person would say it. Recency only reorders what was
 * found (it finds nothing), so it is not named. */
export const SIGNAL_WORDS: Readonly<Record<string, string>> = {
  dense: "its meaning", vector: "its meaning", keyword: "your words", bm25: "your words", sparse: "your words",
};

/** What found the passage, in words ("found by its meaning and your words"); the
 * signals' fused scores are relative to the other candidates and mean nothing read
 * alone ("recency −0.1058"), so they are left to the hover title. */
export function foundBy({ scored, via }: { scored: [string, number][]; via: string[] }): string {
  const helped = [...via, ...scored.filter(([, v]) => Number(v) > 0).map(([k]) => k)];
  const words = [...new Set(helped.filter((k) => k in SIGNAL_WORDS).map((k) => SIGNAL_WORDS[k]!))];
  if (!words.length) return "";
  const last = words.pop()!;
  return `found by ${words.length ? `${words.join(", ")} and ${last}` : last}`;
}

export function resultItem(hit: SearchHit, openNote: NoteOpener): HTMLLIElement {
  const signals = contributions(hit);
  const { scored } = signals;
  const found = foundBy(signals);
  const scores = [`rank score ${Number(hit.score).toFixed(4)}`,
    ...scored.map(([k, v]) => `${k} ${Number(v).toFixed(4)}`)].join("\n");
  const title = hit.title || "";
  return el("li", { class: "result", dataset: { noteId: hit.noteId } },
    title ? el("h2", { class: "result-title", text: title }) : null,
    el("p", { class: "result-head" },
      // How well the passage matches (its support: the better of meaning and the share
      // of the query's words it holds), not the fused rank score, which is relative to
      // the other candidates and reads 0 when a passage is the only one.
      el("strong", { title: scores, text: `${Math.round(100 * Number(hit.similarity))}% match` }),
      hit.memoryType ? el("span", { class: "type", title: "Memory type", text: hit.memoryType }) : null,
      el("span", { class: "hint", text: [formatDate(hit.createdAt), found].filter(Boolean).join(" · ") })),
    el("p", { class: "result-text", text: withoutTitle(hit.text, title) }),
    el("button", { type: "button", class: "link", text: "Open note", onclick: () => openNote(hit.noteId, { passage: hit.text }) }));
}

export function searchSummary(result: SearchResponse): string {
  const n = result.results.length;
  if (!n) return "Nothing in your notes matches that.";
  const strategy = result.meta?.strategy;
  return `${n} ${n === 1 ? "passage" : "passages"} · ${strategy ? spaced(strategy) : ""}`;
}

export function searchView(store: Store, api: Api, openNote: NoteOpener): void {
  const form = $<HTMLFormElement>("search-form");
  const results = $("search-results");
  const error = $("search-error");
  const meta = $("search-meta");
  let ticket = 0;

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const query = $<HTMLInputElement>("search-query").value.trim();
    if (!query) return;
    error.textContent = "";
    results.setAttribute("aria-busy", "true");
    const mine = ++ticket;
    try {
      const result = await api.search(query);
      if (mine !== ticket) return; // signed out, or searched again since
      results.replaceChildren(...result.results.map((hit) => resultItem(hit, openNote)));
      meta.textContent = searchSummary(result);
    } catch (err) {
      if (mine === ticket) error.textContent = `Search failed. ${describeError(err)}`;
    } finally {
      if (mine === ticket) results.removeAttribute("aria-busy");
    }
  });

  store.onReset(() => {
    ticket += 1;
    results.replaceChildren();
    meta.textContent = "";
    error.textContent = "";
    form.reset();
  });
}
