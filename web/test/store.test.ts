import { describe, expect, it } from "vitest";
import { Store } from "../src/store";

const note = { id: "n1", title: "", text: "Call the bank\nabout the loan", tags: [], type: null,
  createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", etag: '"1"' };

describe("Store", () => {
  it("forgets everything of the previous user at a change of user", () => {
    const store = new Store();
    const resets: Array<string | null> = [];
    store.onReset(() => resets.push(store.user?.uid ?? null));
    store.switchUser({ uid: "alice", email: "alice@example.com" });
    const { epoch, signal } = store;
    store.notes.set(note.id, note);
    store.remember({ id: "n2", title: "Pricing call", text: "8 euros" });
    expect(store.known("n1")?.label).toBe("Call the bank");
    expect(store.known("n2")).toEqual({ title: "Pricing call", label: "Pricing call" });

    store.switchUser(null);
    expect(signal.aborted).toBe(true); // nothing asked for before lands afterwards
    expect(store.signal.aborted).toBe(false);
    expect(store.isCurrent(epoch)).toBe(false);
    expect(store.notes.size).toBe(0);
    expect(store.known("n1")).toBeUndefined();
    expect(store.known("n2")).toBeUndefined();
    expect(store.user).toBeNull();
    expect(resets).toEqual([null, null]); // the views reset with no user signed in
  });
});
