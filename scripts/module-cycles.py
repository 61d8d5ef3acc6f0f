#!/usr/bin/env python3
"""Report the import cycles among a crate's modules.

Usage: scripts/module-cycles.py [SRC_DIR]   (default: runtime/src)

Each top-level module (a file `x.rs` or a folder `x/`) is a node; an edge A -> B is any
`crate::B` path in A's code (comments stripped), or `crate::Name` where lib.rs re-exports
`Name` from B. Prints every strongly connected component of more than one module, the
largest first, and exits 0: it measures, it does not judge.
"""

import re
import sys
from pathlib import Path


def strip_comments(text: str) -> str:
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def use_items(body: str):
    """Yield the first path segment after each `crate::`, inside `crate::{...}` groups too."""
    for m in re.finditer(r"\bcrate::(\w+|\{)", body):
        if m.group(1) != "{":
            yield m.group(1)
            continue
        depth, end = 1, m.end()
        while depth and end < len(body):
            depth += {"{": 1, "}": -1}.get(body[end], 0)
            end += 1
        group = body[m.end() : end - 1]
        # Keep only the top level of the group: drop nested `{...}`.
        while re.search(r"\{[^{}]*\}", group):
            group = re.sub(r"\{[^{}]*\}", "", group)
        for item in group.split(","):
            first = re.match(r"\s*(\w+)", item)
            if first:
                yield first.group(1)


def modules(src: Path) -> dict[str, str]:
    mods = {}
    for path in sorted(src.iterdir()):
        if path.name in ("lib.rs", "main.rs"):
            continue
        if path.suffix == ".rs":
            mods[path.stem] = strip_comments(path.read_text())
        elif path.is_dir():
            mods[path.name] = "\n".join(strip_comments(p.read_text()) for p in sorted(path.rglob("*.rs")))
    return mods


def reexports(lib: str) -> dict[str, str]:
    """Map each name lib.rs re-exports (`pub use module::{A, B}`) to its module."""
    names = {}
    for m in re.finditer(r"pub use (\w+)::(\{[^}]*\}|\w+);", strip_comments(lib)):
        module, items = m.group(1), m.group(2).strip("{}")
        for item in items.split(","):
            item = item.strip()
            if item:
                names[item] = module
    return names


def sccs(graph: dict[str, set[str]]) -> list[list[str]]:
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main() -> None:
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "runtime/src")
    mods = modules(src)
    names = reexports((src / "lib.rs").read_text())
    graph = {m: set() for m in mods}
    for m, body in mods.items():
        for seg in use_items(body):
            target = seg if seg in mods else names.get(seg)
            if target and target != m:
                graph[m].add(target)
    cycles = sorted((c for c in sccs(graph) if len(c) > 1), key=len, reverse=True)
    print(f"{len(mods)} modules, {sum(map(len, graph.values()))} edges, "
          f"{sum(map(len, cycles))} modules in {len(cycles)} cycle(s)")
    for c in cycles:
        print(f"  {len(c)}: {' '.join(c)}")


if __name__ == "__main__":
    main()
