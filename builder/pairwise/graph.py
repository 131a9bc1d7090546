"""Is a directed battle graph strongly connected? For the usual sizes, answered with numpy alone.

A Bradley-Terry group has a finite maximum only if its "beat or tied" graph is strongly
connected (``builder.pairwise.bt``). The common answer is yes: every fit and nearly every
bootstrap round asks, and for the few hundred models of an Arena a dense boolean adjacency
matrix searched breadth first answers in microseconds. Larger graphs, and the full analysis
of a graph that is not strongly connected (components, groups, which side of the main group
a group is on, in ``bt.analyse_graph``), use ``scipy.sparse.csgraph``, imported only then:
importing scipy costs more than the whole fit of a 150-model Arena.
"""

from __future__ import annotations

import numpy as np

DENSE_NODES = 2048
"Up to this many nodes the check is dense (a 2048 x 2048 boolean matrix is 4 MB); beyond, scipy."


def _reaches_all(adj: np.ndarray) -> bool:
    """Whether node 0 reaches every node along the rows of the boolean ``adj`` (u -> v when adj[u, v])."""
    seen = np.zeros(adj.shape[0], dtype=bool)
    seen[0] = True
    frontier = seen.copy()
    while True:
        new = adj[frontier].any(axis=0) & ~seen
        if not new.any():
            return bool(seen.all())
        seen |= new
        frontier = new


def strongly_connected(n: int, src: np.ndarray, dst: np.ndarray) -> bool:
    """Whether every node of ``0..n-1`` reaches every other along the edges ``src[k] -> dst[k]``.

    A graph of one node is strongly connected.
    """
    if n <= 1:
        return True
    if n > DENSE_NODES:
        import scipy.sparse
        from scipy.sparse.csgraph import connected_components

        g = scipy.sparse.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)).tocsr()
        return int(connected_components(g, directed=True, connection="strong")[0]) == 1
    adj = np.zeros((n, n), dtype=bool)
    adj[src, dst] = True
    return dense_strongly_connected(adj)


def dense_strongly_connected(adj: np.ndarray) -> bool:
    """Whether the graph of the boolean n x n ``adj`` (u -> v when adj[u, v]) is strongly connected."""
    if adj.shape[0] <= 1:
        return True
    return _reaches_all(adj) and _reaches_all(np.ascontiguousarray(adj.T))


__all__ = ["DENSE_NODES", "dense_strongly_connected", "strongly_connected"]
