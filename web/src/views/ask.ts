// The Ask view: a question answered as a stream of cited sentences, and the user's
// conversations (GET /conversations: the same on every device, none kept in the browser).
import type { Api } from "../api/client";
import { describeError } from "../api/errors";
import type { ChatRequest, ChatResponse, Conversation, MemoryType } from "../api/types";
import { $, el, formatDate } from "../dom";
import type { Store } from "../store";
import { spaced } from "../text";
import type { Citations } from "./citations";

const REVEAL_MS = 140; // between two streamed sentences arriving at once
const MAX_REVEAL_MS = 1500; // the longest a complete answer waits for its sentences to show

type ListState = "idle" | "loading" | "loaded" | "failed";

/** What an answer's line under it says, and where it comes from (a fresh answer or a stored one). */
export interface FinishedAnswer {
  answer: string;
  citations: ChatResponse["citations"];
  messageId: string;
  meta: { confidence?: number | null; retrieval?: { strategy?: string | null }; fallbacks?: readonly string[] };
}

/** "2 sources · confidence 0.71 · hybrid reranked · fallback: …": how the answer was found. */
export function answerLine(done: FinishedAnswer): string {
  const { meta, citations } = done;
  const bits: string[] = [];
  if (citations.length) bits.push(`${citations.length} source${citations.length > 1 ? "s" : ""}`);
  if (typeof meta.confidence === "number") bits.push(`confidence ${meta.confidence.toFixed(2)}`);
  const strategy = meta.retrieval?.strategy;
  if (strategy) bits.push(spaced(strategy));
  if (meta.fallbacks?.length) bits.push(`fallback: ${meta.fallbacks.join(", ")}`);
  return bits.join(" · ");
}

export interface AskView {
  start(): void;
  /** The view is shown: a conversation list that failed to load (offline at sign-in, say) tries again. */
  shown(): void;
}

export function askView(store: Store, api: Api, cites: Citations): AskView {
  const thread = $("thread");
  const form = $<HTMLFormElement>("ask-form");
  const question = $<HTMLTextAreaElement>("question");
  const askButton = $<HTMLButtonElement>("ask-button");
  const askError = $("ask-error");
  const conversationList = $("conversation-list");
  const moreButton = $<HTMLButtonElement>("more-conversations");
  const listError = $("conversations-error");
  // On a phone the list sits above the thread behind its "Conversations (N)" row, closed
  // until asked for (styles.css: only narrow screens hide it; a wide one always shows it).
  const panel = $("conversations");
  const toggle = $<HTMLButtonElement>("conversations-toggle");
  const count = $("conversations-count");

  let conversationId: string | null = null;
  let streamingId: string | null = null; // a new conversation whose first answer is streaming
  let conversations: Conversation[] = []; // pages so far, most recent activity first
  let cursor: string | null = null;
  let listState: ListState = "idle";
  let listTicket = 0; // a response for an earlier sign-in or reset is dropped
  let openTicket = 0;
  let asking: AbortController | null = null;

  function turnItem(role: "user" | "assistant", text: string): HTMLLIElement {
    const body = el("div", { class: "turn-text" });
    if (text) body.textContent = text;
    const li = el("li", { class: `turn ${role}` }, el("p", { class: "visually-hidden", text: role === "user" ? "You asked:" : "Footnote answered:" }), body);
    thread.append(li);
    return li;
  }

  function finishAnswer(li: HTMLElement, done: FinishedAnswer): void {
    cites.renderAnswer(li.querySelector<HTMLElement>(".turn-text")!, done.answer, done.citations);
    li.dataset.messageId = done.messageId;
    li.classList.toggle("no-answer", done.citations.length === 0);
    li.querySelector(".turn-meta")?.remove();
    const footer = el("p", { class: "turn-meta hint", text: answerLine(done) });
    if (done.messageId && done.citations.length) {
      footer.append(" ", el("button", { type: "button", class: "link", text: "Show sources",
        onclick: () => void showMessageSources(done.messageId, done.answer) }));
    }
    li.append(footer);
  }

  async function showMessageSources(messageId: string, answer: string): Promise<void> {
    const { epoch } = store;
    try {
      const { sources } = await api.sources(messageId);
      if (!store.isCurrent(epoch)) return;
      cites.renderSources(sources, answer);
      $("sources-title").scrollIntoView({ block: "nearest" });
    } catch (err) {
      if (store.isCurrent(epoch)) askError.textContent = `The sources could not be shown. ${describeError(err)}`;
    }
  }

  question.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const message = question.value.trim();
    askError.textContent = "";
    if (!message || asking) return;
    const types = [...form.querySelectorAll<HTMLInputElement>("#type-filter input:checked")].map((i) => i.value as MemoryType);
    const body: ChatRequest = { message, ragConfig: { enableRag: $<HTMLInputElement>("use-rag").checked, types } };
    if (conversationId) body.conversationId = conversationId;
    turnItem("user", message);
    const answer = turnItem("assistant", "");
    const text = answer.querySelector<HTMLElement>(".turn-text")!;
    answer.setAttribute("aria-busy", "true");
    text.append(el("span", { class: "typing", text: "Thinking…" }));
    question.value = "";
    askButton.disabled = true;
    const controller = new AbortController();
    asking = controller;
    const { epoch } = store;
    let streamed = "";
    let started: string | null = null; // a new conversation, named by the stream's meta before the answer
    // Sentences that arrive together (the quote generator writes a whole answer in
    // ~70 ms) still appear one after another: each fades in a moment after the last.
    const stagger = window.matchMedia("(prefers-reduced-motion: reduce)").matches ? 0 : REVEAL_MS;
    let revealAt = 0;
    try {
      const done = await api.chatStream(body, (event) => {
        if (!store.isCurrent(epoch)) return;
        if (event.name === "meta" && event.data.conversationId && !body.conversationId) {
          // Listed (and marked current) at once; it is the current conversation only
          // once the answer is done and recorded.
          started = event.data.conversationId;
          streamingId = started;
          conversationActive(started, message, 0);
        } else if (event.name === "delta") {
          text.querySelector(".typing")?.remove();
          streamed += event.data.text;
          // Each checked sentence appears as it arrives (and fades in, so it is seen to).
          const piece = el("span", { class: "delta" });
          const now = performance.now();
          const start = Math.max(now, revealAt);
          piece.style.animationDelay = `${Math.round(start - now)}ms`;
          revealAt = start + stagger;
          cites.renderAnswer(piece, event.data.text, []);
          text.append(piece);
        }
      }, controller.signal);
      const showing = Math.min(revealAt - performance.now(), MAX_REVEAL_MS);
      if (showing > 0) await new Promise((resolve) => { setTimeout(resolve, showing); });
      if (!store.isCurrent(epoch)) return;
      conversationId = done.conversationId;
      streamingId = null;
      conversationActive(done.conversationId, message);
      finishAnswer(answer, done);
      cites.renderSources(done.citations, done.answer);
    } catch (err) {
      if (!store.isCurrent(epoch)) return;
      answer.remove();
      if (started) {
        // Never recorded: it leaves the list again.
        const never = started;
        conversations = conversations.filter((c) => c.id !== never);
        streamingId = null;
        renderList();
      }
      askError.textContent = `No answer. ${describeError(err)}`;
      if (!streamed) question.value = message;
    } finally {
      if (asking === controller) asking = null;
      if (store.isCurrent(epoch)) {
        answer.removeAttribute("aria-busy");
        askButton.disabled = false;
        question.focus();
      }
    }
  });

  async function loadConversations(more: boolean): Promise<void> {
    if (!store.user || (more && !cursor)) return;
    const ticket = ++listTicket;
    listState = "loading";
    listError.textContent = "";
    renderList();
    try {
      const page = await api.listConversations(more ? cursor : null);
      if (ticket !== listTicket) return;
      // A conversation asked in since the first page moved to the top: not twice.
      const known = new Set(more ? conversations.map((c) => c.id) : []);
      const fresh = page.conversations.filter((c) => !known.has(c.id));
      conversations = more ? [...conversations, ...fresh] : fresh;
      cursor = page.cursor;
      listState = "loaded";
    } catch (err) {
      if (ticket !== listTicket) return;
      listState = "failed";
      listError.textContent = `Could not load your conversations. ${describeError(err)}`;
    }
    renderList();
  }

  // An answer just arrived: its conversation is now the most recent (as the API will
  // list it), without asking for the list again.
  function conversationActive(id: string, asked: string, added = 2): void {
    const now = new Date().toISOString();
    const existing = conversations.find((c) => c.id === id);
    const item: Conversation = existing
      ? { ...existing, updatedAt: now, messageCount: existing.messageCount + added }
      : { id, title: asked.split(/\s+/).join(" ").trim(), createdAt: now, updatedAt: now, messageCount: added };
    conversations = [item, ...conversations.filter((c) => c.id !== id)];
    renderList();
  }

  function setListOpen(open: boolean): void {
    panel.classList.toggle("open", open);
    toggle.setAttribute("aria-expanded", String(open));
  }

  function renderList(): void {
    conversationList.replaceChildren();
    const loading = listState === "loading";
    conversationList.setAttribute("aria-busy", String(loading));
    const items = store.user ? conversations : [];
    for (const c of items) {
      const streaming = c.id === streamingId;
      const current = streaming || (c.id === conversationId && !streamingId);
      const turns = Math.floor((c.messageCount || 0) / 2);
      const when = streaming ? "answering…" : `${formatDate(c.updatedAt)} · ${turns} ${turns === 1 ? "question" : "questions"}`;
      conversationList.append(el("li", {},
        el("button", { type: "button", class: "conversation", "aria-current": current ? "true" : null,
          title: c.title || null, dataset: { conversationId: c.id }, disabled: streaming,
          onclick: () => void openConversation(c.id) },
          el("span", { class: "conversation-title", text: c.title || "Untitled conversation" }),
          el("span", { class: "hint", text: when }))));
    }
    if (!items.length && loading) conversationList.append(el("li", { class: "hint", text: "Loading conversations…" }));
    else if (!items.length && listState === "loaded") conversationList.append(el("li", { class: "hint", text: "No conversations yet." }));
    moreButton.hidden = !store.user || !cursor;
    moreButton.disabled = loading;
    count.textContent = items.length || listState === "loaded" ? `(${items.length}${cursor ? "+" : ""})` : "";
  }

  async function openConversation(id: string): Promise<void> {
    askError.textContent = "";
    const ticket = ++openTicket;
    try {
      const { messages } = await api.messages(id);
      if (ticket !== openTicket) return; // signed out, or another one opened since
      conversationId = id;
      thread.replaceChildren();
      let last: { citations: ChatResponse["citations"]; answer: string } = { citations: [], answer: "" };
      for (const m of messages) {
        const li = turnItem(m.role === "user" ? "user" : "assistant", m.role === "user" ? m.text : "");
        if (m.role === "assistant") {
          // How it was found, as recorded with the answer: the same line as when it was asked.
          const meta = m.meta;
          finishAnswer(li, { answer: m.text, citations: m.citations, messageId: m.id,
            meta: { confidence: meta?.confidence, retrieval: { strategy: meta?.strategy } } });
          last = { citations: m.citations, answer: m.text };
        }
      }
      cites.renderSources(last.citations, last.answer);
      renderList();
      setListOpen(false); // on a phone: the list makes way for the thread it opened
      question.focus();
    } catch (err) {
      if (ticket !== openTicket) return;
      if ((err as { status?: number }).status === 404) {
        conversations = conversations.filter((c) => c.id !== id);
        renderList();
      }
      askError.textContent = `Could not open the conversation. ${describeError(err)}`;
    }
  }

  moreButton.addEventListener("click", () => void loadConversations(true));
  toggle.addEventListener("click", () => setListOpen(!panel.classList.contains("open")));
  $("new-conversation").addEventListener("click", () => {
    conversationId = null;
    thread.replaceChildren();
    cites.renderSources([]);
    renderList();
    setListOpen(false);
    question.focus();
  });

  store.onReset(() => {
    asking?.abort();
    conversationId = null;
    streamingId = null;
    conversations = [];
    cursor = null;
    listState = "idle";
    listTicket += 1;
    openTicket += 1;
    thread.replaceChildren();
    conversationList.replaceChildren();
    askError.textContent = "";
    listError.textContent = "";
    moreButton.hidden = true;
    count.textContent = "";
    setListOpen(false);
    form.reset();
  });

  return {
    start() {
      // Earlier versions kept this user's conversation ids in localStorage; the API lists
      // them now, so the copy is removed rather than left behind.
      try { localStorage.removeItem(`footnote:conversations:${store.user?.uid}`); } catch { /* storage off */ }
      void loadConversations(false);
    },
    shown() {
      if (listState === "failed") void loadConversations(false);
    },
  };
}
