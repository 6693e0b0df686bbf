"""Write the API's OpenAPI description where the web client's types are made from it.

``web/src/api/openapi.json`` is the description ``GET /openapi.json`` serves, built
with the default limits (not this shell's environment, so the file is the same on
every machine); ``npm --prefix web run schema`` turns it into ``web/src/api/schema.ts``
(openapi-typescript). Both files are checked in; ``tests/web`` fails when either is
stale, and the client's ``tsc --noEmit`` fails when a schema change breaks it.

Run ``make web-schema`` after changing anything the description is made from.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from footnote.api.openapi import build_spec
from footnote.config import Settings

CHECKED_IN = Path(__file__).resolve().parents[1] / "web" / "src" / "api" / "openapi.json"


def default_spec() -> dict[str, Any]:
    """The description with every setting at its default (model_construct reads no
    environment variables)."""
    return build_spec(Settings.model_construct())


def render(spec: dict[str, Any]) -> str:
    return json.dumps(spec, indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    CHECKED_IN.parent.mkdir(parents=True, exist_ok=True)
    CHECKED_IN.write_text(render(default_spec()), encoding="utf-8")
    print(f"wrote {CHECKED_IN}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
