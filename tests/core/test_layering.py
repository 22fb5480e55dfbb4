"""The package's layering: each top-level module imports only modules listed above it.

The order is the one docs/ARCHITECTURE.md and the README give. Every import counts, at module
level or inside a function (a late import is still a dependency).
"""

from __future__ import annotations

import ast
from pathlib import Path

import redlinebench

ORDER = ["errors", "config", "_litellm", "_retry", "_throttle", "_text", "_termtable", "_atomic", "docx", "tools", "tasks", "dataset", "synthetic",
         "scoring", "agent", "judge", "report", "runner", "integrations", "cli"]
ROOT = Path(redlinebench.__file__).parent


def _layer(path: Path) -> str:
    return path.relative_to(ROOT).parts[0].removesuffix(".py")


def _parse(path: Path) -> ast.Module:
    """``ast.parse``, once more on CPython 3.11's spurious "AST constructor recursion depth mismatch"
    (its AST conversion keeps one depth counter per interpreter, which another thread of the test
    process parsing at the same moment upsets: python/cpython#106905)."""
    source = path.read_text(encoding="utf-8")
    try:
        return ast.parse(source)
    except SystemError:
        return ast.parse(source)


def _imported_layers(path: Path) -> set[str]:
    """Our top-level modules that ``path`` imports (relative or absolute imports)."""
    package = list(path.relative_to(ROOT).parent.parts)
    out: set[str] = set()
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                if node.level - 1 > len(package):
                    continue
                target = base + (node.module.split(".") if node.module else [])
                if target:
                    out.add(target[0])
                else:  # `from .. import x`: x is a top-level module of ours
                    out.update(alias.name for alias in node.names)
            elif node.module and node.module.split(".")[0] == "redlinebench":
                parts = node.module.split(".")[1:]
                out.update([parts[0]] if parts else [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "redlinebench" and len(parts) > 1:
                    out.add(parts[1])
    return {m for m in out if m in ORDER}


def test_every_module_is_placed_in_the_order():
    layers = {_layer(p) for p in ROOT.rglob("*.py")} - {"__init__", "__main__"}
    assert layers <= set(ORDER), f"place these in ORDER and in docs/ARCHITECTURE.md: {sorted(layers - set(ORDER))}"


def test_imports_only_point_up_the_list():
    rank = {name: i for i, name in enumerate(ORDER)}
    wrong = []
    for path in sorted(ROOT.rglob("*.py")):
        layer = _layer(path)
        if layer not in rank:
            continue
        for target in _imported_layers(path):
            if target != layer and rank[target] > rank[layer]:
                wrong.append(f"{path.relative_to(ROOT)} imports {target} (listed below {layer})")
    assert wrong == []


def test_the_docs_list_the_same_order():
    text = (ROOT.parent / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    listed = [line.split()[0].rstrip("/").removesuffix(".py") for line in text.split("```")[1].splitlines()
              if line.startswith("  ") and not line.startswith("    ") and line.split()[0].rstrip("/") != "_data"]
    listed = [name for name in listed if name in ORDER]
    assert listed == ORDER
