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

from ..runtime import progress, rng as make_rng
from . import distances as dist
from .baselines import RankNet, bradley_terry_scores, noisy_label_classifier_scores
from .config import RankingConfig
from .data import (SeriesSet, ecg_family, load_aeon_series, majority_vote, random_pairs, simulate_comparisons,
                   simulate_from_scores, warped_family)
from .model import IdealPointModel

__all__ = ["tau", "make_model", "alignment_matrix", "SoftTwedCheck", "soft_twed_check", "LipschitzCheck",
           "lipschitz_check", "NoiseSweep", "noise_sweep", "WellSpecified", "well_specified", "CrowdResult",
           "crowd_experiment", "AeonResult", "aeon_experiment", "ecg_experiment", "speed_check", "PlaygroundResult",
           "playground_fit", "shifted_pair_demo"]

MODEL_DISTANCES = ("euclidean", "softdtw", "softtwed")


def tau(a, b) -> float:
    """Kendall's :math:`\\tau_b` between two score vectors."""
    return float(kendalltau(np.asarray(a, float), np.asarray(b, float))[0])


def make_model(cfg: RankingConfig, distance: str, steps: int | None = None, flip_rate=None) -> IdealPointModel:
    """The chapter's ideal point model for ``distance`` with the config's hyperparameters (``flip_rate``: see
    :class:`IdealPointModel`; ``None`` is the paper's logistic link)."""
    return IdealPointModel(distance, gamma=cfg.gamma, nu=cfg.nu, lam=cfg.lam, eps=cfg.eps,
                           steps=cfg.steps if steps is None else steps, lr=cfg.lr, flip_rate=flip_rate)


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
    softdtw_vs_tslearn: float     # max relative error at gamma = cfg.gamma
    grad_rel_err: float           # autograd vs central finite differences (float64), soft-TWED divergence
    n_pairs: int
    length: int
    pytwed_rel_err: np.ndarray | None = None   # (G,) the same against pytwed's C TWED (None: pytwed absent)
    exact_vs_pytwed_c: float = float("nan")    # max |our exact TWED - pytwed C| / pytwed C
    exact_vs_pytwed_py: float = float("nan")   # the same against pytwed's float64 Python reference, few pairs


def soft_twed_check(cfg: RankingConfig, seed: int, gammas=(1.0, 0.3, 0.1, 0.03, 0.01, 1e-3, 1e-4)) -> SoftTwedCheck:
    """Claim 1: soft-TWED tends to aeon's exact TWED as :math:`\\gamma\\to0`; gradients match finite differences."""
    from aeon.distances import dtw_distance, twe_distance
    from tslearn.metrics import soft_dtw as ts_soft_dtw
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
    sref = np.array([ts_soft_dtw(x[b][:, None], y[b][:, None], gamma=cfg.gamma) for b in range(n)])
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
                         float(np.max(np.abs(dist.soft_dtw(xt, yt, cfg.gamma).numpy() - sref) / np.abs(sref))),
                         grad_err, n, T, py_rel, py_c, py_py)


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


# ------------------------------------------------------------------------------------- claim 2
@dataclasses.dataclass
class LipschitzCheck:
    ratios: dict                  # name -> (n_pairs,) |d(X,U)-d(X,U')| / bound
    scales: np.ndarray            # (n_pairs,) size of the perturbation U' - U


def lipschitz_check(cfg: RankingConfig, seed: int) -> LipschitzCheck:
    """Claim 2: ratios of observed differences to the Lipschitz bounds of dossier section 3.4.

    DTW with the :math:`L_1` cost: :math:`(T_X+T_U-1)\\max_j|u_j-u'_j|`; TWED (and soft-TWED):
    :math:`2\\sum_j|u_j-u'_j|`. ``U'`` is ``U`` plus a perturbation of random scale (log-uniform over
    three decades), sometimes on a few coordinates only, to probe tight cases.
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
    bound_dtw = (T + S - 1) * np.abs(delta).max(1)
    bound_twed = 2 * np.abs(delta).sum(1)
    with torch.no_grad():
        out = {
            "DTW (L1 cost)": (dist.dtw(Xt, Ut, cost="l1") - dist.dtw(Xt, U2t, cost="l1")).abs().numpy() / bound_dtw,
            "soft-DTW (L1 cost)": (dist.dtw(Xt, Ut, gamma=cfg.gamma, cost="l1")
                                   - dist.dtw(Xt, U2t, gamma=cfg.gamma, cost="l1")).abs().numpy() / bound_dtw,
            "TWED": (dist.twed(Xt, Ut, cfg.nu, cfg.lam) - dist.twed(Xt, U2t, cfg.nu, cfg.lam)).abs().numpy() / bound_twed,
            "soft-TWED": (dist.soft_twed(Xt, Ut, cfg.nu, cfg.lam, cfg.gamma, cfg.eps)
                          - dist.soft_twed(Xt, U2t, cfg.nu, cfg.lam, cfg.gamma, cfg.eps)).abs().numpy() / bound_twed,
        }
    return LipschitzCheck(out, scale)


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


def _family(cfg: RankingConfig, seed: int) -> tuple[SeriesSet, SeriesSet]:
    r = make_rng(seed, 3)
    s = warped_family(cfg.n_items + cfg.n_test, cfg.length, r, cfg.noise, cfg.warp, cfg.shift)
    return s.subset(np.arange(cfg.n_items)), s.subset(np.arange(cfg.n_items, cfg.n_items + cfg.n_test))


def noise_sweep(cfg: RankingConfig, seed: int) -> NoiseSweep:
    """Claims 4-6: for each data seed and flip probability, fit the Euclidean, soft-DTW and soft-TWED ideal
    points and the baselines on the same simulated comparisons; Kendall tau on seen and unseen items."""
    names = ("Bradley-Terry", "RankNet", "noisy-label classifier")
    R, Fn, Dn = cfg.n_seeds, len(cfg.flips), len(MODEL_DISTANCES)
    tr_tau, te_tau = np.full((R, Fn, Dn), np.nan), np.full((R, Fn, Dn), np.nan)
    b_tr, b_te = np.full((R, Fn, len(names)), np.nan), np.full((R, Fn, len(names)), np.nan)
    ideals, curves, true_ideal = [], [], None
    m = cfg.n_items * cfg.comparisons_per_item
    cells = [(r, f) for r in range(R) for f in range(Fn)]
    for r, f in progress(cells, total=len(cells), desc="noise sweep"):
        train, test = _family(cfg, seed + 1000 * r)
        true_ideal = train.ideal
        comp = simulate_comparisons(train.score, m, make_rng(seed + 1000 * r, 4, f), cfg.beta_true, cfg.flips[f])
        for d, name in enumerate(MODEL_DISTANCES):
            model = make_model(cfg, name).fit(train.X, comp, seed=seed)
            tr_tau[r, f, d] = tau(model.score(train.X), train.score)
            te_tau[r, f, d] = tau(model.score(test.X), test.score)
            if r == 0 and f == 0:
                ideals.append(model.U_[:, 0])
                curves.append(model.fit_.loss)
        b_tr[r, f, 0] = tau(bradley_terry_scores(comp, cfg.n_items), train.score)
        rn = RankNet(steps=200).fit(train.X, comp, seed=seed)
        b_tr[r, f, 1], b_te[r, f, 1] = tau(rn.score(train.X), train.score), tau(rn.score(test.X), test.score)
        clf_rng = make_rng(seed + 1000 * r, 5, f)
        b_tr[r, f, 2] = tau(noisy_label_classifier_scores(train.X, train.score, train.X, cfg.flips[f], clf_rng),
                            train.score)
        b_te[r, f, 2] = tau(noisy_label_classifier_scores(train.X, train.score, test.X, cfg.flips[f],
                                                          make_rng(seed + 1000 * r, 5, f)), test.score)
    return NoiseSweep(np.array(cfg.flips), np.arange(R), MODEL_DISTANCES, tr_tau, te_tau, names, b_tr, b_te,
                      np.array(ideals), true_ideal, np.array(curves), cfg.n_items, cfg.n_test, m)


# ------------------------------------------------------------------------------------- claims 3 and 7
@dataclasses.dataclass
class WellSpecified:
    distance: str
    budgets: np.ndarray             # (K,) comparisons per item
    n_comparisons: np.ndarray       # (K,)
    tau_train: np.ndarray           # (K,)
    tau_test: np.ndarray            # (K,)
    ideal_error: np.ndarray         # (K,) DTW(U_hat, U*) / T
    loss_curves: list               # K arrays
    error_curves: list              # K (steps, error) pairs
    main_budget: int
    tau_main: float                 # in-sample tau at comparisons_per_item
    n_items: int


def well_specified(cfg: RankingConfig, seed: int, distance: str | None = None) -> WellSpecified:
    """Claims 3 and 7: data drawn from the model itself. Latent scores are :math:`-d(X_i,U^*)` under the
    fitted distance and labels follow :math:`\\sigma(\\beta^*[d(X_j,U^*)-d(X_i,U^*)])` with a sharp
    :math:`\\beta^*` (``beta_true`` divided by the spread of the distances); the budget of comparisons grows."""
    distance = distance or cfg.distance
    train, test = _family(cfg, seed + 77)
    truth = make_model(cfg, distance)
    d_tr = truth.distances(train.X, train.ideal).numpy().astype(float)
    d_te = truth.distances(test.X, train.ideal).numpy().astype(float)
    beta = cfg.beta_true / max(d_tr.std(), 1e-9)
    budgets = tuple(sorted(set(cfg.budget_grid) | {cfg.comparisons_per_item}))
    ms, tt, te, err, curves, ecurves = [], [], [], [], [], []
    for k in progress(budgets, total=len(budgets), desc="comparison budgets"):
        m = cfg.n_items * k
        r = make_rng(seed, 6, k)
        comp = simulate_from_scores(-d_tr, random_pairs(cfg.n_items, m, r), r, beta)
        model = make_model(cfg, distance).fit(train.X, comp, U_true=train.ideal, seed=seed)
        ms.append(m)
        tt.append(tau(model.score(train.X), -d_tr))
        te.append(tau(model.score(test.X), -d_te))
        err.append(IdealPointModel.ideal_error(model.U_, train.ideal))
        curves.append(model.fit_.loss)
        ecurves.append((model.fit_.track_steps, model.fit_.track_error))
    main = budgets.index(cfg.comparisons_per_item)
    return WellSpecified(distance, np.array(budgets), np.array(ms), np.array(tt), np.array(te), np.array(err),
                         curves, ecurves, cfg.comparisons_per_item, tt[main], cfg.n_items)


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
