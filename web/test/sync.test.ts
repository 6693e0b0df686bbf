import { describe, expect, it } from "vitest";
import type { Note } from "../src/api/types";
import { isLive, listedBefore, placement, statusOf, versionOf } from "../src/sync";

const note = (id: string, createdAt: string, version = 1, indexStatus: Note["indexStatus"] = "indexed"): Note => ({
  id, text: id, title: "", tags: [], type: null, createdAt, updatedAt: createdAt, etag: `"${version}"`, indexStatus,
});

describe("index states", () => {
  it("shows no state it has not been told, and follows pending and unknown ones", () => {
    const told = note("a", "2026-01-01T00:00:00Z");
    expect(statusOf({ ...told, indexStatus: undefined })).toBe("unknown");
    expect(isLive({ ...told, indexStatus: null })).toBe(true);
    expect(isLive({ ...told, indexStatus: "pending" })).toBe(true);
    expect(isLive(told)).toBe(false);
    expect(isLive({ ...told, indexStatus: "failed" })).toBe(false);
  });
});

describe("the list's order and the feed's placement", () => {
  const newest = note("c", "2026-03-03T00:00:00Z");
  const middle = note("b", "2026-02-02T00:00:00Z");
  const oldest = note("a", "2026-01-01T00:00:00Z");
  const notes = new Map([newest, middle].map((n) => [n.id, n]));
  const listed = ["c", "b"];

  it("orders newest created first, ties by id", () => {
    expect(listedBefore(newest, middle)).toBe(true);
    expect(listedBefore(middle, newest)).toBe(false);
    expect(listedBefore(note("z", oldest.createdAt), note("y", oldest.createdAt))).toBe(true);
    expect(versionOf(note("x", oldest.createdAt, 12))).toBe(12);
  });

  it("places a new note before the first listed note it precedes", () => {
    expect(placement(note("n", "2026-02-15T00:00:00Z"), listed, notes, true)).toEqual({ kind: "before", id: "b" });
    expect(placement(note("n", "2026-04-01T00:00:00Z"), listed, notes, true)).toEqual({ kind: "before", id: "c" });
  });

  it("leaves an older note to its page while the list is incomplete, appends it when complete", () => {
    expect(placement(oldest, listed, notes, true)).toEqual({ kind: "skip" });
    expect(placement(oldest, listed, notes, false)).toEqual({ kind: "append" });
  });

  it("replaces a listed note only with a newer version (the feed repeats its last seconds)", () => {
    expect(placement(note("b", middle.createdAt, 1), listed, notes, true)).toEqual({ kind: "skip" });
    expect(placement(note("b", middle.createdAt, 2), listed, notes, true)).toEqual({ kind: "replace" });
  });
});
