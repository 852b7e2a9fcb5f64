r"""Readouts of the replicates: relative improvement, proximity advantage, forgetting, the general-loss jump after
t0, the t0 x w grid, Pearson correlations and a mixed model.

Relative improvement of a model m over the general-only model b of the same seed and schedule, on SFT target S
(the paper's definition),

.. math::  \mathrm{RI}(m, S) = \frac{L^{\rm SFT}_b(S) - L^{\rm SFT}_m(S)}{L^{\rm SFT}_b(S)},

with :math:`L^{\rm SFT}` the target's validation loss after SFT. The mixed model (``statsmodels`` ``mixedlm``) is
:math:`\mathrm{RI}_{ij} = \beta_0 + \beta_1\,\mathrm{PA}_{ij} + u_{S(j)} + \varepsilon_{ij}` with a random intercept
:math:`u` per SFT target (the paper's analysis uses random effects by SFT dataset).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
from scipy import stats as sps

from . import data as D
from .config import MidtrainConfig
from .runner import Branch, Replicate

__all__ = ["Study", "ri", "mixed_slope", "MixedFit", "pearson"]


def ri(base_loss, model_loss) -> np.ndarray:
    """(L_b - L_m) / L_b, elementwise."""
    b, m = np.asarray(base_loss, dtype=float), np.asarray(model_loss, dtype=float)
    return (b - m) / b


@dataclasses.dataclass(frozen=True)
class MixedFit:
    """A mixed model's fixed slope with its ``level`` Wald interval and p-value (``converged`` as statsmodels
    reports it); ``n`` observations in ``groups`` groups."""

    slope: float
    lo: float
    hi: float
    p: float
    n: int
    groups: int
    converged: bool


def mixed_slope(x, y, groups, level: float = 0.95) -> MixedFit:
    """Fit y ~ x with a random intercept per group (``statsmodels.formula.api.mixedlm``, REML)."""
    import warnings

    import pandas as pd
    import statsmodels.formula.api as smf

    df = pd.DataFrame({"x": np.asarray(x, float), "y": np.asarray(y, float), "g": [str(v) for v in groups]})
    if df.shape[0] < 4 or df["g"].nunique() < 2:
        raise ValueError(f"the mixed model needs at least 4 points in 2 groups; got {df.shape[0]} in {df['g'].nunique()}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = smf.mixedlm("y ~ x", df, groups=df["g"]).fit(reml=True)
    lo, hi = res.conf_int(alpha=1 - level).loc["x"]
    return MixedFit(float(res.params["x"]), float(lo), float(hi), float(res.pvalues["x"]), int(df.shape[0]),
                    int(df["g"].nunique()), bool(res.converged))


def pearson(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    return float(sps.pearsonr(x, y).statistic)


@dataclasses.dataclass
class Study:
    """The replicates of one profile, with the readouts the claims and figures use (every array is one value
    per replicate unless said otherwise)."""

    cfg: MidtrainConfig
    replicates: tuple[Replicate, ...]

    @classmethod
    def of(cls, cfg: MidtrainConfig, replicates: Sequence[Replicate]) -> "Study":
        if not replicates:
            raise ValueError("a study needs at least one replicate")
        return cls(cfg, tuple(replicates))

    @property
    def n(self) -> int:
        return len(self.replicates)

    # -- keys --
    def mid_key(self, domain: str, t0: int | None = None, w: float | None = None, schedule: str = "cosine") -> str:
        return Branch("mid", domain, self.cfg.t0_main if t0 is None else t0,
                      self.cfg.w_main if w is None else w, schedule).key

    def cpt_key(self, domain: str, t0: int | None = None, schedule: str = "cosine") -> str:
        return Branch("cpt", domain, self.cfg.t0_main if t0 is None else t0, schedule=schedule).key

    def mix0_key(self, domain: str, w: float | None = None, schedule: str = "cosine") -> str:
        """The mixture-from-step-0 anchor of ``domain`` (weight ``w_main`` by default)."""
        return Branch("mix0", domain, 0, self.cfg.w_main if w is None else w, schedule).key

    @staticmethod
    def base_key(schedule: str = "cosine") -> str:
        return Branch("base", schedule=schedule).key

    def _check(self, key: str, target: str) -> None:
        if target not in D.TARGETS and not target.endswith("+replay"):
            raise ValueError(f"target={target!r} is not allowed; allowed values: {', '.join(D.TARGETS)}")
        missing = [r.seed for r in self.replicates if (key, target) not in r.sft]
        if missing:
            raise KeyError(f"no SFT run ({key}, {target}) in replicates {missing}")

    # -- SFT readouts --
    def sft_final(self, key: str, target: str) -> np.ndarray:
        self._check(key, target)
        return np.array([r.sft[(key, target)].final for r in self.replicates])

    def general_after(self, key: str, target: str) -> np.ndarray:
        self._check(key, target)
        return np.array([r.sft[(key, target)].general_after for r in self.replicates])

    def general_before(self, key: str, target: str) -> np.ndarray:
        self._check(key, target)
        return np.array([r.sft[(key, target)].general_before for r in self.replicates])

    def sft_curves(self, key: str, target: str) -> tuple[np.ndarray, np.ndarray]:
        self._check(key, target)
        runs = [r.sft[(key, target)] for r in self.replicates]
        return runs[0].steps, np.stack([s.sft_loss for s in runs])

    def ri(self, key: str, target: str, schedule: str = "cosine", base_target: str | None = None) -> np.ndarray:
        """RI of the SFT run (``key``, ``target``) over the general-only model's SFT run on ``base_target``
        (default ``target``; the replay anchor ``code_sft+replay`` is compared with plain ``code_sft``)."""
        return ri(self.sft_final(self.base_key(schedule), base_target or target), self.sft_final(key, target))

    # -- similarity --
    def pa(self, domain: str, target: str) -> np.ndarray:
        return np.array([r.similarity.pa(domain, target) for r in self.replicates])

    def dist(self, a: str, b: str) -> np.ndarray:
        return np.array([r.similarity.dist(a, b) for r in self.replicates])

    def pa_ri_points(self) -> list[dict]:
        """Every (replicate, midtraining domain, target) point: PA, RI of the main midtraining branch."""
        out = []
        for i, r in enumerate(self.replicates):
            for dom in D.DOMAINS:
                for tgt in D.TARGETS:
                    key = self.mid_key(dom)
                    b = r.sft[(self.base_key(), tgt)].final
                    out.append({"seed": r.seed, "replicate": i, "domain": dom, "target": tgt,
                                "pa": r.similarity.pa(dom, tgt), "ri": float(ri(b, r.sft[(key, tgt)].final))})
        return out

    # -- pretraining curves --
    def general_curve(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        runs = [r.branches[key] for r in self.replicates]
        return runs[0].steps, np.stack([b.general_loss for b in runs])

    def jump(self, key: str, t0: int, window: int, schedule: str = "cosine") -> np.ndarray:
        """Mean excess of the branch's general loss over the general-only run's at the evaluations in
        (t0, t0 + window] (nats)."""
        s, v = self.general_curve(key)
        _, b = self.general_curve(self.base_key(schedule))
        sel = (s > t0) & (s <= t0 + window)
        if not sel.any():
            raise ValueError(f"no evaluation of the general loss in ({t0}, {t0 + window}]")
        return (v[:, sel] - b[:, sel]).mean(1)

    # -- the grid --
    def grid(self, schedule: str = "cosine", metric: str = "ri") -> np.ndarray:
        """(R, n_t0, n_w) of the code grid: RI on code SFT (``ri``) or the general loss after SFT (``forget``)."""
        out = np.zeros((self.n, len(self.cfg.grid_t0), len(self.cfg.grid_w)))
        for a, t0 in enumerate(self.cfg.grid_t0):
            for b, w in enumerate(self.cfg.grid_w):
                key = (self.cpt_key("code", t0, schedule) if w == 1.0 else self.mid_key("code", t0, w, schedule))
                out[:, a, b] = (self.ri(key, "code_sft", schedule) if metric == "ri"
                                else self.general_after(key, "code_sft"))
        return out

    def grid_keys(self, schedule: str = "cosine") -> list[str]:
        return [self.cpt_key("code", t0, schedule) if w == 1.0 else self.mid_key("code", t0, w, schedule)
                for t0 in self.cfg.grid_t0 for w in self.cfg.grid_w]

    def interaction(self, schedule: str = "cosine") -> np.ndarray:
        """Per replicate, the timing x weight contrast on code RI: [RI(late, low w) - RI(late, high w)] -
        [RI(early, low w) - RI(early, high w)] (earliest and latest t0, lowest and highest w). Positive when a
        high weight costs more (or helps less) late than early: the paper's plasticity window."""
        g = self.grid(schedule)
        ia, ib = int(np.argmin(self.cfg.grid_t0)), int(np.argmax(self.cfg.grid_t0))
        lo, hi = int(np.argmin(self.cfg.grid_w)), int(np.argmax(self.cfg.grid_w))
        return (g[:, ib, lo] - g[:, ib, hi]) - (g[:, ia, lo] - g[:, ia, hi])

    def best_w(self, schedule: str = "cosine") -> np.ndarray:
        """The w of the best mean RI in each t0 row of the grid (rows in grid_t0 order)."""
        g = self.grid(schedule).mean(0)
        return np.array([self.cfg.grid_w[int(np.argmax(row))] for row in g])

    def tokens_check(self) -> dict[str, int]:
        """Tokens each branch trained itself (after its start) and the prefix's, for the run record: no prefix
        token is trained twice (each branch's count starts at its t0)."""
        r = self.replicates[0]
        return {k: b.own_tokens for k, b in r.branches.items()}
