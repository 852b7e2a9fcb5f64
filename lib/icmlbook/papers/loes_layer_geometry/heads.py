r"""The downstream head (per-layer adapters, fusion, probe) and the one trainer every method shares.

Paper: Batra et al., arXiv 2605.23033 (dossier section 3.4). Per used layer an adapter
LayerNorm(D) -> Linear(D -> a) -> GELU; fusion by concatenation (LOES), mean, or learned softmax
weights over layers; probe LayerNorm -> Dropout(0.2) -> Linear(-> C). AdamW (weight decay 1e-4),
cosine schedule to 1e-6, best-validation checkpoint evaluated on test.

Equal head capacity: every method gets the same *fused width* ``fused_width``: concatenation of m
layers uses adapters of width ``fused_width // m``; mean and softmax fusion use adapters of width
``fused_width`` and average them. (The paper gives every adapter 256 units, so its concatenation
grows with k; we hold the fused width fixed so that no baseline has a smaller probe.)
"""

from __future__ import annotations

import copy
import dataclasses
import time
from typing import Literal, Sequence

import numpy as np
import torch
from torch import nn

from ...runtime.device import cpu_threads
from ...training import AuxiliaryLoss, Evaluate, ShuffledBatches, Trainer, TrainerConfig
from .geometry import georeg_loss

__all__ = ["LayerFusionHead", "HeadResult", "train_head"]

Fusion = Literal["concat", "mean", "softmax"]


class LayerFusionHead(nn.Module):
    """Adapters + fusion + probe over ``len(in_dims)`` layers.

    forward(xs) with xs a list of (B, D_l) tensors -> logits (B, n_out); ``embed(xs)`` -> fused (B, d).
    """

    def __init__(self, in_dims: Sequence[int], n_out: int, fused_width: int = 256, fusion: Fusion = "concat",
                 dropout: float = 0.2):
        super().__init__()
        if fusion not in ("concat", "mean", "softmax"):
            raise ValueError(f"fusion={fusion!r} is not allowed; allowed values: concat, mean, softmax")
        m = len(in_dims)
        if m < 1:
            raise ValueError("the head needs at least one layer")
        self.fusion = fusion
        width = max(1, fused_width // m) if fusion == "concat" else fused_width
        self.adapters = nn.ModuleList(nn.Sequential(nn.LayerNorm(d), nn.Linear(d, width), nn.GELU()) for d in in_dims)
        self.layer_logits = nn.Parameter(torch.zeros(m)) if fusion == "softmax" else None
        self.out_width = width * m if fusion == "concat" else width
        self.probe = nn.Sequential(nn.LayerNorm(self.out_width), nn.Dropout(dropout), nn.Linear(self.out_width, n_out))

    def embed(self, xs: Sequence[torch.Tensor]) -> torch.Tensor:
        hs = [a(x) for a, x in zip(self.adapters, xs)]                      # m x (B, width)
        if self.fusion == "concat":
            return torch.cat(hs, dim=1)                                      # (B, width*m)
        H = torch.stack(hs, dim=0)                                           # (m, B, width)
        if self.fusion == "mean":
            return H.mean(0)
        w = torch.softmax(self.layer_logits, 0)
        return (w[:, None, None] * H).sum(0)

    def forward(self, xs: Sequence[torch.Tensor]) -> torch.Tensor:
        return self.probe(self.embed(xs))


@dataclasses.dataclass
class HeadResult:
    """val_accuracy / test_accuracy (best-validation epoch), best_epoch, seconds (training wall time),
    test_embedding (n_test, d) fused features at the best epoch (for the geometry metrics),
    n_parameters, layers (the layers used), val_curve (the validation accuracy after every epoch: the
    convergence guard of the claims reads it, CLAIMS.md rule 10)."""

    val_accuracy: float
    test_accuracy: float
    best_epoch: int
    seconds: float
    test_embedding: np.ndarray
    n_parameters: int
    layers: list
    val_curve: tuple = ()


def train_head(train: Sequence, y_train, val: Sequence, y_val, test: Sequence, y_test, n_classes: int, *,
               layers: Sequence[int] | None = None, fusion: Fusion = "concat", fused_width: int = 256,
               epochs: int = 30, lr: float = 1e-3, layer_weight_lr: float = 1e-3, batch_size: int = 128,
               weight_decay: float = 1e-4, dropout: float = 0.2, georeg_weight: float = 0.0,
               seed: int = 0, device: str = "cpu", encoder: nn.Module | None = None,
               encoder_lr: float = 1e-4) -> HeadResult:
    """Train a :class:`LayerFusionHead`; the same loop for every method, frozen or fine-tuned.

    Frozen backbone (``encoder=None``, the paper's default): train/val/test are lists of per-layer arrays
    (n_split, D_l) (all layers of the backbone) and ``layers`` picks which ones the head sees (default: all,
    in order). Fine-tuning (``encoder`` given, a module with ``layer_outputs(x, layers)``, e.g. the digit
    encoders): train/val/test are the raw inputs (n_split, ...), a copy of the encoder is trained with the
    head at learning rate ``encoder_lr`` (the official code's 1e-5 for large backbones; ours are small), and
    GeoReg's gradient reaches the backbone. Loss: cross-entropy plus ``georeg_weight`` x GeoReg on the fused
    embedding. Returns the best-validation checkpoint's scores. On the CPU the loop runs on one intra-op
    thread (:func:`~icmlbook.runtime.cpu_threads`): its kernels are too small to gain from more.
    """
    if torch.device(device).type == "cpu":
        with cpu_threads(1):
            return _train_head(train, y_train, val, y_val, test, y_test, n_classes, layers, fusion, fused_width,
                               epochs, lr, layer_weight_lr, batch_size, weight_decay, dropout, georeg_weight, seed,
                               device, encoder, encoder_lr)
    return _train_head(train, y_train, val, y_val, test, y_test, n_classes, layers, fusion, fused_width, epochs, lr,
                       layer_weight_lr, batch_size, weight_decay, dropout, georeg_weight, seed, device, encoder,
                       encoder_lr)


def _train_head(train, y_train, val, y_val, test, y_test, n_classes, layers, fusion, fused_width, epochs, lr,
                layer_weight_lr, batch_size, weight_decay, dropout, georeg_weight, seed, device, encoder,
                encoder_lr) -> HeadResult:
    for name, v in (("epochs", epochs), ("batch_size", batch_size)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name}={v!r} is not allowed; it must be an integer >= 1")
    if encoder is None and layers is not None:
        bad = [l for l in layers if not 0 <= int(l) < len(train)]
        if bad:
            raise ValueError(f"layers={list(layers)}: {bad} outside 0..{len(train) - 1} (the backbone's layers)")
    if encoder is not None:
        if layers is None:
            raise ValueError("fine-tuning (encoder given) needs the layers the head reads")
        layers = [int(l) for l in layers]
        splits = {"train": (train, y_train), "val": (val, y_val), "test": (test, y_test)}
        for name, (xx, yy) in splits.items():
            if np.asarray(xx).shape[0] != len(yy):
                raise ValueError(f"{name} inputs have {np.asarray(xx).shape[0]} rows but {len(yy)} labels")
    else:
        layers = list(range(len(train))) if layers is None else [int(l) for l in layers]
        for name, split, yy in (("train", train, y_train), ("val", val, y_val), ("test", test, y_test)):
            for l in layers:
                if np.asarray(split[l]).shape[0] != len(yy):
                    raise ValueError(f"{name} embeddings of layer {l} have {np.asarray(split[l]).shape[0]} rows "
                                     f"but {len(yy)} labels")
    t0 = time.perf_counter()
    # GeoReg's class triples come from their own stream, so switching it on leaves the batch order unchanged
    # and the on/off comparison is paired
    geo_gen = torch.Generator().manual_seed(int(seed) + 1)
    torch.manual_seed(int(seed))
    dev = torch.device(device)

    def tensor(a):
        return torch.as_tensor(np.asarray(a), dtype=torch.float32, device=dev)

    if encoder is None:
        Xtr, Xva, Xte = ([tensor(split[l]) for l in layers] for split in (train, val, test))
        dims = [x.shape[1] for x in Xtr]
        enc = None

        def features(split, idx=None):
            return split if idx is None else [x[idx] for x in split]
    else:
        enc = copy.deepcopy(encoder).to(dev).train()
        Xtr, Xva, Xte = tensor(train), tensor(val), tensor(test)
        with torch.no_grad():
            dims = [h.shape[1] for h in enc.layer_outputs(Xtr[:2], layers)]

        def features(split, idx=None):
            return enc.layer_outputs(split if idx is None else split[idx], layers)

    ytr = torch.as_tensor(np.asarray(y_train), dtype=torch.long, device=dev)
    yva, yte = np.asarray(y_val), np.asarray(y_test)
    head = LayerFusionHead(dims, n_classes, fused_width, fusion, dropout).to(dev)
    main = [p for n, p in head.named_parameters() if n != "layer_logits"]
    groups = [{"params": main, "lr": lr}]
    if head.layer_logits is not None:
        groups.append({"params": [head.layer_logits], "lr": layer_weight_lr})
    if enc is not None:
        groups.append({"params": list(enc.parameters()), "lr": encoder_lr})
    opt = torch.optim.AdamW(groups, weight_decay=weight_decay)
    n = ytr.shape[0]
    batches = ShuffledBatches(n, batch_size, seed=int(seed), device=dev)   # a fresh permutation per epoch
    steps_per_epoch = batches.steps_per_epoch
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * steps_per_epoch, eta_min=1e-6)

    def loss_fn(model, idx):
        f = model.embed(features(Xtr, idx))
        return nn.functional.cross_entropy(model.probe(f), ytr[idx]), {"features": f, "labels": ytr[idx]}

    def val_accuracy(model):
        return {"val_accuracy": float((model(features(Xva)).argmax(1).cpu().numpy() == yva).mean())}

    # the best-validation checkpoint (head and fine-tuned encoder), evaluated after every epoch
    best = Evaluate(val_accuracy, every=steps_per_epoch, keep_best="val_accuracy",
                    extra_state=(lambda: enc.state_dict()) if enc is not None else None)
    callbacks = [best]
    if georeg_weight > 0:
        callbacks.append(AuxiliaryLoss("georeg", lambda m, idx, out: georeg_loss(
            out["features"], out["labels"], weight=georeg_weight, generator=geo_gen), generator=geo_gen))
    trainer = Trainer(head, opt, loss_fn, batches, TrainerConfig(steps=epochs * steps_per_epoch, schedule=None,
                                                                 device=dev.type, show_progress=False),
                      callbacks, scheduler=sched).run()
    curve = tuple(float(v) for v in trainer.history("val_accuracy")[1])
    best_epoch = best.best_step // steps_per_epoch - 1
    head_state, enc_state = best.best_state if enc is not None else (best.best_state, None)
    head.load_state_dict(head_state)
    head.eval()
    if enc is not None:
        enc.load_state_dict(enc_state)
    with torch.no_grad():
        emb = head.embed(features(Xte))
        test_acc = float((head.probe(emb).argmax(1).cpu().numpy() == yte).mean())
    n_par = sum(p.numel() for p in head.parameters())
    return HeadResult(best.best_value, test_acc, best_epoch, time.perf_counter() - t0, emb.cpu().numpy(), n_par,
                      layers, curve)
