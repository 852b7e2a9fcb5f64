r"""Experiments of the ``ts_pairwise_ranking`` chapter: one function per claim of the dossier (section 5),
each returning a dataclass of arrays that the chapter plots and :mod:`.analysis` decides on.

Paper: "Ranking Time Series using a Time Warping Ideal Point Model", ICML 2026. Every comparison is
simulated from a latent score (no expert comparisons are available offline); the learners see only
the comparisons.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from scipy.stats import kendalltau

from ...runtime import progress, rng as make_rng
from . import distances as dist
from .baselines import RankNet, bradley_terry_scores, noisy_label_classifier_scores
from .config import RankingConfig
from .data import (SeriesSet, ecg_family, irregular_family, load_aeon_series, majority_vote, pointwise_labels,
                   random_pairs, simulate_comparisons, simulate_from_scores, warped_family)
from .model import IdealPointModel

__all__ = ["tau", "make_model", "alignment_matrix", "SoftTwedCheck", "soft_twed_check", "LipschitzCheck",
           "lipschitz_check", "NoiseSweep", "noise_sweep", "WellSpecified", "well_specified", "CrowdResult",
           "crowd_experiment", "AeonResult", "aeon_experiment", "ecg_experiment", "speed_check", "PlaygroundResult",
           "playground_fit", "shifted_pair_demo", "lipschitz_bounds", "LIPSCHITZ_CONSTANTS", "pair_accuracy",
           "heldout_comparisons", "AnnotationBudget", "annotation_budget_experiment", "IrregularResult",
           "irregular_experiment", "soft_dtw_speed"]

MODEL_DISTANCES = ("euclidean", "softdtw", "softtwed")


def tau(a, b) -> float:
    """Kendall's :math:`\\tau_b` between two score vectors."""
    return float(kendalltau(np.asarray(a, float), np.asarray(b, float))[0])


def make_model(cfg: RankingConfig, distance: str, steps: int | None = None, flip_rate=None,
               init: str = "agreement") -> IdealPointModel:
    """The chapter's ideal point model for ``distance`` with the config's hyperparameters (``flip_rate`` and
    ``init``: see :class:`IdealPointModel`; ``flip_rate=None`` is the paper's logistic link)."""
    return IdealPointModel(distance, gamma=cfg.gamma, nu=cfg.nu, lam=cfg.lam, eps=cfg.eps,
                           steps=cfg.steps if steps is None else steps, lr=cfg.lr, flip_rate=flip_rate, init=init)


def alignment_matrix(x, y, kind: str = "dtw", gamma: float = 0.0, nu: float = 0.001, lam: float = 1.0) -> np.ndarray:
    """The (expected) alignment ``(T, S)`` between two series: the gradient of (soft-)DTW with respect to its
    cost matrix, or of (soft-)TWED with respect to its match costs (the cells where ``x_i`` is matched
    with ``y_j``). For ``gamma = 0`` this is the optimal warping path as a 0/1 matrix."""
    xb, yb = dist.as_batch(np.asarray(x, float)[None]), dist.as_batch(np.asarray(y, float)[None])
    if kind == "dtw":
        c = dist.pointwise_cost(xb, yb).requires_grad_(True)
        dist.wavefront_min(c, c, c, gamma).sum().backward()
        return c.grad[0].numpy()
    if kind == "twed":
        up, left, match = dist._twed_costs(xb, yb, nu, lam, 0.0)
        match = match.detach().requires_grad_(True)
        dist.wavefront_min(up, left, match, gamma).sum().backward()
        return match.grad[0].numpy()
    raise ValueError(f"kind={kind!r} is not allowed; choose 'dtw' or 'twed'")


def shifted_pair_demo(length: int = 60, shift: float = 0.15) -> dict:
    """A reference shape, the same shape shifted in time, and a different shape at the reference's
    position, with their Euclidean, DTW and TWED distances (the 'why elastic' figure)."""
    from .data import ideal_pattern, normal_pattern
    t = np.linspace(0, 1, length)
    ref, shifted, other = ideal_pattern(t), ideal_pattern(t - shift), normal_pattern(t)
    out = {"t": t, "ref": ref, "shifted": shifted, "other": other}
    for name, y in (("shifted", shifted), ("other", other)):
        a, b = torch.as_tensor(ref)[None], torch.as_tensor(y)[None]
        out[name + "_dist"] = {"Euclidean": float(dist.euclidean(a, b)[0]), "DTW": float(dist.dtw(a, b)[0]),
                               "TWED": float(dist.twed(a, b)[0])}
    return out


# ------------------------------------------------------------------------------------- claim 1
@dataclasses.dataclass
class SoftTwedCheck:
    gammas: np.ndarray            # (G,)
    twed_rel_err: np.ndarray      # (G,) max relative error soft-TWED vs aeon's twe_distance over the pairs
    twed_gap_bound_ok: bool       # exact - gamma (T+S) log 3 - 2 eps (T+S) <= soft <= exact for every pair and gamma
    exact_vs_aeon: float          # max |our exact TWED - aeon| / aeon
    dtw_vs_aeon: float
    softdtw_vs_tslearn: float     # max relative error at gamma = cfg.gamma (NaN: not run at this profile)
    grad_rel_err: float           # autograd vs central finite differences (float64), soft-TWED divergence
    n_pairs: int
    length: int
    pytwed_rel_err: np.ndarray | None = None   # (G,) the same against pytwed's C TWED (None: pytwed absent)
    exact_vs_pytwed_c: float = float("nan")    # max |our exact TWED - pytwed C| / pytwed C
    exact_vs_pytwed_py: float = float("nan")   # the same against pytwed's float64 Python reference, few pairs


def soft_twed_check(cfg: RankingConfig, seed: int, gammas=(1.0, 0.3, 0.1, 0.03, 0.01, 1e-3, 1e-4)) -> SoftTwedCheck:
    """Claim 1: soft-TWED tends to aeon's exact TWED as :math:`\\gamma\\to0`; gradients match finite differences."""
    from aeon.distances import dtw_distance, twe_distance
    rng = make_rng(seed, 1)
    n, T = min(cfg.n_pairs_check, 100), cfg.check_length
    x, y = rng.normal(size=(n, T)), rng.normal(size=(n, T + 3))
    xt, yt = torch.as_tensor(x), torch.as_tensor(y)
    ref = np.array([twe_distance(x[b], y[b], nu=cfg.nu, lmbda=cfg.lam) for b in range(n)])
    exact = dist.twed(xt, yt, cfg.nu, cfg.lam).numpy()
    eps = 1e-9
    rel, ok, soft = [], True, {}
    for g in gammas:
        s = soft[g] = dist.soft_twed(xt, yt, cfg.nu, cfg.lam, gamma=g, eps=eps).numpy()
        rel.append(float(np.max(np.abs(s - ref) / ref)))
        slack = g * (2 * T + 3) * np.log(3) + 2 * eps * (2 * T + 3)
        ok &= bool(np.all(s <= exact + 1e-9) and np.all(s >= exact - slack - 1e-9))
    dref = np.array([dtw_distance(x[b], y[b]) for b in range(n)])
    if cfg.tslearn_reference:
        from tslearn.metrics import soft_dtw as ts_soft_dtw
        sref = np.array([ts_soft_dtw(x[b][:, None], y[b][:, None], gamma=cfg.gamma) for b in range(n)])
        sdtw_err = float(np.max(np.abs(dist.soft_dtw(xt, yt, cfg.gamma).numpy() - sref) / np.abs(sref)))
    else:
        sdtw_err = float("nan")                                   # not run at this profile (see the config)
    # gradient check in float64 on a few pairs
    xa = torch.as_tensor(x[:2, :8]).clone().requires_grad_(True)
    ya = torch.as_tensor(y[:2, :7])
    f = lambda a: dist.soft_twed_divergence(a, ya, cfg.nu, cfg.lam, gamma=cfg.gamma, eps=cfg.eps).sum()  # noqa: E731
    f(xa).backward()
    g_auto = xa.grad.numpy().copy()
    h, g_fd = 1e-6, np.zeros_like(g_auto)
    with torch.no_grad():
        for idx in np.ndindex(*g_fd.shape):
            e = torch.zeros_like(xa)
            e[idx] = h
            g_fd[idx] = (float(f(xa + e)) - float(f(xa - e))) / (2 * h)
    grad_err = float(np.max(np.abs(g_auto - g_fd)) / np.max(np.abs(g_fd)))
    py_rel, py_c, py_py = pytwed_reference(x, y, cfg.nu, cfg.lam, exact, soft)
    return SoftTwedCheck(np.array(gammas), np.array(rel), ok, float(np.max(np.abs(exact - ref) / ref)),
                         float(np.max(np.abs(dist.dtw(xt, yt).numpy() - dref) / dref)),
                         sdtw_err, grad_err, n, T, py_rel, py_c, py_py)


def pytwed_reference(x: np.ndarray, y: np.ndarray, nu: float, lam: float, exact: np.ndarray, soft: dict,
                     n_python: int = 3):
    """Our TWED against ``pytwed`` (Marteau's reference code), when it is installed.

    ``pytwed`` pads the time stamps with a leading 0, so stamps ``1..T`` reproduce ours; ``p = 2`` is its
    Lp order. Its C routine keeps each cell's three candidates in single-precision ``float`` variables, so it
    agrees with float64 codes to about 1e-7 only; its Python reference (``fast=False``, slow) is float64 and
    is run on ``n_python`` pairs. Returns ``(rel_err_of_soft per gamma or None, exact vs C, exact vs Python)``.
    """
    try:
        import pytwed
    except ImportError:
        return None, float("nan"), float("nan")
    stamps = lambda a: np.arange(1.0, len(a) + 1)  # noqa: E731
    ref_c = np.array([pytwed.twed(a, b, stamps(a), stamps(b), lmbda=lam, nu=nu, p=2) for a, b in zip(x, y)])
    ref_py = np.array([pytwed.twed(a, b, stamps(a), stamps(b), lmbda=lam, nu=nu, p=2, fast=False)
                       for a, b in zip(x[:n_python], y[:n_python])])
    rel = np.array([float(np.max(np.abs(v - ref_c) / ref_c)) for v in soft.values()])
    return (rel, float(np.max(np.abs(exact - ref_c) / ref_c)),
            float(np.max(np.abs(exact[:n_python] - ref_py) / ref_py)))


def speed_check(n_pairs: int = 300, length: int = 150, repeat: int = 3, seed: int = 0) -> dict:
    """Wall time of our exact TWED and DTW (float64, no gradient: the two-anti-diagonal path) on ``n_pairs``
    random pairs, against aeon's numba functions called pair by pair; best of ``repeat`` interleaved runs.
    Returns ``{name: (ours_seconds, aeon_seconds, max_relative_difference)}`` and ``"threads"``. Timings
    depend on the machine and its load; nothing is decided on them."""
    import time

    from aeon.distances import dtw_distance, twe_distance
    r = make_rng(seed, 11)
    x, y = r.normal(size=(n_pairs, length)), r.normal(size=(n_pairs, length))
    xt, yt = torch.as_tensor(x), torch.as_tensor(y)
    out = {"threads": torch.get_num_threads()}
    for name, ours, ref in (("TWED", dist.twed, twe_distance), ("DTW", dist.dtw, dtw_distance)):
        ref(x[0], y[0])                                            # numba compilation outside the timing
        best_o = best_r = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            with torch.no_grad():
                a = ours(xt, yt).numpy()
            best_o = min(best_o, time.perf_counter() - t0)
            t0 = time.perf_counter()
            b = np.array([ref(x[k], y[k]) for k in range(n_pairs)])
            best_r = min(best_r, time.perf_counter() - t0)
        out[name] = (best_o, best_r, float(np.max(np.abs(a - b) / b)))
    return out


def soft_dtw_speed(n_pairs: int = 100, length: int = 100, gamma: float = 1.0, repeat: int = 3, seed: int = 1) -> dict:
    """Wall time of our soft-DTW forward + backward (the gradient with respect to ``x``, float64) on
    ``n_pairs`` random pairs against tslearn's ``soft_dtw_alignment`` (forward + expected alignment) called
    pair by pair; best of ``repeat`` interleaved runs. Returns ``{"ours", "tslearn", "max_grad_diff",
    "threads"}``; the gradient from tslearn's alignment :math:`A` is :math:`2\\sum_j A_{ij}(x_i-y_j)`."""
    import time

    from tslearn.metrics import soft_dtw_alignment
    r = make_rng(seed, 16)
    x, y = r.normal(size=(n_pairs, length)), r.normal(size=(n_pairs, length))

    def ours():
        xt = torch.as_tensor(x).requires_grad_(True)
        dist.soft_dtw(xt, torch.as_tensor(y), gamma).sum().backward()
        return xt.grad.numpy()

    def ref():
        return [soft_dtw_alignment(x[b][:, None], y[b][:, None], gamma=gamma)[0] for b in range(n_pairs)]

    ours(), ref()                                                  # compilation outside the timing
    best_o = best_r = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        g = ours()
        best_o = min(best_o, time.perf_counter() - t0)
        t0 = time.perf_counter()
        A = ref()
        best_r = min(best_r, time.perf_counter() - t0)
    g_ref = np.stack([2 * (a * (x[b][:, None] - y[b][None, :])).sum(1) for b, a in enumerate(A)])
    return {"ours": best_o, "tslearn": best_r, "max_grad_diff": float(np.max(np.abs(g - g_ref))),
            "threads": torch.get_num_threads()}


# ------------------------------------------------------------------------------------- claim 2
@dataclasses.dataclass
class LipschitzCheck:
    ratios: dict                  # name -> (n_pairs,) |d(X,U)-d(X,U')| / bound
    scales: np.ndarray            # (n_pairs,) size of the perturbation U' - U
    constants: dict = dataclasses.field(default_factory=dict)   # name -> the bound, in words


LIPSCHITZ_CONSTANTS = {
    "DTW (L1 cost)": "(T+S-1) max_j |u_j - u'_j|",
    "soft-DTW (L1 cost)": "(T+S-1) max_j |u_j - u'_j|",
    "TWED": "2 sum_j |u_j - u'_j|",
    "soft-TWED": "2 sum_j |u_j - u'_j|",
    "soft-DTW divergence (squared cost)": "[2(T+S-1)(R_x+R_u) + 4(2S-1)R_u] max_j |u_j - u'_j|, R = sup norms",
    "soft-TWED divergence": "4 sum_j |u_j - u'_j|",
}


def lipschitz_bounds(X: np.ndarray, U: np.ndarray, U2: np.ndarray) -> dict:
    r"""The Lipschitz bounds on :math:`|d(X,U)-d(X,U')|` of every distance in :data:`LIPSCHITZ_CONSTANTS`,
    per pair (rows of ``X`` ``(n, T)``, ``U`` and ``U2`` ``(n, S)``).

    * DTW with the :math:`L_1` cost (and its soft version): a path has at most :math:`T+S-1` cells, each
      changing by at most :math:`\max_j|u_j-u'_j|`.
    * TWED and soft-TWED: each column is entered once, :math:`u_j` appears in the moves entering columns
      :math:`j` and :math:`j+1`, and every (smoothed) norm is 1-Lipschitz: :math:`2\sum_j|u_j-u'_j|`.
    * The soft-TWED divergence :math:`s(X,U)-\tfrac12[s(X,X)+s(U,U)]`: the first term as above; in
      :math:`s(U,U)` the ideal is on both sides, every row and every column is entered once, so a path
      changes by at most :math:`4\sum_j|u_j-u'_j|`, halved by the :math:`\tfrac12`: :math:`4\sum_j|u_j-u'_j|`.
    * The soft-DTW divergence with the squared cost is only locally Lipschitz: a cell of :math:`s(X,U)`
      changes by :math:`|u'_j-u_j|\,|2x_i-u_j-u'_j|\le 2(R_x+R_u)\max_j|u_j-u'_j|` over at most
      :math:`T+S-1` cells, a cell of :math:`s(U,U)` by at most :math:`8R_u\max_j|u_j-u'_j|` over at most
      :math:`2S-1` cells, halved; :math:`R_x=\lVert x\rVert_\infty`, :math:`R_u=\max(\lVert u\rVert_\infty,
      \lVert u'\rVert_\infty)`. Soft-min is 1-Lipschitz in the max-norm, so the soft versions keep the constants.
    """
    T, S = X.shape[1], U.shape[1]
    delta = np.abs(U2 - U)
    linf, l1 = delta.max(1), delta.sum(1)
    Rx = np.abs(X).max(1)
    Ru = np.maximum(np.abs(U).max(1), np.abs(U2).max(1))
    sq = (2 * (T + S - 1) * (Rx + Ru) + 4 * (2 * S - 1) * Ru) * linf
    return {"DTW (L1 cost)": (T + S - 1) * linf, "soft-DTW (L1 cost)": (T + S - 1) * linf,
            "TWED": 2 * l1, "soft-TWED": 2 * l1, "soft-DTW divergence (squared cost)": sq,
            "soft-TWED divergence": 4 * l1}


def lipschitz_check(cfg: RankingConfig, seed: int) -> LipschitzCheck:
    """Claim 2: ratios of observed differences to the Lipschitz bounds of :func:`lipschitz_bounds`, for
    the distances named in the paper (DTW, TWED) and for the two the model fits (the squared-cost soft-DTW
    divergence and the soft-TWED divergence). ``U'`` is ``U`` plus a perturbation of random scale
    (log-uniform over three decades), on a few coordinates only for half of the pairs (the tight cases).
    """
    rng = make_rng(seed, 2)
    n, T = cfg.n_pairs_check, cfg.check_length
    S = T + 2
    X = rng.normal(size=(n, T))
    U = rng.normal(size=(n, S))
    scale = 10 ** rng.uniform(-3, 0, n)
    delta = rng.normal(size=(n, S)) * scale[:, None]
    sparse = rng.uniform(size=n) < 0.5
    mask = rng.uniform(size=(n, S)) < 0.1
    mask[np.arange(n), rng.integers(0, S, n)] = True              # at least one coordinate moves
    delta = np.where(sparse[:, None] & ~mask, 0.0, delta)
    U2 = U + delta
    Xt, Ut, U2t = (torch.as_tensor(a) for a in (X, U, U2))
    bounds = lipschitz_bounds(X, U, U2)
    g, nu, lam, eps = cfg.gamma, cfg.nu, cfg.lam, cfg.eps
    fns = {
        "DTW (L1 cost)": lambda a: dist.dtw(Xt, a, cost="l1"),
        "soft-DTW (L1 cost)": lambda a: dist.dtw(Xt, a, gamma=g, cost="l1"),
        "TWED": lambda a: dist.twed(Xt, a, nu, lam),
        "soft-TWED": lambda a: dist.soft_twed(Xt, a, nu, lam, g, eps),
        "soft-DTW divergence (squared cost)": lambda a: dist.soft_dtw_divergence(Xt, a, g),
        "soft-TWED divergence": lambda a: dist.soft_twed_divergence(Xt, a, nu, lam, g, eps),
    }
    with torch.no_grad():
        out = {k: (f(Ut) - f(U2t)).abs().numpy() / bounds[k] for k, f in fns.items()}
    return LipschitzCheck(out, scale, dict(LIPSCHITZ_CONSTANTS))


# ------------------------------------------------------------------------------------- claims 4, 5, 6
@dataclasses.dataclass
class NoiseSweep:
    flips: np.ndarray                          # (F,)
    seeds: np.ndarray                          # (R,)
    distances: tuple                           # model distances
    tau_train: np.ndarray                      # (R, F, D) Kendall tau on the compared items
    tau_test: np.ndarray                       # (R, F, D) on held-out items never compared
    baseline_names: tuple
    baseline_train: np.ndarray                 # (R, F, Bn), NaN where a baseline cannot score
    baseline_test: np.ndarray
    ideals: np.ndarray                         # (D, T) learned ideals of the first seed at the lowest flip
    true_ideal: np.ndarray
    loss_curves: np.ndarray                    # (D, steps) of the first seed at the lowest flip
    n_items: int
    n_test: int
    n_comparisons: int
    acc_heldout: np.ndarray | None = None      # (R, F, D) accuracy on held-out comparisons between unseen items
    acc_heldout_hard: np.ndarray | None = None  # (R, F, D) the same on the hard half (small latent gap)
    acc_oracle: np.ndarray | None = None       # (R, F) the true scores on the same held-out comparisons
    acc_oracle_hard: np.ndarray | None = None  # (R, F)
    acc_baseline: np.ndarray | None = None     # (R, F, Bn) baselines on them (NaN: cannot score unseen items)
    n_heldout_pairs: int = 0
    tau_init: np.ndarray | None = None         # (R, F, D) tau of the starting ideal (init="agreement")
    tau_init_topmean: np.ndarray | None = None  # (R, F, D) tau of the mean of the top items (the old start)
    acc_planted: np.ndarray | None = None       # (R, F, D) the planted ideal U* under each distance, on the same
    acc_planted_hard: np.ndarray | None = None  # held-out comparisons (what the model family reaches; claim 6)


def _family(cfg: RankingConfig, seed: int) -> tuple[SeriesSet, SeriesSet]:
    r = make_rng(seed, 3)
    s = warped_family(cfg.n_items + cfg.n_test, cfg.length, r, cfg.noise, cfg.warp, cfg.shift)
    return s.subset(np.arange(cfg.n_items)), s.subset(np.arange(cfg.n_items, cfg.n_items + cfg.n_test))


def pair_accuracy(score: np.ndarray, comp) -> float:
    """Fraction of comparisons ``comp`` that ``score`` orders as annotated (ties count one half)."""
    diff = np.asarray(score, float)[comp.i] - np.asarray(score, float)[comp.j]
    sign = 2 * comp.y - 1
    return float(np.mean(np.where(diff == 0, 0.5, (np.sign(diff) == sign).astype(float))))


def heldout_comparisons(test: SeriesSet, cfg: RankingConfig, rng: np.random.Generator):
    """Comparisons between held-out items, by annotators who do not flip (``beta_true``), and the mask of the
    hard half: pairs whose latent gap is below the median gap."""
    comp = simulate_comparisons(test.score, cfg.n_test * cfg.comparisons_per_item, rng, cfg.beta_true, 0.0)
    gap = np.abs(test.score[comp.i] - test.score[comp.j])
    return comp, gap < np.median(gap)


def _sub(comp, mask):
    from .data import Comparisons
    return Comparisons(comp.i[mask], comp.j[mask], comp.y[mask], comp.annotator[mask])


def noise_sweep(cfg: RankingConfig, seed: int) -> NoiseSweep:
    """Claims 4-6: for each data seed and flip probability, fit the Euclidean, soft-DTW and soft-TWED ideal
    points and the baselines on the same simulated comparisons; Kendall tau on seen and unseen items, the
    accuracy on held-out comparisons between unseen items (against the true scores' accuracy on them, and
    against the planted ideal's own accuracy under each distance: what the model family can reach), and
    the tau of the starting ideal."""
    names = ("Bradley-Terry", "RankNet", "noisy-label classifier")
    R, Fn, Dn = cfg.n_seeds, len(cfg.flips), len(MODEL_DISTANCES)
    nan = lambda *shape: np.full(shape, np.nan)  # noqa: E731
    tr_tau, te_tau, acc, acc_h, t0, t0m, acc_p, acc_ph = (nan(R, Fn, Dn) for _ in range(8))
    b_tr, b_te, b_acc = nan(R, Fn, len(names)), nan(R, Fn, len(names)), nan(R, Fn, len(names))
    o_acc, o_acc_h = nan(R, Fn), nan(R, Fn)
    ideals, curves, true_ideal = [], [], None
    m = cfg.n_items * cfg.comparisons_per_item
    n_held = 0
    cells = [(r, f) for r in range(R) for f in range(Fn)]
    for r, f in progress(cells, total=len(cells), desc="noise sweep"):
        train, test = _family(cfg, seed + 1000 * r)
        true_ideal = train.ideal
        comp = simulate_comparisons(train.score, m, make_rng(seed + 1000 * r, 4, f), cfg.beta_true, cfg.flips[f])
        held, hard = heldout_comparisons(test, cfg, make_rng(seed + 1000 * r, 12, f))
        held_h = _sub(held, hard)
        n_held = len(held)
        o_acc[r, f], o_acc_h[r, f] = pair_accuracy(test.score, held), pair_accuracy(test.score, held_h)
        for d, name in enumerate(MODEL_DISTANCES):
            model = make_model(cfg, name).fit(train.X, comp, seed=seed)
            tr_tau[r, f, d] = tau(model.score(train.X), train.score)
            s_te = model.score(test.X)
            te_tau[r, f, d] = tau(s_te, test.score)
            acc[r, f, d], acc_h[r, f, d] = pair_accuracy(s_te, held), pair_accuracy(s_te, held_h)
            s_planted = model.score(test.X, U=train.ideal)          # the planted ideal under this distance
            acc_p[r, f, d], acc_ph[r, f, d] = pair_accuracy(s_planted, held), pair_accuracy(s_planted, held_h)
            t0[r, f, d] = tau(model.score(train.X, U=model.fit_.U0), train.score)
            old = make_model(cfg, name, steps=1, init="top-mean").fit(train.X, comp, seed=seed)
            t0m[r, f, d] = tau(old.score(train.X, U=old.fit_.U0), train.score)
            if r == 0 and f == 0:
                ideals.append(model.U_[:, 0])
                curves.append(model.fit_.loss)
        b_tr[r, f, 0] = tau(bradley_terry_scores(comp, cfg.n_items), train.score)
        rn = RankNet(steps=200).fit(train.X, comp, seed=seed)
        s_rn = rn.score(test.X)
        b_tr[r, f, 1], b_te[r, f, 1] = tau(rn.score(train.X), train.score), tau(s_rn, test.score)
        b_acc[r, f, 1] = pair_accuracy(s_rn, held)
        clf_rng = make_rng(seed + 1000 * r, 5, f)
        b_tr[r, f, 2] = tau(noisy_label_classifier_scores(train.X, train.score, train.X, cfg.flips[f], clf_rng),
                            train.score)
        s_clf = noisy_label_classifier_scores(train.X, train.score, test.X, cfg.flips[f],
                                              make_rng(seed + 1000 * r, 5, f))
        b_te[r, f, 2] = tau(s_clf, test.score)
        b_acc[r, f, 2] = pair_accuracy(s_clf, held)
    return NoiseSweep(np.array(cfg.flips), np.arange(R), MODEL_DISTANCES, tr_tau, te_tau, names, b_tr, b_te,
                      np.array(ideals), true_ideal, np.array(curves), cfg.n_items, cfg.n_test, m,
                      acc, acc_h, o_acc, o_acc_h, b_acc, n_held, t0, t0m, acc_p, acc_ph)


# ------------------------------------------------------------------------------------- claims 3 and 7
@dataclasses.dataclass
class WellSpecified:
    distance: str
    budgets: np.ndarray             # (K,) comparisons per item
    n_comparisons: np.ndarray       # (K,)
    tau_train: np.ndarray           # (R, K) against the true latent -d(X, U*)
    tau_test: np.ndarray            # (R, K) on held-out items
    ideal_error: np.ndarray         # (R, K) DTW(U_hat, U*) / T
    loss_curves: list               # K arrays (first seed)
    error_curves: list              # K (steps, error) pairs (first seed)
    main_budget: int
    tau_main: float                 # mean in-sample tau over seeds at comparisons_per_item
    n_items: int
    tau_init: np.ndarray | None = None   # (R, K) tau of the starting ideal
    seeds: np.ndarray | None = None      # (R,)


def well_specified(cfg: RankingConfig, seed: int, distance: str | None = None) -> WellSpecified:
    """Claims 3 and 7: data drawn from the model itself. Latent scores are :math:`-d(X_i,U^*)` under the
    fitted distance and labels follow :math:`\\sigma(\\beta^*[d(X_j,U^*)-d(X_i,U^*)])` with a sharp
    :math:`\\beta^*` (``beta_true`` divided by the spread of the distances); the budget of comparisons grows.
    Repeated on ``budget_seeds`` independent data sets (fresh items, comparisons and start)."""
    distance = distance or cfg.distance
    budgets = tuple(sorted(set(cfg.budget_grid) | {cfg.comparisons_per_item}))
    R, K = cfg.budget_seeds, len(budgets)
    tt, te, err, t0 = (np.full((R, K), np.nan) for _ in range(4))
    curves, ecurves = [], []
    cells = [(r, k) for r in range(R) for k in range(K)]
    truth = make_model(cfg, distance)
    for r, k in progress(cells, total=len(cells), desc="comparison budgets"):
        train, test = _family(cfg, seed + 77 + 1000 * r)
        d_tr = truth.distances(train.X, train.ideal).numpy().astype(float)
        d_te = truth.distances(test.X, train.ideal).numpy().astype(float)
        beta = cfg.beta_true / max(d_tr.std(), 1e-9)
        m = cfg.n_items * budgets[k]
        rr = make_rng(seed + 1000 * r, 6, budgets[k])
        comp = simulate_from_scores(-d_tr, random_pairs(cfg.n_items, m, rr), rr, beta)
        model = make_model(cfg, distance).fit(train.X, comp, U_true=train.ideal, seed=seed + r)
        tt[r, k] = tau(model.score(train.X), -d_tr)
        te[r, k] = tau(model.score(test.X), -d_te)
        t0[r, k] = tau(model.score(train.X, U=model.fit_.U0), -d_tr)
        err[r, k] = IdealPointModel.ideal_error(model.U_, train.ideal)
        if r == 0:
            curves.append(model.fit_.loss)
            ecurves.append((model.fit_.track_steps, model.fit_.track_error))
    main = budgets.index(cfg.comparisons_per_item)
    return WellSpecified(distance, np.array(budgets), cfg.n_items * np.array(budgets), tt, te, err, curves, ecurves,
                         cfg.comparisons_per_item, float(tt[:, main].mean()), cfg.n_items, t0, np.arange(R))


# ------------------------------------------------------------------------------------- the motivating claim
@dataclasses.dataclass
class AnnotationBudget:
    seeds: np.ndarray
    n_annotations: int                # the same budget for both routes
    n_annotators: int
    thresholds: np.ndarray            # (R, n_annotators) the annotators' thresholds on the latent score
    flip: float
    tau_pairwise: np.ndarray          # (R,) on the annotated items
    tau_pointwise: np.ndarray         # (R,) one pooled threshold (classification from individual labels)
    tau_pointwise_per_annotator: np.ndarray   # (R,) one threshold per annotator (a stronger baseline)
    tau_pairwise_test: np.ndarray     # (R,) on held-out items
    tau_pointwise_test: np.ndarray
    tau_pointwise_per_annotator_test: np.ndarray
    consistency_pairwise: float       # how often two annotators give the same answer to the same question
    consistency_pointwise: float


def annotation_budget_experiment(cfg: RankingConfig, seed: int) -> AnnotationBudget:
    """The abstract's motivating claim: at an equal number of annotations, pairwise comparisons give better
    rankings than individual labels when annotators use inconsistent thresholds. ``motive_annotators``
    annotators each have a threshold drawn uniformly in ``motive_thresholds`` (on the latent severity in
    [0, 1]); an individual label is "abnormal" with :math:`\\sigma(\\beta^*(s_i-\\theta_r))`, a comparison
    says "i is more abnormal than j" with :math:`\\sigma(\\beta^*(s_i-s_j))`; both are flipped with
    probability ``motive_flip``. The same ideal point model (``cfg.distance``) is fitted to either; the
    pointwise one with a learned threshold (pooled, or one per annotator). Fresh data per seed."""
    R, A = cfg.motive_seeds, cfg.motive_annotators
    budget = cfg.n_items * cfg.comparisons_per_item
    out = {k: np.zeros(R) for k in ("pair", "point", "point_r", "pair_te", "point_te", "point_r_te")}
    thr_all = np.zeros((R, A))
    agree_pair, agree_point = [], []
    for r in progress(range(R), total=R, desc="annotation budget"):
        train, test = _family(cfg, seed + 5000 + 1000 * r)
        rr = make_rng(seed + 1000 * r, 13)
        thr = rr.uniform(cfg.motive_thresholds[0], cfg.motive_thresholds[1], A)
        thr_all[r] = thr
        comp = simulate_comparisons(train.score, budget, rr, cfg.beta_true, cfg.motive_flip)
        labels = pointwise_labels(train.score, budget, rr, thr, cfg.beta_true, cfg.motive_flip)
        pair_m = make_model(cfg, cfg.distance).fit(train.X, comp, seed=seed + r)
        point_m = make_model(cfg, cfg.distance).fit_labels(train.X, labels, seed=seed + r)
        point_r = make_model(cfg, cfg.distance).fit_labels(train.X, labels, per_annotator=True, seed=seed + r)
        for key, mdl in (("pair", pair_m), ("point", point_m), ("point_r", point_r)):
            out[key][r] = tau(mdl.score(train.X), train.score)
            out[key + "_te"][r] = tau(mdl.score(test.X), test.score)
        # consistency: two annotators drawn at random answer the same question (each flips independently)
        q = make_rng(seed + 1000 * r, 14)
        nq = 2000
        pairs = random_pairs(cfg.n_items, nq, q)
        a1 = simulate_from_scores(train.score, pairs, q, cfg.beta_true, cfg.motive_flip)
        a2 = simulate_from_scores(train.score, pairs, q, cfg.beta_true, cfg.motive_flip)
        agree_pair.append(np.mean(a1.y == a2.y))
        items = q.integers(0, cfg.n_items, nq)
        r1, r2 = q.integers(0, A, nq), q.integers(0, A, nq)
        p1 = 1 / (1 + np.exp(-cfg.beta_true * (train.score[items] - thr[r1])))
        p2 = 1 / (1 + np.exp(-cfg.beta_true * (train.score[items] - thr[r2])))
        y1 = (q.uniform(size=nq) < p1) ^ (q.uniform(size=nq) < cfg.motive_flip)
        y2 = (q.uniform(size=nq) < p2) ^ (q.uniform(size=nq) < cfg.motive_flip)
        agree_point.append(np.mean(y1 == y2))
    return AnnotationBudget(np.arange(R), budget, A, thr_all, cfg.motive_flip, out["pair"], out["point"],
                            out["point_r"], out["pair_te"], out["point_te"], out["point_r_te"],
                            float(np.mean(agree_pair)), float(np.mean(agree_point)))


# ------------------------------------------------------------------------------------- irregular sampling
@dataclasses.dataclass
class IrregularResult:
    lengths: np.ndarray               # distinct item lengths
    tau: dict                         # model name -> tau on compared items
    tau_test: dict                    # -> on held-out items
    example_X: list                   # a few items with their stamps, for the figure
    example_stamps: list
    ideal_hat: dict                   # model name -> (stamps, values) of the learned ideal
    true_ideal: np.ndarray
    n_items: int
    length: int


def irregular_experiment(cfg: RankingConfig, seed: int) -> IrregularResult:
    """TWED's time stamps at work: the warped family observed at irregular times, with unequal lengths
    (:func:`.data.irregular_family`). Soft-TWED with the true stamps, soft-TWED told that the samples are
    evenly spaced (stamps ``1..T_k``), and soft-DTW (which has no notion of time stamps) are fitted to the
    same comparisons (flip 0.1); the ideal has ``length`` points on the regular grid."""
    r = make_rng(seed, 15)
    s = irregular_family(cfg.n_items + cfg.n_test, cfg.length, r, cfg.noise, cfg.warp, cfg.shift)
    train, test = s.subset(np.arange(cfg.n_items)), s.subset(np.arange(cfg.n_items, cfg.n_items + cfg.n_test))
    comp = simulate_comparisons(train.score, cfg.n_items * cfg.comparisons_per_item, r, cfg.beta_true, 0.1)
    grid = np.arange(1.0, cfg.length + 1)
    even = lambda xs: [np.arange(1.0, len(x) + 1) for x in xs]  # noqa: E731
    runs = {"soft-TWED, true time stamps": ("softtwed", train.stamps, test.stamps, grid),
            "soft-TWED, stamps 1..T_k (ignored)": ("softtwed", even(train.X), even(test.X), None),
            "soft-DTW (no time stamps)": ("softdtw", None, None, None)}
    taus, taus_te, ideals = {}, {}, {}
    for name, (d, st_tr, st_te, tu) in progress(runs.items(), total=len(runs), desc="irregular sampling"):
        model = IdealPointModel(d, gamma=cfg.gamma, nu=cfg.nu, lam=cfg.lam, eps=cfg.eps, steps=cfg.steps, lr=cfg.lr,
                                ideal_length=cfg.length, ideal_stamps=tu)
        model.fit(train.X, comp, seed=seed, stamps=st_tr)
        taus[name] = tau(model.score(train.X, st_tr), train.score)
        taus_te[name] = tau(model.score(test.X, st_te), test.score)
        ideals[name] = (grid, model.U_[:, 0])
    lengths = np.unique([len(x) for x in s.X])
    return IrregularResult(lengths, taus, taus_te, train.X[:4], train.stamps[:4], ideals, s.ideal, cfg.n_items,
                           cfg.length)


# ------------------------------------------------------------------------------------- claim 8
@dataclasses.dataclass
class CrowdResult:
    seeds: np.ndarray
    tau_majority: np.ndarray     # (R,)
    tau_full: np.ndarray         # (R,)
    n_pairs: int
    n_annotators: int
    flip: float
    tau_full_flip_aware: np.ndarray | None = None   # (R,) all raw labels, flip-aware link (not the paper's model)
    flip_hat: np.ndarray | None = None              # (R,) its learned flip rate


def crowd_experiment(cfg: RankingConfig, seed: int) -> CrowdResult:
    """Claim 8: every pair judged by ``n_annotators`` annotators with flip rate ``annotator_flip``; the model
    fitted on the majority vote vs on all raw labels (the full likelihood). Also, separately from the claim,
    the full likelihood under the flip-aware link with a learned flip rate (our repair)."""
    R = cfg.n_seeds
    maj, full, aware, flip_hat = np.zeros(R), np.zeros(R), np.zeros(R), np.zeros(R)
    n_pairs = cfg.n_items * cfg.comparisons_per_item // 2
    for r in progress(range(R), total=R, desc="crowd"):
        train, _ = _family(cfg, seed + 1000 * r)
        rr = make_rng(seed + 1000 * r, 7)
        raw = simulate_comparisons(train.score, n_pairs, rr, cfg.beta_true, cfg.annotator_flip, cfg.n_annotators)
        mv = majority_vote(raw, rr)
        maj[r] = tau(make_model(cfg, cfg.distance).fit(train.X, mv, seed=seed).score(train.X), train.score)
        full[r] = tau(make_model(cfg, cfg.distance).fit(train.X, raw, seed=seed).score(train.X), train.score)
        m = make_model(cfg, cfg.distance, flip_rate="learn").fit(train.X, raw, seed=seed)
        aware[r], flip_hat[r] = tau(m.score(train.X), train.score), m.flip_
    return CrowdResult(np.arange(R), maj, full, n_pairs, cfg.n_annotators, cfg.annotator_flip, aware, flip_hat)


# ------------------------------------------------------------------------------------- real shapes
@dataclasses.dataclass
class AeonResult:
    dataset: str
    n_items: int
    length: int
    tau: dict                     # model/baseline name -> Kendall tau on the compared items
    tau_test: dict                # on held-out items
    X: np.ndarray                 # a few series for the figure
    ideal_true: np.ndarray
    ideal_hat: dict


def aeon_experiment(cfg: RankingConfig, seed: int) -> AeonResult:
    """Real series from aeon's bundled ``cfg.aeon_dataset``, with a hidden ideal: one series drawn at random
    is removed and the latent score of every other series is minus its exact TWED to it. Comparisons
    are simulated from that score (flip rate 0.1); the shapes are real, the annotations are not."""
    X, _ = load_aeon_series(cfg.aeon_dataset, cfg.aeon_length)
    r = make_rng(seed, 8)
    perm = r.permutation(len(X))
    ideal, rest = X[perm[0]], X[perm[1:]]
    n_tr = min(cfg.n_items, (len(rest) * 2) // 3)
    n_te = min(cfg.n_test, len(rest) - n_tr)
    with torch.no_grad():
        score = -dist.twed(torch.as_tensor(rest), torch.as_tensor(ideal), cfg.nu, cfg.lam).numpy()
    tr, te = np.arange(n_tr), np.arange(n_tr, n_tr + n_te)
    comp = simulate_comparisons(score[tr], n_tr * cfg.comparisons_per_item, r,
                                cfg.beta_true / score[tr].std(), 0.1)
    taus, taus_te, ideals = {}, {}, {}
    for name in MODEL_DISTANCES:
        model = make_model(cfg, name).fit(rest[tr], comp, seed=seed)
        taus[name] = tau(model.score(rest[tr]), score[tr])
        taus_te[name] = tau(model.score(rest[te]), score[te])
        ideals[name] = model.U_[:, 0]
    taus["Bradley-Terry"] = tau(bradley_terry_scores(comp, n_tr), score[tr])
    taus_te["Bradley-Terry"] = float("nan")
    return AeonResult(cfg.aeon_dataset, n_tr, X.shape[1], taus, taus_te, rest[:8], ideal, ideals)


def ecg_experiment(cfg: RankingConfig, seed: int, flip: float = 0.1) -> AeonResult:
    r"""Simulated ECGs (neurokit2's ECGSYN, :func:`.data.ecg_family`) ranked by heart rate: the latent score is
    the normalised heart rate, the series differ also in beat phase and noise. Comparisons are simulated
    from that score (flip rate ``flip``); held-out recordings are ranked by :math:`d(X,\hat U)`.
    Returns an :class:`AeonResult` (``ideal_true`` is a noise-free recording at the top heart rate, for
    reference only: the score is not a distance to it)."""
    r = make_rng(seed, 10)
    s = ecg_family(cfg.n_items + cfg.n_test, cfg.ecg_length, r)
    train, test = s.subset(np.arange(cfg.n_items)), s.subset(np.arange(cfg.n_items, cfg.n_items + cfg.n_test))
    comp = simulate_comparisons(train.score, cfg.n_items * cfg.comparisons_per_item, r, cfg.beta_true, flip)
    taus, taus_te, ideals = {}, {}, {}
    for name in MODEL_DISTANCES:
        model = make_model(cfg, name).fit(train.X, comp, seed=seed)
        taus[name] = tau(model.score(train.X), train.score)
        taus_te[name] = tau(model.score(test.X), test.score)
        ideals[name] = model.U_[:, 0]
    taus["Bradley-Terry"] = tau(bradley_terry_scores(comp, cfg.n_items), train.score)
    taus_te["Bradley-Terry"] = float("nan")
    order = np.argsort(train.score)
    show = order[np.linspace(0, len(order) - 1, 6).round().astype(int)]
    return AeonResult("simulated ECG", cfg.n_items, cfg.ecg_length, taus, taus_te, train.X[show], s.ideal, ideals)


# ------------------------------------------------------------------------------------- playground
@dataclasses.dataclass
class PlaygroundResult:
    U: np.ndarray
    true_ideal: np.ndarray
    tau_train: float
    tau_test: float
    loss: np.ndarray
    X: np.ndarray
    score: np.ndarray


def playground_fit(n_items: int, comparisons_per_item: int, flip: float, distance: str, gamma: float,
                   seed: int = 0, length: int = 24, steps: int = 40, shift: float = 0.12) -> PlaygroundResult:
    """A small, fast fit for the live controls (about a second on a CPU core)."""
    if distance not in MODEL_DISTANCES:
        raise ValueError(f"distance={distance!r} is not allowed; choose one of {MODEL_DISTANCES}")
    r = make_rng(seed, 9)
    s = warped_family(n_items + 40, length, r, 0.1, 0.3, shift)
    train, test = s.subset(np.arange(n_items)), s.subset(np.arange(n_items, n_items + 40))
    comp = simulate_comparisons(train.score, n_items * comparisons_per_item, r, 12.0, flip)
    model = IdealPointModel(distance, gamma=gamma, steps=steps, lr=0.08).fit(train.X, comp, seed=seed)
    return PlaygroundResult(model.U_[:, 0], s.ideal, tau(model.score(train.X), train.score),
                            tau(model.score(test.X), test.score), model.fit_.loss, train.X, train.score)
