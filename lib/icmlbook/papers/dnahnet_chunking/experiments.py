"""The chapter's experiments: the corpus, every trained arm (through :class:`icmlbook.training.Trainer`), the
analyses on the held-out region, and the wall-time study. Each function returns a dataclass the notebook plots
and the claims read."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import torch
from torch.nn import functional as F

from ...runtime.device import cpu_threads
from ...runtime.progress import progress
from ...training import AuxiliaryLoss, Evaluate, LambdaCallback, LossLogger, Trainer, TrainerConfig, WarmupCosine
from . import analysis as an
from .config import DnaHNetConfig
from .data import Genome, call_genes, split_regions, synthetic_genome, tile_windows, wheel_genome
from .flops import hnet_forward_flops, mamba_forward_flops, transformer_forward_flops
from .mamba import IsotropicMamba, MambaConfig
from .model import DnaHNet, HNetConfig, NucleotideTransformer

__all__ = ["Corpus", "prepare_corpus", "hnet_config", "build_model", "ArmResult", "train_arm", "train_all",
           "Analyses", "analyse", "Timing", "time_forward", "timing_study", "load_model", "Study", "study", "track_of",
           "train_for_ratio", "train_group", "GROUPS", "replicates", "arm_batch", "early_step", "stage_track", "stage_tracks", "hierarchy_phase"]

LN2 = float(np.log(2))


@dataclasses.dataclass
class Corpus:
    """The training sequence, the held-out genome (with genes) and the fixed evaluation windows."""

    train: np.ndarray
    heldout: Genome
    eval_windows: np.ndarray
    sources: list[dict]


def prepare_corpus(cfg: DnaHNetConfig, seed: int) -> Corpus:
    """Synthetic genome (seeded) or the wheel's C. diphtheriae chromosome; the last ``holdout`` fraction is held
    out; genes of the held-out region: the generator's (synthetic) or pyrodigal's calls trained on the training
    region (real)."""
    if cfg.genome == "synthetic":
        g = synthetic_genome(cfg.synthetic_length, seed)
        (a, b), (c, d) = split_regions(len(g), cfg.holdout)
        held = g.region(c, d)
        train = g.seq[a:b]
        sources = [{"name": g.name, "length": len(g), "genes": len(g.genes), "source": g.source, "sha256": ""}]
    else:
        full = wheel_genome()
        g = full.region(0, min(cfg.real_length, len(full)))
        (a, b), (c, d) = split_regions(len(g), cfg.holdout)
        train_g = g.region(a, b)
        held = call_genes(g.region(c, d), train_on=train_g)
        train = train_g.seq
        sources = [{"name": full.name, "length": len(full), "used": len(g), "source": full.source,
                    "sha256": full.sha256, "heldout_genes": len(held.genes)}]
    ew, _ = tile_windows(held.seq, cfg.context + 1, cfg.eval_windows)
    return Corpus(train=train, heldout=held, eval_windows=ew, sources=sources)


def hnet_config(cfg: DnaHNetConfig, arm: str) -> HNetConfig:
    """The :class:`HNetConfig` of a dnaHNet-mini arm."""
    if arm == "two_stage":
        return HNetConfig(widths=tuple(cfg.widths2), ratios=tuple(cfg.ratios2), n_enc=tuple(cfg.n_enc2),
                          n_dec=tuple(cfg.n_dec2), n_main=cfg.n_main, d_head=cfg.d_head, max_len=cfg.context)
    base = dict(widths=tuple(cfg.widths), ratios=(cfg.ratio,), n_enc=(cfg.n_enc,), n_dec=(cfg.n_dec,),
                n_main=cfg.n_main, d_head=cfg.d_head, max_len=cfg.context, stride=int(round(cfg.ratio)))
    extra = {"dnahnet": {}, "stride": {"router": "stride"}, "fixed_router": {"router": "fixed"},
             "no_smoothing": {"smoothing": False}, "no_ste": {"use_ste": False}}
    if arm not in extra:
        raise ValueError(f"arm={arm!r} is not allowed; allowed values: {', '.join(list(extra) + ['two_stage', 'transformer'])}")
    return HNetConfig(**base, **extra[arm])


#: the arms without chunking stages (isotropic models on nucleotides)
ISOTROPIC = ("transformer", "mamba")


def mamba_config(cfg: DnaHNetConfig) -> MambaConfig:
    """The :class:`~.mamba.MambaConfig` of the isotropic Mamba baseline."""
    return MambaConfig(d_model=cfg.mamba_width, n_layer=cfg.mamba_layers, d_state=cfg.mamba_state)


def build_model(cfg: DnaHNetConfig, arm: str, seed: int, max_len: int | None = None) -> torch.nn.Module:
    """A freshly initialised model of ``arm`` (seeded); ``max_len`` widens the Transformer's rotary tables."""
    torch.manual_seed(seed)
    if arm == "transformer":
        return NucleotideTransformer(cfg.tf_width, cfg.tf_layers, cfg.d_head, max(cfg.context, max_len or 0))
    if arm == "mamba":
        return IsotropicMamba(mamba_config(cfg))
    return DnaHNet(hnet_config(cfg, arm))


def forward_flops(cfg: DnaHNetConfig, arm: str, L: int, ratios=None) -> float:
    """Analytic forward FLOPs of one sequence of ``L`` nucleotides through ``arm`` (:mod:`.flops`)."""
    if arm == "transformer":
        return transformer_forward_flops(cfg.tf_width, cfg.tf_layers, L)
    if arm == "mamba":
        return mamba_forward_flops(mamba_config(cfg), L)
    return hnet_forward_flops(hnet_config(cfg, arm), L, ratios)


@dataclasses.dataclass
class ArmResult:
    """One trained model: its arm, seed, state, sizes and learning curve (at every evaluation: update, training
    FLOPs so far, held-out bits per nucleotide, compression L/L' and boundary fraction per stage)."""

    arm: str
    seed: int
    state: dict
    params: int
    steps: int
    flops_per_step: float
    curve: dict
    bpn: float
    compression: list[float]
    seconds: float
    loss_steps: np.ndarray
    loss: np.ndarray
    window_bpn: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    #: windows per update (:func:`arm_batch`); the state at the convergence guard's earlier horizon and that horizon
    batch: int = 0
    early_state: dict | None = None
    early_step: int = 0


def _evaluate(model, windows: np.ndarray, stages: int) -> dict:
    x = torch.as_tensor(windows.astype(np.int64))
    ce, n, sel, tot = 0.0, 0, np.zeros(stages), np.zeros(stages)
    for i in range(0, len(x), 16):
        xb = x[i:i + 16]
        logits, stats = model(xb[:, :-1])
        ce += float(F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), xb[:, 1:].reshape(-1),
                                    reduction="sum"))
        n += xb[:, 1:].numel()
        for s, st in enumerate(stats):
            sel[s] += float(st["routing"].boundary[st["mask"]].sum())
            tot[s] += float(st["mask"].sum())
    out = {"bpn": ce / n / LN2}
    for s in range(stages):
        out[f"frac{s}"] = sel[s] / max(tot[s], 1)
        out[f"compression{s}"] = tot[s] / max(sel[s], 1)
    return out


def arm_batch(cfg: DnaHNetConfig, arm: str) -> int:
    """Windows per update of ``arm``: ceil(batch × dnaHNet-mini's forward FLOPs ÷ the arm's), so that every arm runs
    the same ``cfg.steps`` updates at (up to this rounding, which favours the costlier baseline) the same training-FLOP
    budget (second edition, rule 10: equal updates as well as equal FLOPs; before, an arm that cost more per update
    got fewer updates, the Transformer 2.8x fewer at default)."""
    ratio = forward_flops(cfg, "dnahnet", cfg.context) / forward_flops(cfg, arm, cfg.context)
    return max(1, int(np.ceil(cfg.batch * ratio - 1e-9)))


def early_step(cfg: DnaHNetConfig, steps: int | None = None) -> int:
    """The earlier horizon of the convergence guard: T / (1 + plateau_extend) updates (T = ``cfg.steps``)."""
    T = cfg.steps if steps is None else steps
    return max(1, int(round(T / (1.0 + cfg.plateau_extend))))


def train_arm(cfg: DnaHNetConfig, corpus: Corpus, arm: str, seed: int, budget_flops: float | None = None) -> ArmResult:
    """Train one arm for ``cfg.steps`` updates at its own batch (:func:`arm_batch`: the training-FLOP budget of
    ``cfg.steps`` updates of dnaHNet-mini); with ``budget_flops`` the old way instead (the batch of ``cfg`` and as
    many updates as that budget buys). Keeps the state at :func:`early_step` as well (``curve`` has an evaluation
    there): the convergence guard of the claims compares the model there and at the end."""
    model = build_model(cfg, arm, seed)
    stages = 0 if arm in ISOTROPIC else model.cfg.stages
    if budget_flops is None:
        batch, steps = arm_batch(cfg, arm), cfg.steps
        fps = 3 * forward_flops(cfg, arm, cfg.context) * batch
    else:
        batch = cfg.batch
        fps = 3 * forward_flops(cfg, arm, cfg.context) * batch
        steps = max(1, int(round(budget_flops / fps)))
    mult = cfg.lr_multipliers2 if arm == "two_stage" else cfg.lr_multipliers
    groups = model.param_groups(cfg.lr, mult if arm not in ISOTROPIC else (1.0,), weight_decay=0.1)
    opt = torch.optim.AdamW(groups, betas=(0.9, 0.95))
    train = torch.as_tensor(cfg_seq := corpus.train.astype(np.int64))
    T = cfg.context + 1
    hi = len(cfg_seq) - T

    def data(i, generator):
        starts = torch.randint(0, hi, (batch,), generator=generator)
        return train[starts[:, None] + torch.arange(T)[None, :]]

    def loss_fn(m, batch_):
        logits, stats = m(batch_[:, :-1])
        ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch_[:, 1:].reshape(-1))
        rl = [s["ratio_loss"] for s in stats if s["ratio_loss"] is not None]
        return ce, {"ratio": torch.stack(rl).sum() if rl else None}

    every = max(1, steps // (cfg.evals - 1))
    early = early_step(cfg, steps)
    at = sorted({0, *range(every, steps, every), early, steps})
    ev = Evaluate(lambda m: _evaluate(m, corpus.eval_windows, stages), at=at)
    snapshot: dict = {}

    def keep_early(tr):
        if tr.step == early:
            snapshot.update({k: v.detach().cpu().clone() for k, v in tr.model.state_dict().items()})

    callbacks = [LossLogger(), ev, LambdaCallback(on_step_end=keep_early)]
    if stages and cfg.alpha > 0 and arm != "stride":
        callbacks.append(AuxiliaryLoss("ratio", lambda m, b, o: o["ratio"], weight=cfg.alpha))
    tc = TrainerConfig(steps=steps, schedule=WarmupCosine(min(cfg.warmup, steps // 4), steps), grad_clip=1.0,
                       seed=seed, threads=cfg.threads, show_progress=True, desc=f"{arm} seed {seed}")
    trainer = Trainer(model, opt, loss_fn, data, tc, callbacks, fingerprint={"arm": arm})
    trainer.run()
    curve_steps, bpn = trainer.history("bpn")
    curve = {"step": curve_steps, "flops": curve_steps * fps, "bpn": bpn}
    for s in range(stages):
        curve[f"compression{s}"] = trainer.history(f"compression{s}")[1]
        curve[f"frac{s}"] = trainer.history(f"frac{s}")[1]
    ls, lv = trainer.history("loss")
    state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
    with trainer.eval_mode(), cpu_threads(cfg.threads):
        wb = -an.window_bits(model, corpus.eval_windows) / (corpus.eval_windows.shape[1] - 1)
    return ArmResult(arm=arm, seed=seed, state=state, params=sum(p.numel() for p in model.parameters()), steps=steps,
                     flops_per_step=fps, curve=curve, bpn=float(bpn[-1]),
                     compression=[float(curve[f"compression{s}"][-1]) for s in range(stages)],
                     seconds=trainer.seconds, loss_steps=ls, loss=lv, window_bpn=wb, batch=batch,
                     early_state=snapshot or None, early_step=early)


def load_model(cfg: DnaHNetConfig, res: ArmResult, max_len: int | None = None, early: bool = False) -> torch.nn.Module:
    """The trained model of ``res`` (``early``: at the convergence guard's earlier horizon)."""
    m = build_model(cfg, res.arm, res.seed, max_len)
    if early and res.early_state is None:
        raise ValueError(f"{res.arm} seed {res.seed} kept no early state (trained before the convergence guard)")
    m.load_state_dict(res.early_state if early else res.state)
    return m.eval()


def replicates(cfg: DnaHNetConfig, arm: str) -> int:
    """Independent replicates of ``arm``: ``cfg.mamba_seeds`` for the isotropic Mamba (only C5b reads more than its
    first replicate, and C5b needs two at least), ``cfg.ablation_seeds`` for the ablations and the two-stage model,
    ``cfg.seeds`` for dnaHNet-mini, the Transformer and fixed stride."""
    if arm == "mamba":
        return cfg.mamba_seeds
    return cfg.ablation_seeds if arm in GROUPS["ablations"] else cfg.seeds


GROUPS = {"main": ("dnahnet", "transformer", "stride"), "mamba": ("mamba",),
          "ablations": ("fixed_router", "no_smoothing", "no_ste", "two_stage")}


def train_group(cfg: DnaHNetConfig, seed: int, group: str, corpus: Corpus | None = None) -> dict[str, list[ArmResult]]:
    """One group of arms: "main" (dnaHNet-mini, the Transformer, fixed stride; ``cfg.seeds`` replicates), "mamba" (the
    isotropic Mamba, ``cfg.mamba_seeds``; its own group so that no notebook cell trains for too long) or
    "ablations" (fixed router, no smoothing, no STE, two stages; ``cfg.ablation_seeds``). Replicate ``r`` uses seed
    ``1000 seed + r`` in every group, so replicate r of an ablation pairs with replicate r of dnaHNet-mini (same
    initialisation seed, same training windows)."""
    if group not in GROUPS:
        raise ValueError(f"group={group!r} is not allowed; allowed values: {', '.join(GROUPS)}")
    corpus = prepare_corpus(cfg, seed) if corpus is None else corpus
    n = max(replicates(cfg, a) for a in GROUPS[group])
    jobs = [(a, r) for r in range(n) for a in GROUPS[group] if r < replicates(cfg, a)]
    out: dict[str, list[ArmResult]] = {}
    for arm, r in progress(jobs, desc=f"{group} arms"):
        out.setdefault(arm, []).append(train_arm(cfg, corpus, arm, 1000 * seed + r))
    return out


def train_all(cfg: DnaHNetConfig, corpus: Corpus, seed: int) -> dict[str, list[ArmResult]]:
    """Every group of :func:`train_group`."""
    return {k: v for g in GROUPS for k, v in train_group(cfg, seed, g, corpus).items()}


@dataclasses.dataclass
class Analyses:
    """Boundary statistics of dnaHNet-mini (first replicate) on the held-out genome, and the zero-shot proxies for
    dnaHNet-mini and the Transformer (first replicate of each). ``extrapolation[arm]``: held-out bits per nucleotide
    in windows of ``ko_window`` nt at positions within the training context and past it (:func:`.analysis.bits_by_position`);
    ``markov[k]``: held-out bpn of an order-k Markov chain on the evaluation windows (:func:`.analysis.markov_bpn`)."""

    track_p: np.ndarray
    track_b: np.ndarray
    track_valid: np.ndarray
    phase: dict
    phase_counts: np.ndarray
    enrichment: dict
    ko_labels: np.ndarray
    ko_scores: dict
    snv_labels: np.ndarray
    snv_scores: dict
    n_genes: int
    phase_genes: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 3, 3)))
    extrapolation: dict = dataclasses.field(default_factory=dict)
    phase_genes3: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 3, 3)))
    markov: dict = dataclasses.field(default_factory=dict)
    #: phase test of fixed-size chunking's boundaries on the same genes (C6, C6c)
    stride_phase: dict | None = None
    #: the convergence guard's point estimates at the earlier horizon (and dnaHNet-mini's at the end), see analyse
    early: dict = dataclasses.field(default_factory=dict)
    #: C6d: phase tests of the two-stage model's stages, of two-stage fixed-size chunking's, and at the earlier horizon
    hierarchy: dict | None = None

    def markov_reference(self) -> float | None:
        """The lowest held-out bpn of the order-k Markov chains (k = 0..markov_orders, fitted on the training region,
        scored on the same evaluation windows as the models): what k-mer statistics alone reach. The order is
        chosen on those windows, which makes the reference optimistic (harder to beat)."""
        return min(self.markov.values()) if self.markov else None


def _zero_shot(model, ko, snv) -> tuple[np.ndarray, np.ndarray]:
    """LL(WT) − LL(variant) in bits at the knockout sites and at the SNV sites."""
    return (an.window_bits(model, ko.wt) - an.window_bits(model, ko.variant),
            an.window_bits(model, snv.wt) - an.window_bits(model, snv.variant))


def _boundary_summary(seq, b, valid, genes, n_boot: int, seed: int) -> dict:
    """The point estimates the boundary rows decide on: phase contrast (C6), edge enrichment (C6b), observed phase
    contrast per gene table (C6c)."""
    ph = an.phase_test(an.phase_counts(b, valid, genes))
    e = an.edge_enrichment(b, valid, genes, 3, n_boot, seed)     # its ratio only: the caller may pass n_boot = 1
    obs, _ = an.phase_contrast(an.phase_by_gene(seq[:len(b)], b, valid, genes, 2))
    return {"phase_ratio": ph["ratio"], "start": e["start"]["ratio"], "stop": e["stop"]["ratio"], "contrast": obs}


def hierarchy_phase(cfg: DnaHNetConfig, model, held: Genome, genes) -> list[dict]:
    """The phase test (:func:`.analysis.phase_test`) of each stage of a two-stage model's boundaries on ``genes``
    (stage 1 mapped back to nucleotides, :func:`stage_track`)."""
    return [an.phase_test(an.phase_counts(b, valid, genes)) for _, b, valid in stage_tracks(model, held.seq, cfg.context)]


def analyse(cfg: DnaHNetConfig, corpus: Corpus, arms: dict[str, list[ArmResult]], seed: int) -> Analyses:
    with cpu_threads(cfg.threads):
        model = load_model(cfg, arms["dnahnet"][0])
        held = corpus.heldout
        p, b, valid = an.boundary_track(model, held.seq, cfg.context)
        trimmed = dataclasses.replace(held, genes=[g for g in held.genes if g.end <= len(p)])
        counts = an.phase_counts(b, valid, trimmed.genes)
        by_gene = an.phase_by_gene(held.seq[:len(p)], b, valid, trimmed.genes, 2)
        by_gene3 = an.phase_by_gene(held.seq[:len(p)], b, valid, trimmed.genes, 3)
        enrich = an.edge_enrichment(b, valid, trimmed.genes, 3, cfg.n_boot, seed)
        # fixed-size chunking's boundaries on the same genes (the stride router does not depend on its weights): the
        # phase contrast a gene-blind chunker gets from the genes' start offsets (C6, C6c; second edition, rule 11)
        _, sb, svalid = an.boundary_track(build_model(cfg, "stride", seed), held.seq, cfg.context)
        stride_phase = an.phase_test(an.phase_counts(sb, svalid, trimmed.genes))
        ko = an.knockout_sites(held, cfg.n_knockout, cfg.ko_window, seed)
        snv = an.snv_sites(held, cfg.n_snv, cfg.zs_window, seed + 1)
        long_w, _ = tile_windows(held.seq, cfg.ko_window + 1, max(4, cfg.eval_windows // 4))
        markov = {k: an.markov_bpn(corpus.train, corpus.eval_windows, k) for k in range(cfg.markov_orders + 1)}
        ko_scores, snv_scores, extrapolation = {}, {}, {}
        for arm in ("dnahnet", "transformer"):
            m = load_model(cfg, arms[arm][0], max(cfg.ko_window, cfg.zs_window))
            ko_scores[arm], snv_scores[arm] = _zero_shot(m, ko, snv)
            extrapolation[arm] = an.bits_by_position(m, long_w, cfg.context)
        # the gene-blind order-2 Markov chain on the same sites (second edition, rule 11: the zero-shot rows' reference)
        mk = an.MarkovLM(corpus.train, 2)
        ko_scores["markov"], snv_scores["markov"] = _zero_shot(mk, ko, snv)
        # the convergence guard of C6-C8b (second edition, rule 10): the same point estimates from the same models at
        # the earlier horizon T / (1 + plateau_extend)
        early = {}
        if arms["dnahnet"][0].early_state is not None and arms["transformer"][0].early_state is not None:
            m0 = load_model(cfg, arms["dnahnet"][0], early=True)
            _, eb, ev = an.boundary_track(m0, held.seq, cfg.context)
            early["dnahnet"] = _boundary_summary(held.seq, eb, ev, trimmed.genes, 1, seed)
            early["dnahnet_late"] = {"phase_ratio": an.phase_test(counts)["ratio"], "start": enrich["start"]["ratio"],
                                     "stop": enrich["stop"]["ratio"], "contrast": an.phase_contrast(by_gene)[0]}
            for arm in ("dnahnet", "transformer"):
                m = load_model(cfg, arms[arm][0], max(cfg.ko_window, cfg.zs_window), early=True)
                early[f"ko_{arm}"], early[f"snv_{arm}"] = _zero_shot(m, ko, snv)
        # hierarchy (C6d): both stages of the two-stage model against two-stage fixed-size chunking (every N0 and
        # every N0 N1 nt) on the same genes, and the two-stage model at the earlier horizon
        hierarchy = None
        if arms.get("two_stage"):
            two = arms["two_stage"][0]
            ref = DnaHNet(dataclasses.replace(hnet_config(cfg, "two_stage"), router="stride",
                                              stride=int(round(cfg.ratios2[0])))).eval()
            hierarchy = {"stages": hierarchy_phase(cfg, load_model(cfg, two), held, trimmed.genes),
                         "stride": hierarchy_phase(cfg, ref, held, trimmed.genes),
                         "early": (hierarchy_phase(cfg, load_model(cfg, two, early=True), held, trimmed.genes)
                                   if two.early_state is not None else None)}
    return Analyses(track_p=p, track_b=b, track_valid=valid, phase=an.phase_test(counts), phase_counts=counts,
                    enrichment=enrich, ko_labels=ko.label, ko_scores=ko_scores, snv_labels=snv.label,
                    snv_scores=snv_scores, n_genes=len(trimmed.genes), phase_genes=by_gene,
                    extrapolation=extrapolation, phase_genes3=by_gene3, markov=markov, stride_phase=stride_phase,
                    early=early, hierarchy=hierarchy)


@dataclasses.dataclass
class Timing:
    """Forward wall time (s, best of the repeats) of trained dnaHNet-mini, the Transformer and (when trained) the
    two-stage dnaHNet-mini at lengths 2^k, the slowest of the repeats (``worst``: the timing noise the recursion row
    reads), the analytic forward FLOPs at the realised compression, and parameter counts."""

    log2_lengths: list[int]
    seconds: dict
    flops: dict
    params: dict
    worst: dict = dataclasses.field(default_factory=dict)


@torch.no_grad()
def time_forward(model, L: int, repeats: int, seed: int = 0, all_times: bool = False):
    """Best wall time of ``repeats`` forwards of one random sequence of ``L`` nt (after one warm-up); with
    ``all_times`` every repeat's time."""
    x = torch.randint(0, 4, (1, L), generator=torch.Generator().manual_seed(seed))
    model(x)                                                                 # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        model(x)
        times.append(time.perf_counter() - t0)
    return times if all_times else min(times)


def timing_study(cfg: DnaHNetConfig, arms: dict[str, list[ArmResult]]) -> Timing:
    """Forward time of the trained models at every length of ``cfg.timing_lengths``, the models taking turns at each
    repeat (a load burst then slows one repeat of one model, which the best of the repeats ignores)."""
    longest = 2 ** max(cfg.timing_lengths)
    names = ("dnahnet", "transformer") + (("two_stage",) if arms.get("two_stage") else ())
    models = {a: load_model(cfg, arms[a][0], longest) for a in names}
    seconds = {a: [] for a in models}
    worst = {a: [] for a in models}
    flops = {a: [] for a in models}
    with cpu_threads(cfg.threads):
        for k in progress(cfg.timing_lengths, desc="timing"):
            L = 2 ** k
            x = torch.randint(0, 4, (1, L), generator=torch.Generator().manual_seed(0))
            times = {a: [] for a in models}
            with torch.no_grad():
                for m in models.values():
                    m(x)                                                      # warm-up
                for _ in range(cfg.timing_repeats):
                    for a, m in models.items():
                        t0 = time.perf_counter()
                        m(x)
                        times[a].append(time.perf_counter() - t0)
            for a in models:
                seconds[a].append(min(times[a]))
                worst[a].append(max(times[a]))
                comp = arms[a][0].compression
                flops[a].append(forward_flops(cfg, a, L, tuple(comp) if a != "transformer" else None))
    return Timing(list(cfg.timing_lengths), seconds, flops,
                  {a: sum(p.numel() for p in m.parameters()) for a, m in models.items()}, worst)


@dataclasses.dataclass
class Study:
    """Everything the chapter trains and measures except wall time: corpus, arms, analyses."""

    corpus: Corpus
    arms: dict
    analyses: Analyses


def study(cfg: DnaHNetConfig, seed: int) -> Study:
    """Prepare the corpus, train every arm, analyse dnaHNet-mini and the Transformer on the held-out region."""
    corpus = prepare_corpus(cfg, seed)
    arms = train_all(cfg, corpus, seed)
    return Study(corpus, arms, analyse(cfg, corpus, arms, seed))


@torch.no_grad()
def stage_tracks(model, seq: np.ndarray, context: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(p, b, valid)`` (L,) of every stage of a model along ``seq`` (consecutive windows of ``context`` nt), from one
    pass: stage 0 directly; stage 1 of a two-stage model mapped back to nucleotides (a position is an inner boundary
    when its outer chunk opens an inner chunk; p = the inner p). ``valid`` drops each window's first position."""
    L = len(seq) // context * context
    x = torch.as_tensor(seq[:L].astype(np.int64)).view(-1, context)
    out: list[tuple[list, list]] = []
    for i in range(0, len(x), 16):
        _, stats = model(x[i:i + 16])
        outer = stats[0]["routing"]
        per = [(outer.prob.float().cpu(), outer.boundary.cpu())]
        if len(stats) > 1:
            inner = stats[1]["routing"]
            ch_idx = torch.sort((~outer.boundary).to(torch.int8), dim=-1, stable=True).indices
            p = torch.zeros_like(outer.prob)
            b = torch.zeros_like(outer.boundary)
            M = inner.prob.shape[1]
            valid = stats[1]["mask"]
            src = ch_idx[:, :M]
            p.scatter_(1, src, inner.prob * valid)
            b.scatter_(1, src, inner.boundary & valid)
            per.append((p.float(), b))
        for s_, (p, b) in enumerate(per):
            if len(out) <= s_:
                out.append(([], []))
            out[s_][0].append(p)
            out[s_][1].append(b)
    ok = np.ones(L, bool)
    ok[::context] = False
    return [(torch.cat(ps).reshape(-1).numpy(), torch.cat(bs).reshape(-1).numpy(), ok) for ps, bs in out]


def stage_track(model, seq: np.ndarray, context: int, stage: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One stage's ``(p, b, valid)`` of :func:`stage_tracks`."""
    return stage_tracks(model, seq, context)[stage]


def track_of(cfg: DnaHNetConfig, res: ArmResult, seq: np.ndarray, stage: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(p, b)`` (L,) along ``seq`` for one trained arm (:func:`stage_track`)."""
    p, b, _ = stage_track(load_model(cfg, res), seq, cfg.context, stage)
    return p, b


def train_for_ratio(cfg: DnaHNetConfig, seed: int, ratio: float) -> ArmResult:
    """The one-stage dnaHNet-mini trained with another target ratio N (the playground's control; first replicate)."""
    c = dataclasses.replace(cfg, ratio=float(ratio))
    return train_arm(c, prepare_corpus(c, seed), "dnahnet", 1000 * seed)
