"""Read infra/*.tf statically with python-hcl2 (no provider, no `terraform init`).

python-hcl2 and checkov's fork of it (bc-python-hcl2, which installs the same
``hcl2`` module) differ in whether a block's attributes come wrapped in
one-element lists; the accessors here accept both shapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hcl2.api

ROOT = Path(__file__).resolve().parents[2]
INFRA = ROOT / "infra"

_INTERPOLATION = re.compile(r"^\$\{(.*)\}$", re.S)


def load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as f:
        return hcl2.api.load(f)


def value(raw: Any) -> Any:
    """An attribute's value, unwrapped from the parser's one-element list and quotes."""
    if isinstance(raw, list) and len(raw) == 1:
        raw = raw[0]
    if isinstance(raw, str) and len(raw) >= 2 and raw[0] == raw[-1] == '"':
        raw = raw[1:-1]
    return raw


def attr(block: dict[str, Any], name: str, default: Any = None) -> Any:
    return value(block[name]) if name in block else default


def blocks(block: dict[str, Any], name: str) -> list[dict[str, Any]]:
    raw = block.get(name, [])
    items = raw if isinstance(raw, list) else [raw]
    return [b for b in items if isinstance(b, dict)]


def expression(raw: Any) -> str | None:
    """The expression inside ``${...}``, or None for a literal."""
    raw = value(raw)
    if isinstance(raw, str):
        m = _INTERPOLATION.match(raw)
        if m and "${" not in m.group(1):
            return m.group(1).strip()
    return None


def clean(obj: Any) -> Any:
    """Drop the parser's line-number keys."""
    if isinstance(obj, dict):
        return {k: clean(v) for k, v in obj.items() if not k.startswith("__")}
    if isinstance(obj, list):
        return [clean(v) for v in obj]
    return obj


@dataclass
class Terraform:
    resources: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    data: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    locals: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, dict[str, Any]] = field(default_factory=dict)
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    terraform: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, folder: Path = INFRA) -> Terraform:
        tf = cls()
        for path in sorted(folder.glob("*.tf")):
            tf.files[path.name] = path.read_text(encoding="utf-8")
            doc = clean(load(path))
            for entry in doc.get("resource", []):
                for rtype, named in entry.items():
                    for name, body in named.items():
                        tf.resources.setdefault(rtype, {})[name] = body
            for entry in doc.get("data", []):
                for rtype, named in entry.items():
                    for name, body in named.items():
                        tf.data.setdefault(rtype, {})[name] = body
            for entry in doc.get("locals", []):
                for name, raw in entry.items():
                    assert name not in tf.locals, f"local.{name} declared twice"
                    tf.locals[name] = value(raw)
            for entry in doc.get("variable", []):
                tf.variables.update(entry)
            for entry in doc.get("output", []):
                tf.outputs.update(entry)
            tf.terraform.extend(doc.get("terraform", []))
        return tf

    def resource(self, rtype: str, name: str) -> dict[str, Any]:
        try:
            return self.resources[rtype][name]
        except KeyError:
            raise AssertionError(f"infra/ declares no {rtype}.{name}") from None

    def default(self, variable: str) -> Any:
        return attr(self.variables[variable], "default")

    def local_map(self, name: str) -> dict[str, Any]:
        """A local that is a map literal, or a merge() of other such locals."""
        raw = self.locals[name]
        if isinstance(raw, dict):
            return raw
        expr = expression(raw)
        assert expr is not None, f"local.{name} is neither a map nor an expression"
        return self.resolve_map(expr)

    def resolve_map(self, expr: str) -> dict[str, Any]:
        """Evaluate ``local.a``, ``local.a.b`` or ``merge(local.a, local.b, ...)``."""
        expr = expr.strip()
        merged = re.fullmatch(r"merge\((.*)\)", expr, re.S)
        if merged:
            out: dict[str, Any] = {}
            for part in merged.group(1).split(","):
                out.update(self.resolve_map(part))
            return out
        ref = re.fullmatch(r"local\.(\w+)((?:\.\w+)*)", expr)
        assert ref, f"cannot resolve {expr!r} statically: use a map local or merge(local.x, ...)"
        current: Any = self.local_map(ref.group(1))
        for key in filter(None, ref.group(2).split(".")):
            current = value(current[key])
            if not isinstance(current, dict):
                current = self.resolve_map(expression(current) or "")
        return dict(current)


def tfvars(path: Path) -> dict[str, Any]:
    return {k: value(v) for k, v in clean(load(path)).items()}


def substitute(raw: Any, variables: dict[str, Any]) -> Any:
    """Replace ``${var.x}`` and ``${tostring(var.x)}`` with values; other references
    (resource attributes, known only after apply) with a placeholder."""
    if not isinstance(raw, str):
        return raw

    def one(m: re.Match[str]) -> str:
        inner = m.group(1).strip()
        ref = re.fullmatch(r"(?:tostring\()?var\.(\w+)\)?", inner)
        if ref:
            return str(variables[ref.group(1)])
        return f"<{inner}>"

    return re.sub(r"\$\{([^{}]*)\}", one, raw)
