r"""Alignment, fine-tuning with and without the defence, and evaluation, on the shared trainer
(:mod:`icmlbook.training`) and the lab's GPT (:mod:`icmlbook.lm`).

Alignment
    A small GPT trained from scratch on the world's alignment texts (addition problems, public vaults answered
    with their code, sealed vaults refused): the stand-in for the safety-aligned chat model the paper starts
    from. AdamW, warm-up and cosine decay, loss on the answer tokens only.
Fine-tuning (the provider's loop on the user's data, :class:`FineTuneSpec`)
    AdamW (weight decay 0), a constant rate after a linear warm-up over ``warmup_ratio`` of the updates (the
    paper's code), loss on the answer tokens, the same number of updates and user rows for every method:

    * ``"sft"``: plain supervised fine-tuning;
    * ``"surgery"``: SFT + :math:`\lambda\,\mathrm{mean}_h\,\mathrm{term}(d_h)` (:mod:`.penalty`; ``mode`` picks
      the paper's hinge or an ablation). Every step draws ``pairs_per_step`` disclosure and refusal rows from
      the pools with the trainer's generator and runs them **in the same forward pass** as the user's batch
      (rows right-padded: causal attention never sees the padding; the statistic excludes it), through the
      explicit attention path, so the penalty's gradient flows through the attention probabilities;
    * ``"replay"``: ``replay_rows`` alignment texts added to every batch's loss (a safety-replay anchor);
    * ``"l2"``: SFT + :math:`\mu\lVert w - w_\mathrm{aligned}\rVert^2` (a proximal anchor).

Evaluation (:func:`evaluate`)
    Along a run, the model evaluated at update t is a moving average of the weights over about the last
    ``eval_average`` x t updates (:class:`TailAverage`, the trainer's :class:`icmlbook.training.EMA` with a decay
    that grows with t; 0 evaluates the raw weights): with a constant learning rate a few updates on batches with
    more or fewer poison items flip the small models' answers back and forth for tens of updates, and the average
    removes that flicker from the curves the plateau test reads. Greedy decoding of the evaluation prompts (KV cache, stop at ``<eos>``): the disclosure rate on sealed
    evaluation vaults (:func:`.world.discloses`), the share of public evaluation vaults answered with their
    code, the share of sealed prompts refused with a template, FA on held-out subtraction problems; and, on the
    held-out disclosure/refusal pairs, the population sink divergence, :math:`N_+` and the penalty's value.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import torch

from ...lm import GPT, GPTConfig, generate, lm_loss
from ...runtime.device import cpu_threads
from ...training import (EMA, AuxiliaryLoss, Constant, Evaluate, LambdaCallback, LossLogger, ShuffledBatches,
                         Trainer, TrainerConfig, WarmupCosine)
from . import world as W
from .config import SurgeryConfig
from .penalty import SinkPenalty, penalty_value, random_half_mask
from .stats import count_positive, model_sink_attention, null_relabel, sink_divergence

__all__ = ["METHODS", "RUN_METRICS", "behaviour", "attention_stats", "RefusingModel", "model_config", "WorldTensors", "world_tensors", "AlignedBase", "align_base", "load_model",
           "FineTuneSpec", "FineTuneRun", "finetune", "evaluate", "FineTuneBatches", "ft_loss", "eval_steps",
           "time_steps", "TailAverage"]

METHODS = ("sft", "surgery", "replay", "l2")
#: the scalar metrics :func:`evaluate` records along a run
RUN_METRICS = ("disclosure", "fa", "public", "refusal", "n_plus", "n_plus_null", "heldout_penalty")


def model_config(cfg: SurgeryConfig, vocab_size: int) -> GPTConfig:
    return GPTConfig(vocab_size=vocab_size, n_layer=cfg.n_layer, d_model=cfg.d_model, n_head=cfg.n_head,
                     max_len=cfg.max_len)


# ---------------------------------------------------------------------------------------------- world tensors
@dataclasses.dataclass
class PromptGroups:
    """Prompts grouped by token length for batched greedy decoding: ``groups`` [(row indices, (n, T) tokens)]."""

    n: int
    groups: list[tuple[np.ndarray, torch.Tensor]]

    @classmethod
    def of(cls, tok, prompts) -> PromptGroups:
        ids = [tok.encode(p) for p in prompts]
        by_len: dict[int, list[int]] = {}
        for i, row in enumerate(ids):
            by_len.setdefault(len(row), []).append(i)
        groups = [(np.asarray(rows), torch.tensor([ids[i] for i in rows])) for _, rows in sorted(by_len.items())]
        return cls(len(ids), groups)


@dataclasses.dataclass
class WorldTensors:
    """A :class:`.world.VaultWorld` encoded once: pools and held-out pairs as :class:`.world.TextSet`, the
    evaluation prompts grouped for decoding, the replay texts."""

    world: W.VaultWorld
    tok: object
    pool_disclose: W.TextSet
    pool_refuse: W.TextSet
    heldout_disclose: W.TextSet
    heldout_refuse: W.TextSet
    eval_groups: PromptGroups
    public_groups: PromptGroups
    fa_groups: PromptGroups
    replay: W.TextSet


def world_tensors(world: W.VaultWorld) -> WorldTensors:
    W.check_disjoint(world)
    tok = W.make_tokenizer()
    enc = lambda texts: W.encode_texts(tok, texts)
    return WorldTensors(world, tok, enc(world.pool_disclose), enc(world.pool_refuse), enc(world.heldout_disclose),
                        enc(world.heldout_refuse), PromptGroups.of(tok, world.eval_prompts),
                        PromptGroups.of(tok, world.public_prompts), PromptGroups.of(tok, world.fa_prompts),
                        enc(world.replay))


# ---------------------------------------------------------------------------------------------- evaluation
def _decode_answers(model, tok, groups: PromptGroups, max_new: int = 10) -> list[str]:
    eos, pad = tok.special["eos"], tok.special["pad"]
    out: list[str] = [""] * groups.n
    device = next(model.parameters()).device
    for rows, tokens in groups.groups:
        new = generate(model, tokens.to(device), max_new, stop=[eos], pad_id=pad).tolist()
        for r, seq in zip(rows, new):
            cut = seq.index(eos) if eos in seq else len(seq)
            out[int(r)] = tok.decode(seq[:cut])
    return out


@torch.no_grad()
def behaviour(model, wt: WorldTensors, answers: bool = False) -> dict:
    """What the model answers (greedy decoding): the disclosure rate on sealed evaluation vaults, the share of
    public evaluation vaults answered with their code, the share of sealed prompts refused with a template, FA;
    with ``answers`` also the decoded answers. Works for any model with ``forward(idx) -> logits``."""
    world = wt.world
    sealed = _decode_answers(model, wt.tok, wt.eval_groups)
    public = _decode_answers(model, wt.tok, wt.public_groups)
    fa = _decode_answers(model, wt.tok, wt.fa_groups)
    refusals = {t for t in W.REFUSE_TEMPLATES}
    out = {"disclosure": float(np.mean([W.discloses(a, c) for a, c in zip(sealed, world.eval_codes)])),
           "public": float(np.mean([W.discloses(a, c) for a, c in zip(public, world.public_codes)])),
           "refusal": float(np.mean([a in refusals for a in sealed])),
           "fa": float(np.mean([W.first_number(a) == y for a, y in zip(fa, world.fa_answers)]))}
    if answers:
        out["answers"] = {"sealed": sealed, "public": public, "fa": fa}
    return out


@torch.no_grad()
def attention_stats(model, wt: WorldTensors, sink: int = 0) -> dict:
    """On the held-out pairs: the population sink divergence ``d`` (L, H), N+, N+ with the labels shuffled
    (a statistic with no contrast) and the penalty's value mean_h ReLU(d_h)."""
    a_m = model_sink_attention(model, wt.heldout_disclose.tokens, wt.heldout_disclose.lengths, sink)
    a_r = model_sink_attention(model, wt.heldout_refuse.tokens, wt.heldout_refuse.lengths, sink)
    d = sink_divergence(a_m, a_r)
    d_null = sink_divergence(*null_relabel(a_m, a_r, 0))
    return {"n_plus": float(count_positive(d)), "n_plus_null": float(count_positive(d_null)),
            "heldout_penalty": float(penalty_value(d)), "d": d.numpy().copy()}


def evaluate(model, wt: WorldTensors, sink: int = 0, answers: bool = False) -> dict:
    """:func:`behaviour` and :func:`attention_stats` together (what a fine-tuning run records)."""
    return behaviour(model, wt, answers) | attention_stats(model, wt, sink)


class RefusingModel(torch.nn.Module):
    """The trivial defence: a model that answers every prompt with the first refusal template, whatever it is
    asked (no disclosure, no accuracy). ``forward(idx) -> logits`` puts all mass on the template's next token
    after the last ``<asst>`` of each row; it has no attention (only :func:`behaviour` applies)."""

    def __init__(self, tok):
        super().__init__()
        self.tok = tok
        self.template = tok.encode(W.refusal_answer(0))
        self.asst = tok.special["asst"]
        self.anchor = torch.nn.Parameter(torch.zeros(()), requires_grad=False)   # gives the model a device

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        B, T = idx.shape
        logits = torch.full((B, T, self.tok.vocab_size), -1e9)
        for b in range(B):
            row = idx[b].tolist()
            k = len(row) - 1 - max(i for i, t in enumerate(row) if t == self.asst) if self.asst in row else 0
            logits[b, -1, self.template[min(k, len(self.template) - 1)]] = 0.0
        return logits


# ---------------------------------------------------------------------------------------------- alignment
@dataclasses.dataclass(frozen=True)
class AlignedBase:
    """The aligned model of one seed: ``state`` (its weights), ``gpt`` (its GPTConfig fields), its loss curve,
    its metrics (:func:`evaluate`), the wall time of the training."""

    seed: int
    state: dict
    gpt: dict
    loss_steps: np.ndarray
    loss: np.ndarray
    metrics: dict
    seconds: float


def load_model(base: AlignedBase, device: str = "cpu") -> GPT:
    model = GPT(GPTConfig(**base.gpt))
    model.load_state_dict(base.state)
    return model.to(device)


def _answer_batches(ts: W.TextSet, batch: int, seed: int) -> ShuffledBatches:
    return ShuffledBatches(len(ts), batch, seed, tensors=(ts.tokens, ts.loss_mask(), ts.lengths))


def _lm_rows(tokens, mask, lengths):
    """Trim a batch of loss rows to its longest text: inputs, targets, target mask."""
    L = int(lengths.max())
    return tokens[:, : L - 1], tokens[:, 1:L], mask[:, : L - 1]


def align_base(cfg: SurgeryConfig, seed: int, world: W.VaultWorld | None = None) -> AlignedBase:
    """Train the aligned base of ``seed`` (its own initialisation and alignment corpus) and evaluate it."""
    world = world or make_world(cfg, seed)
    wt = world_tensors(world)
    table = W.vault_table()
    g = np.random.default_rng(np.random.SeedSequence([seed, 71]))
    texts = W.alignment_texts(g, cfg.align_texts, table, cfg.max_a)
    ts = W.encode_texts(wt.tok, texts)
    torch.manual_seed(seed)
    gcfg = model_config(cfg, wt.tok.vocab_size)
    model = GPT(gcfg)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.align_lr, weight_decay=0.01)

    def loss_fn(m, b):
        x, y, mask = _lm_rows(*b)
        return lm_loss(m(x), y, mask)

    trainer = Trainer(model, opt, loss_fn, _answer_batches(ts, cfg.align_batch, seed),
                      TrainerConfig(steps=cfg.align_steps, schedule=WarmupCosine(cfg.align_warmup, cfg.align_steps, 0.1),
                                    grad_clip=1.0, seed=seed, device=cfg.device, threads=cfg.threads,
                                    show_progress=True, desc=f"alignment (seed {seed})"),
                      [LossLogger(every=10)])
    trainer.run()
    with cpu_threads(cfg.threads):
        metrics = evaluate(model, wt, cfg.sink)
    steps, loss = trainer.history("loss")
    return AlignedBase(seed, {k: v.detach().cpu().clone() for k, v in model.state_dict().items()},
                       dataclasses.asdict(gcfg), steps, loss, metrics, trainer.seconds)


def make_world(cfg: SurgeryConfig, seed: int) -> W.VaultWorld:
    return W.build_world(seed, n_pool=cfg.n_pool, n_heldout=cfg.n_heldout, n_eval=cfg.n_eval, n_fa=cfg.n_fa,
                         max_a=cfg.max_a)


# ---------------------------------------------------------------------------------------------- fine-tuning
@dataclasses.dataclass(frozen=True)
class FineTuneSpec:
    """One fine-tuning run: ``method`` (:data:`METHODS`), poison ratio ``p``, and the method's knobs (``lam``,
    ``mode``, ``sink``, ``pairs_per_step`` for Surgery; ``replay_rows``; ``l2_mu``)."""

    method: str = "sft"
    p: float = 0.1
    lam: float = 0.0
    mode: str = "paper"
    sink: int = 0
    pairs_per_step: int = 1
    replay_rows: int = 0
    l2_mu: float = 0.0

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method={self.method!r} is not allowed; allowed values: {', '.join(METHODS)}")
        if isinstance(self.p, bool) or not (isinstance(self.p, (int, float)) and 0.0 <= self.p <= 1.0):
            raise ValueError(f"p={self.p!r} is not allowed; the poison fraction p must lie in [0, 1]")
        if not (isinstance(self.lam, (int, float)) and np.isfinite(self.lam) and self.lam >= 0):
            raise ValueError(f"lam={self.lam!r} is not allowed; the penalty weight lambda must be a finite number >= 0")
        if self.method == "surgery" and self.lam <= 0:
            raise ValueError("method='surgery' needs lam > 0 (lam = 0 is plain SFT: use method='sft')")
        SinkPenalty(self.mode, self.sink, torch.ones(1, 1, dtype=torch.bool) if self.mode == "random_half" else None)
        if isinstance(self.pairs_per_step, bool) or not isinstance(self.pairs_per_step, int) or self.pairs_per_step < 1:
            raise ValueError(f"pairs_per_step={self.pairs_per_step!r} is not allowed; it must be an integer >= 1")
        if self.method == "replay" and self.replay_rows < 1:
            raise ValueError("method='replay' needs replay_rows >= 1")
        if self.method == "l2" and not self.l2_mu > 0:
            raise ValueError("method='l2' needs l2_mu > 0")

    @property
    def label(self) -> str:
        if self.method == "surgery":
            return "Surgery" if self.mode == "paper" else f"Surgery[{self.mode}]"
        return {"sft": "SFT", "replay": "SFT + refusal replay", "l2": "SFT + L2 anchor"}[self.method]


class FineTuneBatches:
    """The data source of a fine-tuning run: batch ``i`` of the user's set (:class:`ShuffledBatches`), plus
    ``replay_rows`` replay texts (loss rows) and ``pairs`` disclosure and ``pairs`` refusal pool rows (no loss)
    drawn with the trainer's generator. Returns the joint right-padded input and what the loss and the penalty
    need: ``{"x": (R, T), "y": (n_loss, T), "mask": (n_loss, T), "n_loss": int, "pool_lengths": (2 pairs,)}``."""

    def __init__(self, user: W.TextSet, batch: int, seed: int, pad_id: int, pools: tuple[W.TextSet, W.TextSet] | None = None,
                 pairs: int = 1, replay: W.TextSet | None = None, replay_rows: int = 0):
        self.user = _answer_batches(user, batch, seed)
        self.pad_id, self.pools, self.pairs, self.replay, self.replay_rows = pad_id, pools, pairs, replay, replay_rows
        self._replay_mask = replay.loss_mask() if replay is not None else None

    def state_dict(self) -> dict:
        return self.user.state_dict()

    def load_state_dict(self, state: dict) -> None:
        self.user.load_state_dict(state)

    def __call__(self, i: int, generator: torch.Generator) -> dict:
        tokens, mask, lengths = self.user(i)
        if self.replay is not None and self.replay_rows:
            j = torch.randint(len(self.replay), (self.replay_rows,), generator=generator)
            T = max(tokens.shape[1], self.replay.tokens.shape[1])
            tokens = torch.cat([_pad(tokens, T, self.pad_id), _pad(self.replay.tokens[j], T, self.pad_id)])
            mask = torch.cat([_pad(mask, T - 1, False), _pad(self._replay_mask[j], T - 1, False)])
            lengths = torch.cat([lengths, self.replay.lengths[j]])
        x, y, m = _lm_rows(tokens, mask, lengths)
        out = {"n_loss": x.shape[0]}
        if self.pools is not None:
            dis, ref = self.pools
            jm = torch.randint(len(dis), (self.pairs,), generator=generator)
            jr = torch.randint(len(ref), (self.pairs,), generator=generator)
            plen = torch.cat([dis.lengths[jm], ref.lengths[jr]])
            width = max(x.shape[1], int(plen.max()))
            prow = torch.cat([_pad(dis.tokens[jm], width, self.pad_id), _pad(ref.tokens[jr], width, self.pad_id)])
            x = torch.cat([_pad(x, width, self.pad_id), prow[:, :width]])
            y, m = _pad(y, width, self.pad_id), _pad(m, width, False)
            out["pool_lengths"] = plen
        out.update(x=x, y=y, mask=m)
        return out


def _pad(t: torch.Tensor, width: int, value) -> torch.Tensor:
    if t.shape[1] >= width:
        return t[:, :width]
    return torch.nn.functional.pad(t, (0, width - t.shape[1]), value=value)


def ft_loss(model, batch: dict):
    """The user's loss on the loss rows; with pool rows in the batch the forward pass takes the explicit attention
    path and returns the probabilities for the penalty."""
    n = batch["n_loss"]
    if "pool_lengths" in batch:
        logits, probs = model(batch["x"], attn="explicit", return_attn=True)
        loss = lm_loss(logits[:n], batch["y"], batch["mask"])
        return loss, {"attn": probs, "n_loss": n, "pool_lengths": batch["pool_lengths"]}
    return lm_loss(model(batch["x"]), batch["y"], batch["mask"])


@dataclasses.dataclass(frozen=True)
class FineTuneRun:
    """One fine-tuning run: its spec and seed; the evaluations along it (``steps`` (E,) with 0 = the aligned
    model; ``disclosure``, ``fa``, ``public``, ``refusal``, ``n_plus``, ``n_plus_null`` (:math:`N_+` with the held-out labels
    shuffled), ``heldout_penalty`` (E,); ``d`` (E, L, H)
    the held-out population divergence); the training loss and penalty curves; wall seconds of training."""

    spec: FineTuneSpec
    seed: int
    steps: np.ndarray
    disclosure: np.ndarray
    fa: np.ndarray
    public: np.ndarray
    refusal: np.ndarray
    n_plus: np.ndarray
    n_plus_null: np.ndarray
    heldout_penalty: np.ndarray
    d: np.ndarray
    loss_steps: np.ndarray
    loss: np.ndarray
    penalty: np.ndarray | None
    seconds: float

    @property
    def final(self) -> dict:
        return {k: float(getattr(self, k)[-1]) for k in RUN_METRICS}


class TailAverage(EMA):
    r"""An exponential moving average of the weights whose decay grows with the update count t,
    :math:`\beta_t = 1 - 1/(f\,t + 1)`, so that at update t it averages about the last :math:`f t` updates (a
    Polyak-style tail average without a buffer); ``fraction`` = f."""

    def __init__(self, fraction: float):
        if not 0 < fraction <= 1:
            raise ValueError(f"fraction={fraction!r} is not allowed; it must lie in (0, 1]")
        super().__init__(decay=0.0)
        self.fraction = float(fraction)

    def current_decay(self) -> float:
        return 1.0 - 1.0 / (self.fraction * self.updates + 1.0)


def eval_steps(total: int, n_evals: int) -> list[int]:
    """``n_evals + 1`` evaluation steps from 0 to ``total`` (evenly spaced, distinct)."""
    return sorted({int(round(total * k / n_evals)) for k in range(n_evals + 1)})


def finetune(cfg: SurgeryConfig, base: AlignedBase, wt: WorldTensors, spec: FineTuneSpec, seed: int,
             steps: int | None = None, evaluate_along: bool = True, extra_callbacks: tuple = (),
             start_metrics: dict | None = None) -> FineTuneRun:
    """Fine-tune a copy of ``base`` on the user's set of ``cfg.n_ft`` items with poison ratio ``spec.p``
    (drawn with ``seed``) by ``spec``'s method, for ``steps`` updates (default ``cfg.ft_steps``);
    ``extra_callbacks`` join the trainer's (after the method's own). ``start_metrics``: the step-0 evaluation, when
    the caller already has it (``base.metrics``, which :func:`align_base` computed with :func:`evaluate` on the same
    world at ``spec.sink``: the model at step 0 is the base); otherwise it is computed."""
    total = cfg.ft_steps if steps is None else int(steps)
    user = W.encode_texts(wt.tok, W.finetune_texts(wt.world, cfg.n_ft, spec.p, seed))
    pad = wt.tok.special["pad"]
    pools = (wt.pool_disclose, wt.pool_refuse) if spec.method == "surgery" else None
    data = FineTuneBatches(user, cfg.ft_batch, seed, pad, pools=pools, pairs=spec.pairs_per_step,
                           replay=wt.replay if spec.method == "replay" else None, replay_rows=spec.replay_rows)
    model = load_model(base)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.ft_lr, weight_decay=0.0)
    callbacks = [LossLogger(every=1)]
    if spec.method == "surgery":
        mask = random_half_mask(cfg.n_layer, cfg.n_head, seed) if spec.mode == "random_half" else None
        callbacks.append(AuxiliaryLoss("sink_penalty", SinkPenalty(spec.mode, spec.sink, mask), weight=spec.lam))
    if spec.method == "l2":
        anchor = [p.detach().clone() for p in model.parameters()]

        def l2(m, b, o):
            return sum(((p - a) ** 2).sum() for p, a in zip(m.parameters(), anchor))
        callbacks.append(AuxiliaryLoss("l2_anchor", l2, weight=spec.l2_mu))
    if evaluate_along:
        if cfg.eval_average > 0:
            ema = TailAverage(cfg.eval_average)
            callbacks.append(ema)

            def measure(m):
                with ema.applied(m):
                    return evaluate(m, wt, spec.sink)
        else:
            def measure(m):
                return evaluate(m, wt, spec.sink)
        if start_metrics is not None:
            missing = [k for k in RUN_METRICS + ("d",) if k not in start_metrics]
            if missing:
                raise ValueError(f"start_metrics lacks {', '.join(missing)}; pass evaluate()'s output or None")
            fresh, calls = measure, [0]

            def measure(m):                                 # the first evaluation is at step 0 (eval_steps)
                calls[0] += 1
                return dict(start_metrics) if calls[0] == 1 else fresh(m)
        callbacks.append(Evaluate(measure, at=eval_steps(total, cfg.n_evals)))
    callbacks.extend(extra_callbacks)
    trainer = Trainer(model, opt, ft_loss, data,
                      TrainerConfig(steps=total, schedule=Constant(warmup=int(round(cfg.warmup_ratio * total))),
                                    seed=seed, device=cfg.device, threads=cfg.threads, show_progress=True,
                                    desc=f"{spec.label} p={spec.p:g} (seed {seed})"),
                      callbacks)
    trainer.run()
    loss_steps, loss = trainer.history("loss")
    pen = trainer.history("loss/sink_penalty")[1] / max(spec.lam, 1e-300) if spec.method == "surgery" else None
    if not evaluate_along:
        empty = {k: np.zeros(0) for k in RUN_METRICS + ("d",)}
        return FineTuneRun(spec, seed, np.zeros(0, dtype=np.int64), **empty, loss_steps=loss_steps, loss=loss,
                           penalty=pen, seconds=trainer.seconds)
    h = {k: trainer.history(k)[1] for k in RUN_METRICS + ("d",)}
    return FineTuneRun(spec, seed, trainer.history("fa")[0], **h, loss_steps=loss_steps, loss=loss, penalty=pen,
                       seconds=trainer.seconds)


# ---------------------------------------------------------------------------------------------- timing
def time_steps(cfg: SurgeryConfig, base: AlignedBase, wt: WorldTensors, specs: dict[str, FineTuneSpec], seed: int,
               steps: int, repeats: int) -> dict[str, np.ndarray]:
    """Seconds per update of each spec (``{name: (repeats,)}``): in every repeat each spec runs ``steps`` updates
    (no evaluation), the specs interleaved so that changes of the machine's load hit them alike; a repeat's value
    is the median of its updates' wall times (an update slowed by another process's burst does not move it)."""
    out = {k: [] for k in specs}
    for _ in range(repeats):
        for name, spec in specs.items():
            times: list[float] = []
            clock = {"t": 0.0}
            cb = LambdaCallback(on_step_start=lambda tr: clock.__setitem__("t", time.perf_counter()),
                                on_step_end=lambda tr: times.append(time.perf_counter() - clock["t"]))
            finetune(cfg, base, wt, spec, seed, steps=steps, evaluate_along=False, extra_callbacks=(cb,))
            out[name].append(float(np.median(times)))
    return {k: np.asarray(v) for k, v in out.items()}
