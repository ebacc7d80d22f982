"""The longest functions of the engine, longest first: where splitting into named steps pays most.

    python tools/longest_functions.py [--top 10] [FOLDER]

A function's length is its lines from ``def`` to its last line (docstring and comments
included, decorators not), as ``ast`` gives them; a method is named ``Class.method`` and a
function defined inside another ``outer.<locals>.inner``, counted in both.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def functions(tree: ast.AST, prefix: str = "") -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function in ``tree`` with its qualified name."""
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((prefix + node.name, node))
            found.extend(functions(node, f"{prefix}{node.name}.<locals>."))
        elif isinstance(node, ast.ClassDef):
            found.extend(functions(node, f"{prefix}{node.name}."))
        else:
            found.extend(functions(node, prefix))
    return found


def longest(folder: Path) -> list[tuple[int, str, int]]:
    """(lines, ``path:function``, first line) of every function under ``folder``, longest first."""
    rows = []
    for path in sorted(folder.rglob("*.py")):
        for name, node in functions(ast.parse(path.read_text("utf-8"))):
            assert node.end_lineno is not None
            rows.append((node.end_lineno - node.lineno + 1, f"{path.relative_to(folder.parent)}:{name}", node.lineno))
    return sorted(rows, key=lambda row: (-row[0], row[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", default=str(ROOT / "engine"), help="where to look (default: engine/)")
    parser.add_argument("--top", type=int, default=10, help="how many to list (default: 10)")
    args = parser.parse_args()
    for lines, name, first in longest(Path(args.folder).resolve())[: args.top]:
        print(f"{lines:4}  {name} (line {first})")


if __name__ == "__main__":
    main()
