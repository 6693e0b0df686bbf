// Server-sent events read over fetch (EventSource cannot send a token or a body).
import { ApiError } from "./errors";
import type { StreamEvent } from "./types";

export interface RawEvent {
  name: string;
  data: unknown;
}

/** One event block ("event: x\ndata: {...}"), or null when it carries no data. */
export function parseEvent(block: string): RawEvent | null {
  let name = "message";
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  if (!data.length) return null;
  return { name, data: JSON.parse(data.join("\n")) as unknown };
}

const BLANK_LINE = /\r?\n\r?\n/;

/**
 * The events of a stream as they arrive: an "error" event is thrown as ApiError, and
 * events the client does not know are passed over.
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done: finished } = await reader.read();
    if (value) buffer += decoder.decode(value, { stream: true });
    let match: RegExpExecArray | null;
    while ((match = BLANK_LINE.exec(buffer)) !== null) {
      const block = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      const event = parseEvent(block);
      if (!event) continue;
      if (event.name === "error") {
        const error = (event.data as { error?: { code?: string; message?: string } } | null)?.error;
        throw new ApiError(500, error?.code || "stream_error", error?.message || "the answer stopped");
      }
      if (event.name === "meta" || event.name === "delta" || event.name === "done") yield event as StreamEvent;
    }
    if (finished) return;
  }
}
