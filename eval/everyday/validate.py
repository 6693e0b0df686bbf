"""Check the everyday-notes eval files: python3 eval/everyday/validate.py"""
import collections, datetime, glob, json, os, re, sys
from zoneinfo import ZoneInfo

KINDS = {"fact", "when", "list", "count", "decline", "search", "followup"}
# A claim is supported exactly when it restates its cited note(s); each other
# kind is wrong in one way.
SUPPORTED_WHY = {"paraphrase", "verbatim"}
WHY = SUPPORTED_WHY | {"wrong-number", "wrong-person", "wrong-date", "negated",
                       "not-in-note", "other-note"}
CLAIM_KEYS = {"id", "question", "claim", "notes", "supported", "why"}
here = os.path.dirname(os.path.abspath(__file__))
errors, per_kind, n_notes, n_q = [], collections.Counter(), 0, 0
per_why, n_claims = collections.Counter(), 0

def err(f, msg):
    errors.append(f"{f}: {msg}")

for path in sorted(glob.glob(os.path.join(here, "*.json"))):
    f = os.path.basename(path)
    d = json.load(open(path, encoding="utf-8"))
    if d["notebook"] + ".json" != f:
        err(f, "notebook name does not match file name")
    ZoneInfo(d["timezone"])
    now = datetime.datetime.fromisoformat(d["now"])
    notes = {}
    for n in d["notes"]:
        if n["id"] in notes:
            err(f, f"duplicate note id {n['id']}")
        notes[n["id"]] = n
        if not datetime.datetime.fromisoformat(n["created"]) < now:
            err(f, f"{n['id']} created not before now")
        if not isinstance(n["tags"], list) or not (n["title"] is None or n["title"].strip()):
            err(f, f"{n['id']} bad title/tags")
    n_notes += len(notes)
    seen = []
    for q in d["questions"]:
        qid, kind = q["id"], q["kind"]
        if qid in seen:
            err(f, f"duplicate question id {qid}")
        if kind not in KINDS:
            err(f, f"{qid} unknown kind {kind}")
        per_kind[kind] += 1
        for nid in q["answer_notes"]:
            if nid not in notes:
                err(f, f"{qid} answer note {nid} missing")
        if ("date" in q) != (kind == "when"):
            err(f, f"{qid} date only (and always) on when")
        if kind == "when":
            datetime.date.fromisoformat(q["date"])
            if q["answers"]:
                err(f, f"{qid} when should have no answers")
        if ("follow_up_of" in q) != (kind == "followup"):
            err(f, f"{qid} follow_up_of only (and always) on followup")
        if kind == "followup" and q["follow_up_of"] not in seen:
            err(f, f"{qid} follow_up_of does not point to an earlier question")
        if kind == "decline" and (q["answer_notes"] or q["answers"]):
            err(f, f"{qid} decline must have empty answer_notes/answers")
        if kind != "decline" and not q["answer_notes"]:
            err(f, f"{qid} needs answer_notes")
        if kind == "search":
            if q["answers"]:
                err(f, f"{qid} search must have no answers")
            pat = re.compile(r"(?<!\w)" + re.escape(q["question"]) + r"(?!\w)", re.I)
            hits = sorted(nid for nid, n in notes.items()
                          if pat.search(" ".join([n["title"] or "", n["text"], " ".join(n["tags"])])))
            if hits != sorted(q["answer_notes"]):
                err(f, f"{qid} search {q['question']!r} hits {hits}, expected {q['answer_notes']}")
        if kind in {"fact", "list", "count", "followup"}:
            if not q["answers"]:
                err(f, f"{qid} needs answers")
            if kind == "count" and any(a.isdigit() for a in q["answers"]):
                pass  # may be a count of items across bullets/notes, not a literal number
            else:
                blob = " ".join((notes[i]["title"] or "") + " " + notes[i]["text"]
                                for i in q["answer_notes"] if i in notes).lower()
                if not any(a.lower() in blob for a in q["answers"]):
                    err(f, f"{qid} no answer string occurs in its answer notes")
        seen.append(qid)
    n_q += len(seen)
    claim_ids = set()
    for c in d.get("claims", []):
        cid = c.get("id")
        if set(c) != CLAIM_KEYS:
            err(f, f"claim {cid} keys {sorted(c)}, expected {sorted(CLAIM_KEYS)}")
            continue
        if cid in claim_ids:
            err(f, f"duplicate claim id {cid}")
        claim_ids.add(cid)
        if not (isinstance(c["question"], str) and c["question"].strip()
                and isinstance(c["claim"], str) and c["claim"].strip()):
            err(f, f"claim {cid} needs a question and a claim")
        if not isinstance(c["notes"], list) or not c["notes"]:
            err(f, f"claim {cid} must cite at least one note")
        else:
            for nid in c["notes"]:
                if nid not in notes:
                    err(f, f"claim {cid} cites missing note {nid}")
        if c["why"] not in WHY:
            err(f, f"claim {cid} unknown why {c['why']!r}")
        if c["supported"] is not (c["why"] in SUPPORTED_WHY):
            err(f, f"claim {cid} supported={c['supported']!r} does not fit why={c['why']!r}")
        per_why[c["why"]] += 1
    n_claims += len(claim_ids)
    supported = sum(1 for c in d.get("claims", []) if c.get("supported") is True)
    print(f"{f:18} notes={len(notes):3} questions={len(seen):3} "
          f"claims={len(claim_ids):3} supported={supported:3}")

print(f"total notes={n_notes} questions={n_q} claims={n_claims}")
print("per kind:", dict(sorted(per_kind.items())))
if n_claims:
    print("claims per why:", dict(sorted(per_why.items())))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("OK")
