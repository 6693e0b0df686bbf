import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Api } from "../src/api/client";
import type { ChatRequest, ChatResponse, StreamEvent } from "../src/api/types";
import PAGE from "../index.html?raw";
import { Store } from "../src/store";
import { askView } from "../src/views/ask";
import { citations } from "../src/views/citations";

beforeEach(() => {
  document.body.innerHTML = new DOMParser().parseFromString(PAGE, "text/html").body.innerHTML;
  window.matchMedia = ((q: string) => ({ matches: q.includes("reduce"), media: q })) as unknown as typeof window.matchMedia;
});

const citation = { cid: "N1", noteId: "n1", chunkId: "n1:0", createdAt: "2026-11-24T07:51:00Z", snippet: "Storage choice We chose Firestore.", score: 1, support: 1 };
const done: ChatResponse = {
  answer: "We chose Firestore [N1].", citations: [citation], conversationId: "c1", messageId: "m1",
  meta: { confidence: 0.8, retrieval: { strategy: "hybrid_reranked" }, fallbacks: [] } as unknown as ChatResponse["meta"],
};

function fakeApi(sent: ChatRequest[]): Api {
  return {
    listConversations: vi.fn(async () => ({ conversations: [], cursor: null, hasMore: false })),
    getNote: vi.fn(async () => ({ id: "n1", title: "Storage choice", text: "We chose Firestore." })),
    chatStream: vi.fn(async (body: ChatRequest, onEvent: (e: StreamEvent) => void) => {
      sent.push(body);
      onEvent({ name: "meta", data: { conversationId: "c1", meta: { intent: "factual" } } });
      onEvent({ name: "delta", data: { text: "We chose Firestore [N1]." } });
      onEvent({ name: "done", data: done });
      return done;
    }),
  } as unknown as Api;
}

const settle = async (): Promise<void> => { for (let i = 0; i < 20; i += 1) await Promise.resolve(); };
const $ = (id: string): HTMLElement => document.getElementById(id)!;

describe("the Ask view", () => {
  it("asks with the filters, shows the cited answer, lists the conversation and its sources", async () => {
    const sent: ChatRequest[] = [];
    const api = fakeApi(sent);
    const store = new Store();
    const cites = citations(store, api, vi.fn());
    const ask = askView(store, api, cites);
    document.getElementById("type-filter")!.insertAdjacentHTML("beforeend", '<label><input type="checkbox" name="types" value="decision" checked> decision</label>');
    store.switchUser({ uid: "alice", email: "alice@example.com" });
    ask.start();
    await settle();
    expect($("conversation-list").textContent).toBe("No conversations yet.");
    expect($("conversations-count").textContent).toBe("(0)");

    (document.getElementById("question") as HTMLTextAreaElement).value = "Why Firestore?";
    (document.getElementById("ask-form") as HTMLFormElement).requestSubmit();
    await settle();
    expect(sent).toEqual([{ message: "Why Firestore?", ragConfig: { enableRag: true, types: ["decision"] } }]);
    const answer = document.querySelector<HTMLElement>("#thread .turn.assistant")!;
    expect(answer.dataset.messageId).toBe("m1");
    expect(answer.querySelector(".turn-text")?.textContent).toBe("We chose Firestore 1.");
    const chip = answer.querySelector<HTMLButtonElement>("button.chip")!;
    expect(chip.disabled).toBe(false);
    expect(chip.dataset.noteId).toBe("n1");
    expect(answer.querySelector(".turn-meta")?.textContent).toBe("1 source · confidence 0.80 · hybrid reranked Show sources");
    const listed = document.querySelector<HTMLButtonElement>("#conversation-list button.conversation")!;
    expect([listed.dataset.conversationId, listed.getAttribute("aria-current")]).toEqual(["c1", "true"]);
    expect(listed.textContent).toContain("1 question");
    expect($("conversations-count").textContent).toBe("(1)");
    // The sources panel learns the cited note's title and drops it from the snippet.
    expect(document.querySelector("#sources-list blockquote")?.textContent).toBe("We chose Firestore.");
    expect($("sources-empty").hidden).toBe(true);

    // The follow-up stays in the conversation.
    (document.getElementById("question") as HTMLTextAreaElement).value = "And why?";
    (document.getElementById("ask-form") as HTMLFormElement).requestSubmit();
    await settle();
    expect(sent[1]?.conversationId).toBe("c1");

    // On a phone the list opens under its "Conversations (N)" row, and closes for New.
    const toggle = $("conversations-toggle");
    expect([toggle.getAttribute("aria-expanded"), $("conversations").classList.contains("open")]).toEqual(["false", false]);
    toggle.click();
    expect([toggle.getAttribute("aria-expanded"), $("conversations").classList.contains("open")]).toEqual(["true", true]);
    $("new-conversation").click();
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect($("thread").children).toHaveLength(0);

    store.switchUser(null); // signed out: no trace of the conversation
    expect($("thread").children).toHaveLength(0);
    expect($("conversation-list").children).toHaveLength(0);
    expect($("sources-list").children).toHaveLength(0);
    expect($("sources-empty").hidden).toBe(false);
    expect($("conversations-count").textContent).toBe("");
  });
});
