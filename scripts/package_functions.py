"""Build one deployable source folder per Cloud Function (``make package``).

For each function under ``functions/<name>/`` this writes ``build/functions/<name>/``:

- ``main.py``           the function's thin entry point,
- ``footnote/``         the shared library, less what this function never runs
                        (``dev/``, ``evaluation/``, the CLI everywhere; adapters whose
                        SDK the function does not install),
- ``requirements.txt``  the committed lock file ``functions/<name>/requirements.txt``:
                        every package pinned with ``==``, compiled for the runtime.

Terraform (infra/source.tf) zips each folder and uploads it under the archive's
content hash, so any change to the code or the pins redeploys. The output is
deterministic: files are copied in sorted order with fixed permissions, and the
script prints each folder's content hash (the same inputs give the same hash).

The lock files are compiled, not written by hand. ``FUNCTIONS`` below names the
distributions each function imports; their version ranges come from
pyproject.toml. ``--lock`` writes ``functions/<name>/requirements.in`` from those
and compiles it with ``uv pip compile`` for the Cloud Functions runtime (Python
``PYTHON_VERSION`` on ``PLATFORM``), keeping the existing pins where they still
satisfy the ranges (``--upgrade`` moves everything to the newest allowed).

    python scripts/package_functions.py [--out build/functions] [name ...]
    python scripts/package_functions.py --lock [--upgrade]    # needs uv and PyPI
    python scripts/package_functions.py --check-locks [--resolve]

Building needs only the standard library; it refuses to run when a lock file is
older than its inputs (pyproject.toml's ranges or the table below).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
FUNCTIONS_DIR = ROOT / "functions"
LIBRARY = ROOT / "shared" / "footnote"
PYPROJECT = ROOT / "pyproject.toml"
DEFAULT_OUT = ROOT / "build" / "functions"

# The Cloud Functions runtime the locks are compiled for. infra/variables.tf's
# python_runtime accepts only this version (tests/infra/test_locks.py checks they agree):
# markers such as `python_version < "3.12"` are resolved for it.
PYTHON_VERSION = "3.11"
PLATFORM = "x86_64-manylinux_2_28"  # the runtime's Ubuntu 22.04 (glibc 2.35) on x86-64


class Function(NamedTuple):
    """What one function installs (distribution names in pyproject.toml) and which
    parts of ``footnote/`` it does not ship (paths relative to the package)."""

    requires: tuple[str, ...]
    exclude: tuple[str, ...] = ()


# Never deployed: the local stack, the evaluation harness and the CLI that drives both.
COMMON_EXCLUDE = ("dev", "evaluation", "cli.py")

# Every function: settings, the Firestore store, Vertex AI embeddings (google-genai)
# and Vector Search (aiplatform_v1), the BM25 stemmer and stop words of each language,
# time phrases (dateparser, python-dateutil), number words (text2num), German names
# (HanTa), the functions framework.
_BASE = (
    "functions-framework",
    "google-cloud-firestore",
    "google-cloud-aiplatform",
    "google-genai",
    "pydantic",
    "pydantic-settings",
    "numpy",
    "simsimd",
    "PyStemmer",
    "stop-words",
    "dateparser",
    "python-dateutil",
    # number words as digits when a citation is checked (footnote.grounding, which
    # the wiring every function shares imports)
    "text2num",
    # German names told from nouns (footnote.proper_nouns, which footnote.grounding
    # imports; HanTa itself is imported on the first German text)
    "HanTa",
)

# What only the API uses: HTTP routes, Firebase ID tokens and App Check, the reranker
# and the grounding check of answers' citations.
_API_ONLY = (
    "api",
    "adapters/firebase_app.py",
    "adapters/firebase_auth.py",
    "adapters/firebase_app_check.py",
    "adapters/vertex_ranker.py",
    "adapters/vertex_grounder.py",
)

FUNCTIONS: dict[str, Function] = {
    # Firebase ID tokens and App Check (firebase-admin); the optional ranking stage
    # (RERANKER=vertex) and the grounding check (GROUNDER=vertex), both Discovery
    # Engine, run only here. Never decodes Firestore
    # events or publishes re-index pages.
    "api": Function(
        # google-cloud-storage: POST /imports stores an archive sent in its body.
        # google-cloud-pubsub: DELETE /account and POST /imports publish their jobs.
        requires=(
            *_BASE,
            "firebase-admin",
            "google-cloud-discoveryengine",
            "google-cloud-storage",
            "google-cloud-pubsub",
        ),
        # archives: reading an archive is the worker's (import jobs), with its libraries.
        exclude=("adapters/firestore_events.py", "archives"),
    ),
    # Decodes Firestore events (google-events); never reranks, verifies tokens or
    # serves HTTP.
    "indexer": Function(
        requires=(*_BASE, "google-events"),
        exclude=(
            *_API_ONLY,
            "adapters/pubsub_queue.py",
            "adapters/firebase_accounts.py",
            "archives",
            "adapters/gcs_blobs.py",
        ),
    ),
    # Publishes the next page of a job to Pub/Sub; runs account deletion, whose last
    # steps revoke and delete the Firebase Auth user (firebase-admin); never reranks,
    # verifies tokens, serves HTTP or decodes Firestore events.
    "reindexer": Function(
        requires=(
            *_BASE,
            "google-cloud-pubsub",
            "firebase-admin",
            # Runs import jobs: reads other apps' exports (footnote.archives) from
            # Cloud Storage.
            "google-cloud-storage",
            "python-frontmatter",
            "defusedxml",
            "html2text",
            "charset-normalizer",
        ),
        # firebase_app: the Admin SDK app that account deletion's Auth adapter uses.
        exclude=(
            *(path for path in _API_ONLY if path != "adapters/firebase_app.py"),
            "adapters/firestore_events.py",
        ),
    ),
}

# pyproject.toml's runtime dependencies that no function installs, and why.
NOT_DEPLOYED = {
    "bm25s": "the reference BM25 the tests and benchmarks compare footnote.retrieval.sparse with",
    "requests": "the local stack and the demo client (footnote.dev)",
}

EXCLUDED_SUFFIXES = {".pyc", ".pyo"}
EXCLUDED_DIRS = {"__pycache__", ".mypy_cache", ".pytest_cache"}
DIGEST_LINE = "# input-sha256: "


def function_names() -> list[str]:
    return sorted(p.parent.name for p in FUNCTIONS_DIR.glob("*/main.py"))


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(spec: str) -> str:
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
    if not m:
        raise SystemExit(f"pyproject.toml: cannot read the name in {spec!r}")
    return normalise(m.group(1))


def declared(pyproject: Path = PYPROJECT) -> dict[str, str]:
    """Every requirement in pyproject.toml (dependencies and extras) by normalised name."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    out: dict[str, str] = {}
    groups = [project["dependencies"], *project.get("optional-dependencies", {}).values()]
    for group in groups:
        for spec in group:
            out.setdefault(_requirement_name(spec), spec)
    return out


def runtime_dependencies(pyproject: Path = PYPROJECT) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    return [_requirement_name(s) for s in project["dependencies"]]


def requirements(name: str, pyproject: Path = PYPROJECT) -> list[str]:
    """The function's direct requirements with pyproject.toml's ranges, sorted by name."""
    specs = declared(pyproject)
    out = []
    for dist in FUNCTIONS[name].requires:
        key = normalise(dist)
        if key not in specs:
            raise SystemExit(f"{name} requires {dist}, which pyproject.toml does not declare")
        out.append(specs[key])
    return sorted(out, key=_requirement_name)


def lock_input(name: str) -> str:
    """The text of functions/<name>/requirements.in."""
    lines = [
        "# Generated by scripts/package_functions.py (FUNCTIONS) with pyproject.toml's",
        f"# ranges: what the {name} function imports. Compiled into requirements.txt.",
        *requirements(name),
    ]
    return "\n".join(lines) + "\n"


def input_digest(name: str) -> str:
    """Hash of everything a lock depends on: the input, the Python and the platform."""
    text = f"{lock_input(name)}python={PYTHON_VERSION}\nplatform={PLATFORM}\n"
    return hashlib.sha256(text.encode()).hexdigest()


def lock_path(name: str) -> Path:
    return FUNCTIONS_DIR / name / "requirements.txt"


def input_path(name: str) -> Path:
    return FUNCTIONS_DIR / name / "requirements.in"


def lock_header(name: str) -> str:
    return (
        "# Generated by `python scripts/package_functions.py --lock` from\n"
        f"# functions/{name}/requirements.in: do not edit. Every package is pinned for\n"
        f"# Python {PYTHON_VERSION} on {PLATFORM} (the Cloud Functions runtime).\n"
        f"{DIGEST_LINE}{input_digest(name)}\n"
    )


def recorded_digest(lock: Path) -> str | None:
    if not lock.is_file():
        return None
    for line in lock.read_text(encoding="utf-8").splitlines():
        if line.startswith(DIGEST_LINE):
            return line[len(DIGEST_LINE) :].strip()
    return None


def stale_locks(names: list[str] | None = None) -> list[str]:
    """Offline: the functions whose requirements.in or requirements.txt is out of date."""
    out = []
    for name in names or function_names():
        path = input_path(name)
        current_in = path.is_file() and path.read_text(encoding="utf-8") == lock_input(name)
        if not current_in or recorded_digest(lock_path(name)) != input_digest(name):
            out.append(name)
    return out


def _uv() -> str:
    for candidate in (Path(sys.executable).parent / "uv", shutil.which("uv")):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    raise SystemExit("uv is not installed: pip install -e '.[dev]' (it is in the dev extra)")


def compile_lock(name: str, upgrade: bool = False) -> str:
    """The lock file's text, compiled now. Existing pins are the preferences, so an
    upstream release changes nothing until the inputs change or ``upgrade``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "requirements.txt"
        if lock_path(name).is_file() and not upgrade:
            shutil.copyfile(lock_path(name), out)
        # uv names its input in the annotations ("# via -r ..."): compile the
        # committed file by its relative path, written first if missing or stale.
        if not input_path(name).is_file() or input_path(name).read_text() != lock_input(name):
            input_path(name).write_text(lock_input(name), encoding="utf-8")
        source = input_path(name).relative_to(ROOT).as_posix()
        cmd = [
            _uv(),
            "pip",
            "compile",
            source,
            "--output-file",
            str(out),
            "--python-version",
            PYTHON_VERSION,
            "--python-platform",
            PLATFORM,
            "--no-header",
            "--quiet",
            "--index-url",
            "https://pypi.org/simple",
        ]
        if upgrade:
            cmd.append("--upgrade")
        subprocess.run(cmd, cwd=ROOT, check=True, env={**os.environ, "UV_NO_CONFIG": "1"})
        body = out.read_text(encoding="utf-8")
    return lock_header(name) + body


def lock(names: list[str], upgrade: bool = False) -> None:
    for name in names:
        input_path(name).write_text(lock_input(name), encoding="utf-8")
        text = compile_lock(name, upgrade)
        lock_path(name).write_text(text, encoding="utf-8")
        pins = sum(1 for line in text.splitlines() if "==" in line and not line.startswith("#"))
        print(f"{name:<10} {lock_path(name).relative_to(ROOT)}  {pins} pinned")


def check_locks(names: list[str], resolve: bool) -> list[str]:
    """Problems with the committed locks; with ``resolve``, also compile them again
    (existing pins preferred) and require the identical file."""
    problems = [
        f"{name}: functions/{name}/requirements.in or requirements.txt is stale"
        for name in stale_locks(names)
    ]
    if resolve and not problems:
        for name in names:
            if compile_lock(name) != lock_path(name).read_text(encoding="utf-8"):
                problems.append(f"{name}: compiling again changes requirements.txt")
    if problems:
        problems.append("run: python scripts/package_functions.py --lock")
    return problems


def _excluded(rel: Path, exclude: tuple[str, ...]) -> bool:
    posix = rel.as_posix()
    return any(posix == e or posix.startswith(e + "/") for e in exclude)


def library_files(name: str) -> list[Path]:
    exclude = COMMON_EXCLUDE + FUNCTIONS[name].exclude
    files = []
    for path in sorted(LIBRARY.rglob("*")):
        rel = path.relative_to(LIBRARY)
        if not path.is_file() or path.suffix in EXCLUDED_SUFFIXES:
            continue
        if any(part in EXCLUDED_DIRS for part in rel.parts) or _excluded(rel, exclude):
            continue
        files.append(path)
    return files


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(src.read_bytes())
    os.chmod(dst, 0o644)


def tree_hash(folder: Path) -> str:
    """SHA-256 over every file's relative path and content, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def build(name: str, out: Path) -> Path:
    """Write ``out/<name>/`` from scratch and return it."""
    entry = FUNCTIONS_DIR / name / "main.py"
    if not entry.is_file() or name not in FUNCTIONS:
        raise SystemExit(f"no such function: {name} (expected {entry} and an entry in FUNCTIONS)")
    if stale_locks([name]):
        raise SystemExit(
            f"functions/{name}/requirements.txt is out of date with pyproject.toml or "
            "FUNCTIONS: run python scripts/package_functions.py --lock"
        )
    target = out / name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    _copy(entry, target / "main.py")
    _copy(lock_path(name), target / "requirements.txt")
    for path in library_files(name):
        _copy(path, target / "footnote" / path.relative_to(LIBRARY))
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    parser.add_argument("--lock", action="store_true", help="compile the lock files (uv, PyPI)")
    parser.add_argument("--upgrade", action="store_true", help="with --lock: newest allowed pins")
    parser.add_argument(
        "--check-locks", action="store_true", help="fail when a lock file is out of date"
    )
    parser.add_argument(
        "--resolve", action="store_true", help="with --check-locks: also compile again and diff"
    )
    parser.add_argument("functions", nargs="*", help="functions to build (default: all)")
    args = parser.parse_args(argv)
    names = args.functions or function_names()
    if args.lock:
        lock(names, args.upgrade)
        return 0
    if args.check_locks:
        problems = check_locks(names, args.resolve)
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    for name in names:
        folder = build(name, args.out)
        rel = folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder
        print(f"{name:<10} {rel}  sha256:{tree_hash(folder)[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
