// The page's building blocks. Every piece of note or answer text reaches the page
// through textContent / createTextNode, never as HTML.

/** The element with this id in index.html (a missing one is a bug: it throws). */
export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is not in the page`);
  return node as T;
}

type Handler = (event: Event) => void;
export interface Props {
  class?: string;
  text?: string;
  dataset?: Record<string, string>;
  [attribute: `on${string}`]: Handler | undefined;
  [attribute: string]: string | boolean | null | undefined | Handler | Record<string, string>;
}

export type Child = Node | string | null | undefined;

/** An element with attributes, text, data-*, listeners (onclick...) and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value as string;
    else if (key === "text") node.textContent = value as string;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (typeof value === "function") node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : (value as string));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

let toastTimer = 0;
let toastNote: string | null = null;
/**
 * A short message in the bar; it belongs to the view it was shown in. ``about``: the
 * note it speaks of while that note is being indexed ("It becomes searchable once
 * indexed"), whose badge ends it (``noteSettled``) rather than let it outlive what it says.
 */
export function toast(message: string, about: string | null = null): void {
  $("toast").textContent = message;
  toastNote = about;
  clearTimeout(toastTimer);
  toastTimer = window.setTimeout(clearToast, 4000);
}
/** Leaving the view (or signing out) ends the toast. */
export function clearToast(): void {
  clearTimeout(toastTimer);
  toastNote = null;
  $("toast").textContent = "";
}
/** A note's indexing ended (Indexed, or failed): a toast about it has said its piece. */
export function noteSettled(noteId: string): void {
  if (toastNote === noteId) clearToast();
}

/** The memory types, from the API's schema, as options of a select or checkboxes of a fieldset. */
export function memoryTypeChoices(select: HTMLSelectElement, fieldset: HTMLFieldSetElement, types: readonly string[]): void {
  select.append(...types.map((t) => el("option", { value: t, text: t })));
  fieldset.append(...types.map((t) => el("label", {}, el("input", { type: "checkbox", name: "types", value: t }), ` ${t}`)));
}
