// A note's tags as people write and see them: comma-separated in a text field (the
// API takes and gives a list), small chips on the page. The API keeps its own limits
// (how many, how long) and says so when one is passed: the client shows its message.
import { el } from "./dom";

/**
 * "home, todo" -> ["home", "todo"]: each tag trimmed (inner runs of spaces made one),
 * blanks dropped, and a repeat in any case ("Home" after "home") kept once, as first written.
 */
export function parseTags(input: string): string[] {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const part of input.split(",")) {
    const tag = part.replace(/\s+/g, " ").trim();
    const key = tag.toLocaleLowerCase();
    if (!tag || seen.has(key)) continue;
    seen.add(key);
    tags.push(tag);
  }
  return tags;
}

/** The tags as the edit field shows them; parseTags reads them back unchanged. */
export const tagsText = (tags: readonly string[] | null | undefined): string => (tags || []).join(", ");

/** One chip per tag; the chip is cut with an ellipsis when long, so the whole tag is its tooltip. */
export function tagItems(tags: readonly string[] | null | undefined): HTMLLIElement[] {
  return (tags || []).map((tag) => el("li", { class: "tag", title: tag, text: tag }));
}

/** A note's tags as a list named "Tags", or nothing for a note without any. */
export function tagList(tags: readonly string[] | null | undefined): HTMLUListElement | null {
  const items = tagItems(tags);
  return items.length ? el("ul", { class: "tags", "aria-label": "Tags" }, ...items) : null;
}
