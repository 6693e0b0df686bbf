import { describe, expect, it } from "vitest";
import { findPassage } from "../src/passage";
import { noteLabel, plural, withoutTitle } from "../src/text";

describe("noteLabel", () => {
  it("is the title, else the first line cut at 60", () => {
    expect(noteLabel({ title: "Launch", text: "x" })).toBe("Launch");
    expect(noteLabel({ title: "", text: "First line\nsecond" })).toBe("First line");
    expect(noteLabel({ title: "", text: "a".repeat(80) })).toBe(`${"a".repeat(59)}…`);
    expect(noteLabel({ title: "", text: "  " })).toBe("Untitled note");
  });
});

describe("withoutTitle", () => {
  it("drops a leading title whatever whitespace is in it, and nothing else", () => {
    expect(withoutTitle("Launch  plan:\nShip on Friday.", "Launch plan")).toBe("Ship on Friday.");
    expect(withoutTitle("Ship on Friday.", "Launch plan")).toBe("Ship on Friday.");
    expect(withoutTitle("Launch plan", "Launch plan")).toBe("Launch plan"); // nothing would be left
  });
});

describe("plural", () => {
  it("counts", () => {
    expect(plural(1, "note")).toBe("1 note");
    expect(plural(3, "note")).toBe("3 notes");
    expect(plural(0, "entry", "entries")).toBe("0 entries");
  });
});

describe("findPassage", () => {
  const text = "Kickoff notes.\nWe decided to ship the beta on Friday [N3]. Maria asked about pricing.";
  it("finds a snippet whose whitespace and markers differ from the note", () => {
    const range = findPassage(text, "We decided to ship the   beta on Friday (N3).");
    expect(range).not.toBeNull();
    expect(text.slice(...range!)).toBe("We decided to ship the beta on Friday [N3].");
  });
  it("skips the title a chunk starts with, and extends a cut snippet to its sentence's end", () => {
    const range = findPassage(text, "Kickoff Maria asked about…", "Kickoff");
    expect(text.slice(...range!)).toBe("Maria asked about pricing.");
  });
  it("is null when the passage is gone", () => {
    expect(findPassage(text, "Nothing like this is in the note at all")).toBeNull();
  });
});
