"""The chapter's experiments, one replicate at a time (Surgery, arXiv 2602.05228).

A replicate (:func:`replicate_study`) is independent of the others: its own world draw (pools, held-out pairs,
evaluation prompts, the user's data), its own aligned base (initialisation and alignment corpus) and its own
fine-tuning data. In it:

1. the aligned base is trained and analysed (:class:`BaseAnalysis`: sink attention per head, the key that gets
   the most attention, the held-out sink divergence with bootstrap intervals, attention maps);
2. plain SFT fine-tunes it at every poison ratio of ``p_grid``, Surgery at ``p_main`` (and at every ratio on the
   first ``dose_surgery_seeds`` replicates) (:class:`.train.FineTuneRun`, with evaluations along each run);
3. on the first ``ablation_seeds`` replicates, at ``p_main``: the sign ablations and the random-half control
   (``ablation_modes``), the two baselines (refusal replay, L2 anchor) and the lambda sweep.

:class:`Study` holds the replicates and gives the arrays the claims and figures read. :func:`timing_study`
measures seconds per update of SFT and Surgery, interleaved. Nothing here decides a claim (:mod:`.claims`).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from ...runtime.device import cpu_threads
from .config import SurgeryConfig
from .stats import (DivergenceCI, bootstrap_divergence, empirical_sink, model_sink_attention, null_relabel,
                    uniform_profile)
from .train import (AlignedBase, FineTuneRun, FineTuneSpec, WorldTensors, align_base, finetune, load_model,
                    make_world, time_steps, world_tensors)

__all__ = ["replicate_seed", "run_key", "BaseAnalysis", "analyse_base", "ReplicateStudy", "replicate_study", "Study",
           "Timing", "timing_study", "specs_for"]


def replicate_seed(seed: int, i: int) -> int:
    """The seed of replicate ``i`` of a page built with ``seed``."""
    return int(seed) * 1000 + int(i)


def run_key(spec: FineTuneSpec) -> str:
    """A run's name: ``"sft@p=0.1"``, ``"surgery@p=0.1"``, ``"surgery[opposite]@p=0.1"``,
    ``"surgery@lam=3@p=0.1"`` (a lambda other than the chapter's), ``"replay@p=0.1"``, ``"l2@p=0.1"``."""
    if spec.method == "surgery":
        name = "surgery" if spec.mode == "paper" else f"surgery[{spec.mode}]"
        if spec.sink:
            name += f"@sink={spec.sink}"
        return f"{name}@lam={spec.lam:g}@p={spec.p:g}"
    return f"{spec.method}@p={spec.p:g}"


def specs_for(cfg: SurgeryConfig, ablations: bool, dose_surgery: bool = True) -> list[FineTuneSpec]:
    """Every fine-tuning run of one replicate (see the module docstring); ``dose_surgery`` False runs Surgery at
    ``p_main`` only (SFT still at every ratio)."""
    specs = []
    for p in cfg.p_grid:
        specs.append(FineTuneSpec("sft", p))
        if dose_surgery or p == cfg.p_main:
            specs.append(FineTuneSpec("surgery", p, lam=cfg.lam, sink=cfg.sink, pairs_per_step=cfg.pairs_per_step))
    if ablations:
        pm = cfg.p_main
        for mode in cfg.ablation_modes:
            specs.append(FineTuneSpec("surgery", pm, lam=cfg.lam, mode=mode, sink=cfg.sink,
                                      pairs_per_step=cfg.pairs_per_step))
        specs.append(FineTuneSpec("replay", pm, replay_rows=cfg.replay_rows))
        specs.append(FineTuneSpec("l2", pm, l2_mu=cfg.l2_mu))
        for lam in cfg.lam_grid:
            if lam not in (0.0, cfg.lam):
                specs.append(FineTuneSpec("surgery", pm, lam=lam, sink=cfg.sink, pairs_per_step=cfg.pairs_per_step))
    return specs


# ------------------------------------------------------------------------------------------- the aligned base
@dataclasses.dataclass(frozen=True)
class BaseAnalysis:
    """The aligned base of one replicate, looked at through its attention.

    ``alpha`` (L, H): mean sink attention at key ``sink`` over the held-out texts (both sides); ``profile``
    (L, H, T): mean attention each key position receives; ``uniform`` (T,): the same for uniform causal attention
    on the same texts (the no-sink reference); ``argmax`` (L, H): each head's most-attended key;
    ``divergence``: held-out population sink divergence with bootstrap intervals; ``null``: the same with the
    disclosure/refusal labels shuffled (a divergence with no contrast); ``maps``: attention (L, H, T, T) of one
    held-out disclosure text and one refusal text, with their tokens."""

    sink: int
    alpha: np.ndarray
    profile: np.ndarray
    uniform: np.ndarray
    argmax: np.ndarray
    divergence: DivergenceCI
    null: DivergenceCI
    maps: dict


def analyse_base(model, wt: WorldTensors, sink: int, n_boot: int, seed: int) -> BaseAnalysis:
    hd, hr = wt.heldout_disclose, wt.heldout_refuse
    a_m, prof_m = model_sink_attention(model, hd.tokens, hd.lengths, sink, profile=True)
    a_r, prof_r = model_sink_attention(model, hr.tokens, hr.lengths, sink, profile=True)
    T = max(prof_m.shape[-1], prof_r.shape[-1])
    prof = torch.cat([torch.nn.functional.pad(prof_m, (0, T - prof_m.shape[-1])),
                      torch.nn.functional.pad(prof_r, (0, T - prof_r.shape[-1]))])
    lengths = torch.cat([hd.lengths, hr.lengths])
    mean_prof, argmax = empirical_sink(prof, lengths)
    uniform = uniform_profile(lengths, T).numpy()
    div = bootstrap_divergence(a_m, a_r, n_boot=n_boot, seed=seed)
    nm, nr = null_relabel(a_m, a_r, seed)
    null = bootstrap_divergence(nm, nr, n_boot=n_boot, seed=seed + 1)
    maps = {}
    with torch.no_grad():
        was = model.training
        model.eval()
        for name, ts in (("disclose", hd), ("refuse", hr)):
            n = int(ts.lengths[0])
            _, probs = model(ts.tokens[:1, :n], attn="explicit", return_attn=True)
            maps[name] = torch.stack(probs, 1)[0].numpy()
            maps[name + "_tokens"] = [wt.tok.decode([int(t)]) for t in ts.tokens[0, :n]]
        model.train(was)
    alpha = torch.cat([a_m, a_r]).mean(0).numpy()
    return BaseAnalysis(sink, alpha, mean_prof, uniform, argmax, div, null, maps)


# ------------------------------------------------------------------------------------------- one replicate
@dataclasses.dataclass(frozen=True)
class Timing:
    """Seconds per update of SFT and of Surgery (``(repeats,)`` each, interleaved), their batch and model."""

    sft: np.ndarray
    surgery: np.ndarray
    steps: int
    batch: int
    pairs_per_step: int

    @property
    def ratio(self) -> np.ndarray:
        return self.surgery / self.sft


def timing_study(cfg: SurgeryConfig, base: AlignedBase, wt: WorldTensors) -> Timing:
    """Seconds per update of SFT and Surgery at ``p_main`` from ``base``, interleaved ``timing_repeats`` times
    (runs of ``timing_steps`` updates without evaluations)."""
    specs = {"sft": FineTuneSpec("sft", cfg.p_main),
             "surgery": FineTuneSpec("surgery", cfg.p_main, lam=cfg.lam, sink=cfg.sink, pairs_per_step=cfg.pairs_per_step)}
    t = time_steps(cfg, base, wt, specs, base.seed, cfg.timing_steps, cfg.timing_repeats)
    return Timing(t["sft"], t["surgery"], cfg.timing_steps, cfg.ft_batch, cfg.pairs_per_step)


@dataclasses.dataclass(frozen=True)
class ReplicateStudy:
    """Everything one replicate ran: its seed, the aligned base (weights, loss curve, metrics) and its analysis,
    its fine-tuning runs by :func:`run_key`, and (replicate 0) the timing benchmark."""

    seed: int
    base: AlignedBase
    analysis: BaseAnalysis
    runs: dict[str, FineTuneRun]
    timing: Timing | None

    @property
    def base_metrics(self) -> dict:
        return self.base.metrics


def replicate_study(cfg: SurgeryConfig, seed: int, i: int) -> ReplicateStudy:
    """Run replicate ``i`` of the page seeded ``seed`` (see the module docstring)."""
    rs = replicate_seed(seed, i)
    world = make_world(cfg, rs)
    base = align_base(cfg, rs, world)
    wt = world_tensors(world)
    with cpu_threads(cfg.threads):
        analysis = analyse_base(load_model(base), wt, cfg.sink, cfg.n_boot, rs)
    runs = {}
    for spec in specs_for(cfg, ablations=i < cfg.ablation_seeds, dose_surgery=i < cfg.dose_surgery_seeds):
        # every run starts from the aligned base: its step-0 evaluation is the base's own (align_base evaluated it on
        # this world at cfg.sink), reused instead of recomputed
        start = base.metrics if spec.sink == cfg.sink else None
        runs[run_key(spec)] = finetune(cfg, base, wt, spec, rs, start_metrics=start)
    timing = timing_study(cfg, base, wt) if i == 0 else None
    return ReplicateStudy(rs, base, analysis, runs, timing)


def replicate_world(cfg: SurgeryConfig, rep: ReplicateStudy) -> WorldTensors:
    """The encoded world of a replicate (regenerated from its seed; the playground fine-tunes its base on it)."""
    return world_tensors(make_world(cfg, rep.seed))


# ------------------------------------------------------------------------------------------- all replicates
@dataclasses.dataclass(frozen=True)
class Study:
    """The replicates of one page, with the config's grids."""

    p_grid: tuple[float, ...]
    p_main: float
    lam: float
    lam_grid: tuple[float, ...]
    ablation_modes: tuple[str, ...]
    replicates: tuple[ReplicateStudy, ...]

    @classmethod
    def of(cls, cfg: SurgeryConfig, replicates) -> Study:
        return cls(tuple(cfg.p_grid), cfg.p_main, cfg.lam, tuple(cfg.lam_grid), tuple(cfg.ablation_modes),
                   tuple(replicates))

    def key(self, method: str, p: float | None = None, lam: float | None = None, mode: str = "paper") -> str:
        p = self.p_main if p is None else p
        if method == "surgery":
            lam = self.lam if lam is None else lam
            if lam == 0:
                return f"sft@p={p:g}"
            name = "surgery" if mode == "paper" else f"surgery[{mode}]"
            return f"{name}@lam={lam:g}@p={p:g}"
        return f"{method}@p={p:g}"

    def runs(self, key: str) -> list[FineTuneRun]:
        """The runs named ``key``, one per replicate that ran it."""
        return [r.runs[key] for r in self.replicates if key in r.runs]

    def final(self, key: str, metric: str) -> np.ndarray:
        return np.array([getattr(r, metric)[-1] for r in self.runs(key)], dtype=float)

    def curves(self, key: str, metric: str) -> tuple[np.ndarray, np.ndarray]:
        """``(steps (E,), values (R, E))`` of the runs named ``key``."""
        runs = self.runs(key)
        return runs[0].steps, np.stack([getattr(r, metric) for r in runs])

    @property
    def n(self) -> int:
        return len(self.replicates)

    def aligned(self, metric: str) -> np.ndarray:
        return np.array([r.base_metrics[metric] for r in self.replicates], dtype=float)


def playground_runs(cfg: SurgeryConfig, rep: ReplicateStudy, p: float, lam: float, mode: str = "paper",
                    sink: int = 0) -> dict[str, FineTuneRun]:
    """Plain SFT and the chosen penalty (``lam`` = 0: SFT only) at poison ratio ``p`` from replicate ``rep``'s
    aligned base; a run the replicate already has is reused, any other is trained now (one fine-tuning run)."""
    wanted = {"SFT": FineTuneSpec("sft", p)}
    if lam > 0:
        wanted[f"λ = {lam:g}, {mode}, sink {sink}"] = FineTuneSpec("surgery", p, lam=lam, mode=mode, sink=sink,
                                                                  pairs_per_step=cfg.pairs_per_step)
    out, wt = {}, None
    for label, spec in wanted.items():
        key = run_key(spec)
        if key in rep.runs:
            out[label] = rep.runs[key]
            continue
        wt = wt or replicate_world(cfg, rep)
        with cpu_threads(cfg.threads):
            out[label] = finetune(cfg, rep.base, wt, spec, rep.seed)
    return out


def summary_texts(study: Study) -> dict:
    """Small computed facts for the page's prose (no decisions)."""
    a = np.stack([r.analysis.alpha for r in study.replicates])
    u = np.array([r.analysis.uniform[r.analysis.sink] for r in study.replicates])
    return {"alpha_mean": float(a.mean()), "alpha_min": float(a.min()), "alpha_max": float(a.max()),
            "alpha_uniform": float(u.mean()), "ratio_max": float((a / u[:, None, None]).max()),
            "argmax_share_sink": float(np.mean([np.mean(r.analysis.argmax == r.analysis.sink) for r in study.replicates]))}


def premise_texts(study: Study, delta: float) -> dict:
    """Computed facts about what Surgery's penalty has to act on (no decisions): per aligned model, the heads that
    claim 1 calls clearly positive (bootstrap interval above ``delta``) and N+ (point estimate); the held-out
    penalty mean_h ReLU(d_h) of the aligned models and at the end of SFT and of Surgery at ``p_main``; the largest
    held-out d_h of any head on the aligned models and at the end of SFT at ``p_main``; the mean of Surgery's own
    training term (one pool pair per step) at ``p_main``; the final disclosure rates of SFT and Surgery there."""
    reps = study.replicates
    sft, sur = study.key("sft"), study.key("surgery")
    divs = [r.analysis.divergence for r in reps]
    pen = [r.runs[sur].penalty for r in reps if sur in r.runs and r.runs[sur].penalty is not None]
    out = {"n": len(reps), "heads": int(divs[0].d.size) if divs else 0, "delta": float(delta),
           "clearly_positive": [int(ci.clearly_positive(delta).sum()) for ci in divs],
           "n_plus": [int(ci.n_positive) for ci in divs],
           "aligned_penalty": float(np.mean([r.base_metrics["heldout_penalty"] for r in reps])),
           "aligned_max_d": float(max(ci.d.max() for ci in divs)) if divs else float("nan"),
           "aligned_max_abs_d": float(max(np.abs(ci.d).max() for ci in divs)) if divs else float("nan"),
           "surgery_train_term": float(np.mean([p.mean() for p in pen])) if pen else float("nan")}
    for name, key in (("sft", sft), ("surgery", sur)):
        runs = study.runs(key)
        out[f"{name}_penalty"] = float(np.mean([r.heldout_penalty[-1] for r in runs])) if runs else float("nan")
        out[f"{name}_disclosure"] = float(np.mean([r.disclosure[-1] for r in runs])) if runs else float("nan")
        out[f"{name}_max_d"] = float(max(r.d[-1].max() for r in runs)) if runs else float("nan")
    return out


__all__ += ["replicate_world", "summary_texts", "playground_runs", "premise_texts"]
