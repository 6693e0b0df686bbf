// The API's error envelope as the client sees it, and the sentence shown to people for
// any error: never an internal code such as "[invalid_argument]" or a field path.
import type { Note } from "./types";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export function sentence(text: unknown): string {
  const s = String(text ?? "").trim();
  if (!s) return "";
  return `${s[0]!.toUpperCase()}${s.slice(1)}${/[.!?…]$/.test(s) ? "" : "."}`;
}

export function waitFor(seconds: unknown): string {
  if (typeof seconds !== "number" || !(seconds > 0)) return "in a moment";
  if (seconds < 90) return `in ${Math.ceil(seconds)} second${Math.ceil(seconds) === 1 ? "" : "s"}`;
  return `in ${Math.ceil(seconds / 60)} minutes`;
}

const QUOTAS: Record<string, string> = {
  chatPerMinute: "You have asked a lot of questions in the last minute.",
  searchPerMinute: "You have searched a lot in the last minute.",
  notesPerDay: "You have saved as many notes as one day allows.",
  exportsPerDay: "You have exported as many times as one day allows.",
};

const field = (details: unknown, name: string): unknown =>
  details && typeof details === "object" && !Array.isArray(details) ? (details as Record<string, unknown>)[name] : undefined;

/**
 * A plain sentence for an error, as shown to people: the API's own message where it is
 * written for people (limits, quotas), a sentence of ours where it is not.
 */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    switch (err.code) {
      case "unauthenticated":
        return "Your session has ended. Sign out and sign in again.";
      case "not_found":
        return "It no longer exists: it may have been deleted.";
      case "precondition_failed":
        return "It was changed elsewhere (another device or tab) since you opened it, so nothing was saved.";
      case "quota_exceeded": {
        const quota = field(err.details, "quota");
        if (quota === "storedChars") return "Your notes are at their size limit: delete or shorten notes to make room.";
        const what = (typeof quota === "string" && QUOTAS[quota]) || "You have reached a usage limit.";
        return `${what} Try again ${waitFor(field(err.details, "retryAfterSeconds"))}.`;
      }
      case "payload_too_large":
        return "That is too long to save. Shorten it and try again.";
      case "invalid_argument": {
        const problems = Array.isArray(err.details)
          ? err.details.map((d: unknown) => field(d, "problem")).filter((p): p is string => typeof p === "string" && p !== "")
          : [];
        return problems.length
          ? `That could not be sent: ${problems.map((p) => p.replace(/\.$/, "").toLowerCase()).join("; ")}.`
          : sentence(err.message);
      }
      case "contention":
      case "unavailable":
        return "The service is busy right now. Try again in a moment.";
      case "stream_incomplete":
        return err.message;
      default:
        return err.status >= 500 ? "Something went wrong on our side. Try again in a moment." : sentence(err.message);
    }
  }
  if (err instanceof Error && err.name === "TypeError") return "The server could not be reached. Check your connection and try again.";
  return sentence(err instanceof Error ? err.message : String(err));
}

/** The note as it is now, which a 412 (If-Match named an older version) carries; null for any other error. */
export function currentNote(err: unknown): Note | null {
  if (!(err instanceof ApiError) || err.code !== "precondition_failed") return null;
  const current = field(err.details, "current");
  return current && typeof current === "object" && typeof field(current, "id") === "string" ? (current as Note) : null;
}

/** The error a failed response carries (the envelope), or one made from its status. */
export async function toError(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: fall through to a generic message
  }
  const e = field(body, "error");
  const message = field(e, "message");
  if (typeof message === "string") {
    const code = field(e, "code");
    return new ApiError(response.status, typeof code === "string" && code ? code : "error", message, field(e, "details"));
  }
  return new ApiError(response.status, `http_${response.status}`, `The server answered ${response.status} ${response.statusText}`.trim());
}
