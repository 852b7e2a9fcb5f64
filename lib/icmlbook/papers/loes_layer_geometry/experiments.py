r"""The chapter's experiments, one function per question, returning plain dataclasses / records.

Paper: Batra et al., "Uncovering the Latent Potential of Deep Intermediate Representations", ICML 2026,
arXiv 2605.23033. Protocol (dossier 3.6, adapted): per task and seed, shuffle the examples into
train / validation / test; the selectors see only the first ``n_cal`` training examples (calibration);
every method trains the same head (:func:`.heads.train_head`) on its layers and is scored on test at
its best validation epoch.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from typing import Sequence

import numpy as np

from ...runtime import cached, progress
from . import backbones as bb
from .config import LoesConfig
from .geometry import geometry_metrics, mean_pairwise_cka
from .heads import train_head
from .scores import as_f64, one_hot, ridge_fit, ridge_predict
from .select import (best_single, last_k, loes_label_free, loes_select, mean_pairwise_redundancy, random_k,
                     topk_independent)
from .synthetic import planted_stack

__all__ = ["LayerData", "text_bundle", "digits_bundles", "cached_text_bundle", "cached_digits_bundles",
           "banking_bundle", "cached_banking_bundle", "main_digits", "profile_tasks", "splits_of", "split_indices", "probe_accuracy_per_layer", "probe_accuracies", "LayerProfile", "layer_profile", "layer_profiles", "METHODS",
           "compare_methods", "depth_sweep", "SyntheticRecovery", "synthetic_recovery", "georeg_experiment",
           "selection_cost", "tasks_of", "centroid_projection", "run_method", "score_anatomy",
           "georeg_finetune_experiment"]


@dataclasses.dataclass
class LayerData:
    """Embeddings of every block of one backbone on one data set: layers (L, n, D) float32,
    labels task -> (n,), the backbone's name and depth L, and free-form info."""

    name: str
    layers: np.ndarray
    labels: dict
    info: dict

    @property
    def depth(self) -> int:
        return int(self.layers.shape[0])


# ----------------------------------------------------------------------------------------------
# data bundles (cached by backbone + data + pooling)
# ----------------------------------------------------------------------------------------------
def text_bundle(backbone_path: str, text_n: int, pooling: str) -> LayerData:
    """MiniLM (or the encoder at ``backbone_path``) over ``text_n`` generated sentences (seed 0)."""
    enc = bb.load_text_encoder(backbone_path or None)
    tasks = bb.make_text_tasks(text_n, seed=0)
    layers = bb.embed_texts(enc, tasks.texts, pooling=pooling)
    return LayerData(enc.name, layers, tasks.labels, {"texts": tasks.texts[:20], "pooling": pooling})


def banking_bundle(backbone_path: str, train_per_class: int, test_per_class: int, pooling: str,
                   checksums: str | None = None) -> LayerData:
    """MiniLM (or the encoder at ``backbone_path``) over a stratified subset of Banking77 (seed 0); the
    official test rows are kept as the test split of every seed (``info["test_idx"]``). ``checksums``, the
    text of the vendored ``SHA256SUMS`` (so the cache key follows the data), must match the files' own."""
    if checksums is not None and checksums != (bb.BANKING77_DIR / "SHA256SUMS").read_text():
        raise ValueError("checksums do not match data/banking77/SHA256SUMS")
    enc = bb.load_text_encoder(backbone_path or None)
    data = bb.load_banking77(train_per_class, test_per_class, seed=0)
    layers = bb.embed_texts(enc, data.texts, pooling=pooling, desc="MiniLM on Banking77")
    return LayerData(enc.name, layers, {"intent": data.labels},
                     {"texts": data.texts[:20], "pooling": pooling, "intents": data.intents,
                      "test_idx": np.flatnonzero(data.is_test), "pool_idx": np.flatnonzero(~data.is_test)})


def cached_banking_bundle(cfg: LoesConfig) -> LayerData:
    """:func:`banking_bundle` through the artefact cache, keyed by backbone, subset sizes and pooling (and
    the loader's code, which verifies the vendored files' checksums)."""
    return cached("loes-banking77-embeddings", banking_bundle,
                  args=(cfg.backbone_path, cfg.banking_train_per_class, cfg.banking_test_per_class, cfg.pooling,
                        (bb.BANKING77_DIR / "SHA256SUMS").read_text()))


def _digit_labels(y: np.ndarray) -> dict:
    return {"digit": y, "mod3": y % 3, "range": np.digitize(y, [4, 7])}


def digits_bundles(depths: Sequence[int], width: int, pretrain_epochs: int, n_backbones: int = 1) -> dict:
    """Train ``n_backbones`` rotation-pretext encoders per depth (initialisation and batch order from
    seeds 0, 1, ...; the same recipe for all) on half of the digits, then embed the other half:
    depth -> list of :class:`LayerData`, one per encoder."""
    images, y = bb.digits_data()
    g = np.random.default_rng(np.random.SeedSequence([2026, 5]))
    order = g.permutation(len(images))
    pre, down = order[: len(order) // 2], order[len(order) // 2:]
    out: dict = {}
    jobs = [(int(d), b) for d in depths for b in range(n_backbones)]
    for depth, b in progress(jobs, desc="training digit encoders"):
        net = bb.train_digits_backbone(images[pre], depth, width, pretrain_epochs, seed=b)
        out.setdefault(depth, []).append(
            LayerData(f"digits-resmlp-{depth}" + (f"-b{b}" if b else ""), net.embed(images[down]),
                      _digit_labels(y[down]), {"pretext_accuracy": net.pretext_accuracy, "width": width,
                                               "backbone": net, "images": images[down], "backbone_seed": b}))
    return out


def main_digits(cfg: LoesConfig, digits: dict) -> LayerData:
    """The first encoder of depth ``cfg.main_depth`` (the one of the method comparison)."""
    return digits[cfg.main_depth][0]


def cached_text_bundle(cfg: LoesConfig) -> LayerData:
    """:func:`text_bundle` through the artefact cache, keyed by backbone, data and pooling."""
    return cached("loes-text-embeddings", text_bundle, args=(cfg.backbone_path, cfg.text_n, cfg.pooling))


def cached_digits_bundles(cfg: LoesConfig) -> dict:
    """:func:`digits_bundles` through the artefact cache (keyed by depths, width, pretraining)."""
    return cached("loes-digits-embeddings", digits_bundles,
                  args=(tuple(cfg.depths), cfg.width, cfg.pretrain_epochs, cfg.n_backbones))


def tasks_of(cfg: LoesConfig, banking: LayerData, digits: dict) -> list:
    """The (label, LayerData, task) triples of the method comparison: Banking77 on MiniLM and the digit
    tasks on the main digit encoder."""
    return ([("banking77/intent", banking, "intent")]
            + [(f"digits/{t}", main_digits(cfg, digits), t) for t in cfg.digit_tasks])


def profile_tasks(cfg: LoesConfig, banking: LayerData, text: LayerData, digits: dict) -> list:
    """The (label, LayerData, task) triples of the per-layer profiles: the comparison's tasks and the
    template sentences (a controlled task, read in the profiles only)."""
    return (tasks_of(cfg, banking, digits)[:1] + [(f"templates/{t}", text, t) for t in cfg.text_tasks]
            + tasks_of(cfg, banking, digits)[1:])


# ----------------------------------------------------------------------------------------------
# splits and probes
# ----------------------------------------------------------------------------------------------
def split_indices(n: int, val_frac: float, test_frac: float, seed: int) -> tuple:
    """Shuffled (train, val, test) index arrays."""
    g = np.random.default_rng(np.random.SeedSequence([seed, n, 11]))
    p = g.permutation(n)
    nv, nt = int(round(val_frac * n)), int(round(test_frac * n))
    return p[nv + nt:], p[:nv], p[nv:nv + nt]


def splits_of(data: LayerData, y: np.ndarray, seed: int, cfg: LoesConfig) -> tuple:
    """(train, val, test) indices of one seed. A data set with its own test split (``info["test_idx"]``,
    Banking77) keeps it and shuffles the rest into train / validation (``val_frac`` of it); any other is
    shuffled by :func:`split_indices`."""
    if "test_idx" in data.info:
        pool = np.asarray(data.info["pool_idx"])
        g = np.random.default_rng(np.random.SeedSequence([seed, len(pool), 13]))
        p = pool[g.permutation(len(pool))]
        nv = int(round(cfg.val_frac * len(pool)))
        return p[nv:], p[:nv], np.asarray(data.info["test_idx"])
    return split_indices(len(y), cfg.val_frac, cfg.test_frac, seed)


def _standardise(tr, *others):
    mu, sd = tr.mean(0), tr.std(0) + 1e-6
    return [(x - mu) / sd for x in (tr, *others)]


def probe_accuracy_per_layer(layers: np.ndarray, y: np.ndarray, train, evaluate, lam: float = 10.0) -> np.ndarray:
    """Accuracy on ``evaluate`` of a closed-form ridge classifier (standardised features, one-hot
    targets, ridge ``lam``) fitted on ``train``, for every layer: (L,)."""
    return probe_accuracies(layers, y, train, [evaluate], lam)[0]


def probe_accuracies(layers: np.ndarray, y: np.ndarray, train, evaluate: Sequence, lam: float = 10.0) -> np.ndarray:
    """:func:`probe_accuracy_per_layer` on several evaluation index sets with one fit per layer:
    (len(evaluate), L)."""
    Y = one_hot(y[train], int(y.max()) + 1)
    acc = np.empty((len(evaluate), len(layers)))
    for l, X in enumerate(layers):
        a, *bs = _standardise(X[train].astype(np.float64), *(X[e].astype(np.float64) for e in evaluate))
        W, c = ridge_fit(a, Y, lam)
        for i, (b, e) in enumerate(zip(bs, evaluate)):
            acc[i, l] = float((ridge_predict(b, W, c).argmax(1).numpy() == y[e]).mean())
    return acc


@dataclasses.dataclass
class LayerProfile:
    """Per-layer utility and geometry of one task: probe accuracy on test (mean over the seeds' splits),
    per seed the validation and test accuracies (S, L) and the last layer's validation-chosen rival;
    isotropy, scaled centroid triangle area, within/between ratio and effective rank (on the first seed's
    test embeddings), the top 20 normalised covariance eigenvalues per layer."""

    name: str
    task: str
    label: str
    probe_accuracy: np.ndarray
    seed_val_accuracy: np.ndarray
    seed_test_accuracy: np.ndarray
    isotropy: np.ndarray
    triangle_area: np.ndarray
    within_between: np.ndarray
    effective_rank: np.ndarray
    spectra: np.ndarray


def layer_profile(data: LayerData, task: str, seed: int, cfg: LoesConfig, label: str = "") -> LayerProfile:
    """Probe accuracy (``cfg.profile_seeds`` splits: seeds ``seed, seed+1, ...``) and geometry of every layer
    for one task (claim 1 and its figures)."""
    y = data.labels[task]
    val, test = [], []
    for s in range(seed, seed + cfg.profile_seeds):
        tr, va, te = splits_of(data, y, s, cfg)
        v, t = probe_accuracies(data.layers, y, tr, [va, te])
        val.append(v)
        test.append(t)
    val, test = np.array(val), np.array(test)
    acc = test.mean(0)
    tr, va, te = splits_of(data, y, seed, cfg)
    iso, tri, wb, er, spec = [], [], [], [], []
    for X in data.layers:
        m = geometry_metrics(X[te], y[te])
        iso.append(m.isotropy); tri.append(m.triangle_area_scaled); wb.append(m.within_between)
        er.append(m.effective_rank)
        Xc = as_f64(X[te]); Xc = Xc - Xc.mean(0)
        s = (np.linalg.svd(Xc.numpy(), compute_uv=False) ** 2)
        s = s / s.sum()
        spec.append(np.pad(s[:20], (0, max(0, 20 - len(s[:20])))))
    return LayerProfile(data.name, task, label or task, acc, val, test, np.array(iso), np.array(tri), np.array(wb),
                        np.array(er), np.array(spec))


def layer_profiles(cfg: LoesConfig, banking: LayerData, text: LayerData, digits: dict, seed: int) -> list:
    """:func:`layer_profile` of every task of :func:`profile_tasks`."""
    return [layer_profile(d, t, seed, cfg, label=lab) for lab, d, t in profile_tasks(cfg, banking, text, digits)]


def centroid_projection(data: LayerData, task: str) -> np.ndarray:
    """Class centroids of every layer projected on their own top-2 principal axes (sign-aligned to
    the previous layer): (L, C, 2), for the interactive view."""
    y = data.labels[task]
    classes = np.unique(y)
    out, prev = [], None
    for X in data.layers:
        C = np.stack([X[y == c].mean(0) for c in classes]).astype(np.float64)
        C = C - C.mean(0)
        U, S, _ = np.linalg.svd(C, full_matrices=False)
        P = U[:, :2] * S[:2]
        if P.shape[1] < 2:
            P = np.pad(P, ((0, 0), (0, 2 - P.shape[1])))
        if prev is not None:
            for j in range(2):
                if np.dot(P[:, j], prev[:, j]) < 0:
                    P[:, j] *= -1
        prev = P
        scale = np.abs(P).max() + 1e-12
        out.append(P / scale)
    return np.stack(out)


# ----------------------------------------------------------------------------------------------
# the method comparison
# ----------------------------------------------------------------------------------------------
METHODS = ("loes", "last", "best_single", "last_k", "concat_all", "mean_all", "softmax_all", "loes_no_ortho",
           "topk_independent", "label_free", "random_k")


def _select(method: str, data: LayerData, y, tr, va, cfg: LoesConfig, seed: int) -> tuple:
    L = data.depth
    k = min(cfg.k, L)
    cal = tr[: cfg.n_cal]
    cal_layers = data.layers[:, cal]
    t0 = time.perf_counter()
    fusion = "concat"
    if method == "loes":
        layers = loes_select(cal_layers, y[cal], k, lam=cfg.lam, alpha=cfg.alpha, gamma=cfg.gamma, eta=cfg.eta,
                             n_triples=cfg.n_triples, seed=seed).layers
    elif method == "loes_no_ortho":
        layers = loes_select(cal_layers, y[cal], k, lam=cfg.lam, alpha=cfg.alpha, gamma=cfg.gamma, eta=cfg.eta,
                             n_triples=cfg.n_triples, seed=seed, orthogonalize=False).layers
    elif method == "last":
        layers = [L - 1]
    elif method == "best_single":
        layers = best_single(probe_accuracy_per_layer(data.layers, y, tr, va))
    elif method in ("concat_all", "mean_all", "softmax_all"):
        layers = list(range(L))
        fusion = {"concat_all": "concat", "mean_all": "mean", "softmax_all": "softmax"}[method]
    elif method == "topk_independent":
        layers = topk_independent(cal_layers, y[cal], k, lam=cfg.lam, alpha=cfg.alpha)
    elif method == "label_free":
        layers = loes_label_free(cal_layers, k, alpha=cfg.alpha, gamma=cfg.gamma).layers
    elif method == "random_k":
        layers = random_k(L, k, seed)
    elif method == "last_k":
        layers = last_k(L, k)
    else:
        raise ValueError(f"method={method!r} is not allowed; allowed values: {', '.join(METHODS)}")
    return layers, fusion, time.perf_counter() - t0


def run_method(method: str, data: LayerData, task: str, seed: int, cfg: LoesConfig, georeg_weight: float = 0.0,
               device: str = "cpu", layers: Sequence[int] | None = None) -> dict:
    """Select layers with ``method`` (or take ``layers`` as chosen elsewhere, concatenated) and train the
    shared head; one record (dict)."""
    y = data.labels[task]
    tr, va, te = splits_of(data, y, seed, cfg)
    if layers is None:
        layers, fusion, t_sel = _select(method, data, y, tr, va, cfg, seed)
    else:
        layers, fusion, t_sel = [int(l) for l in layers], "concat", 0.0
    X = data.layers
    res = train_head([X[l][tr] for l in range(data.depth)], y[tr], [X[l][va] for l in range(data.depth)], y[va],
                     [X[l][te] for l in range(data.depth)], y[te], int(y.max()) + 1, layers=layers, fusion=fusion,
                     fused_width=cfg.fused_width, epochs=cfg.epochs, lr=cfg.lr, batch_size=cfg.batch_size,
                     georeg_weight=georeg_weight, seed=seed, device=device)
    return {"backbone": data.name, "task": task, "seed": seed, "method": method, "layers": [int(l) for l in layers],
            "test_accuracy": res.test_accuracy, "val_accuracy": res.val_accuracy, "select_seconds": t_sel,
            "train_seconds": res.seconds, "n_parameters": res.n_parameters, "georeg_weight": georeg_weight,
            "redundancy": mean_pairwise_redundancy(X[:, tr[: cfg.n_cal]], layers) if len(layers) > 1 else 0.0,
            "cka": mean_pairwise_cka(X[:, te], layers), "fusion": fusion, "fused_dim": int(res.test_embedding.shape[1]),
            "geometry": dataclasses.asdict(geometry_metrics(res.test_embedding, y[te])), "depth": data.depth,
            "val_curve": list(res.val_curve)}


def compare_methods(cfg: LoesConfig, banking: LayerData, digits: dict, seed: int, methods: Sequence[str] = METHODS,
                    device: str = "cpu") -> list:
    """Every method on every task of :func:`tasks_of`, seeds ``seed .. seed+n_seeds-1``: list of records."""
    jobs = [(lab, d, t, s, m) for lab, d, t in tasks_of(cfg, banking, digits) for s in range(seed, seed + cfg.n_seeds)
            for m in methods]
    out = []
    for lab, d, t, s, m in progress(jobs, desc="LOES vs baselines"):
        rec = run_method(m, d, t, s, cfg, device=device)
        rec["label"] = lab
        out.append(rec)
    return out


def score_anatomy(cfg: LoesConfig, banking: LayerData, digits: dict, seed: int) -> list:
    r"""What decides LOES's first pick on every real task (calibration split of ``seed``).

    Per (backbone, task): the spread over layers (max - min) of the first-step ridge error and of the
    isotropy penalty :math:`\alpha(1-\mathcal I)`; the first pick of supervised LOES, of LOES without the
    isotropy term (:math:`\alpha=0`) and of label-free LOES; and the three chosen sets. One record per task.
    """
    out = []
    for lab, data, task in tasks_of(cfg, banking, digits):
        y = data.labels[task]
        tr, _, _ = splits_of(data, y, seed, cfg)
        cal = tr[: cfg.n_cal]
        X, yc = data.layers[:, cal], y[cal]
        k = min(cfg.k, data.depth)
        kw = dict(lam=cfg.lam, gamma=cfg.gamma, eta=cfg.eta, n_triples=cfg.n_triples, seed=seed)
        sup = loes_select(X, yc, k, alpha=cfg.alpha, **kw)
        no_iso = loes_select(X, yc, k, alpha=0.0, **kw)
        free = loes_label_free(X, k, alpha=cfg.alpha, gamma=cfg.gamma)
        mse, pen = sup.components["mse"][0], sup.components["iso_penalty"][0]
        out.append({"label": lab, "n_cal": len(cal), "mse_spread": float(np.ptp(mse)), "iso_spread": float(np.ptp(pen)),
                    "mse_min": float(mse.min()), "first": sup.layers[0], "first_alpha0": no_iso.layers[0],
                    "first_label_free": free.layers[0], "loes": sup.layers, "loes_alpha0": no_iso.layers,
                    "label_free": free.layers, "same_as_label_free": sorted(sup.layers) == sorted(free.layers)})
    return out


def depth_sweep(cfg: LoesConfig, digits: dict, seed: int, device: str = "cpu") -> list:
    """LOES and last layer on the digit tasks for every encoder (every depth, every initialisation; the
    same training recipe); records carry ``backbone_seed``."""
    jobs = [(d, b, t, s, m) for d in cfg.depths for b in range(len(digits[d])) for t in cfg.digit_tasks
            for s in range(seed, seed + cfg.n_seeds) for m in ("loes", "last")]
    out = []
    for d, b, t, s, m in progress(jobs, desc="depth sweep"):
        rec = run_method(m, digits[d][b], t, s, cfg, device=device)
        rec["label"] = f"digits/{t}"
        rec["backbone_seed"] = b
        rec["pretext_curve"] = list(getattr(digits[d][b].info.get("backbone"), "pretext_curve", ()))
        out.append(rec)
    return out


def georeg_experiment(cfg: LoesConfig, banking: LayerData, digits: dict, seed: int, device: str = "cpu") -> list:
    """The LOES head trained with and without GeoReg (weight ``cfg.georeg_weight``) on every task;
    records carry the geometry of the test fused embeddings."""
    jobs = [(lab, d, t, s, w) for lab, d, t in tasks_of(cfg, banking, digits) for s in range(seed, seed + cfg.n_seeds)
            for w in (0.0, cfg.georeg_weight)]
    out = []
    for lab, d, t, s, w in progress(jobs, desc="GeoReg on/off"):
        rec = run_method("loes", d, t, s, cfg, georeg_weight=w, device=device)
        rec["label"] = lab
        out.append(rec)
    return out


def georeg_finetune_experiment(cfg: LoesConfig, digits: dict, seed: int, device: str = "cpu") -> list:
    """GeoReg when the backbone is fine-tuned: on every digit task and seed, the LOES layers of the main
    digit encoder (selected on frozen calibration embeddings, as in :func:`run_method`) feed the LOES head,
    and encoder + head are trained together (encoder learning rate ``cfg.finetune_lr``) with and without
    GeoReg. Records as :func:`run_method`'s, with ``finetune=True``."""
    data = main_digits(cfg, digits)
    backbone = data.info["backbone"].model()
    images = data.info["images"].reshape(len(data.info["images"]), -1)
    jobs = [(t, s, w) for t in cfg.digit_tasks for s in range(seed, seed + cfg.n_seeds) for w in (0.0, cfg.georeg_weight)]
    out, chosen = [], {}
    for t, s, w in progress(jobs, desc="GeoReg with fine-tuning"):
        y = data.labels[t]
        tr, va, te = split_indices(len(y), cfg.val_frac, cfg.test_frac, s)
        if (t, s) not in chosen:                       # one selection per (task, seed), both weights use it
            chosen[t, s] = _select("loes", data, y, tr, va, cfg, s)[0]
        layers = chosen[t, s]
        res = train_head(images[tr], y[tr], images[va], y[va], images[te], y[te], int(y.max()) + 1, layers=layers,
                         fused_width=cfg.fused_width, epochs=cfg.epochs, lr=cfg.lr, batch_size=cfg.batch_size,
                         georeg_weight=w, seed=s, device=device, encoder=backbone, encoder_lr=cfg.finetune_lr)
        out.append({"backbone": data.name, "task": t, "label": f"digits/{t}", "seed": s, "method": "loes",
                    "finetune": True, "layers": [int(l) for l in layers], "georeg_weight": w,
                    "test_accuracy": res.test_accuracy, "val_accuracy": res.val_accuracy,
                    "train_seconds": res.seconds, "depth": data.depth, "val_curve": list(res.val_curve),
                    "geometry": dataclasses.asdict(geometry_metrics(res.test_embedding, y[te]))})
    return out


# ----------------------------------------------------------------------------------------------
# synthetic recovery
# ----------------------------------------------------------------------------------------------
@dataclasses.dataclass
class SyntheticRecovery:
    """Per stack: planted layers, duplicate pair, and each selector's choice; coverage = distinct
    planted factors covered (a copy counts for its original) / k; duplicate = both copy and original
    chosen. ``alphas`` / ``coverage_vs_alpha``: LOES coverage for a range of isotropy weights."""

    planted: list
    duplicates: list
    choices: dict
    coverage: dict
    duplicate: dict
    accuracy: dict
    redundancy: dict
    cka: dict
    alphas: list
    coverage_vs_alpha: np.ndarray


def _coverage(chosen, planted, dups) -> tuple:
    cmap = {c: o for c, o in dups}
    covered = {cmap.get(l, l) for l in chosen} & set(planted)
    dup = any(c in chosen and o in chosen for c, o in dups)
    return len(covered) / len(planted), dup


def synthetic_recovery(cfg: LoesConfig, seed: int, device: str = "cpu",
                       alphas: Sequence[float] = (0.0, 0.01, 0.1, 1.0)) -> SyntheticRecovery:
    """Planted stacks (3 binary factors -> 8 classes, planted in 3 layers, one near-duplicate):
    LOES, LOES without residualisation and top-k-independent; heads trained on each choice."""
    L = cfg.synth_layers
    rec = {m: [] for m in ("loes", "loes_no_ortho", "topk_independent")}
    cov = {m: [] for m in rec}
    dup = {m: [] for m in rec}
    acc = {m: [] for m in rec}
    red = {m: [] for m in rec}
    cka = {m: [] for m in rec}
    planted_all, dups_all, cva = [], [], []
    # planted layers: three inner layers at least 2 apart (room for the near-copy); needs L >= 7
    triples = [t for t in itertools.combinations(range(1, L - 1), 3) if t[1] - t[0] >= 2 and t[2] - t[1] >= 2]
    sel_cfg = dataclasses.replace(cfg, k=3)  # coverage counts three planted factors, whatever cfg.k is
    for i in progress(range(cfg.synth_stacks), desc="planted stacks"):
        g = np.random.default_rng(np.random.SeedSequence([seed, i, 3]))
        p = list(triples[int(g.integers(len(triples)))])
        st = planted_stack(cfg.synth_n, L, cfg.synth_dim, p, strengths=[1.5, 1.2, 1.0], spectrum_decay=cfg.synth_decay,
                           seed=seed * 1000 + i)
        data = LayerData(f"synthetic-{i}", st.layers, {"y": st.y}, {})
        planted_all.append(st.planted); dups_all.append(st.duplicates)
        for m in rec:
            r = run_method(m, data, "y", seed + i, sel_cfg, device=device)
            c, d = _coverage(r["layers"], st.planted, st.duplicates)
            rec[m].append(r["layers"]); cov[m].append(c); dup[m].append(d); acc[m].append(r["test_accuracy"])
            red[m].append(r["redundancy"]); cka[m].append(r["cka"])
        tr, _, _ = split_indices(cfg.synth_n, cfg.val_frac, cfg.test_frac, seed + i)
        cal = tr[: cfg.n_cal]
        row = []
        for a in alphas:
            s = loes_select(st.layers[:, cal], st.y[cal], 3, lam=cfg.lam, alpha=a, gamma=cfg.gamma, eta=cfg.eta,
                            n_triples=cfg.n_triples, seed=seed + i)
            row.append(_coverage(s.layers, st.planted, st.duplicates)[0])
        cva.append(row)
    return SyntheticRecovery(planted_all, dups_all, rec, cov, dup, acc, red, cka, list(alphas), np.array(cva))


# ----------------------------------------------------------------------------------------------
# cost
# ----------------------------------------------------------------------------------------------
def selection_cost(data: LayerData, task: str, cfg: LoesConfig, seed: int, device: str = "cpu",
                   clock=time.perf_counter, cpu_clock=time.process_time) -> dict:
    """Wall time of LOES selection on the calibration set against training the LOES head (seconds).

    Timed ``cfg.cost_repeats`` times each, interleaved (select, train, select, train, ...) so that a burst
    of load on a shared machine hits both alike; ``select_seconds`` / ``train_seconds`` are the fastest of
    each (the least disturbed, the usual estimate of a cost on a shared machine), ``select_all`` /
    ``train_all`` every repeat (the spread). The same spans are also timed in CPU seconds of the process
    (``cpu_clock``, :func:`time.process_time`: every thread's CPU time, so selection's BLAS threads count in full and
    waiting for a core on a loaded machine does not): ``select_cpu_seconds`` / ``train_cpu_seconds`` (fastest of each)
    and ``select_cpu_all`` / ``train_cpu_all``. ``clock`` and ``cpu_clock`` (seconds, monotone) are replaceable for
    tests.
    Selection runs the chapter's own path (:func:`loes_select` on the first ``n_cal`` training examples);
    the head is the same one the comparison trains (``cfg.epochs`` epochs on the whole training split,
    best-validation checkpoint)."""
    y = data.labels[task]
    tr, va, te = splits_of(data, y, seed, cfg)
    X = data.layers
    sel, trn, sel_cpu, trn_cpu, layers = [], [], [], [], None
    t0, c0 = clock(), cpu_clock()
    for _ in range(cfg.cost_repeats):
        layers, _, _ = _select("loes", data, y, tr, va, cfg, seed)
        t1, c1 = clock(), cpu_clock()
        train_head([X[l][tr] for l in range(data.depth)], y[tr], [X[l][va] for l in range(data.depth)], y[va],
                   [X[l][te] for l in range(data.depth)], y[te], int(y.max()) + 1, layers=layers, fusion="concat",
                   fused_width=cfg.fused_width, epochs=cfg.epochs, lr=cfg.lr, batch_size=cfg.batch_size,
                   seed=seed, device=device)
        t2, c2 = clock(), cpu_clock()
        sel.append(t1 - t0)
        trn.append(t2 - t1)
        sel_cpu.append(c1 - c0)
        trn_cpu.append(c2 - c1)
        t0, c0 = t2, c2
    return {"select_seconds": float(min(sel)), "train_seconds": float(min(trn)), "select_all": [float(v) for v in sel],
            "train_all": [float(v) for v in trn], "select_cpu_seconds": float(min(sel_cpu)),
            "train_cpu_seconds": float(min(trn_cpu)), "select_cpu_all": [float(v) for v in sel_cpu],
            "train_cpu_all": [float(v) for v in trn_cpu], "repeats": int(cfg.cost_repeats), "n_cal": len(tr[: cfg.n_cal]),
            "n_train": len(tr), "epochs": int(cfg.epochs), "dim": int(X.shape[2]), "n_layers": data.depth,
            "layers": [int(l) for l in layers]}
