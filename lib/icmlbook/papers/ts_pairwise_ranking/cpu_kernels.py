r"""Compiled (numba) CPU kernels of the (soft-)min recursion behind DTW and TWED, forward and backward.

The recursion is the one of :func:`.distances.wavefront_min`,
:math:`R_{i,j}=\min_\gamma(R_{i-1,j}+U_{ij},\,R_{i,j-1}+L_{ij},\,R_{i-1,j-1}+D_{ij})` with
:math:`R_{0,0}=0` and :math:`R_{i,0}=R_{0,j}=+\infty`. On the CPU a scalar loop over the cells of one
pair, pair after pair, beats the anti-diagonal tensor sweep: every cell's three candidates stay in
registers, the soft-min needs two exponentials and one logarithm (the smallest candidate's weight is 1),
and the forward pass stores each cell's three normalised soft-min weights, so the backward pass
(the expected-alignment recursion of Cuturi & Blondel 2017, :math:`E_{ij}=\sum_{\text{successors}}E_sw_s`)
needs no exponential at all. One thread; pairs are independent, so the result does not depend on how
they are scheduled.

Two layouts, both in float64:

* :func:`same_cost` — DTW: one cost matrix ``C`` ``(B, T, S)`` is added whatever the move, so
  :math:`R_{i,j}=C_{ij}+\min_\gamma(R_{i-1,j},R_{i,j-1},R_{i-1,j-1})` and the gradient of
  :math:`R_{T,S}` with respect to ``C`` is the expected alignment ``E``.
* :func:`sq_dtw` — DTW with the squared Euclidean cost computed from the series themselves, returning
  the gradients with respect to both series (no cost matrix, no tensor operations around it).
* :func:`row_col_cost` — TWED: the vertical move costs ``up[b, i]`` (row only), the horizontal one
  ``left[b, j]`` (column only), the diagonal one ``diag[b, i, j]``.

With ``gamma == 0`` the minimum is exact and the weights are the arg-min indicators, ties broken in the
order vertical, horizontal, diagonal (the convention of the tensor sweep, so both give one subgradient).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["same_cost", "row_col_cost", "sq_dtw"]

_INF = math.inf


@njit(cache=True, inline="always")
def _softmin3(a, c, d, gamma, inv):
    """(value, w_a, w_c, w_d): the soft-min of three numbers and its normalised weights."""
    if a <= c and a <= d:
        m = a
        if gamma == 0.0:
            return m, 1.0, 0.0, 0.0
        ea, ec, ed = 1.0, math.exp((a - c) * inv), math.exp((a - d) * inv)
    elif c <= d:
        m = c
        if gamma == 0.0:
            return m, 0.0, 1.0, 0.0
        ea, ec, ed = math.exp((c - a) * inv), 1.0, math.exp((c - d) * inv)
    else:
        m = d
        if gamma == 0.0:
            return m, 0.0, 0.0, 1.0
        ea, ec, ed = math.exp((d - a) * inv), math.exp((d - c) * inv), 1.0
    s = ea + ec + ed
    q = 1.0 / s
    return m - gamma * math.log(s), ea * q, ec * q, ed * q


@njit(cache=True, boundscheck=False)
def same_cost(C, gamma, need_grad):
    """DTW-type recursion. Returns ``(R_TS (B,), E (B, T, S))``; ``E`` is empty unless ``need_grad``."""
    B, T, S = C.shape
    out = np.empty(B)
    E_out = np.zeros((B, T, S)) if need_grad else np.zeros((0, 0, 0))
    inv = 1.0 / gamma if gamma > 0.0 else 0.0
    R = np.empty((T + 1, S + 1))
    W = np.zeros((3, T + 2, S + 2))
    E = np.zeros((T + 2, S + 2))
    for b in range(B):
        for j in range(S + 1):
            R[0, j] = _INF
        R[0, 0] = 0.0
        for i in range(1, T + 1):
            R[i, 0] = _INF
            for j in range(1, S + 1):
                v, wa, wc, wd = _softmin3(R[i - 1, j], R[i, j - 1], R[i - 1, j - 1], gamma, inv)
                R[i, j] = v + C[b, i - 1, j - 1]
                if need_grad:
                    W[0, i, j] = wa
                    W[1, i, j] = wc
                    W[2, i, j] = wd
        out[b] = R[T, S]
        if need_grad:
            # E[i, j] = E[i+1, j] w_a(i+1, j) + E[i, j+1] w_c(i, j+1) + E[i+1, j+1] w_d(i+1, j+1); the
            # weights beyond the grid (row T+1, column S+1) stay 0
            E[T, S] = 1.0
            E_out[b, T - 1, S - 1] = 1.0
            for i in range(T, 0, -1):
                for j in range(S, 0, -1):
                    if i == T and j == S:
                        continue
                    e = E[i + 1, j] * W[0, i + 1, j] + E[i, j + 1] * W[1, i, j + 1] + E[i + 1, j + 1] * W[2, i + 1, j + 1]
                    E[i, j] = e
                    E_out[b, i - 1, j - 1] = e
    return out, E_out


@njit(cache=True, boundscheck=False)
def _expected_alignment(W, E, T, S):
    """Backward pass of a soft-min recursion: fill ``E[1..T, 1..S]`` with the expected alignment (the
    derivative of :math:`R_{T,S}` with respect to each cell) from the soft-min weights ``W`` of the three
    moves (up, left, diagonal) stored by the forward pass. Row ``T+1`` and column ``S+1`` of ``E`` stay 0."""
    for i in range(T, 0, -1):
        for j in range(S, 0, -1):
            if i == T and j == S:
                E[i, j] = 1.0
            else:
                E[i, j] = (E[i + 1, j] * W[0, i + 1, j] + E[i, j + 1] * W[1, i, j + 1]
                           + E[i + 1, j + 1] * W[2, i + 1, j + 1])


@njit(cache=True, boundscheck=False)
def row_col_cost(up, left, diag, gamma, need_grad):
    """TWED-type recursion with ``up`` ``(B, T)``, ``left`` ``(B, S)``, ``diag`` ``(B, T, S)``.

    Returns ``(R_TS (B,), g_up (B, T), g_left (B, S), g_diag (B, T, S))``: the gradients of
    :math:`R_{T,S}` with respect to the three costs (empty unless ``need_grad``)."""
    B, T, S = diag.shape
    out = np.empty(B)
    if need_grad:
        g_up, g_left, g_diag = np.zeros((B, T)), np.zeros((B, S)), np.zeros((B, T, S))
    else:
        g_up, g_left, g_diag = np.zeros((0, 0)), np.zeros((0, 0)), np.zeros((0, 0, 0))
    inv = 1.0 / gamma if gamma > 0.0 else 0.0
    R = np.empty((T + 1, S + 1))
    W = np.zeros((3, T + 2, S + 2))
    E = np.zeros((T + 2, S + 2))
    for b in range(B):
        for j in range(S + 1):
            R[0, j] = _INF
        R[0, 0] = 0.0
        for i in range(1, T + 1):
            R[i, 0] = _INF
            u = up[b, i - 1]
            for j in range(1, S + 1):
                v, wa, wc, wd = _softmin3(R[i - 1, j] + u, R[i, j - 1] + left[b, j - 1],
                                          R[i - 1, j - 1] + diag[b, i - 1, j - 1], gamma, inv)
                R[i, j] = v
                if need_grad:
                    W[0, i, j] = wa
                    W[1, i, j] = wc
                    W[2, i, j] = wd
        out[b] = R[T, S]
        if need_grad:
            _expected_alignment(W, E, T, S)
            for i in range(1, T + 1):
                for j in range(1, S + 1):
                    e = E[i, j]
                    g_up[b, i - 1] += e * W[0, i, j]
                    g_left[b, j - 1] += e * W[1, i, j]
                    g_diag[b, i - 1, j - 1] = e * W[2, i, j]
    return out, g_up, g_left, g_diag


@njit(cache=True, boundscheck=False)
def sq_dtw(x, y, gamma, need_grad):
    """DTW-type recursion with the squared Euclidean cost computed on the fly from ``x`` ``(B, T, p)`` and
    ``y`` ``(B, S, p)`` or ``(1, S, p)`` (one series for every pair). Returns ``(R_TS (B,), g_x, g_y)``:
    the gradients of each pair's :math:`R_{T,S}` with respect to ``x`` ``(B, T, p)`` and ``y`` ``(B, S, p)``
    (per pair, also when ``y`` is shared; empty unless ``need_grad``), :math:`\\partial/\\partial x_i=\\sum_j 2E_{ij}(x_i-y_j)` with the expected alignment ``E``.
    No ``(B, T, S)`` array is built."""
    B, T, p = x.shape
    S = y.shape[1]
    one_y = y.shape[0] == 1
    out = np.empty(B)
    gx = np.zeros(x.shape) if need_grad else np.zeros((0, 0, 0))
    gy = np.zeros((B, S, p)) if need_grad else np.zeros((0, 0, 0))
    inv = 1.0 / gamma if gamma > 0.0 else 0.0
    R = np.empty((T + 1, S + 1))
    W = np.zeros((3, T + 2, S + 2))
    E = np.zeros((T + 2, S + 2))
    for b in range(B):
        bb = 0 if one_y else b
        for j in range(S + 1):
            R[0, j] = _INF
        R[0, 0] = 0.0
        for i in range(1, T + 1):
            R[i, 0] = _INF
            for j in range(1, S + 1):
                c = 0.0
                for k in range(p):
                    t = x[b, i - 1, k] - y[bb, j - 1, k]
                    c += t * t
                v, wa, wc, wd = _softmin3(R[i - 1, j], R[i, j - 1], R[i - 1, j - 1], gamma, inv)
                R[i, j] = v + c
                if need_grad:
                    W[0, i, j] = wa
                    W[1, i, j] = wc
                    W[2, i, j] = wd
        out[b] = R[T, S]
        if need_grad:
            _expected_alignment(W, E, T, S)
            for i in range(1, T + 1):
                for j in range(1, S + 1):
                    e = E[i, j]
                    if e != 0.0:
                        for k in range(p):
                            g = 2.0 * e * (x[b, i - 1, k] - y[bb, j - 1, k])
                            gx[b, i - 1, k] += g
                            gy[b, j - 1, k] -= g
    return out, gx, gy
