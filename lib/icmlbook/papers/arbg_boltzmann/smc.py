r"""Autoregressive twisted SMC: prefix-level resampling during generation (a **reconstruction**: the paper's
README and blog describe it, the released code does not contain it; dossier §3.4).

P particles are generated token by token from the proposal :math:`\pi_\tau` with a KV cache. After each
completed atom the partial molecule (bin centres of the tokens so far, in the canonical frame) gets a twist
:math:`\psi_t = \exp(-\lambda\,c_t)`, with :math:`c_t` a steric-clash score: the sum over placed pairs three or
more bonds apart of :math:`(\max(0, d_0 - d)/\sigma)^2`. The intermediate targets are
:math:`\gamma_t = \pi_\tau(k_{1:t})\,\psi_t`, so a particle's incremental weight is :math:`\psi_t/\psi_{t-1}`;
when the effective sample size of the weights falls below ``ess_threshold`` x P, the particles are resampled
(multinomially; tokens, log-probabilities, twists and the KV cache follow their ancestors) and the weights
reset. The last step divides the twist out and multiplies in the Boltzmann weight,
:math:`e^{-u(x)}/(q(x)\,\psi_{T-1})`, so the weighted particles target :math:`e^{-u}` as plain SNIS does.

Resampling resets the weights, so the final weights' ESS can look healthy while every particle descends from a
few ancestors: :func:`twisted_smc` returns each final particle's ancestor among the first generation
(``ancestry``) and their number (``unique``, the surviving lineages). :func:`paired_w2_bootstrap` puts an
interval on the difference twisted SMC − plain SNIS of E-W2 and T-W2 by resampling whole lineages.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import torch
from scipy.special import logsumexp

from ...lm import KVCache
from ...runtime.stats import percentile_interval
from .discretize import Discretizer
from .snis import kish_ess

__all__ = ["ClashTwist", "twisted_smc", "paired_w2_bootstrap"]


@dataclasses.dataclass
class ClashTwist:
    """Clash score of placed atoms: pairs (i, j) at least ``min_separation`` bonds apart, threshold ``d0`` nm,
    scale ``sigma`` nm; ``strength`` is λ."""

    pairs: np.ndarray
    d0: float = 0.18
    sigma: float = 0.02
    strength: float = 1.0

    @classmethod
    def for_molecule(cls, n_atoms: int, bonds: np.ndarray, min_separation: int = 3, **kw) -> "ClashTwist":
        import scipy.sparse.csgraph as cg
        A = np.zeros((n_atoms, n_atoms))
        A[bonds[:, 0], bonds[:, 1]] = A[bonds[:, 1], bonds[:, 0]] = 1
        hops = cg.shortest_path(A, unweighted=True)
        i, j = np.triu_indices(n_atoms, 1)
        keep = hops[i, j] >= min_separation
        return cls(np.stack([i[keep], j[keep]], 1), **kw)

    def score(self, frames: np.ndarray, placed: np.ndarray) -> np.ndarray:
        """(P, N, 3) frames (unplaced atoms ignored) and a boolean mask (N,) of placed atoms -> (P,) clash scores."""
        m = placed[self.pairs[:, 0]] & placed[self.pairs[:, 1]]
        if not m.any():
            return np.zeros(len(frames))
        pr = self.pairs[m]
        d = np.linalg.norm(frames[:, pr[:, 0]] - frames[:, pr[:, 1]], axis=-1)
        return (np.maximum(0.0, self.d0 - d) / self.sigma).__pow__(2).sum(-1)


def _ess_frac(logw: np.ndarray) -> float:
    return kish_ess(logw) / len(logw)


@torch.no_grad()
def twisted_smc(model, disc: Discretizer, rep, energy, twist: ClashTwist, n: int, temperature: float, seed: int,
                ess_threshold: float = 0.5) -> dict:
    """Run P = ``n`` particles; returns frames, final log-weights, the number of resampling events, each final
    particle's first-generation ancestor (``ancestry``, (P,)) and the number of surviving lineages (``unique``),
    the clash fraction and the wall time. ``rep`` must be the canonical representation (the
    prefix's atoms are placed in its frame)."""
    if not 0 < ess_threshold <= 1:
        raise ValueError(f"ess_threshold={ess_threshold!r} is not allowed; it must be in (0, 1]")
    t0 = time.perf_counter()
    dev = next(model.parameters()).device
    g = torch.Generator(device=dev).manual_seed(seed)
    rng = np.random.default_rng(seed)
    slots = rep.frame.slots
    ref_atoms = (rep.frame.origin, rep.frame.axis, rep.frame.plane)
    D = model.n_tokens
    tokens = torch.empty(n, D, dtype=torch.long, device=dev)
    logp = torch.zeros(n, dtype=torch.float64, device=dev)
    cache = KVCache(len(model.gpt.blocks))
    feed = torch.full((n, 1), model.bos, dtype=torch.long, device=dev)
    logw = np.zeros(n)
    log_psi = np.zeros(n)
    placed = np.zeros(rep.frame.n_atoms, dtype=bool)
    placed[rep.frame.origin] = True
    ancestry = np.arange(n)
    n_resample = 0
    for j in range(D):
        lg = model.gpt(feed, cache=cache, extra=model._extra(j, 1))[:, -1, : model.n_bins]
        lp = torch.log_softmax(lg.float() / temperature, dim=-1)
        k = torch.multinomial(lp.exp(), 1, generator=g).squeeze(1)
        tokens[:, j] = k
        logp += lp.gather(-1, k[:, None]).squeeze(1).double()
        feed = k[:, None]
        atom, axis = slots[j]
        done_atom = (j == 2) or (j >= 3 and axis == 2)
        if done_atom and j < D - 1:
            if j == 2:
                placed[list(ref_atoms)] = True
            else:
                placed[atom] = True
            z = disc.centres(tokens[:, : j + 1].cpu()).numpy()
            zfull = np.zeros((n, D))
            zfull[:, : j + 1] = z
            frames, _ = rep.decode(zfull)
            new = -twist.strength * twist.score(frames, placed)
            logw += new - log_psi
            log_psi = new
            if _ess_frac(logw) < ess_threshold:
                w = np.exp(logw - logsumexp(logw))
                idx = rng.choice(n, size=n, replace=True, p=w / w.sum())
                it = torch.as_tensor(idx, device=dev)
                tokens, logp, feed = tokens[it], logp[it], feed[it]
                for layer in range(len(cache.k)):
                    cache.k[layer], cache.v[layer] = cache.k[layer][it], cache.v[layer][it]
                log_psi = log_psi[idx]
                ancestry = ancestry[idx]
                logw = np.zeros(n)
                n_resample += 1
    gd = torch.Generator().manual_seed(seed + 7919)
    z = disc.decode(tokens.cpu(), generator=gd).numpy()
    frames, corr = rep.decode(z)
    log_q = logp.cpu().numpy() + disc.log_jacobian(D) + corr
    u = energy.reduced(frames)
    final = -u - log_q - log_psi
    final[~np.isfinite(final)] = -np.inf
    logw = logw + final
    clash = twist.score(frames, np.ones(rep.frame.n_atoms, dtype=bool)) > 0
    return {"frames": frames, "log_w": logw, "energies": u, "n_resample": n_resample, "tokens": tokens.cpu(),
            "log_pi": logp.cpu().numpy(), "log_q": log_q, "ancestry": ancestry,
            "unique": int(len(np.unique(ancestry))), "clash_frac": float(clash.mean()), "seconds": time.perf_counter() - t0}


def paired_w2_bootstrap(plain: dict, twisted: dict, ref_u: np.ndarray, ref_t: np.ndarray, *, n_eval: int, n_torus: int,
                        n_boot: int, seed: int) -> dict:
    """Bootstrap of the paired differences twisted SMC − plain SNIS of E-W2 (kT) and T-W2 (rad) after resampling.

    ``plain`` and ``twisted`` hold ``energies`` (P,), ``log_w`` (P,), ``angles`` (P, k) of the final particles and
    ``clusters`` (P,) int: the units resampled, each particle its own for plain SNIS (independent proposals), the
    first-generation ancestor for twisted SMC (particles of one lineage share a prefix and are not independent).
    Each of ``n_boot`` replicates resamples each method's clusters with replacement, then, as the point estimate
    does, draws ``n_eval`` particles by weight and takes E-W2 against ``ref_u`` and T-W2 of the first ``n_torus``
    against ``ref_t`` (the references are fixed: both methods are compared with the same ones). Replicates where a
    method keeps no finite weight are left out and counted (``dropped``). Returns, per metric, the mean difference
    and the 5th and 95th percentiles (``lo``, ``hi``: one-sided 95 % bounds)."""
    from .metrics import energy_w2, torus_w2
    from .snis import resample
    if n_boot < 2:
        raise ValueError(f"n_boot={n_boot!r} is not allowed; it must be >= 2")
    rng = np.random.default_rng(seed)
    ref_t = np.asarray(ref_t)[:n_torus]
    groups = []
    for side in (plain, twisted):
        c = np.asarray(side["clusters"])
        labels, inv = np.unique(c, return_inverse=True)
        order = np.argsort(inv, kind="stable")
        bounds = np.searchsorted(inv[order], np.arange(len(labels) + 1))
        groups.append((order, bounds, len(labels)))
    diffs, dropped = {"ew2": [], "tw2": []}, 0
    for _ in range(n_boot):
        vals = []
        for side, (order, bounds, k) in zip((plain, twisted), groups):
            pick = rng.integers(0, k, k)
            idx = np.concatenate([order[bounds[j]:bounds[j + 1]] for j in pick])
            lw = np.asarray(side["log_w"], float)[idx]
            if not np.isfinite(lw).any():
                vals.append(None)
                continue
            r = idx[resample(lw, n_eval, rng)]
            vals.append((energy_w2(np.asarray(side["energies"])[r], ref_u),
                         torus_w2(np.asarray(side["angles"])[r[:n_torus]], ref_t[: min(n_torus, len(r))])))
        if any(v is None for v in vals):
            dropped += 1
            continue
        diffs["ew2"].append(vals[1][0] - vals[0][0])
        diffs["tw2"].append(vals[1][1] - vals[0][1])
    out = {"n_boot": n_boot, "dropped": dropped, "n_torus": int(min(n_torus, n_eval)),
           "clusters": {"SNIS": groups[0][2], "twisted SMC": groups[1][2]}}
    for k, d in diffs.items():
        d = np.asarray(d, float)
        lo, hi, _ = percentile_interval(d, 0.90, "propagate")   # one-sided 95 % bounds: the two-sided 90 % interval
        out[k] = ({"mean": float(d.mean()), "lo": lo, "hi": hi}
                  if d.size else {"mean": float("nan"), "lo": float("-inf"), "hi": float("inf")})
    return out
