"""Each packaged function installs and starts on its own requirements.txt alone.

The folder is built exactly as Terraform zips it (scripts/package_functions.py),
its requirements.txt is installed into a clean virtualenv with ``--no-deps`` (so
the lock must list every transitive package) and checked for consistency, and a
subprocess in that virtualenv then:

1. imports ``main.py`` with the function's production environment (from
   infra/functions.tf) and no network (every proxy points at a closed local port);
2. builds the services the function runs in production from the wiring, whose
   adapters are created lazily (so importing main.py alone would not load them);
3. imports every module named by an import statement in every shipped ``footnote``
   file, the lazy imports inside functions included (those under TYPE_CHECKING or
   guarded by ``except ImportError`` excepted).

A production dependency missing from a function's lock fails here, not in the
deploy. uv installs from its cache after the first run (a few seconds per function).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.infra.test_packaging import FUNCTIONS, _script, require_uv
from tests.infra.tf import Terraform, attr, blocks, expression, substitute

pytestmark = pytest.mark.slow

# What each function builds from the wiring in production, and modules its handler
# imports on the first event. The API also builds its optional stages (App Check,
# the Discovery Engine reranker), which settings can turn on without a redeploy.
GRAPH: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "api": (
        (
            "api",
            "notes",
            "chat",
            "quotas",
            "idempotency",
            "app_check",
            "reranker",
            "verifier",
            "imports",
        ),
        (),
    ),
    "indexer": (("indexing",), ("footnote.adapters.firestore_events",)),
    "reindexer": (
        ("reindexing", "queue", "accounts", "imports"),
        ("footnote.services.reindexing", "footnote.archives"),
    ),
}
OPTIONAL_STAGES = {"api": {"APP_CHECK": "enforce", "RERANKER": "vertex"}}

# Resource attributes Terraform knows only after apply, as the API returns them.
AFTER_APPLY = {
    "GOOGLE_CLOUD_PROJECT": "footnote-test-project",
    "FIRESTORE_DATABASE": "(default)",
    "VERTEX_LOCATION": "us-central1",
    "VERTEX_INDEX": "projects/123/locations/us-central1/indexes/456",
    "VERTEX_INDEX_ENDPOINT": "projects/123/locations/us-central1/indexEndpoints/789",
    "VERTEX_DEPLOYED_INDEX_ID": "footnote_chunks",
    "VERTEX_PUBLIC_ENDPOINT_DOMAIN": "1234.us-central1-123.vdb.vertexai.goog",
    "REINDEX_TOPIC": "footnote-reindex",
    "ACCOUNTS_TOPIC": "footnote-accounts",
    "BLOB_BUCKET": "footnote-test-project-footnote-uploads",
}

PROBE = r"""
import ast, importlib, json, sys
from pathlib import Path

folder = Path(sys.argv[1]).resolve()
attrs = [a for a in sys.argv[2].split(",") if a]
handler_modules = [m for m in sys.argv[3].split(",") if m]
sys.path.insert(0, str(folder))

import main  # noqa: the function's entry point, as the runtime imports it
import footnote
assert Path(footnote.__file__).resolve().is_relative_to(folder), footnote.__file__

from footnote.wiring import container
c = container()
for a in attrs:
    getattr(c, a)
for m in handler_modules:
    importlib.import_module(m)

def catches_import_error(handler):
    names = []
    t = handler.type
    for n in (t.elts if isinstance(t, ast.Tuple) else [t]):
        if isinstance(n, ast.Name):
            names.append(n.id)
    return bool({"ImportError", "ModuleNotFoundError"} & set(names))

class Imports(ast.NodeVisitor):
    def __init__(self):
        self.found = []
    def visit_If(self, node):
        t = node.test
        if (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
            isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"):
            for n in node.orelse:
                self.visit(n)
            return
        self.generic_visit(node)
    def visit_Try(self, node):
        if any(catches_import_error(h) for h in node.handlers):
            for n in [*node.handlers, *node.orelse, *node.finalbody]:
                self.visit(n)
            return
        self.generic_visit(node)
    def visit_Import(self, node):
        for alias in node.names:
            self.found.append((alias.name, None))
    def visit_ImportFrom(self, node):
        if node.level == 0 and node.module:
            for alias in node.names:
                self.found.append((node.module, alias.name))

failures = []
checked = set()
for path in sorted((folder / "footnote").rglob("*.py")):
    visitor = Imports()
    visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
    for module, name in visitor.found:
        top = module.split(".")[0]
        if top == "footnote" or top in sys.stdlib_module_names or top == "__future__":
            continue
        if (module, name) in checked:
            continue
        checked.add((module, name))
        try:
            mod = importlib.import_module(module)
            if name and name != "*" and not hasattr(mod, name):
                importlib.import_module(f"{module}.{name}")
        except Exception as exc:  # ImportError, or an SDK failing at import
            where = path.relative_to(folder).as_posix()
            failures.append(f"{where}: {module} {name or ''}: {type(exc).__name__}: {exc}")

print(json.dumps({"failures": failures, "checked": len(checked)}))
sys.exit(1 if failures else 0)
"""


def _run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)


def production_env(name: str) -> dict[str, str]:
    """The function's environment variables from infra/functions.tf, with the
    variables' defaults and realistic values for resource attributes."""
    tf = Terraform.read()
    service = blocks(tf.resource("google_cloudfunctions2_function", name), "service_config")[0]
    env_map = tf.resolve_map(expression(service["environment_variables"]) or "")
    values = {v: attr(body, "default") for v, body in tf.variables.items()}
    values["project_id"] = AFTER_APPLY["GOOGLE_CLOUD_PROJECT"]
    env = {}
    for key, raw in env_map.items():
        value = str(substitute(raw, values))
        env[key] = AFTER_APPLY[key] if "<" in value else value
    return env


@pytest.fixture(scope="module")
def pkg() -> ModuleType:
    return _script()


@pytest.fixture(scope="module")
def built(pkg: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("zipped")
    for name in FUNCTIONS:
        pkg.build(name, out)
    return out


def install(uv: str, folder: Path, venv: Path, python_version: str) -> Path:
    """A clean virtualenv of the runtime's Python with exactly the folder's requirements.txt."""
    env = {**os.environ, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never"}
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    interpreter = sys.executable if running == python_version else python_version
    made = _run([uv, "venv", "--quiet", "--python", interpreter, str(venv)], env=env)
    assert made.returncode == 0, f"no Python {python_version} for the runtime: {made.stderr}"
    python = venv / "bin" / "python"
    pinned = _run(
        [
            *(uv, "pip", "install", "--quiet", "--python", str(python), "--no-deps"),
            *("--index-url", "https://pypi.org/simple", "-r", str(folder / "requirements.txt")),
        ],
        env=env,
        timeout=600,
    )
    if pinned.returncode != 0 and "Failed to fetch" in pinned.stderr and not os.environ.get("CI"):
        pytest.skip(f"no PyPI here: {pinned.stderr[-300:]}")
    assert pinned.returncode == 0, pinned.stderr[-3000:]
    # --no-deps above: a package the lock forgot shows up here.
    consistent = _run([uv, "pip", "check", "--python", str(python)], env=env)
    assert consistent.returncode == 0, (
        f"the lock is incomplete:\n{consistent.stdout}{consistent.stderr}"
    )
    return python


def probe(python: Path, folder: Path, name: str, home: Path) -> subprocess.CompletedProcess[str]:
    home.mkdir(exist_ok=True)
    # Application default credentials that need no network and no key until a call is made.
    creds = home / "adc.json"
    creds.write_text(
        json.dumps(
            {
                "type": "authorized_user",
                "client_id": "footnote-test.apps.googleusercontent.com",
                "client_secret": "not-a-secret",
                "refresh_token": "not-a-token",
            }
        )
    )
    closed = "http://127.0.0.1:9"  # the discard port: nothing answers, nothing leaves
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "GOOGLE_APPLICATION_CREDENTIALS": str(creds),
        "K_SERVICE": f"footnote-{name}",  # set by Cloud Run: the emulator host is refused
        **{k: closed for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "GRPC_PROXY")},
        **{k.lower(): closed for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "GRPC_PROXY")},
        **production_env(name),
        **OPTIONAL_STAGES.get(name, {}),
    }
    attrs, handler_modules = GRAPH[name]
    script = home / "probe.py"
    script.write_text(PROBE)
    return _run(
        [
            str(python),
            "-E",
            "-s",
            str(script),
            str(folder),
            ",".join(attrs),
            ",".join(handler_modules),
        ],
        cwd=folder,
        env=env,
        timeout=300,
    )


@pytest.mark.parametrize("name", FUNCTIONS)
def test_the_zipped_folder_installs_and_starts_on_its_own_requirements(
    pkg: ModuleType, built: Path, tmp_path: Path, name: str
) -> None:
    uv = require_uv(pkg)
    venv = tmp_path / "venv"
    try:
        python = install(uv, built / name, venv, pkg.PYTHON_VERSION)
        result = probe(python, built / name, name, tmp_path / "home")
        report = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
        assert result.returncode == 0, f"{report}\n{result.stderr[-3000:]}"
        assert json.loads(report)["checked"] >= 10, report
    finally:
        shutil.rmtree(venv, ignore_errors=True)


def test_the_probe_environment_is_what_terraform_sets() -> None:
    env = production_env("api")
    assert env["EMBEDDER"] == "vertex" and env["NOTE_STORE"] == "firestore"
    assert not any("<" in v for v in env.values()), env
