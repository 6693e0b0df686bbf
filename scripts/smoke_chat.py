"""Post-deploy smoke test: a real user asks /chat and gets a cited answer.

    python3 scripts/smoke_chat.py API_URL FIREBASE_WEB_API_KEY

Signs up a throwaway Email/Password user (Identity Toolkit), saves a note, waits
until it is indexed, asks about it with the user's ID token and checks that the
answer cites the note; then deletes the note and the user. Standard library only.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.request
import uuid
from typing import Any

IDENTITY = "https://identitytoolkit.googleapis.com/v1/accounts"


def call(method: str, url: str, body: Any = None, token: str | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=60) as response:
        raw = response.read()
    return json.loads(raw) if raw else None


def main(api: str, key: str) -> int:
    email = f"smoke-{uuid.uuid4().hex[:12]}@footnote.invalid"
    account = call(
        "POST",
        f"{IDENTITY}:signUp?key={key}",
        {"email": email, "password": uuid.uuid4().hex, "returnSecureToken": True},
    )
    token = account["idToken"]
    note_id = None
    try:
        note = call(
            "POST",
            f"{api}/notes",
            {"text": "Smoke test: we decided to deploy Footnote with one terraform apply."},
            token,
        )
        note_id = note["id"]
        deadline = time.monotonic() + 180
        while call("GET", f"{api}/notes/{note_id}", token=token).get("indexStatus") != "indexed":
            if time.monotonic() > deadline:
                print(f"smoke test: note {note_id} not indexed in 180 s", file=sys.stderr)
                return 1
            time.sleep(5)
        answer = call("POST", f"{api}/chat", {"message": "How did we decide to deploy?"}, token)
        cited = {c["noteId"] for c in answer.get("citations", [])}
        if note_id not in cited:
            print(f"smoke test: answer does not cite the note: {answer}", file=sys.stderr)
            return 1
        print(f"smoke test: cited answer: {answer['answer'][:200]}")
        return 0
    finally:
        if note_id:
            call("DELETE", f"{api}/notes/{note_id}", token=token)
        call("POST", f"{IDENTITY}:delete?key={key}", {"idToken": token})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1].rstrip("/"), sys.argv[2]))
