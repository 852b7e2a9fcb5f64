"""Grokking in a small non-linear network, in the spirit of Xu, Vardi & Safran (ICML 2026).

Paper: "To Grok Grokking: Provable Grokking in Ridge Regression", arXiv 2601.19791.

The paper proves grokking for ridge regression and then reports that the same dependence on the
hyperparameters predicts grokking delays in non-linear networks. Its network experiments were not
reachable, so this module is a **reconstruction**: the standard modular-addition testbed (Power et
al. 2022; Gromov 2023) with the Omnigrok knob of an initialisation scaled by ``alpha`` (Liu et al.
2022). The linear theory says the delay is set by weight decay shrinking the part of the initial
weights the data do not constrain, so

.. math::  t_{\\mathrm{grok}} \\approx \\frac{1}{\\eta\\lambda}\\,\\ln(\\alpha\\cdot\\mathrm{const}),

i.e. roughly :math:`\\propto 1/\\lambda` and increasing with the initial scale ``alpha``.

Task
    Inputs are pairs :math:`(a, b)\\in\\{0..p-1\\}^2`, the label is :math:`(a+b) \\bmod p`. A random
    fraction of the :math:`p^2` pairs is the training set, the rest the test set.
Model
    A two-layer MLP on the concatenated one-hot vector :math:`x=[e_a; e_b]\\in\\mathbb R^{2p}`:
    :math:`f(x) = W_2^\\top \\sigma(W_1^\\top x)` with :math:`W_1\\in\\mathbb R^{2p\\times h}`,
    :math:`W_2\\in\\mathbb R^{h\\times p}`, no biases, and by default the quadratic activation
    :math:`\\sigma(z)=z^2` (Gromov 2023), with which this small network generalises on CPU budgets
    (a ReLU network of the same size, trained the same way, memorised the training set but stayed
    below 10% test accuracy for 6-8k steps in our calibration).
    Since :math:`x` is one-hot, :math:`W_1^\\top x = W_1[a] + W_1[p+b]` is computed as a row lookup.
Initialisation
    Every weight is :math:`\\mathcal N(0, 1/\\mathrm{fan\\_in})` times ``alpha``; one base draw per
    seed is shared by all ``(lam, alpha)`` settings of that seed (like :math:`\\theta_0=\\nu z` in
    the linear part), so settings differ only in the knobs.
Training
    Full batch on the training set. ``optimizer="adamw"``: Adam moments with decoupled weight decay,
    :math:`w \\leftarrow (1-\\eta\\lambda)w - \\eta\\,\\hat m/(\\sqrt{\\hat v}+\\epsilon)` (as
    ``torch.optim.AdamW``), so the per-step shrink factor is :math:`1-\\eta\\lambda` exactly as in
    the ridge analysis, but the gradient part is normalised, so :math:`\\eta\\lambda` is only an
    *effective* rate. ``optimizer="gd"``: plain gradient descent
    :math:`w\\leftarrow w-\\eta(\\nabla L+\\lambda w)`. The calibrated presets use AdamW because
    plain GD did not grok within our CPU budget: with the MSE loss it diverged for initial scales
    :math:`\\alpha\\ge3` at step sizes 0.3-1 (the curvature of this degree-3 network grows like
    :math:`\\alpha^4`), and with cross-entropy it fit the training set but stalled near 40% test
    accuracy for 15k steps (p=23, width 128, weight decay 3e-3).

Many small networks train as one: all weights carry a leading model axis ``K`` (one model per
``(seed, lam, alpha)``), the forward pass is a batched matrix product, and the loss is the sum of the
per-model means, so every model receives exactly its own gradient.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import torch
from torch import nn

from ...training import LambdaCallback, Trainer, TrainerConfig

Activation = Literal["quadratic", "relu", "gelu"]
Loss = Literal["cross_entropy", "mse"]
Optimizer = Literal["adamw", "gd"]

__all__ = [
    "BatchedDecayOptimizer",
    "BatchedMLP",
    "ModularAdditionData",
    "NNRun",
    "log_step_grid",
    "modular_addition_data",
    "per_model_loss",
    "train_modular_grid",
    "train_modular_mlps",
]


@dataclasses.dataclass(frozen=True)
class ModularAdditionData:
    """All :math:`p^2` pairs of modular addition and one random train/test split.

    Attributes
    ----------
    p : int
        The modulus.
    a, b, y : torch.Tensor
        Shape ``(p*p,)``, int64: operands and label :math:`(a+b) \\bmod p` of every pair.
    train_mask : torch.Tensor
        Shape ``(p*p,)``, bool: which pairs are in the training set.
    """

    p: int
    a: torch.Tensor
    b: torch.Tensor
    y: torch.Tensor
    train_mask: torch.Tensor

    @property
    def n_train(self) -> int:
        return int(self.train_mask.sum())


def modular_addition_data(p: int, train_fraction: float, seed: int) -> ModularAdditionData:
    """Build the modular-addition table and split it at random.

    Parameters
    ----------
    p : int
        Modulus (>= 2).
    train_fraction : float
        Fraction of the :math:`p^2` pairs used for training, in (0, 1).
    seed : int
        Seed of the split (a numpy Generator, so the split does not depend on torch's state).
    """
    if p < 2:
        raise ValueError(f"p={p!r} is not allowed; the modulus must be >= 2")
    if not 0.0 < train_fraction < 1.0:
        raise ValueError(f"train_fraction={train_fraction!r} is not allowed; it must be in (0, 1)")
    a, b = np.divmod(np.arange(p * p), p)
    n_train = round(train_fraction * p * p)
    if not 0 < n_train < p * p:
        raise ValueError(f"train_fraction={train_fraction!r} leaves an empty train or test set for p={p}")
    order = np.random.default_rng(np.random.SeedSequence([seed, 7919])).permutation(p * p)
    mask = np.zeros(p * p, dtype=bool)
    mask[order[:n_train]] = True
    as_long = lambda v: torch.as_tensor(v, dtype=torch.long)
    return ModularAdditionData(p=p, a=as_long(a), b=as_long(b), y=as_long((a + b) % p),
                               train_mask=torch.as_tensor(mask))


def _activation(name: str):
    if name == "quadratic":
        return lambda z: z * z
    if name == "relu":
        return torch.relu
    if name == "gelu":
        return nn.functional.gelu
    raise ValueError(f"activation={name!r} is not allowed; allowed values: quadratic, relu, gelu")


class BatchedMLP(nn.Module):
    """``K`` independent two-layer MLPs on one-hot ``[e_a; e_b]`` inputs, evaluated as one.

    Model ``k`` computes :math:`f_k(a,b) = W_{2,k}^\\top\\,\\sigma(W_{1,k}[a] + W_{1,k}[p+b])`.

    Parameters
    ----------
    n_models : int
        ``K``, the number of independent networks.
    p : int
        Modulus: input dimension ``2p``, output dimension ``p``.
    width : int
        Hidden width ``h``.
    activation : {"quadratic", "relu", "gelu"}

    Attributes
    ----------
    w1 : nn.Parameter, shape ``(K, 2p, h)``
    w2 : nn.Parameter, shape ``(K, h, p)``
    """

    def __init__(self, n_models: int, p: int, width: int, activation: Activation = "quadratic"):
        super().__init__()
        self.p, self.width, self.activation = p, width, activation
        self._sigma = _activation(activation)
        self.w1 = nn.Parameter(torch.zeros(n_models, 2 * p, width))
        self.w2 = nn.Parameter(torch.zeros(n_models, width, p))

    @property
    def n_models(self) -> int:
        return self.w1.shape[0]

    @torch.no_grad()
    def init_scaled(self, base_seeds: Sequence[int], alphas: Sequence[float]) -> BatchedMLP:
        """Set model ``k`` to ``alphas[k]`` times the base draw of ``base_seeds[k]``.

        The base draw has entries :math:`\\mathcal N(0, 1/\\mathrm{fan\\_in})` (fan-in ``2p`` and
        ``h``), made on the CPU from ``torch.Generator().manual_seed(seed)`` so that it is the same
        on every device and whatever the batch composition. Returns ``self``.
        """
        if len(base_seeds) != self.n_models or len(alphas) != self.n_models:
            raise ValueError("base_seeds and alphas need one entry per model "
                             f"(got {len(base_seeds)} and {len(alphas)} for {self.n_models} models)")
        cache: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        for k, (seed, alpha) in enumerate(zip(base_seeds, alphas)):
            if seed not in cache:
                g = torch.Generator().manual_seed(int(seed))
                w1 = torch.randn(2 * self.p, self.width, generator=g) / math.sqrt(2 * self.p)
                w2 = torch.randn(self.width, self.p, generator=g) / math.sqrt(self.width)
                cache[seed] = (w1, w2)
            w1, w2 = cache[seed]
            self.w1[k].copy_(float(alpha) * w1)
            self.w2[k].copy_(float(alpha) * w2)
        return self

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        """Logits of every model.

        Parameters
        ----------
        a, b : torch.Tensor
            int64 operands, shape ``(N,)`` (the same inputs for every model) or ``(K, N)``.

        Returns
        -------
        torch.Tensor
            Shape ``(K, N, p)``.
        """
        K = self.n_models
        if a.dim() == 1:
            a, b = a.expand(K, -1), b.expand(K, -1)
        # x = [e_a; e_b] as a one-hot matrix, so W1^T x is a batched product. It equals the row lookup
        # W1[a] + W1[p+b] exactly, and its backward is a plain bmm: indexing's backward (an accumulating
        # index_put) is twice as slow in torch's deterministic mode and fragments the heap over many steps.
        x = torch.cat([nn.functional.one_hot(a, self.p), nn.functional.one_hot(b, self.p)], dim=-1).to(self.w1.dtype)
        hidden = torch.bmm(x, self.w1)  # (K, N, h)
        return torch.bmm(self._sigma(hidden), self.w2)  # (K, N, p)

    def weight_norm(self) -> torch.Tensor:
        """Euclidean norm of all weights of each model, shape ``(K,)``."""
        return torch.sqrt(self.w1.pow(2).sum((1, 2)) + self.w2.pow(2).sum((1, 2)))


class BatchedDecayOptimizer(torch.optim.Optimizer):
    """AdamW or gradient descent whose decoupled weight decay differs per model of a batched network.

    Every parameter carries the model axis ``K`` first; ``shrink`` (shape ``(K, 1, 1)``) is the per-step factor
    :math:`1-\\eta\\lambda_k`. ``kind="adamw"``:
    :math:`w \\leftarrow s\\,w - \\eta\\,\\hat m/(\\sqrt{\\hat v}+\\epsilon)` with Adam's bias-corrected moments
    (as ``torch.optim.AdamW``, whose decay is one scalar); ``kind="gd"``: :math:`w \\leftarrow s\\,w - \\eta g`.
    """

    def __init__(self, params, *, lr: float, shrink: torch.Tensor, kind: Optimizer = "adamw",
                 betas: tuple[float, float] = (0.9, 0.98), eps: float = 1e-8):
        if kind not in ("adamw", "gd"):
            raise ValueError(f"optimizer={kind!r} is not allowed; allowed values: adamw, gd")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps})
        self.kind, self.shrink = kind, shrink

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            for q in group["params"]:
                g = q.grad
                if self.kind == "gd":
                    q.mul_(self.shrink).sub_(lr * g)
                    continue
                state = self.state[q]
                if not state:
                    state["step"], state["m"], state["v"] = 0, torch.zeros_like(q), torch.zeros_like(q)
                state["step"] += 1
                m, v, step = state["m"], state["v"], state["step"]
                c1, c2 = 1.0 - beta1 ** step, 1.0 - beta2 ** step
                m.mul_(beta1).add_(g, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
                q.mul_(self.shrink).addcdiv_(m, (v / c2).sqrt_().add_(eps), value=-lr / c1)


def per_model_loss(logits: torch.Tensor, y: torch.Tensor, loss: Loss) -> torch.Tensor:
    """Mean loss of each model.

    Parameters
    ----------
    logits : torch.Tensor, shape ``(K, N, p)``
    y : torch.Tensor, shape ``(N,)`` or ``(K, N)``, int64 labels
    loss : {"cross_entropy", "mse"}
        ``"mse"`` is :math:`\\sum_c (f_c - [c=y])^2` averaged over examples (Omnigrok's choice).

    Returns
    -------
    torch.Tensor, shape ``(K,)``
    """
    K, N, p = logits.shape
    y = y.expand(K, N)
    if loss == "cross_entropy":
        return nn.functional.cross_entropy(logits.reshape(K * N, p), y.reshape(-1),
                                           reduction="none").view(K, N).mean(1)
    if loss == "mse":
        target = nn.functional.one_hot(y, p).to(logits.dtype)
        return (logits - target).pow(2).sum(-1).mean(-1)
    raise ValueError(f"loss={loss!r} is not allowed; allowed values: cross_entropy, mse")


def log_step_grid(steps: int, n_points: int, every: int | None = None) -> np.ndarray:
    """Step 0, about ``n_points`` integer steps log-spaced from 1 to ``steps``, and (if ``every`` is
    given) every multiple of ``every``: sorted, distinct, shape ``(E,)``."""
    grid = np.round(np.geomspace(1, steps, n_points)).astype(np.int64)
    if every is not None:
        if every < 1:
            raise ValueError(f"every={every!r} is not allowed; it must be >= 1")
        grid = np.concatenate([grid, np.arange(every, steps + 1, every)])
    return np.unique(np.concatenate([[0], grid]))


@dataclasses.dataclass
class NNRun:
    """Result of :func:`train_modular_grid`. ``K`` models, ``E`` evaluation points.

    Attributes
    ----------
    lam, alpha : np.ndarray, shape ``(K,)``
        Weight decay and initial scale of each model.
    seed : np.ndarray, shape ``(K,)``, int
        The seed (split and base initial draw) of each model.
    steps : np.ndarray, shape ``(E,)``, int
        Training steps at which the curves were recorded (0 is the initialisation).
    train_acc, test_acc, train_loss, test_loss, weight_norm : np.ndarray, shape ``(K, E)``
    t_fit : np.ndarray, shape ``(K,)``
        First recorded step with train accuracy >= ``fit_accuracy`` (``inf`` if never).
    t_grok : np.ndarray, shape ``(K,)``
        First recorded step with test accuracy >= ``grok_accuracy`` (``inf`` if never).
    optimizer, loss, activation : str
    lr : float
    fit_accuracy, grok_accuracy : float
    p, width, n_train : int
    device : str
    """

    lam: np.ndarray
    alpha: np.ndarray
    seed: np.ndarray
    steps: np.ndarray
    train_acc: np.ndarray
    test_acc: np.ndarray
    train_loss: np.ndarray
    test_loss: np.ndarray
    weight_norm: np.ndarray
    t_fit: np.ndarray
    t_grok: np.ndarray
    optimizer: str
    loss: str
    activation: str
    lr: float
    fit_accuracy: float
    grok_accuracy: float
    p: int
    width: int
    n_train: int
    device: str


def train_modular_grid(
    *,
    p: int,
    train_fraction: float,
    width: int,
    lams: Sequence[float],
    alphas: Sequence[float],
    seeds: Sequence[int],
    baseline_alphas: Sequence[float] = (),
    **kwargs,
) -> NNRun:
    """Train every ``(seed, lam, alpha)`` of a grid, plus optional no-weight-decay controls.

    Models are ordered seed-major, then ``lam``, then ``alpha``; for each seed the controls
    ``(lam=0, alpha)`` for ``alpha`` in ``baseline_alphas`` follow that seed's grid. Other keyword
    arguments go to :func:`train_modular_mlps`.
    """
    settings = []
    for s in seeds:
        settings += [(s, lam, alpha) for lam in lams for alpha in alphas]
        settings += [(s, 0.0, alpha) for alpha in baseline_alphas]
    return train_modular_mlps(settings, p=p, train_fraction=train_fraction, width=width, **kwargs)


def train_modular_mlps(
    settings: Sequence[tuple[int, float, float]],
    *,
    p: int,
    train_fraction: float,
    width: int,
    steps: int,
    lr: float,
    optimizer: Optimizer = "adamw",
    loss: Loss = "cross_entropy",
    activation: Activation = "quadratic",
    betas: tuple[float, float] = (0.9, 0.98),
    adam_eps: float = 1e-8,
    n_eval: int = 120,
    eval_every: int | None = 25,
    fit_accuracy: float = 0.99,
    grok_accuracy: float = 0.9,
    stop_factor: float | None = 1.5,
    device: torch.device | str = "cpu",
    show_progress: bool = True,
) -> NNRun:
    """Train one MLP per ``(seed, lam, alpha)`` in ``settings``, all in one batched full-batch loop.

    Parameters
    ----------
    settings : sequence of (int, float, float)
        ``K`` triples ``(seed, lam, alpha)``: the seed fixes the train/test split and the base
        initial draw, ``lam`` is the weight decay :math:`\\lambda` (0 for a control without weight
        decay) and ``alpha`` the initial scale.
    p, train_fraction, width, activation
        Task and model, see :func:`modular_addition_data` and :class:`BatchedMLP`.
    steps : int
        Maximum number of full-batch steps.
    lr : float
        Step size :math:`\\eta`.
    optimizer : {"adamw", "gd"}
        See the module docstring.
    loss : {"cross_entropy", "mse"}
    betas, adam_eps
        Adam's moment decay rates and epsilon (ignored by ``"gd"``).
    n_eval, eval_every : int
        Evaluate at ``n_eval`` log-spaced steps (plus step 0) and every ``eval_every`` steps
        (``None``: only the log grid). ``t_fit`` and ``t_grok`` are first *evaluated* steps, so
        ``eval_every`` bounds their resolution late in training.
    fit_accuracy, grok_accuracy : float
        Thresholds defining ``t_fit`` (train accuracy) and ``t_grok`` (test accuracy).
    stop_factor : float or None
        Stop early once every model *with weight decay* has reached ``grok_accuracy``, at step
        ``T`` say, and the run has gone on to ``stop_factor * T``; ``None`` always runs ``steps``.
        Controls without weight decay then stop with the others (they had the same budget).
    device : torch.device or str
        Where to train; float32 throughout. On the CPU the run is deterministic for fixed seeds
        (and a fixed number of torch threads).
    show_progress : bool
        Show a progress bar (the library itself never prints).

    Returns
    -------
    NNRun
    """
    if optimizer not in ("adamw", "gd"):
        raise ValueError(f"optimizer={optimizer!r} is not allowed; allowed values: adamw, gd")
    if loss not in ("cross_entropy", "mse"):
        raise ValueError(f"loss={loss!r} is not allowed; allowed values: cross_entropy, mse")
    if steps < 1:
        raise ValueError(f"steps={steps!r} is not allowed; it must be >= 1")
    if not lr > 0:
        raise ValueError(f"lr={lr!r} is not allowed; it must be > 0")
    device = torch.device(device)
    settings = [(int(s), float(l), float(a)) for s, l, a in settings]
    K = len(settings)
    if K == 0:
        raise ValueError("settings must hold at least one (seed, lam, alpha)")
    if any(l < 0 for _, l, _ in settings):
        raise ValueError("every weight decay lam must be >= 0")
    seed_of = np.array([s for s, _, _ in settings], dtype=np.int64)
    lam_of = np.array([l for _, l, _ in settings], dtype=np.float64)
    alpha_of = np.array([a for _, _, a in settings], dtype=np.float64)

    datasets = {s: modular_addition_data(p, train_fraction, s) for s in np.unique(seed_of).tolist()}
    first = datasets[int(seed_of[0])]
    n_train = first.n_train
    full_a, full_b, full_y = first.a.to(device), first.b.to(device), first.y.to(device)
    # per-model training set (K, n_train) and train mask (K, p*p); splits differ only between seeds
    train_idx = torch.stack([torch.nonzero(datasets[int(s)].train_mask).squeeze(1) for s in seed_of]).to(device)
    train_mask = torch.stack([datasets[int(s)].train_mask for s in seed_of]).to(device)
    tr_a, tr_b, tr_y = full_a[train_idx], full_b[train_idx], full_y[train_idx]  # (K, n_train)

    model = BatchedMLP(K, p, width, activation)
    model.init_scaled([int(s) * 1000003 + 17 for s in seed_of], alpha_of.tolist())
    model.to(device)
    decay = torch.as_tensor(lam_of, dtype=torch.float32, device=device).view(K, 1, 1)
    opt = BatchedDecayOptimizer([model.w1, model.w2], lr=lr, shrink=1.0 - lr * decay, kind=optimizer,
                                betas=betas, eps=adam_eps)

    eval_steps = log_step_grid(steps, n_eval, eval_every)
    eval_set = set(eval_steps.tolist())
    tm = train_mask.float()
    n_test = (1 - tm).sum(1).clamp(min=1)
    onehot = nn.functional.one_hot(full_y, p).float()
    records: dict[str, list[np.ndarray]] = {k: [] for k in
                                            ("train_acc", "test_acc", "train_loss", "test_loss", "weight_norm")}
    recorded: list[int] = []
    t_fit = np.full(K, np.inf)
    t_grok = np.full(K, np.inf)
    decayed = lam_of > 0

    @torch.no_grad()
    def evaluate(step: int) -> None:
        logits = model(full_a, full_b)  # (K, p*p, p)
        correct = (logits.argmax(-1) == full_y).float()  # (K, p*p)
        if loss == "cross_entropy":
            each = nn.functional.cross_entropy(logits.reshape(-1, p), full_y.repeat(K),
                                               reduction="none").view(K, -1)
        else:
            each = (logits - onehot).pow(2).sum(-1)
        records["train_acc"].append(((correct * tm).sum(1) / tm.sum(1)).cpu().numpy())
        records["test_acc"].append(((correct * (1 - tm)).sum(1) / n_test).cpu().numpy())
        records["train_loss"].append(((each * tm).sum(1) / tm.sum(1)).cpu().numpy())
        records["test_loss"].append(((each * (1 - tm)).sum(1) / n_test).cpu().numpy())
        records["weight_norm"].append(model.weight_norm().cpu().numpy())
        recorded.append(step)
        t_fit[(records["train_acc"][-1] >= fit_accuracy) & np.isinf(t_fit)] = step
        t_grok[(records["test_acc"][-1] >= grok_accuracy) & np.isinf(t_grok)] = step

    stop_at = steps

    def after_step(trainer: Trainer) -> None:
        """Evaluate on the grid (and at the stopping step); stop ``stop_factor`` x the last grokking time."""
        nonlocal stop_at
        step = trainer.step
        if step in eval_set or step == stop_at:
            evaluate(step)
            if (stop_factor is not None and stop_at == steps and decayed.any()
                    and np.all(np.isfinite(t_grok[decayed]))):
                stop_at = max(step, min(steps, math.ceil(stop_factor * t_grok[decayed].max())))
        if step >= stop_at:
            trainer.request_stop()

    evaluate(0)
    # the loss is the sum of the per-model means, so every model receives exactly its own gradient
    Trainer(model, opt, lambda m, batch: per_model_loss(m(tr_a, tr_b), tr_y, loss).sum(), None,
            TrainerConfig(steps=steps, schedule=None, device=device.type, show_progress=show_progress,
                          desc="modular-addition MLPs"),
            [LambdaCallback(on_step_end=after_step)]).run()

    stacked = {k: np.stack(v, axis=1) for k, v in records.items()}  # (K, E)
    return NNRun(lam=lam_of, alpha=alpha_of, seed=seed_of, steps=np.asarray(recorded, dtype=np.int64),
                 t_fit=t_fit, t_grok=t_grok, optimizer=optimizer, loss=loss, activation=activation,
                 lr=float(lr), fit_accuracy=fit_accuracy, grok_accuracy=grok_accuracy, p=p,
                 width=width, n_train=n_train, device=str(device), **stacked)
