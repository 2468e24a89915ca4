"""End-of-game scoring helpers: connectivity, exact longest trail, ranks.

All functions are pure and work on plain integers so any variant can use them.
"""

from __future__ import annotations

from collections.abc import Sequence


def components(edges: Sequence[tuple[int, int]]) -> dict[int, int]:
    """Union-find over ``edges``: map each touched node to its component's root."""
    parent: dict[int, int] = {}
    for a, b in edges:
        ra, rb = _root(parent, a), _root(parent, b)
        if ra != rb:
            parent[ra] = rb
        parent.setdefault(rb, rb)
    return {node: _root(parent, node) for node in list(parent)}


def _root(parent: dict[int, int], x: int) -> int:
    """``x``'s root in ``parent``, compressing the path to it."""
    root = x
    while parent.get(root, root) != root:
        root = parent[root]
    while parent.get(x, x) != root:
        parent[x], x = root, parent[x]
    return root


def connected(comp: dict[int, int], a: int, b: int) -> bool:
    """True when cities ``a`` and ``b`` lie in one component of ``comp``."""
    ra = comp.get(a)
    return ra is not None and ra == comp.get(b)


def component_labels(nodes: int, edges: Sequence[tuple[int, int]]) -> list[int]:
    """``components`` for nodes ``0 .. nodes - 1`` as a list: each node's component label,
    -1 for a node no edge touches. Lists, not dicts: the end of every rollout scores
    tickets with it, and the compiled build indexes lists natively."""
    parent = list(range(nodes))
    touched = [False] * nodes
    for a, b in edges:
        ra, rb = _find(parent, a), _find(parent, b)
        if ra != rb:
            parent[ra] = rb
        touched[a] = touched[b] = True
    return [_find(parent, x) if touched[x] else -1 for x in range(nodes)]


def _find(parent: list[int], x: int) -> int:
    """``x``'s root in the list ``parent``, compressing the path to it."""
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        parent[x], x = root, parent[x]
    return root


def longest_trail(edges: Sequence[tuple[int, int, int]]) -> int:
    """Length of the longest trail (no edge used twice; nodes may repeat).

    ``edges`` are ``(a, b, length)``. Exact: a depth-first search over edge
    sets. Two facts keep it small: a maximal trail that does not end where it
    started ends at odd-degree nodes, so searches start only there; and a
    component whose nodes all have even degree has an Euler circuit, whose
    length is the sum of all its edges. The nodes are numbered 0, 1, ... in
    order of appearance, so that the search runs on lists.
    """
    if not edges:
        return 0
    index: dict[int, int] = {}
    ends: list[tuple[int, int, int]] = []
    for a, b, length in edges:
        if a not in index:
            index[a] = len(index)
        if b not in index:
            index[b] = len(index)
        ends.append((index[a], index[b], length))
    n = len(index)
    adjacency: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
    # ``component_labels``'s union-find, fused into this loop: calling it instead (with a
    # list of edge pairs built for it) made this 12% slower, and every rollout ends here.
    parent = list(range(n))
    for i, (a, b, length) in enumerate(ends):
        adjacency[a].append((b, i, length))
        adjacency[b].append((a, i, length))
        ra, rb = _find(parent, a), _find(parent, b)
        if ra != rb:
            parent[ra] = rb
    total = [0] * n
    odd: list[list[int]] = [[] for _ in range(n)]
    for a, _b, length in ends:
        total[_find(parent, a)] += length
    for node in range(n):
        if len(adjacency[node]) % 2:
            odd[_find(parent, node)].append(node)

    best = 0
    for root in range(n):
        if parent[root] != root:
            continue
        starts = odd[root]
        if not starts:
            best = max(best, total[root])
            continue
        if total[root] <= best:
            continue
        for start in starts:
            best = max(best, _dfs(adjacency, start, 0))
    return best


def _dfs(adjacency: list[list[tuple[int, int, int]]], node: int, used: int) -> int:
    best = 0
    for other, edge, length in adjacency[node]:
        bit = 1 << edge
        if not used & bit:
            value = length + _dfs(adjacency, other, used | bit)
            if value > best:
                best = value
    return best


def competition_ranks(keys: Sequence[tuple[int, ...]]) -> list[int]:
    """1-based ranks, higher key better; equal keys share a rank ("1224" ranking)."""
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=True)
    ranks = [0] * len(keys)
    for position, seat in enumerate(order):
        if position and keys[seat] == keys[order[position - 1]]:
            ranks[seat] = ranks[order[position - 1]]
        else:
            ranks[seat] = position + 1
    return ranks
