import { describe, expect, it } from "vitest";
import { claimsOf, findClaim, findCited, quoteBlocks, quotedClaims } from "../src/passage";

// A note as people write them: a list of who came, who did what, one line each.
const dinner = [
  "Attendees: Priya, Tom, Lena and me.",
  "Priya booked the table at Osteria Nonna for 8 pm. Tom brought two bottles of wine.",
  "Lena: The set menu cost 85 euros for the four of us.",
  "Next time we book earlier.",
].join("\n");
// Its chunk's snippet, as a citation carries it: title first, whitespace collapsed.
const snippet = `Team dinner ${dinner.replace(/\s+/g, " ")}`;
const marked = (text: string, cited: ReturnType<typeof findCited>): string | null =>
  cited && text.slice(...cited.range);

describe("claimsOf", () => {
  it("gives each marker the sentence that carries it, without markers, bullets or the sentence before", () => {
    expect(claimsOf("Tom brought two bottles of wine [N1]. Lena: The set menu cost 85 euros [N1][N2].\n- Next time we book earlier [N3]."))
      .toEqual([
        { cid: "N1", claim: "Tom brought two bottles of wine." },
        { cid: "N1", claim: "Lena: The set menu cost 85 euros." },
        { cid: "N2", claim: "Lena: The set menu cost 85 euros." },
        { cid: "N3", claim: "Next time we book earlier." },
      ]);
    expect(claimsOf("Markers cited apart [N1], [N2]!")).toEqual([
      { cid: "N1", claim: "Markers cited apart!" }, { cid: "N2", claim: "Markers cited apart!" }]);
    expect(claimsOf("Nothing cited.")).toEqual([]);
  });
});

describe("findCited", () => {
  it("marks the sentence an answer quotes verbatim, not the whole passage", () => {
    const { claim } = claimsOf("Tom brought two bottles of wine [N1].")[0]!;
    const cited = findCited(dinner, { passage: snippet, claim, title: "Team dinner" });
    expect(cited?.what).toBe("sentence");
    expect(marked(dinner, cited)).toBe("Tom brought two bottles of wine.");
  });

  it("finds it whatever the whitespace, case and punctuation", () => {
    const cited = findCited(dinner, { passage: snippet, claim: "tom brought   two\nbottles of WINE!", title: "Team dinner" });
    expect(marked(dinner, cited)).toBe("Tom brought two bottles of wine.");
  });

  it("keeps a speaker label the note has on the line, and does without one it does not", () => {
    expect(marked(dinner, findCited(dinner, { passage: snippet, claim: "Lena: The set menu cost 85 euros for the four of us." })))
      .toBe("Lena: The set menu cost 85 euros for the four of us.");
    const heading = "Lena:\n- Booked the hall.\n- The set menu cost 85 euros.";
    expect(marked(heading, findCited(heading, { passage: heading, claim: "Lena: The set menu cost 85 euros." })))
      .toBe("The set menu cost 85 euros.");
  });

  it("finds a line the offline generator quoted under a label the note gives another line", () => {
    // What quote-v1 answers for "How much did the set menu cost?" over such a note.
    const note = "Attendees: Priya, Tom, Lena and me.\nPriya booked the table.\nThe set menu cost 85 euros per person, wine not included.\nLena paid the whole bill.";
    const { claim } = claimsOf("Attendees: The set menu cost 85 euros per person, wine not included [N1].")[0]!;
    expect(marked(note, findCited(note, { passage: `Team dinner ${note.replace(/\s+/g, " ")}`, claim, title: "Team dinner" })))
      .toBe("The set menu cost 85 euros per person, wine not included.");
  });

  it("marks the whole sentence a claim quotes part of", () => {
    expect(marked(dinner, findCited(dinner, { passage: snippet, claim: "The set menu cost 85 euros" })))
      .toBe("The set menu cost 85 euros for the four of us.");
  });

  it("falls back to the passage when the answer paraphrased the note", () => {
    const cited = findCited(dinner, { passage: snippet, claim: "Dinner was 85 € in total.", title: "Team dinner" });
    expect(cited?.what).toBe("passage");
    expect(cited?.range).toEqual([0, dinner.length]);
  });

  it("marks both sentences of a claim that quotes two", () => {
    const cited = findCited(dinner, { passage: snippet, claim: "Priya booked the table at Osteria Nonna for 8 pm. Tom brought two bottles of wine." });
    expect(marked(dinner, cited)).toBe("Priya booked the table at Osteria Nonna for 8 pm. Tom brought two bottles of wine.");
  });

  it("marks only the quoted sentence when the answer's sentence starts with words of its own", () => {
    expect(marked(dinner, findCited(dinner, { passage: snippet, claim: "Yes. Tom brought two bottles of wine." })))
      .toBe("Tom brought two bottles of wine.");
  });

  it("prefers the occurrence in the cited passage when the note says it twice", () => {
    const filler = "Plenty of other things happened that week, none of them about money. ".repeat(8);
    const text = `Budget: The hall cost 300 euros.\n${filler}\nReview in May.\nThe hall cost 300 euros. We paid it from the reserve.`;
    const passage = "Review in May. The hall cost 300 euros. We paid it from the reserve.";
    const cited = findCited(text, { passage, claim: "The hall cost 300 euros." });
    expect(cited?.range[0]).toBe(text.lastIndexOf("The hall cost"));
    expect(marked(text, cited)).toBe("The hall cost 300 euros.");
    // Without a passage to go by, the first one.
    expect(findClaim(text, "The hall cost 300 euros.")?.[0]).toBe(text.indexOf("The hall cost"));
  });

  it("finds the claim past a snippet cut short, in the rest of its chunk", () => {
    const text = `${"A long opening sentence about the venue and the weather that evening. ".repeat(3)}The hall cost 300 euros.`;
    const cut = `${text.slice(0, 120).replace(/\s+\S*$/, "")}…`;
    expect(marked(text, findCited(text, { passage: cut, claim: "The hall cost 300 euros." }))).toBe("The hall cost 300 euros.");
  });

  it("still marks the sentence after the passage around it was edited away, and nothing when both are gone", () => {
    const edited = "Changed everything. Tom brought two bottles of wine.";
    expect(marked(edited, findCited(edited, { passage: snippet, claim: "Tom brought two bottles of wine." })))
      .toBe("Tom brought two bottles of wine.");
    expect(findCited("Something else entirely.", { passage: snippet, claim: "Tom brought two bottles of wine." })).toBeNull();
  });

  it("does not take a one-word claim for a place in the note", () => {
    expect(findCited(dinner, { passage: snippet, claim: "Yes." })?.what).toBe("passage");
  });
});

describe("quoteBlocks", () => {
  it("reads the offline answer as quoted notes under their title and date", () => {
    const answer = "Shopping, 7 May 2026 [N1]:\n- milk [N1]\n- eggs [N1]\n\nTodo, 6 May 2026 [N2]:\nCall the bank [N2]. Renew passport [N2].";
    expect(quoteBlocks(answer)).toEqual([
      { heading: "Shopping, 7 May 2026", cid: "N1", lines: ["- milk [N1]", "- eggs [N1]"] },
      { heading: "Todo, 6 May 2026", cid: "N2", lines: ["Call the bank [N2]. Renew passport [N2]."] },
    ]);
  });
  it("leaves a model's prose alone", () => {
    expect(quoteBlocks("The boiler costs £2,400 [N1].")).toBeNull();
    expect(quoteBlocks("Maeve asked for extras [N1]:\n- a socket [N2]")).toBeNull();
    expect(quoteBlocks("Heading [N1]:\nan uncited line")).toBeNull();
  });
});

describe("quotedClaims", () => {
  it("gives a quoting answer's lines, not its headings, as what each note is cited for", () => {
    const answer = "Team dinner, 7 May 2026 [N1]:\nThe set menu cost 85 euros [N1].";
    expect(quotedClaims(answer)).toEqual([{ cid: "N1", claim: "The set menu cost 85 euros." }]);
    expect(quotedClaims("Fact [N2].")).toEqual([{ cid: "N2", claim: "Fact." }]);
  });
});
