// The Footnote API as the client sees it: JSON calls under /api (Hosting's rewrite),
// typed by the API's own OpenAPI description, errors as ApiError, and /chat's
// server-sent events read over fetch.
import { ApiError, toError } from "./errors";
import { readEvents } from "./sse";
import type {
  ChangePage,
  ChatRequest,
  ChatResponse,
  ConversationPage,
  ExportJob,
  ImportJob,
  Messages,
  Note,
  NoteCreate,
  NotePage,
  NotePatch,
  SearchResponse,
  Sources,
  StreamEvent,
  Upload,
} from "./types";

type Method = "GET" | "POST" | "PATCH" | "DELETE";

const path = (id: string): string => encodeURIComponent(id);

function page(limit: number, cursor: string | null | undefined, name = "cursor"): URLSearchParams {
  const q = new URLSearchParams({ limit: String(limit) });
  if (cursor) q.set(name, cursor);
  return q;
}

/**
 * The browser's IANA time zone and language, so "today", "la semana pasada" and a
 * note's "before Friday" are read on the asker's calendar and in their language (the
 * API defaults to UTC, and to the request's Accept-Language, without them).
 */
export function askerZone(): { timeZone?: string; language?: string } {
  const asker: { timeZone?: string; language?: string } = {};
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone) asker.timeZone = zone;
  } catch {
    // no zone: UTC
  }
  const language = typeof navigator === "undefined" ? "" : navigator.language;
  if (/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/.test(language ?? "")) asker.language = language;
  return asker;
}

export class Api {
  /**
   * @param base where the API answers ("/api" behind Hosting)
   * @param getToken the signed-in user's Firebase ID token
   * @param signal aborted at sign-out: nothing asked for before lands afterwards
   */
  constructor(
    private readonly base: string,
    private readonly getToken: () => Promise<string>,
    private readonly signal: () => AbortSignal | undefined = () => undefined,
  ) {}

  private async request(method: Method, route: string, body?: unknown, signal?: AbortSignal, extra: Record<string, string> = {}): Promise<Response> {
    const headers: Record<string, string> = { ...extra, Authorization: `Bearer ${await this.getToken()}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(this.base + route, {
      method,
      headers,
      cache: "no-store", // a user's data is never kept in the browser's HTTP cache
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    if (!response.ok) throw await toError(response);
    return response;
  }

  private async json<T>(method: Method, route: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
    const response = await this.request(method, route, body, this.signal(), headers);
    return (response.status === 204 ? null : await response.json()) as T;
  }

  listNotes(cursor: string | null, limit = 20): Promise<NotePage> {
    return this.json("GET", `/notes?${page(limit, cursor)}`);
  }
  /** GET /notes/changes: what changed since the sync token (everything without one). */
  noteChanges(since: string | null, limit = 100): Promise<ChangePage> {
    return this.json("GET", `/notes/changes?${page(limit, since, "since")}`);
  }
  getNote(id: string): Promise<Note> { return this.json("GET", `/notes/${path(id)}`); }
  createNote(fields: NoteCreate): Promise<Note> { return this.json("POST", "/notes", fields); }
  /**
   * PATCH /notes/{id}. With `ifMatch` (the ETag of the note as the person saw it) the
   * edit applies only to that version: one made meanwhile on another device is not
   * overwritten unseen (412 precondition_failed, with the note as it is now).
   */
  updateNote(id: string, fields: NotePatch, ifMatch?: string | null): Promise<Note> {
    return this.json("PATCH", `/notes/${path(id)}`, fields, ifMatch ? { "If-Match": ifMatch } : undefined);
  }
  deleteNote(id: string): Promise<null> { return this.json("DELETE", `/notes/${path(id)}`); }
  search(query: string, k = 10): Promise<SearchResponse> {
    return this.json("POST", "/search", { query, k, ...askerZone() });
  }
  listConversations(cursor: string | null, limit = 20): Promise<ConversationPage> {
    return this.json("GET", `/conversations?${page(limit, cursor)}`);
  }
  messages(conversationId: string): Promise<Messages> {
    return this.json("GET", `/conversations/${path(conversationId)}/messages`);
  }
  sources(messageId: string): Promise<Sources> { return this.json("GET", `/messages/${path(messageId)}/sources`); }

  /**
   * Import a file: uploaded straight to Cloud Storage (POST /uploads hands out a
   * resumable upload session for one object under the user's own folder; the bytes
   * never pass through the API, so any size the importer reads goes), then
   * POST /imports names the object. Where the API hands out no upload URL, the file
   * is the body of POST /imports itself (up to its body limit). Its name says its format.
   */
  async startImport(file: File): Promise<ImportJob> {
    const type = file.type && file.type !== "application/json" ? file.type : "application/octet-stream";
    let session: Upload | null = null;
    try {
      session = await this.json<Upload>("POST", "/uploads", { name: file.name, size: file.size, contentType: type });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "not_found")) throw err;
    }
    if (session) {
      // No token: the session URL itself is the permission, for this one object.
      const put = await fetch(session.uploadUrl, {
        method: session.method || "PUT", headers: { "Content-Type": type }, body: file,
        cache: "no-store", credentials: "omit", signal: this.signal(),
      });
      if (!put.ok) throw new ApiError(put.status, "upload_failed", "The file could not be uploaded. Try again.");
      return this.json("POST", "/imports", { object: session.object });
    }
    const headers = { Authorization: `Bearer ${await this.getToken()}`, "Content-Type": type };
    const response = await fetch(`${this.base}/imports?name=${encodeURIComponent(file.name)}`, {
      method: "POST", headers, body: file, cache: "no-store", signal: this.signal(),
    });
    if (!response.ok) throw await toError(response);
    return (await response.json()) as ImportJob;
  }
  getImport(id: string): Promise<ImportJob> { return this.json("GET", `/imports/${path(id)}`); }
  cancelImport(id: string): Promise<ImportJob> { return this.json("DELETE", `/imports/${path(id)}`); }
  startExport(): Promise<ExportJob> { return this.json("POST", "/exports"); }
  getExport(id: string): Promise<ExportJob> { return this.json("GET", `/exports/${path(id)}`); }
  /** The finished export's zip, as a Blob (the download needs the token). */
  async exportArchive(download: string): Promise<Blob> {
    return (await this.request("GET", download, undefined, this.signal())).blob();
  }
  /** DELETE /account: `confirm` is the account's email address, as the user typed it. */
  deleteAccount(confirm: string): Promise<unknown> { return this.json("DELETE", "/account", { confirm }); }

  /**
   * POST /chat with Accept: text/event-stream; calls onEvent for each event as it
   * arrives (meta, delta..., done) and resolves with the done payload.
   */
  async chatStream(body: ChatRequest, onEvent: (event: StreamEvent) => void, signal?: AbortSignal): Promise<ChatResponse> {
    const headers = {
      Authorization: `Bearer ${await this.getToken()}`,
      "Content-Type": "application/json",
      Accept: "text/event-stream",
    };
    const asked: ChatRequest = { ...body, ...askerZone() };
    const response = await fetch(`${this.base}/chat`, { method: "POST", headers, body: JSON.stringify(asked), signal, cache: "no-store" });
    if (!response.ok) throw await toError(response);
    if (!(response.headers.get("Content-Type") || "").includes("text/event-stream") || !response.body) {
      const done = (await response.json()) as ChatResponse; // a server that does not stream still answers
      onEvent({ name: "done", data: done });
      return done;
    }
    let done: ChatResponse | null = null;
    for await (const event of readEvents(response.body)) {
      if (event.name === "done") done = event.data;
      onEvent(event);
    }
    if (!done) throw new ApiError(502, "stream_incomplete", "The answer stream ended before it was complete. Try again.");
    return done;
  }
}
