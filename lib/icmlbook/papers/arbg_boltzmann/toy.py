r"""A 2-D multimodal target with known expectations: four well-separated isotropic Gaussian basins.

:math:`\mu(x)=\sum_c w_c\,\mathcal N(x; m_c, \sigma^2 I_2)`, energy :math:`u(x)=-\log\mu(x)` (normalised, so
:math:`Z=1`). Closed forms: :math:`\mathbb E x=\sum_c w_c m_c`, :math:`\mathbb E x_1^2=\sum_c w_c(m_{c,1}^2+\sigma^2)`,
and the mass of the quadrant :math:`\{x_1>0, x_2>0\}`, :math:`\sum_c w_c\,\Phi(m_{c,1}/\sigma)\Phi(m_{c,2}/\sigma)`.
A basin's mass is the mass of its quadrant (basins sit one per quadrant, many standard deviations from
the axes).
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm

__all__ = ["FourWells", "TEST_FUNCTIONS"]

#: the test functions whose expectations are estimated: x1, x2, x1^2, 1[x1>0, x2>0]
TEST_FUNCTIONS = ("E[x1]", "E[x2]", "E[x1^2]", "P(x1>0,x2>0)")


@dataclasses.dataclass(frozen=True)
class FourWells:
    centre: float = 2.5
    sigma: float = 0.4
    weights: tuple[float, float, float, float] = (0.4, 0.3, 0.2, 0.1)

    def __post_init__(self):
        w = np.asarray(self.weights)
        if len(w) != 4 or (w <= 0).any() or abs(w.sum() - 1) > 1e-12:
            raise ValueError(f"weights={self.weights!r} are not allowed; four positive numbers summing to 1")
        if not (self.sigma > 0 and self.centre > 0):
            raise ValueError("sigma and centre must be > 0")

    @property
    def means(self) -> np.ndarray:
        c = self.centre
        return np.array([[c, c], [-c, c], [-c, -c], [c, -c]], dtype=np.float64)

    def log_density(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        d2 = ((x[:, None, :] - self.means[None]) ** 2).sum(-1)           # (n, 4)
        lc = np.log(self.weights) - d2 / (2 * self.sigma ** 2) - np.log(2 * np.pi * self.sigma ** 2)
        return logsumexp(lc, axis=1)

    def energy(self, x: np.ndarray) -> np.ndarray:
        return -self.log_density(x)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        c = rng.choice(4, size=n, p=np.asarray(self.weights))
        return self.means[c] + self.sigma * rng.standard_normal((n, 2))

    def test_values(self, x: np.ndarray) -> np.ndarray:
        """f(x) for each test function, (n, 4)."""
        x = np.asarray(x, dtype=np.float64)
        return np.stack([x[:, 0], x[:, 1], x[:, 0] ** 2, ((x[:, 0] > 0) & (x[:, 1] > 0)).astype(float)], 1)

    def truth(self) -> np.ndarray:
        w, m, s = np.asarray(self.weights), self.means, self.sigma
        q = (w * norm.cdf(m[:, 0] / s) * norm.cdf(m[:, 1] / s)).sum()
        return np.array([(w * m[:, 0]).sum(), (w * m[:, 1]).sum(), (w * (m[:, 0] ** 2 + s ** 2)).sum(), q])

    def basin(self, x: np.ndarray) -> np.ndarray:
        """Index of the nearest basin centre, (n,)."""
        return ((np.asarray(x)[:, None, :] - self.means[None]) ** 2).sum(-1).argmin(1)
