"""End-of-game scoring helpers: connectivity, exact longest trail, ranks.

All functions are pure and work on plain integers so any variant can use them.
"""

from __future__ import annotations

from collections.abc import Sequence


def components(edges: Sequence[tuple[int, int]]) -> dict[int, int]:
    """Union-find over ``edges``: map each touched node to its component's root."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:
            parent[x], x = root, parent[x]
        return root

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
        parent.setdefault(rb, rb)
    return {node: find(node) for node in list(parent)}


def connected(comp: dict[int, int], a: int, b: int) -> bool:
    """True when cities ``a`` and ``b`` lie in one component of ``comp``."""
    ra = comp.get(a)
    return ra is not None and ra == comp.get(b)


def longest_trail(edges: Sequence[tuple[int, int, int]]) -> int:
    """Length of the longest trail (no edge used twice; nodes may repeat).

    ``edges`` are ``(a, b, length)``. Exact: a depth-first search over edge
    sets. Two facts keep it small: a maximal trail that does not end where it
    started ends at odd-degree nodes, so searches start only there; and a
    component whose nodes all have even degree has an Euler circuit, whose
    length is the sum of all its edges.
    """
    if not edges:
        return 0
    adjacency: dict[int, list[tuple[int, int, int]]] = {}
    for i, (a, b, length) in enumerate(edges):
        adjacency.setdefault(a, []).append((b, i, length))
        adjacency.setdefault(b, []).append((a, i, length))
    comp = components([(a, b) for a, b, _ in edges])
    comp_total: dict[int, int] = {}
    comp_odd: dict[int, list[int]] = {}
    for a, _b, length in edges:
        comp_total[comp[a]] = comp_total.get(comp[a], 0) + length
    for node, links in adjacency.items():
        if len(links) % 2:
            comp_odd.setdefault(comp[node], []).append(node)

    best = 0
    for root, total in comp_total.items():
        starts = comp_odd.get(root)
        if not starts:
            best = max(best, total)
            continue
        if total <= best:
            continue
        for start in starts:
            best = max(best, _dfs(adjacency, start, 0))
    return best


def _dfs(adjacency: dict[int, list[tuple[int, int, int]]], node: int, used: int) -> int:
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
