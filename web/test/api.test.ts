import { afterEach, describe, expect, it, vi } from "vitest";
import { Api } from "../src/api/client";
import { ApiError, currentNote, describeError, toError } from "../src/api/errors";
import { parseEvent } from "../src/api/sse";
import type { Note, StreamEvent } from "../src/api/types";

const encoder = new TextEncoder();

/** A text/event-stream response whose body arrives in these pieces. */
function streamed(pieces: string[]): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
}

const done = { answer: "Ship on Friday [N1].", citations: [], conversationId: "c1", messageId: "m1", meta: {} };
const api = (): Api => new Api("/api", async () => "token-1");

afterEach(() => vi.unstubAllGlobals());

describe("parseEvent", () => {
  it("reads the name and the JSON of a block, joining data lines", () => {
    expect(parseEvent('event: delta\ndata: {"text":\ndata: "Hi"}')).toEqual({ name: "delta", data: { text: "Hi" } });
  });
  it("skips comments, and a block without data is no event", () => {
    expect(parseEvent(": keep-alive")).toBeNull();
    expect(parseEvent(': note\r\ndata: {"a":1}')).toEqual({ name: "message", data: { a: 1 } });
  });
});

describe("Api.chatStream", () => {
  it("hands over each event as it arrives, across chunk boundaries, and resolves with done", async () => {
    const fetch = vi.fn(async () => streamed([
      'event: meta\ndata: {"conversationId":"c1","meta":{"intent":"factual"}}\n\nevent: del',
      'ta\ndata: {"text":"Ship on "}\r\n\r\nevent: delta\ndata: {"text":"Friday [N1]."}\n\n',
      `event: done\ndata: ${JSON.stringify(done)}\n\n`,
    ]));
    vi.stubGlobal("fetch", fetch);
    const seen: StreamEvent[] = [];
    const result = await api().chatStream({ message: "When do we ship?" }, (e) => seen.push(e));
    expect(result).toEqual(done);
    expect(seen.map((e) => e.name)).toEqual(["meta", "delta", "delta", "done"]);
    expect(seen.filter((e) => e.name === "delta").map((e) => (e.data as { text: string }).text).join("")).toBe("Ship on Friday [N1].");
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/api/chat");
    expect((init.headers as Record<string, string>).Authorization).toBe("Bearer token-1");
    const sent = JSON.parse(init.body as string);
    expect(sent.message).toBe("When do we ship?");
    expect(typeof sent.timeZone).toBe("string"); // the asker's calendar
    expect(sent.language).toBe(navigator.language); // and language
  });

  it("turns an error event into ApiError", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => streamed(['event: error\ndata: {"error":{"code":"unavailable","message":"busy"}}\n\n'])));
    const err = await api().chatStream({ message: "q" }, () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("unavailable");
  });

  it("says so when the stream ends before done", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => streamed(['event: delta\ndata: {"text":"half"}\n\n'])));
    const err = await api().chatStream({ message: "q" }, () => {}).catch((e: unknown) => e);
    expect((err as ApiError).code).toBe("stream_incomplete");
    expect(describeError(err)).toMatch(/ended before it was complete/);
  });

  it("takes a plain JSON answer from a server that does not stream", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => Response.json(done)));
    const seen: string[] = [];
    expect(await api().chatStream({ message: "q" }, (e) => seen.push(e.name))).toEqual(done);
    expect(seen).toEqual(["done"]);
  });
});

describe("errors", () => {
  it("reads the error envelope", async () => {
    const response = Response.json({ error: { code: "not_found", message: "note not found", details: null } }, { status: 404 });
    const err = await toError(response);
    expect([err.status, err.code, err.message]).toEqual([404, "not_found", "note not found"]);
  });

  it("makes one from the status when the body is not the envelope", async () => {
    const err = await toError(new Response("<html>", { status: 502, statusText: "Bad Gateway" }));
    expect(err.code).toBe("http_502");
    expect(describeError(err)).toBe("Something went wrong on our side. Try again in a moment.");
  });

  it("never shows an internal code, and says when to retry a quota", () => {
    const invalid = new ApiError(400, "invalid_argument", "[invalid_argument] body.text", [{ field: "text", problem: "Text must not be empty." }]);
    expect(describeError(invalid)).toBe("That could not be sent: text must not be empty.");
    const quota = new ApiError(429, "quota_exceeded", "x", { quota: "chatPerMinute", retryAfterSeconds: 12.2 });
    expect(describeError(quota)).toBe("You have asked a lot of questions in the last minute. Try again in 13 seconds.");
    expect(describeError(new ApiError(429, "quota_exceeded", "x", { quota: "storedChars" }))).toMatch(/size limit/);
    expect(describeError(new ApiError(400, "bad", "no such field"))).toBe("No such field.");
  });

  it("names a network failure as such", () => {
    expect(describeError(new TypeError("Failed to fetch"))).toMatch(/could not be reached/);
  });
});

describe("Api JSON calls", () => {
  it("sends the token, never caches, and aborts with the session", async () => {
    const fetch = vi.fn(async () => Response.json({ notes: [], cursor: null, hasMore: false }));
    vi.stubGlobal("fetch", fetch);
    const session = new AbortController();
    await new Api("/api", async () => "t", () => session.signal).listNotes("abc", 5);
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/api/notes?limit=5&cursor=abc");
    expect(init.cache).toBe("no-store");
    expect(init.signal).toBe(session.signal);
  });

  it("throws the API's error", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => Response.json({ error: { code: "not_found", message: "gone", details: null } }, { status: 404 })));
    await expect(api().getNote("n/1")).rejects.toMatchObject({ status: 404, code: "not_found" });
  });
});

describe("If-Match on edits", () => {
  const note = { id: "n1", text: "t", title: "", tags: ["home"], type: null, createdAt: "", updatedAt: "", etag: '"3"' } as unknown as Note;

  it("sends the note's ETag as it was read, and no header without one", async () => {
    const fetch = vi.fn(async () => Response.json(note));
    vi.stubGlobal("fetch", fetch);
    const api = new Api("/api", async () => "t");
    await api.updateNote("n1", { tags: ["home"] }, '"3"');
    await api.updateNote("n1", { tags: [] });
    const headers = fetch.mock.calls.map((c) => (c as unknown as [string, RequestInit])[1].headers as Record<string, string>);
    expect(headers[0]?.["If-Match"]).toBe('"3"');
    expect(headers[0]?.Authorization).toBe("Bearer t");
    expect(headers[1]).not.toHaveProperty("If-Match");
    expect(JSON.parse((fetch.mock.calls[0] as unknown as [string, RequestInit])[1].body as string)).toEqual({ tags: ["home"] });
  });

  it("reads the current note from a 412, and says what happened in words", () => {
    const err = new ApiError(412, "precondition_failed", "the note has changed since that version (If-Match)", { current: note });
    expect(currentNote(err)?.etag).toBe('"3"');
    expect(currentNote(new ApiError(404, "not_found", "gone"))).toBeNull();
    expect(describeError(err)).not.toMatch(/If-Match/);
    expect(describeError(err)).toMatch(/changed elsewhere/);
  });
});
