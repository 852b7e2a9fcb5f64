"""Embedding-space metrics of HiVES (VALUEFLOW's evaluator, re-implemented by us; cosine on unit rows).

- :func:`knn_accuracy`: 1-NN (cosine) accuracy, train -> eval, of each label level and of the direction;
- :func:`hier_ranking_accuracy`: for an anchor, one candidate from each of five bins (b0 same path and
  direction; b1 same path, other direction; b2 same h1, h2, other h3; b3 same h1, other h2; b4 other h1);
  *pairwise* = share of candidate pairs from different bins where the lower bin is more similar to the anchor,
  *strict* = share of anchors with every pair right;
- :func:`similarity_correlation`: Pearson correlation over pairs of cosine similarity with the label similarity
  (matched path prefix levels + 0.5 [same direction]);
- :func:`distance_ratios`: mean cosine distance of same-path pairs (same or other direction) over that of
  different-h1 pairs;
- :func:`orthogonality`: mean |cos| between value vectors (mean supporting minus mean opposing embedding;
  our reconstruction of the project page's metric; lower is better);
- :func:`cross_theory_precision`: precision@k of retrieving, among texts of *other* theories, those that share
  a query's cross-theory concept.
"""

from __future__ import annotations

import numpy as np

__all__ = ["knn_accuracy", "hier_ranking_accuracy", "similarity_correlation", "distance_ratios", "orthogonality",
           "cross_theory_precision", "prefix_matches", "unit"]


def unit(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def prefix_matches(paths: np.ndarray) -> np.ndarray:
    """(n, n) number of leading path levels two rows share (a padded level, -1, never matches)."""
    p = np.asarray(paths)
    out = np.zeros((len(p), len(p)), dtype=np.int64)
    alive = np.ones((len(p), len(p)), dtype=bool)
    for lvl in range(p.shape[1]):
        col = p[:, lvl]
        alive &= (col[:, None] == col[None, :]) & (col[:, None] >= 0)
        out += alive
    return out


def knn_accuracy(z_train, paths_train, dir_train, z_eval, paths_eval, dir_eval) -> dict[str, float]:
    """1-NN cosine accuracy of levels h1..h3 (rows whose level is padded are skipped) and of the direction."""
    sims = unit(z_eval) @ unit(z_train).T
    out = {}
    for lvl in range(paths_train.shape[1]):
        ok_tr = paths_train[:, lvl] >= 0
        ok_ev = paths_eval[:, lvl] >= 0
        if not ok_tr.any() or not ok_ev.any():
            out[f"h{lvl + 1}"] = float("nan")
            continue
        nn = np.argmax(np.where(ok_tr[None, :], sims[ok_ev], -np.inf), axis=1)
        out[f"h{lvl + 1}"] = float(np.mean(paths_train[nn, lvl] == paths_eval[ok_ev, lvl]))
    out["direction"] = float(np.mean(dir_train[np.argmax(sims, axis=1)] == dir_eval))
    return out


def _bins(paths, direction) -> np.ndarray:
    """(n, n) bin of each pair: 0..4 as in the module docstring, -1 for self or no bin."""
    m = prefix_matches(paths)
    depth = (paths >= 0).sum(1)
    same_full = (m == depth[:, None]) & (depth[:, None] == depth[None, :])
    same_dir = direction[:, None] == direction[None, :]
    b = np.full(m.shape, -1)
    b[m == 0] = 4
    b[(m == 1) & (paths[:, None, 1] >= 0) & (paths[None, :, 1] >= 0)] = 3
    b[(m == 2) & (paths[:, None, 2] >= 0) & (paths[None, :, 2] >= 0)] = 2
    b[same_full & ~same_dir] = 1
    b[same_full & same_dir] = 0
    np.fill_diagonal(b, -1)
    return b


def hier_ranking_accuracy(z, paths, direction, n_anchors: int = 512, seed: int = 42) -> dict[str, float]:
    """Pairwise and strict 5-bin hierarchical ranking accuracy (anchors with at least two non-empty bins)."""
    z = unit(z)
    paths = np.asarray(paths)
    direction = np.asarray(direction)
    rng = np.random.default_rng(seed)
    bins = _bins(paths, direction)
    anchors = rng.permutation(len(z))[:n_anchors]
    right = total = strict_ok = n_strict = 0
    for a in anchors:
        cands = []
        for b in range(5):
            pool = np.flatnonzero(bins[a] == b)
            if pool.size:
                cands.append((b, int(rng.choice(pool))))
        if len(cands) < 2:
            continue
        s = np.array([z[a] @ z[j] for _, j in cands])
        ok = [s[i] > s[j] for i in range(len(cands)) for j in range(i + 1, len(cands))]
        right += sum(ok)
        total += len(ok)
        strict_ok += all(ok)
        n_strict += 1
    return {"pairwise": right / total if total else float("nan"),
            "strict": strict_ok / n_strict if n_strict else float("nan"), "anchors": n_strict}


def similarity_correlation(z, paths, direction, max_n: int = 1500, seed: int = 0) -> float:
    """Pearson r over pairs (i < j) of cosine similarity and label similarity (at most ``max_n`` rows)."""
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(z))[:max_n]
    zz = unit(np.asarray(z)[idx])
    p = np.asarray(paths)[idx]
    d = np.asarray(direction)[idx]
    lab = prefix_matches(p) + 0.5 * (d[:, None] == d[None, :])
    iu = np.triu_indices(len(idx), 1)
    return float(np.corrcoef((zz @ zz.T)[iu], lab[iu])[0, 1])


def distance_ratios(z, paths, direction) -> dict[str, float]:
    """Mean cosine distance of same-path same-direction and same-path other-direction pairs, each over the mean
    distance of pairs with different h1 (``same_dir``, ``diff_dir``), and their difference ``gap``."""
    zz = unit(z)
    dist = 1 - zz @ zz.T
    b = _bins(np.asarray(paths), np.asarray(direction))
    d4 = dist[b == 4].mean()
    out = {"same_dir": float(dist[b == 0].mean() / d4), "diff_dir": float(dist[b == 1].mean() / d4)}
    out["gap"] = out["diff_dir"] - out["same_dir"]
    return out


def orthogonality(z, value, direction) -> float:
    """Mean |cos(v_c, v_c')| over pairs of value vectors v_c = mean z(c, +) - mean z(c, -)."""
    zz = unit(z)
    vecs = []
    for c in np.unique(value):
        pos, neg = (value == c) & (direction > 0), (value == c) & (direction < 0)
        if pos.any() and neg.any():
            vecs.append(zz[pos].mean(0) - zz[neg].mean(0))
    v = unit(np.array(vecs))
    c = np.abs(v @ v.T)
    iu = np.triu_indices(len(v), 1)
    return float(c[iu].mean()) if iu[0].size else float("nan")


def cross_theory_precision(z, theory, anchor_id, k: int = 5) -> float:
    """Mean precision@k over queries with a concept id: the share of their k nearest texts of other theories
    that carry the same concept id."""
    zz = unit(z)
    theory = np.asarray(theory)
    anchor_id = np.asarray(anchor_id)
    q = np.flatnonzero(anchor_id >= 0)
    if q.size == 0:
        return float("nan")
    sims = zz[q] @ zz.T
    sims[theory[q][:, None] == theory[None, :]] = -np.inf
    top = np.argsort(-sims, axis=1)[:, :k]
    return float(np.mean(anchor_id[top] == anchor_id[q][:, None]))
