// The API's shapes, as the client uses them: every one is generated from the API's own
// /openapi.json (schema.ts, by openapi-typescript; `make web-schema` regenerates it), so
// a change to the API that breaks the client fails `tsc --noEmit`.
import type { components } from "./schema";
import { memoryTypeValues } from "./schema";

type Schemas = components["schemas"];

export type Note = Schemas["Note"];
export type NotePage = Schemas["NotePage"];
export type NoteCreate = Schemas["NoteCreate"];
export type NotePatch = Schemas["NotePatch"];
export type Change = Schemas["Change"];
export type ChangePage = Schemas["ChangePage"];
export type IndexStatus = Schemas["IndexStatus"];
export type MemoryType = Schemas["MemoryType"];
export type Citation = Schemas["Citation"];
export type ChatRequest = Schemas["ChatRequest"];
export type ChatResponse = Schemas["ChatResponse"];
export type ChatMeta = Schemas["ChatMeta"];
export type StreamMeta = Schemas["StreamMeta"];
export type StreamDelta = Schemas["StreamDelta"];
export type Conversation = Schemas["Conversation"];
export type ConversationPage = Schemas["ConversationPage"];
export type Message = Schemas["Message"];
export type Messages = Schemas["Messages"];
export type Sources = Schemas["Sources"];
export type SearchRequest = Schemas["SearchRequest"];
export type SearchResponse = Schemas["SearchResponse"];
export type SearchHit = Schemas["SearchHit"];
export type ImportJob = Schemas["ImportJob"];
export type ExportJob = Schemas["ExportJob"];
export type Upload = Schemas["Upload"];
export type ErrorBody = Schemas["ErrorBody"];

/** The memory types a note can be given, in the API's order (domain.MemoryType). */
export const MEMORY_TYPES: readonly MemoryType[] = memoryTypeValues;

/** A streamed answer's events (POST /chat with Accept: text/event-stream), by name. */
export interface StreamEvents {
  meta: StreamMeta;
  delta: StreamDelta;
  done: ChatResponse;
}
export type StreamEvent = { [K in keyof StreamEvents]: { name: K; data: StreamEvents[K] } }[keyof StreamEvents];
