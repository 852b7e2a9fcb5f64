"""Inference of θ from an electrical image (dossier §3.4, reconstructed).

- **Neural posterior estimation** with ``sbi`` (a masked autoregressive flow q_ψ(θ | x) trained on prior
  simulations; θ is mapped to the unbounded space of the box prior inside the flow). x is the designed
  feature vector of the noisy EI plus log10 N (the number of averaged spikes sets the noise, σ_1/√N; the
  training simulations draw N log-uniformly, so one network serves every recording length).
- **Posterior checks**: simulation-based calibration (rank of the true θ_j among posterior samples; uniform if
  the posterior is calibrated) and the coverage of central intervals.
- **Gradient refinement** through the differentiable simulator: Adam (``optax``) on logit-θ of the feature
  loss L(θ) = Σ w (f(θ) - f_obs)² / s² (s: each feature's spread over the prior simulations; the time
  features of an electrode are weighted by its signal-to-noise a²/(a² + (5σ)²)), from posterior samples, or
  from random prior draws for the gradient-only baseline.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import logging
import time
import warnings

import numpy as np
from scipy import stats

from . import _jax  # noqa: F401
import jax
import jax.numpy as jnp

from ...runtime.device import cpu_threads
from ...runtime.progress import progress
from .features import feature_vector
from .model import ForwardModel

__all__ = ["noisy", "NPEPosterior", "train_npe", "sbc_ranks", "rank_uniformity_p", "rank_spread_p", "rank_spread_power",
           "rank_chi2", "rank_tolerance_p", "tolerance_power",
           "coverage", "FeatureLoss",
           "refine"]


def noisy(eis, n_spikes, sigma_single: float, rng: np.random.Generator) -> np.ndarray:
    """EIs averaged over ``n_spikes`` spikes: add white noise σ_1/√N per sample (N per EI or one for all)."""
    eis = np.asarray(eis, float)
    n = np.broadcast_to(np.asarray(n_spikes, float), (eis.shape[0],))
    if np.any(n < 1):
        raise ValueError(f"n_spikes must be >= 1; got {n.min()!r}")
    sig = sigma_single / np.sqrt(n)
    return eis + sig[:, None, None] * rng.standard_normal(eis.shape)


@contextlib.contextmanager
def _quiet():
    """sbi reports through warnings, logging and stdout; the chapter's pages carry none of it. Its small
    kernels run on one torch thread (several times faster than two on a shared machine: measured 40x)."""
    with warnings.catch_warnings(), cpu_threads(1):
        warnings.simplefilter("ignore")
        logger = logging.getLogger("sbi")
        old = logger.level
        logger.setLevel(logging.ERROR)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                yield
        finally:
            logger.setLevel(old)


@dataclasses.dataclass
class NPEPosterior:
    """An amortised posterior: ``sample(x, n)`` and ``log_prob(theta, x)`` for batches of observations."""

    posterior: object
    low: np.ndarray
    high: np.ndarray
    epochs: int
    train_seconds: float
    #: per epoch, sbi's mean loss (−log q(θ | x), nats) on its held-out validation simulations and on the training ones
    #: (issue 35, session 12: the NPE's plateau test reads the held-out curve)
    val_loss: np.ndarray | None = None
    train_loss: np.ndarray | None = None

    def sample(self, x, n: int, seed: int) -> np.ndarray:
        """(n_obs, n, dim) samples for observations x (n_obs, dim_x)."""
        import torch

        torch.manual_seed(seed)
        x = torch.as_tensor(np.asarray(x, np.float32))
        with _quiet(), torch.no_grad():
            s = self.posterior.sample_batched((n,), x=x, show_progress_bars=False)
        return np.asarray(s.numpy(), float).transpose(1, 0, 2)

    def log_prob(self, theta, x) -> np.ndarray:
        """log q(θ_i | x_i) for paired rows (the flow's density, not renormalised for mass outside the box)."""
        import torch

        th = torch.as_tensor(np.asarray(theta, np.float32))
        x = torch.as_tensor(np.asarray(x, np.float32))
        with _quiet(), torch.no_grad():
            est = self.posterior.posterior_estimator
            lp = est.log_prob(th[None], condition=x)[0]
        return np.asarray(lp.numpy(), float)


class _NoTracker:
    """sbi's experiment-tracking protocol, doing nothing (its default writes TensorBoard logs into ./sbi-logs)."""

    log_dir = None

    def log_metric(self, name, value, step=None):
        pass

    def log_metrics(self, metrics, step=None):
        pass

    def log_params(self, params):
        pass

    def add_figure(self, name, figure, step=None):
        pass

    def flush(self):
        pass


def train_npe(theta, x, low, high, flow: str, max_epochs: int, batch_size: int, seed: int) -> NPEPosterior:
    """Train NPE (sbi) on simulations (θ, x) under the box prior [low, high]."""
    import torch
    from sbi.inference import NPE
    from sbi.neural_nets import posterior_nn
    from sbi.utils import BoxUniform

    torch.manual_seed(seed)
    prior = BoxUniform(torch.as_tensor(low, dtype=torch.float32), torch.as_tensor(high, dtype=torch.float32))
    t0 = time.perf_counter()
    with _quiet():
        extra = {"z_score_theta": "transform_to_unconstrained", "x_dist": prior} if flow.startswith("zuko") else {}
        net = posterior_nn(model=flow, hidden_features=64, num_transforms=5, **extra)
        inf = NPE(prior=prior, density_estimator=net, show_progress_bars=False, tracker=_NoTracker())
        inf.append_simulations(torch.as_tensor(np.asarray(theta, np.float32)), torch.as_tensor(np.asarray(x, np.float32)))
        est = inf.train(max_num_epochs=max_epochs, training_batch_size=batch_size, show_train_summary=False)
        post = inf.build_posterior(est)
    epochs = int(inf.summary["epochs_trained"][-1]) if inf.summary.get("epochs_trained") else max_epochs
    curves = [np.asarray(inf.summary.get(k, ()), float) for k in ("validation_loss", "training_loss")]
    return NPEPosterior(post, np.asarray(low), np.asarray(high), epochs, time.perf_counter() - t0, *curves)


def sbc_ranks(samples, truth) -> np.ndarray:
    """(n_obs, dim) ranks of the true θ among the posterior samples (n_obs, L, dim): #{samples < truth}."""
    samples = np.asarray(samples)
    truth = np.asarray(truth)
    return (samples < truth[:, None, :]).sum(1)


def rank_uniformity_p(ranks, n_samples: int, bins: int = 10) -> np.ndarray:
    """Per parameter, the p-value of a χ² test that the SBC ranks (0..n_samples) are uniform."""
    ranks = np.asarray(ranks)
    edges = np.linspace(0, n_samples + 1, bins + 1)
    out = []
    for j in range(ranks.shape[1]):
        h, _ = np.histogram(ranks[:, j], bins=edges)
        out.append(stats.chisquare(h).pvalue)
    return np.array(out)


def _spread(ranks, n_samples: int) -> np.ndarray:
    """Per column, the variance of the normalised ranks (r + 1/2) / (L + 1) (1/12 for a calibrated posterior)."""
    return (((np.asarray(ranks, float) + 0.5) / (n_samples + 1))).var(axis=-2, ddof=1)


def _null_spread(n_obs: int, n_samples: int, draws: int, seed: int) -> np.ndarray:
    g = np.random.default_rng(seed)
    return _spread(g.integers(0, n_samples + 1, (draws, n_obs, 1)), n_samples)[:, 0]


def rank_spread_p(ranks, n_samples: int, draws: int = 20000, seed: int = 0) -> np.ndarray:
    """Per parameter, the two-sided p-value of the SBC ranks' spread: the variance of the normalised ranks against
    its distribution under uniform ranks on 0..n_samples (Monte Carlo, ``draws`` sets, fixed ``seed``). Small
    spread: an under-confident posterior (ranks crowd in the middle); large: an over-confident one. The χ² test
    of :func:`rank_uniformity_p` on 10 bins has little power against a posterior that is merely too wide."""
    ranks = np.asarray(ranks)
    v = _spread(ranks, n_samples)
    v0 = np.sort(_null_spread(ranks.shape[0], n_samples, draws, seed))
    lo = (np.searchsorted(v0, v, side="right") + 1) / (draws + 1)
    hi = (draws - np.searchsorted(v0, v, side="left") + 1) / (draws + 1)
    return np.minimum(1.0, 2 * np.minimum(lo, hi))


def rank_spread_power(n_obs: int, n_samples: int, width: float, level: float, reps: int = 2000, seed: int = 1) -> float:
    """The probability that :func:`rank_spread_p` rejects at ``level`` when the posterior is Gaussian and ``width``
    times too wide (one parameter, ``n_obs`` cells): the truth's quantile in it is Φ(Z / width), its rank
    Binomial(n_samples, Φ(Z / width))."""
    g = np.random.default_rng(seed)
    u = stats.norm.cdf(g.standard_normal((reps, n_obs)) / width)
    r = g.binomial(n_samples, u)
    v = _spread(r[..., None], n_samples)[:, 0]
    v0 = np.sort(_null_spread(n_obs, n_samples, 20000, 0))
    lo_q, hi_q = np.quantile(v0, [level / 2, 1 - level / 2])
    return float(np.mean((v < lo_q) | (v > hi_q)))


def rank_chi2(ranks, n_samples: int, bins: int = 10) -> np.ndarray:
    """Per column (last axis), the χ² statistic of :func:`rank_uniformity_p`: counts of the ranks (0..n_samples) in
    ``bins`` equal bins of [0, n_samples + 1] against equal expected counts. ``ranks`` (..., n_obs, dim)."""
    r = np.asarray(ranks)
    edges = np.linspace(0, n_samples + 1, bins + 1)
    idx = np.clip(np.searchsorted(edges, r, side="right") - 1, 0, bins - 1)      # np.histogram's bins
    counts = (idx[..., None] == np.arange(bins)).sum(-3)                           # (..., dim, bins)
    e = r.shape[-2] / bins
    return ((counts - e) ** 2 / e).sum(-1)


def _gaussian_ranks(g, shape, n_samples: int, width: float) -> np.ndarray:
    """Ranks of the truth among ``n_samples`` draws of a Gaussian posterior ``width`` times as wide as the right one
    (the truth's quantile Φ(Z / width), the rank Binomial(n_samples, Φ(Z / width))); width 1: uniform on 0..n_samples."""
    return g.binomial(n_samples, stats.norm.cdf(g.standard_normal(shape) / width))


@functools.lru_cache(maxsize=64)
def _boundary(n_obs: int, n_samples: int, width: float, draws: int, seed: int):
    """Sorted Monte Carlo distributions (``draws`` sets of ``n_obs`` cells) of the rank spread and of the χ² statistic
    when the posterior is Gaussian and ``width`` times too wide (< 1: too narrow)."""
    r = _gaussian_ranks(np.random.default_rng(seed), (draws, n_obs, 1), n_samples, width)
    return np.sort(_spread(r, n_samples)[:, 0]), np.sort(rank_chi2(r, n_samples)[:, 0])


def rank_tolerance_p(ranks, n_samples: int, tol: float, draws: int = 20000, seed: int = 2):
    """Per parameter, the p-values of the two rank tests against the edge of a width tolerance instead of exact
    calibration (CLAIMS.md rule 9): how improbable the ranks are even for a Gaussian posterior ``tol`` times too wide
    or ``1 / tol`` times too narrow (Monte Carlo, ``draws`` sets, fixed ``seed``; :func:`_boundary`).

    Spread: two-sided, on the side the data fall: 2 min(P(V_tol <= v), P(V_1/tol >= v)) (a too-wide posterior gives
    a small spread, a too-narrow one a large). χ²: the larger of P(X²_w >= x) over the two edges w = tol, 1 / tol (a
    rank histogram more uneven than either edge makes it). Returns (spread p, χ² p), each (dim,)."""
    ranks = np.asarray(ranks)
    n_obs = ranks.shape[0]
    v, x = _spread(ranks, n_samples), rank_chi2(ranks, n_samples)
    (vw, xw), (vn, xn) = (_boundary(n_obs, n_samples, float(w), draws, seed) for w in (tol, 1 / tol))
    below_wide = (np.searchsorted(vw, v, side="right") + 1) / (draws + 1)
    above_narrow = (draws - np.searchsorted(vn, v, side="left") + 1) / (draws + 1)
    p_spread = np.minimum(1.0, 2 * np.minimum(below_wide, above_narrow))
    p_chi2 = np.maximum(*((draws - np.searchsorted(xb, x, side="left") + 1) / (draws + 1) for xb in (xw, xn)))
    return p_spread, p_chi2


@functools.lru_cache(maxsize=64)
def tolerance_power(n_obs: int, n_samples: int, width: float, tol: float, level: float, reps: int = 2000,
                    seed: int = 1, draws: int = 20000) -> float:
    """The probability that the spread part of :func:`rank_tolerance_p` is below ``level`` (evidence against, beyond
    the tolerance ``tol``) when the posterior is Gaussian and ``width`` times too wide (one parameter, ``n_obs``
    cells; ``reps`` simulated rank sets; ``draws`` the test's own Monte Carlo sets)."""
    r = _gaussian_ranks(np.random.default_rng(seed), (reps, n_obs), n_samples, width)
    return float(np.mean(rank_tolerance_p(r.T, n_samples, tol, draws=draws)[0] < level))   # each set one column


def coverage(samples, truth, level: float = 0.9) -> np.ndarray:
    """Per parameter, the fraction of observations whose true θ_j lies in the central ``level`` interval."""
    lo = np.quantile(samples, (1 - level) / 2, axis=1)
    hi = np.quantile(samples, (1 + level) / 2, axis=1)
    return ((truth >= lo) & (truth <= hi)).mean(0)


class FeatureLoss:
    """The refinement loss of one observed feature vector (n_elec * 6 + 4,), as a JAX function of θ (see the
    module text; the four global features enter with weight one, like the amplitudes)."""

    def __init__(self, model: ForwardModel, feature_scale: np.ndarray, sigma_noise: float):
        self.model = model
        self.scale = jnp.asarray(np.maximum(feature_scale, 1e-3))
        self.sigma = float(sigma_noise)
        self.n_local = model.n_electrodes * 6

    def weights(self, x_obs):
        f_obs = x_obs[:self.n_local].reshape(-1, 6)
        a = jnp.sinh(f_obs[:, 0])
        snr = a ** 2 / (a ** 2 + (5 * self.sigma) ** 2)
        local = jnp.concatenate([jnp.ones((f_obs.shape[0], 3)), jnp.repeat(snr[:, None], 3, axis=1)], axis=1)
        return jnp.concatenate([local.reshape(-1), jnp.ones(x_obs.shape[0] - self.n_local)])

    def __call__(self, theta, x_obs):
        x = feature_vector(self.model.ei(theta), self.model.electrodes, self.model.sample_ms)
        w = self.weights(x_obs)
        return jnp.sum(w * ((x - x_obs) / self.scale) ** 2) / jnp.sum(w)


@functools.lru_cache(maxsize=8)
def value_and_grad_fn(loss: FeatureLoss):
    """jit(vmap(value_and_grad)) of the loss in logit-θ coordinates: (z (n, dim), x_obs (n, n_e * 6 + 4)) ->
    (loss (n,), gradient (n, dim)). Compiled once per batch shape and shared by refinement and its tests."""
    prior = loss.model.prior
    return jax.jit(jax.vmap(jax.value_and_grad(lambda z, f: loss(prior.from_unbounded(z), f))))


@functools.lru_cache(maxsize=8)
def _adam(lr: float):
    import optax

    opt = optax.adam(lr)

    def update(g, state, z):
        upd, state = opt.update(g, state, z)
        return optax.apply_updates(z, upd), state

    return opt, jax.jit(update)


def refine(loss: FeatureLoss, theta0, f_obs, steps: int, lr: float, desc: str = "gradient refinement",
           between=None, step_seconds: list | None = None):
    """Refine starting points θ0 (n, dim) against observed feature vectors f_obs (n, n_elec * 6 + 4) by ``steps`` Adam
    steps on logit-θ. Returns (θ (n, dim), loss before (n,), loss after (n,), loss trace (steps + 1, n)).

    For timing: ``between(i)`` is called before step ``i``, outside the timed region (claim 7 times an NPE call
    there, interleaved with the fit); with a list ``step_seconds`` each step's wall time (gradient, Adam update,
    finished on the device) is appended to it."""
    vg = value_and_grad_fn(loss)
    opt, update = _adam(float(lr))
    prior = loss.model.prior
    z = jax.vmap(prior.to_unbounded)(jnp.asarray(theta0))
    state = opt.init(z)
    f_obs = jnp.asarray(f_obs)
    trace = []
    for i in progress(range(steps), desc=desc):
        if between is not None:
            between(i)
        t0 = time.perf_counter()
        val, g = vg(z, f_obs)
        trace.append(np.asarray(val))
        z, state = update(g, state, z)
        if step_seconds is not None:
            jax.block_until_ready(z)
            step_seconds.append(time.perf_counter() - t0)
    final = np.asarray(vg(z, f_obs)[0])
    theta = np.asarray(jax.vmap(prior.from_unbounded)(z))
    return theta, trace[0], final, np.array(trace + [final])
