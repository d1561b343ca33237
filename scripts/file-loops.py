#!/usr/bin/env python3
"""The source files' dependencies, from the build's objects (nm): a file
depends on another when it uses a symbol the other defines. Prints every
loop between files (each strongly connected group of two or more, and a
shortest cycle through it), and every use of a room above the user's
(docs/design.md's layers). Exits 1 when it found either.
  scripts/file-loops.py [BUILD_DIR]   (default build; make all first)"""
import collections
import os
import subprocess
import sys

# docs/design.md: "The layers, lowest first (no file includes a higher one)"
LAYERS = [["util"], ["hprof", "proc", "run", "detect", "sym"], ["runtime", "graph"], ["analyze"],
          ["dump", "report"], ["collector"], ["cli"], ["main.c"]]
RANK = {room: i for i, rooms in enumerate(LAYERS) for room in rooms}


def objects(build):
    top = os.path.join(build, "user")
    for d, _, files in os.walk(top):
        for f in files:
            if f.endswith(".o"):
                path = os.path.join(d, f)
                yield os.path.relpath(path, build)[:-2] + ".c", path


def symbols(paths):
    """{path: (defined, used)} for every object, from one nm run (one per
    object took 30 s here)."""
    out = subprocess.run(["nm", "-A", *paths], capture_output=True, text=True, check=True).stdout
    found = {p: (set(), set()) for p in paths}
    for line in out.splitlines():
        path, _, rest = line.partition(":")  # "path:addr T sym", "path:   U sym"
        parts = rest.split()
        defined, used = found[path]
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":  # global text, data, bss, read-only
            defined.add(parts[2])
    return found


def room(src):  # user/analyze/index.c -> analyze; user/main.c -> main.c
    parts = src.split("/")
    return parts[1] if len(parts) > 2 else parts[1]


def sccs(graph):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
    return out


def cycle(graph, comp):
    """A shortest cycle through the group's first file (breadth first)."""
    members, start = set(comp), comp[0]
    prev, queue = {start: None}, collections.deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    objs = dict(objects(build))
    if not objs:
        sys.exit(f"file-loops: no objects under {build}/user (make all first)")
    defs, uses = {}, {}
    found = symbols(sorted(objs.values()))
    for src, path in objs.items():
        d, u = found[path]
        uses[src] = u
        for s in d:
            defs.setdefault(s, src)
    graph = {src: set() for src in objs}
    why = {}
    for src, used in uses.items():
        for s in used:
            other = defs.get(s)
            if other and other != src:
                graph[src].add(other)
                why.setdefault((src, other), s)
    bad = 0
    for comp in sccs(graph):
        if len(comp) < 2:
            continue
        bad += 1
        c = cycle(graph, comp)
        print(f"loop of {len(comp)} files: " + " -> ".join(
            f"{a} ({why[(a, b)]})" for a, b in zip(c, c[1:])) + f" -> {c[-1]}")
        if len(comp) > len(c) - 1:
            print("  the group: " + " ".join(comp))
    for src in sorted(graph):
        for other in sorted(graph[src]):
            r, o = room(src), room(other)
            if r in RANK and o in RANK and RANK[o] > RANK[r]:
                bad += 1
                print(f"upward: {src} ({r}) uses {why[(src, other)]} of {other} ({o})")
    edges = sum(len(v) for v in graph.values())
    print(f"file-loops: {len(objs)} files, {edges} dependencies, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
