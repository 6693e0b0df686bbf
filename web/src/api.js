// The Footnote API as the client sees it: JSON calls under /api (Hosting's rewrite),
// the error envelope turned into ApiError, and /chat's server-sent events read over fetch.

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

function sentence(text) {
  const s = String(text || "").trim();
  if (!s) return "";
  return `${s[0].toUpperCase()}${s.slice(1)}${/[.!?…]$/.test(s) ? "" : "."}`;
}

function waitFor(seconds) {
  if (!(seconds > 0)) return "in a moment";
  if (seconds < 90) return `in ${Math.ceil(seconds)} second${Math.ceil(seconds) === 1 ? "" : "s"}`;
  return `in ${Math.ceil(seconds / 60)} minutes`;
}

/**
 * A plain sentence for an error, as shown to people: never an internal code such as
 * "[invalid_argument]" or a field path; the API's own message where it is written for
 * people (limits, quotas), a sentence of ours where it is not.
 */
export function describeError(err) {
  if (err instanceof ApiError) {
    const retry = err.details && typeof err.details === "object" ? err.details.retryAfterSeconds : undefined;
    switch (err.code) {
      case "unauthenticated":
        return "Your session has ended. Sign out and sign in again.";
      case "not_found":
        return "It no longer exists: it may have been deleted.";
      case "quota_exceeded": {
        const quota = err.details && err.details.quota;
        if (quota === "storedChars") return "Your notes are at their size limit: delete or shorten notes to make room.";
        const what = {
          chatPerMinute: "You have asked a lot of questions in the last minute.",
          searchPerMinute: "You have searched a lot in the last minute.",
          notesPerDay: "You have saved as many notes as one day allows.",
          exportsPerDay: "You have exported as many times as one day allows.",
        }[quota] || "You have reached a usage limit.";
        return `${what} Try again ${waitFor(retry)}.`;
      }
      case "payload_too_large":
        return "That is too long to save. Shorten it and try again.";
      case "invalid_argument": {
        const problems = Array.isArray(err.details) ? err.details.map((d) => d && d.problem).filter(Boolean) : [];
        return problems.length ? `That could not be sent: ${problems.map((p) => p.replace(/\.$/, "").toLowerCase()).join("; ")}.` : sentence(err.message);
      }
      case "contention":
      case "unavailable":
        return "The service is busy right now. Try again in a moment.";
      case "stream_incomplete":
        return err.message;
      default:
        return err.status >= 500
          ? "Something went wrong on our side. Try again in a moment."
          : sentence(err.message);
    }
  }
  if (err && err.name === "TypeError") return "The server could not be reached. Check your connection and try again.";
  return sentence((err && err.message) || String(err));
}

async function toError(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: fall through to a generic message
  }
  const e = body && body.error;
  if (e && typeof e.message === "string") return new ApiError(response.status, e.code || "error", e.message, e.details);
  return new ApiError(response.status, `http_${response.status}`, `The server answered ${response.status} ${response.statusText}`.trim());
}

export class Api {
  constructor(base, getToken) {
    this.base = base;
    this.getToken = getToken;
  }

  async request(method, path, body, extraHeaders = {}, signal = undefined) {
    const headers = { Authorization: `Bearer ${await this.getToken()}`, ...extraHeaders };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(this.base + path, {
      method,
      headers,
      cache: "no-store", // a user's data is never kept in the browser's HTTP cache
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    if (!response.ok) throw await toError(response);
    return response;
  }

  async json(method, path, body) {
    const response = await this.request(method, path, body, {}, this.signal);
    return response.status === 204 ? null : response.json();
  }

  listNotes(cursor, limit = 20) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (cursor) q.set("cursor", cursor);
    return this.json("GET", `/notes?${q}`);
  }
  /** GET /notes/changes: what changed since the sync token (everything without one). */
  noteChanges(since, limit = 100) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (since) q.set("since", since);
    return this.json("GET", `/notes/changes?${q}`);
  }
  getNote(id) { return this.json("GET", `/notes/${encodeURIComponent(id)}`); }
  createNote(fields) { return this.json("POST", "/notes", fields); }
  updateNote(id, fields) { return this.json("PATCH", `/notes/${encodeURIComponent(id)}`, fields); }
  deleteNote(id) { return this.json("DELETE", `/notes/${encodeURIComponent(id)}`); }
  search(query, k = 10) { return this.json("POST", "/search", { query, k, ...askerZone() }); }
  listConversations(cursor, limit = 20) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (cursor) q.set("cursor", cursor);
    return this.json("GET", `/conversations?${q}`);
  }
  /**
   * Import a file: uploaded straight to Cloud Storage (POST /uploads hands out a
   * resumable upload session for one object under the user's own folder; the bytes
   * never pass through the API, so any size the importer reads goes), then
   * POST /imports names the object. Where the API hands out no upload URL, the file
   * is the body of POST /imports itself (up to its body limit). Its name says its format.
   */
  async startImport(file) {
    const type = file.type && file.type !== "application/json" ? file.type : "application/octet-stream";
    let session = null;
    try {
      session = await this.json("POST", "/uploads", { name: file.name, size: file.size, contentType: type });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "not_found")) throw err;
    }
    if (session) {
      // No token: the session URL itself is the permission, for this one object.
      const put = await fetch(session.uploadUrl, {
        method: session.method || "PUT", headers: { "Content-Type": type }, body: file,
        cache: "no-store", credentials: "omit", signal: this.signal,
      });
      if (!put.ok) throw new ApiError(put.status, "upload_failed", "The file could not be uploaded. Try again.");
      return this.json("POST", "/imports", { object: session.object });
    }
    const headers = { Authorization: `Bearer ${await this.getToken()}`, "Content-Type": type };
    const response = await fetch(`${this.base}/imports?name=${encodeURIComponent(file.name)}`, {
      method: "POST", headers, body: file, cache: "no-store", signal: this.signal,
    });
    if (!response.ok) throw await toError(response);
    return response.json();
  }
  getImport(id) { return this.json("GET", `/imports/${encodeURIComponent(id)}`); }
  cancelImport(id) { return this.json("DELETE", `/imports/${encodeURIComponent(id)}`); }
  startExport() { return this.json("POST", "/exports"); }
  /** DELETE /account: ``confirm`` is the account's email address, as the user typed it. */
  deleteAccount(confirm) { return this.json("DELETE", "/account", { confirm }); }
  getExport(id) { return this.json("GET", `/exports/${encodeURIComponent(id)}`); }
  /** The finished export's zip, as a Blob (the download needs the token). */
  async exportArchive(path) {
    return (await this.request("GET", path, undefined, {}, this.signal)).blob();
  }
  messages(conversationId) { return this.json("GET", `/conversations/${encodeURIComponent(conversationId)}/messages`); }
  sources(messageId) { return this.json("GET", `/messages/${encodeURIComponent(messageId)}/sources`); }

  /**
   * POST /chat with Accept: text/event-stream; calls onEvent(name, data) for each
   * event as it arrives (meta, delta..., done) and resolves with the done payload.
   */
  async chatStream(body, onEvent, signal) {
    const headers = {
      Authorization: `Bearer ${await this.getToken()}`,
      "Content-Type": "application/json",
      Accept: "text/event-stream",
    };
    const asked = { ...body, ...askerZone() };
    const response = await fetch(this.base + "/chat", { method: "POST", headers, body: JSON.stringify(asked), signal, cache: "no-store" });
    if (!response.ok) throw await toError(response);
    if (!(response.headers.get("Content-Type") || "").includes("text/event-stream")) {
      const done = await response.json(); // a server that does not stream still answers
      onEvent("done", done);
      return done;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let done = null;
    for (;;) {
      const { value, done: finished } = await reader.read();
      if (value) buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.search(/\r?\n\r?\n/)) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(buffer.slice(end).match(/^\r?\n\r?\n/)[0].length + end);
        const event = parseEvent(block);
        if (!event) continue;
        if (event.name === "error") throw new ApiError(500, event.data?.error?.code || "stream_error", event.data?.error?.message || "the answer stopped");
        if (event.name === "done") done = event.data;
        onEvent(event.name, event.data);
      }
      if (finished) break;
    }
    if (!done) throw new ApiError(502, "stream_incomplete", "The answer stream ended before it was complete. Try again.");
    return done;
  }
}

export function parseEvent(block) {
  let name = "message";
  const data = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  if (!data.length) return null;
  return { name, data: JSON.parse(data.join("\n")) };
}

/**
 * The browser's IANA time zone, so "today" and a note's "before Friday" are read on
 * the asker's calendar (the API defaults to UTC without one).
 */
function askerZone() {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return zone ? { timeZone: zone } : {};
  } catch {
    return {};
  }
}
