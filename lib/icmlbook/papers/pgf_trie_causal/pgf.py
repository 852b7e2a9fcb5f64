"""The probability generating function (PGF) of an LC-PB-SCM: closed form, symbolic, empirical.

Paper: *On the Identifiability of Poisson Branching SCM Under Latent Confounding* (ICML 2026). The
closed form below is **our derivation** (the paper's text was not reachable); it is checked against
the empirical PGF of large samples in the chapter and in the tests.

Cascade PGFs
    One unit born at node :math:`v` is counted at :math:`v` (if observed) and independently passes to
    each child :math:`c` with probability :math:`\\alpha_{vc}`, where it starts a new cascade. The
    PGF of the vector of counts that one unit of :math:`v` leaves on the observed nodes is

    .. math::  g_v(z) = z_v^{\\mathbb 1[v\\in O]} \\prod_{c\\in\\mathrm{ch}(v)}
               \\bigl(1-\\alpha_{vc} + \\alpha_{vc}\\, g_c(z)\\bigr),      \\tag{1}

    computed in reverse topological order (a latent node carries no :math:`z`, i.e. it is
    marginalised).
Joint PGF
    The :math:`\\mathrm{Poisson}(\\mu_v)` units of node :math:`v` are independent cascades, so

    .. math::  \\log G(z) = \\log E\\Bigl[\\prod_{j\\in O} z_j^{X_j}\\Bigr]
               = \\sum_{v\\in V} \\mu_v\\bigl(g_v(z) - 1\\bigr).       \\tag{2}

    :math:`\\log G` is a polynomial whose non-constant coefficients :math:`c_\\beta` are non-negative;
    :math:`X_O = \\sum_\\beta \\beta N_\\beta` with independent :math:`N_\\beta\\sim\\mathrm{Poisson}(c_\\beta)`
    (a multivariate compound Poisson law), and the *support* :math:`\\{\\beta: c_\\beta>0\\}` depends on
    the graph only (for :math:`\\alpha\\in(0,1)`, :math:`\\mu>0`).
Local PGFs (zero-conditioning)
    :math:`G(z_S, 0_C, 1_R) = E[z_S^{X_S}\\,\\mathbb 1\\{X_C = 0\\}]`: setting :math:`z_c=0` deletes every
    monomial that contains :math:`z_c`, i.e. every cascade that touches :math:`c`; conditionally on
    :math:`X_C=0` the other counts are again compound Poisson with the remaining monomials.
Factorial cumulants
    :math:`\\log G(1+t) = \\sum_\\beta c_\\beta \\prod_k (1+t_k)^{\\beta_k}` gives the factorial
    cumulants :math:`\\kappa_{[p]} = \\sum_\\beta c_\\beta \\prod_k (\\beta_k)_{p_k}` (falling factorials):
    :math:`\\kappa_{[p]} > 0` iff some monomial of the support dominates :math:`p` componentwise.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from fractions import Fraction

import numpy as np

from .model import PoissonBranchingSCM, check_counts

__all__ = [
    "Monomial",
    "cascade_pgfs",
    "empirical_pgf",
    "exact_pmf",
    "factorial_cumulant_closed_form",
    "local_support",
    "log_pgf",
    "log_pgf_coefficients",
    "log_pgf_latex",
    "pgf",
    "support",
    "support_sympy",
    "symbolic_log_pgf",
]

Monomial = tuple[int, ...]


# --------------------------------------------------------------------------------------------------
# numeric closed form
# --------------------------------------------------------------------------------------------------
def _as_z(model: PoissonBranchingSCM, z) -> np.ndarray:
    z = np.asarray(z)
    if z.shape[-1] != model.n_observed:
        raise ValueError(f"z must have last dimension {model.n_observed} (one entry per observed node), "
                         f"got shape {z.shape}")
    return z


def cascade_pgfs(model: PoissonBranchingSCM, z) -> np.ndarray:
    """Equation (1): the cascade PGF of every node at the points ``z``.

    Parameters
    ----------
    z : array_like, shape (..., n_obs), real or complex

    Returns
    -------
    ndarray, shape (p, ...): ``g[v]`` evaluated at each point.
    """
    z = _as_z(model, z)
    col = {int(v): k for k, v in enumerate(model.observed_index)}
    g = np.empty((model.p,) + z.shape[:-1], dtype=np.result_type(z.dtype, float))
    for v in reversed(model.topological_order):
        val = z[..., col[v]].astype(g.dtype) if v in col else np.ones(z.shape[:-1], dtype=g.dtype)
        for c in model.children(v):
            a = model.alpha[v, c]
            val = val * (1.0 - a + a * g[c])
        g[v] = val
    return g


def log_pgf(model: PoissonBranchingSCM, z) -> np.ndarray:
    """Equation (2): :math:`\\log G(z)`, shape ``z.shape[:-1]``."""
    g = cascade_pgfs(model, z)
    return np.tensordot(model.mu, g - 1.0, axes=(0, 0))


def pgf(model: PoissonBranchingSCM, z) -> np.ndarray:
    """The joint PGF :math:`G(z) = E\\prod_j z_j^{X_j}` of the observed counts, shape ``z.shape[:-1]``."""
    return np.exp(log_pgf(model, z))


def empirical_pgf(data, z) -> np.ndarray:
    """The empirical PGF :math:`\\frac1N\\sum_n \\prod_j z_j^{x_{nj}}` of count data.

    Parameters
    ----------
    data : array_like, shape (N, n_obs), non-negative integers
    z : array_like, shape (M, n_obs) or (n_obs,)

    Returns
    -------
    ndarray, shape (M,) (or a scalar for a single point)
    """
    x = check_counts(data)
    z = np.asarray(z, dtype=float)
    single = z.ndim == 1
    z = np.atleast_2d(z)
    if z.shape[1] != x.shape[1]:
        raise ValueError(f"z has {z.shape[1]} coordinates but data has {x.shape[1]} columns")
    out = np.empty(len(z))
    for m, point in enumerate(z):
        prod = np.ones(len(x))
        for j, zj in enumerate(point):
            prod *= np.power(zj, x[:, j])  # 0**0 == 1: zero-conditioning when zj == 0
        out[m] = prod.mean()
    return out[0] if single else out


# --------------------------------------------------------------------------------------------------
# exact coefficients and support
# --------------------------------------------------------------------------------------------------
def _poly_mul(a: dict, b: dict, max_terms: int) -> dict:
    out: dict = {}
    for ka, va in a.items():
        for kb, vb in b.items():
            k = tuple(x + y for x, y in zip(ka, kb))
            out[k] = out.get(k, 0) + va * vb
    if len(out) > max_terms:
        raise ValueError(f"the PGF has more than max_terms={max_terms} monomials; the graph has too "
                         "many directed paths for an exact expansion")
    return out


def log_pgf_coefficients(model: PoissonBranchingSCM, exact: bool = False,
                         max_terms: int = 200_000) -> dict[Monomial, float]:
    """The non-constant coefficients :math:`c_\\beta` of :math:`\\log G` (equation 2), by exact
    polynomial expansion of equation (1).

    Parameters
    ----------
    exact : bool
        Use rational arithmetic (``fractions.Fraction`` of the float parameters) instead of floats.

    Returns
    -------
    dict mapping an exponent tuple (length n_obs) to its coefficient (> 0 for generic parameters).
    """
    n = model.n_observed
    col = {int(v): k for k, v in enumerate(model.observed_index)}
    zero = (0,) * n
    num = Fraction if exact else float
    g: dict[int, dict] = {}
    for v in reversed(model.topological_order):
        e = [0] * n
        if v in col:
            e[col[v]] = 1
        poly = {tuple(e): num(1)}
        for c in model.children(v):
            a = num(float(model.alpha[v, c]))
            factor = {k: a * val for k, val in g[c].items()}
            factor[zero] = factor.get(zero, num(0)) + (1 - a)
            poly = _poly_mul(poly, factor, max_terms)
        g[v] = poly
    out: dict = {}
    for v in range(model.p):
        m = num(float(model.mu[v]))
        for k, val in g[v].items():
            if k != zero:
                out[k] = out.get(k, 0) + m * val
    return {k: v for k, v in out.items() if v != 0}


def support(model: PoissonBranchingSCM, max_terms: int = 200_000) -> frozenset[Monomial]:
    """The generic support of :math:`\\log G` (all monomials with a positive coefficient when every
    edge has :math:`\\alpha\\in(0,1)` and every node :math:`\\mu>0`), from the graph alone.

    With non-negative coefficients nothing cancels, so the support of (1) is a Minkowski sum of
    supports and the support of (2) their union over nodes.
    """
    n = model.n_observed
    col = {int(v): k for k, v in enumerate(model.observed_index)}
    zero = (0,) * n
    supp: dict[int, set] = {}
    for v in reversed(model.topological_order):
        e = [0] * n
        if v in col:
            e[col[v]] = 1
        cur = {tuple(e)}
        for c in model.children(v):
            options = supp[c] | {zero}
            cur = {tuple(x + y for x, y in zip(a, b)) for a in cur for b in options}
            if len(cur) > max_terms:
                raise ValueError(f"the support has more than max_terms={max_terms} monomials")
        supp[v] = cur
    out = set().union(*supp.values()) if supp else set()
    out.discard(zero)
    return frozenset(out)


def local_support(supp: Iterable[Monomial], zero: Iterable[int]) -> frozenset[Monomial]:
    """Support of the local PGF with :math:`z_c = 0` for the data columns ``zero``: the monomials
    free of every zeroed variable."""
    zero = list(zero)
    return frozenset(b for b in supp if all(b[c] == 0 for c in zero))


def factorial_cumulant_closed_form(coefficients: dict[Monomial, float], pattern: Monomial) -> float:
    """:math:`\\kappa_{[p]} = \\sum_\\beta c_\\beta\\prod_k (\\beta_k)_{p_k}` from the coefficients of
    :math:`\\log G`; ``pattern`` (n_obs,) of non-negative integers. Pattern ``e_i`` gives the mean,
    ``e_i + e_j`` the covariance, ``2 e_i`` the variance minus the mean."""
    total = 0.0
    for beta, c in coefficients.items():
        term = float(c)
        for b, q in zip(beta, pattern):
            for r in range(q):
                term *= b - r
        total += term
    return total


# --------------------------------------------------------------------------------------------------
# symbolic
# --------------------------------------------------------------------------------------------------
def symbolic_log_pgf(model: PoissonBranchingSCM, parameters: str = "symbolic", rng=None):
    """:math:`\\log G(z)` (equation 2) as an expanded sympy expression.

    Parameters
    ----------
    parameters : {"symbolic", "numeric", "random"}
        Edge and rate symbols ``alpha_u_v``, ``mu_v``; the model's values as exact rationals; or
        random rationals in (0, 1) for thinning and (0, 2] for rates drawn with ``rng``.

    Returns
    -------
    (expr, z_symbols): the expression (constant term included) and the tuple of ``z`` symbols in
    data-column order.
    """
    import sympy as sp

    if parameters not in ("symbolic", "numeric", "random"):
        raise ValueError(f"parameters={parameters!r} is not allowed; allowed values: symbolic, numeric, random")
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    zs = tuple(sp.Symbol(f"z_{model.names[v]}") for v in model.observed_index)
    col = {int(v): k for k, v in enumerate(model.observed_index)}

    def alpha(u, v):
        if parameters == "symbolic":
            return sp.Symbol(f"alpha_{model.names[u]}_{model.names[v]}", positive=True)
        if parameters == "numeric":
            return sp.Rational(Fraction(float(model.alpha[u, v])))
        return sp.Rational(int(gen.integers(1, 1000)), 1000)

    def mu(v):
        if parameters == "symbolic":
            return sp.Symbol(f"mu_{model.names[v]}", positive=True)
        if parameters == "numeric":
            return sp.Rational(Fraction(float(model.mu[v])))
        return sp.Rational(int(gen.integers(1, 1001)), 500)

    g = {}
    for v in reversed(model.topological_order):
        val = zs[col[v]] if v in col else sp.Integer(1)
        for c in model.children(v):
            a = alpha(v, c)
            val = val * (1 - a + a * g[c])
        g[v] = val
    expr = sp.expand(sum(mu(v) * (g[v] - 1) for v in range(model.p)))
    return expr, zs


def support_sympy(model: PoissonBranchingSCM, parameters: str = "random", rng=None) -> frozenset[Monomial]:
    """Support of :math:`\\log G` read off an exact sympy expansion (constant term dropped)."""
    import sympy as sp

    expr, zs = symbolic_log_pgf(model, parameters=parameters, rng=rng)
    poly = sp.Poly(expr, *zs)
    zero = (0,) * len(zs)
    return frozenset(tuple(int(e) for e in m) for m, c in poly.terms() if tuple(m) != zero and c != 0)


# --------------------------------------------------------------------------------------------------
# exact pmf by FFT of the PGF on the unit circle
# --------------------------------------------------------------------------------------------------
def exact_pmf(model: PoissonBranchingSCM, max_count: int, grid: int | None = None) -> np.ndarray:
    """The joint pmf :math:`P(X = x)` for ``0 <= x_j <= max_count``, shape ``(max_count+1,)*n_obs``.

    Evaluates :math:`G` at the roots of unity :math:`z_j = e^{2\\pi i k_j/K}` and inverts with an
    FFT; the mass above ``K-1`` aliases, so ``K = grid`` (default ``4*(max_count+1)``, at least 32)
    must exceed the counts that carry probability.
    """
    n = model.n_observed
    k = grid or max(32, 4 * (max_count + 1))
    if k ** n > 5_000_000:
        raise ValueError(f"grid {k}^{n} is too large for an exact pmf; use fewer observed nodes or a smaller grid")
    roots = np.exp(2j * np.pi * np.arange(k) / k)
    mesh = np.stack(np.meshgrid(*([roots] * n), indexing="ij"), axis=-1)  # (K,)*n + (n,)
    values = pgf(model, mesh)
    # G(w^k) = sum_x P(x) w^{k.x} with w = e^{2 pi i/K}; the forward FFT multiplies by w^{-k.x'}
    # and sums over k, which leaves K^n P(x')
    pmf = np.fft.fftn(values).real / k ** n
    sl = tuple(slice(0, max_count + 1) for _ in range(n))
    return np.clip(pmf[sl], 0.0, None)


def all_patterns(n: int, max_degree: int, min_degree: int = 1) -> list[Monomial]:
    """Every exponent tuple of length ``n`` with total degree in ``[min_degree, max_degree]``."""
    return [p for p in itertools.product(range(max_degree + 1), repeat=n) if min_degree <= sum(p) <= max_degree]


def log_pgf_latex(model: PoissonBranchingSCM, latex: bool = True) -> list[tuple[str, str]]:
    """The monomials of :math:`\\log G` with their symbolic coefficients, factored, as pairs
    ``(monomial, coefficient)`` sorted by degree: LaTeX, or plain text with ``·`` and ``^`` when
    ``latex`` is False (sympy; meant for small models)."""
    import sympy as sp

    expr, zs = symbolic_log_pgf(model, parameters="symbolic")
    poly = sp.Poly(expr, *zs)
    rows = []
    for monom, coeff in sorted(poly.terms(), key=lambda t: (sum(t[0]), t[0])):
        if sum(monom) == 0:
            continue
        mono = sp.Mul(*[z ** e for z, e in zip(zs, monom)])
        coef = sp.factor(coeff)
        if latex:
            rows.append((sp.latex(mono), sp.latex(coef)))
        else:
            rows.append((str(mono).replace("**", "^").replace("*", "·"), str(coef).replace("**", "^").replace("*", "·")))
    return rows
