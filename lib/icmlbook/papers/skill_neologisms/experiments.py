r"""The chapter's experiments, each a function of the config and a seed returning a dataclass of numbers.

Order of work (the notebook runs the independent jobs side by side with ``run.cached_many``):

1. :func:`pretrain` one base per seed (and :func:`pretrain_oracle`, a base that also knows the new skills);
2. :func:`competence` of each base (per operation, per number of operations, held-out orders and lengths, the
   new skills written literally);
3. :func:`skill_study` per (seed, skill): every method of the grid trained on the same skill-centred stream for
   each held-out partner ``T``, evaluated on the validation, held-out-length, partner and original-operation sets
   (:class:`UnitResult`), plus the frozen base with the literal token (the trivial method) and, for the first
   ``T``, the ablations (ℓ, initialisation, noisy labels);
4. :func:`composition` per (seed, T): the two independently trained neologisms loaded together, against each
   alone;
5. :func:`keyword_analogue` per seed: each operation's token replaced by the mean operation row or a random row.

Seeds: seed ``s`` of a run with seed ``r`` uses base seeds ``r, r+1, ...`` (``n_seeds`` of them); every data set
is drawn from its own stream of ``numpy.random.SeedSequence([base seed, purpose, ...])``, so methods of one unit see
the same items and units do not share items.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Sequence

import numpy as np
import torch

from .config import SkillConfig
from .digits import (DigitBatch, DigitVocab, apply_ops, composition_test_set, encode, heldout_orders, op_index,
                     partner_test_sets, sample_pretraining, sample_skill_centred)
from .evaluate import Accuracy, accuracy_of, evaluate_sets, greedy_exact
from .skills import Skill, SkilledLM, mean_op_embedding, weights_digest
from .training import BaseModel, effective_state, make_adapter, pretrain_base, teacher_forced_exact, train_method

__all__ = ["vocab", "base_seeds", "pretrain", "pretrain_oracle", "Competence", "competence", "UnitResult",
           "SkillStudy", "skill_study", "evaluate_unit", "rebuild", "oracle_units", "plots_label", "Composition", "composition", "KeywordAnalogue",
           "keyword_analogue", "GRID_METHODS"]

#: the trained methods of the grid, then the two evaluated ones (no training)
GRID_METHODS = ("neologism", "prompt_tuning", "lora", "full_ft")
# purposes of the random streams
_TRAIN, _VAL, _HELD, _PARTNER, _ORIG, _COMP, _KEY, _COMPETENCE = range(1, 9)


@functools.lru_cache(maxsize=1)
def vocab() -> DigitVocab:
    """The digit world's vocabulary (one per process; it never changes)."""
    return DigitVocab()


def base_seeds(cfg: SkillConfig, seed: int) -> list[int]:
    """The seeds of the independent base models of a run with ``seed``."""
    return [int(seed) + i for i in range(cfg.n_seeds)]


def _rng(*key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(k) for k in key]))


def _stream_seed(*key: int) -> int:
    return int(np.random.SeedSequence([int(k) for k in key]).generate_state(1)[0])


# ------------------------------------------------------------------------------------------------ the bases
def _pretrain(cfg: SkillConfig, seed: int, ops: Sequence[str]) -> BaseModel:
    return pretrain_base(vocab(), ops=ops, lengths=cfg.train_lengths, ks=cfg.ks,
                         heldout_fraction=cfg.heldout_order_fraction, world_seed=seed, d_model=cfg.d_model,
                         n_layer=cfg.n_layer, n_head=cfg.n_head, steps=cfg.pre_steps, phase1_fraction=cfg.phase1_fraction,
                         batch_size=cfg.pre_batch, lr=cfg.pre_lr, warmup=cfg.pre_warmup,
                         weight_decay=cfg.pre_weight_decay, seed=seed, pad_left=cfg.pad_left, pad_prob=cfg.pad_prob,
                         pad_max=cfg.pad_max)


def pretrain(cfg: SkillConfig, seed: int) -> BaseModel:
    """The base of ``seed``: pretrained on ``cfg.pretrain_ops`` only."""
    return _pretrain(cfg, seed, cfg.pretrain_ops)


def pretrain_oracle(cfg: SkillConfig, seed: int) -> BaseModel:
    """The oracle of ``seed``: the same recipe with the new skills as real operations from the start."""
    return _pretrain(cfg, seed, tuple(cfg.pretrain_ops) + tuple(cfg.skills))


# ------------------------------------------------------------------------------------------------ competence
@dataclasses.dataclass
class Competence:
    """What a base can do. ``single``: one-operation accuracy per operation at trained lengths;
    ``single_heldout``: the same at held-out lengths; ``multi``: k-operation accuracy (orders seen in
    pretraining) at trained lengths; ``heldout_orders``: 3-operation orders never shown; ``literal_new``: the new
    skills written with their (never trained) literal token, one operation per item. ``loss_steps``/``loss``: the
    base's pretraining answer-loss curve (empty for a model trained zero updates), which claim 1's convergence guard
    reads."""

    seed: int
    ops: tuple[str, ...]
    single: dict[str, Accuracy]
    single_heldout: dict[str, Accuracy]
    multi: dict[int, Accuracy]
    heldout_orders: Accuracy | None
    literal_new: dict[str, Accuracy]
    loss_steps: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    loss: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))


def competence(cfg: SkillConfig, base: BaseModel, seed: int) -> Competence:
    """Evaluate ``base`` (greedy exact match, ``cfg.competence_n`` items per cell)."""
    v = vocab()
    model = base.model()
    enc = lambda b, answer=True: encode(b, v, answer=answer)  # noqa: E731
    rng = _rng(seed, _COMPETENCE)
    n = cfg.competence_n
    single, single_held = {}, {}
    for op in base.ops:
        single[op] = accuracy_of(greedy_exact(model, sample_pretraining(rng, n, (op,), (1,), cfg.train_lengths), enc, v))
        single_held[op] = accuracy_of(greedy_exact(model, sample_pretraining(rng, n, (op,), (1,), cfg.heldout_lengths),
                                                   enc, v))
    held = heldout_orders(base.ops, cfg.heldout_order_fraction, seed) if cfg.max_ops >= 3 else frozenset()
    multi = {k: accuracy_of(greedy_exact(model, sample_pretraining(rng, n, base.ops, (k,), cfg.train_lengths, held),
                                         enc, v)) for k in cfg.ks if k > 1}
    held_acc = None
    if held:
        orders = sorted(held)
        pick = rng.integers(0, len(orders), size=n)
        ops = np.array([[op_index(o) for o in orders[i]] for i in pick], dtype=np.int64)
        b = sample_pretraining(rng, n, base.ops, (1,), cfg.train_lengths)
        b = DigitBatch(ops, b.digits, b.lengths, apply_ops(ops, b.digits, b.lengths))
        held_acc = accuracy_of(greedy_exact(model, b, enc, v))
    literal = {s: accuracy_of(greedy_exact(model, sample_pretraining(rng, n, (s,), (1,), cfg.train_lengths), enc, v))
               for s in cfg.skills if s not in base.ops}
    return Competence(seed, base.ops, single, single_held, multi, held_acc, literal, np.asarray(base.steps, float),
                      np.asarray(base.loss, float))


# ------------------------------------------------------------------------------------------------ one unit
@dataclasses.dataclass
class UnitResult:
    """One method on one (skill S, held-out partner T, base seed), after training.

    ``in_dist``: validation accuracy per k on :math:`D(S,\\Sigma)` at trained lengths; ``heldout_len``: the same
    items' kind at the held-out lengths; ``partner``: per (k, length, pattern) of the partner test;
    ``original`` / ``original_base``: accuracy on the original operations (no S) after / before adaptation;
    the partner test is decoded greedily (batched), the other sets' exact match is read off the teacher-forced argmax,
    which is the same number (:func:`_exact`); ``curve_*``: teacher-forced exact match on the validation and
    partner sets at
    ``curve_steps`` (``curve_original``: the same on the original-operation set, which claim 8's guard
    reads); ``digest_before`` / ``digest_after``: SHA-256 of the base weights; ``rows``: the trained new
    rows (neologism, prompt tuning); ``weights``: the weights LoRA or full fine-tuning compute with (a plain GPT
    state dict, LoRA merged), so that the trained model can be rebuilt (:func:`rebuild`)."""

    method: str
    skill: str
    test_op: str
    seed: int
    ell: int
    init: str
    corrupt: float
    n_trainable: int
    in_dist: dict[int, Accuracy]
    heldout_len: Accuracy
    partner: dict[tuple[int, int, str], Accuracy]
    original: Accuracy
    original_base: Accuracy
    curve_steps: np.ndarray
    curve_in: np.ndarray
    curve_partner: np.ndarray
    loss_steps: np.ndarray
    loss: np.ndarray
    digest_before: str
    digest_after: str
    seconds: float
    rows: torch.Tensor | None = None
    weights: dict | None = None
    curve_original: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))

    @property
    def in_dist_all(self) -> Accuracy:
        return Accuracy(sum(a.k for a in self.in_dist.values()), sum(a.n for a in self.in_dist.values()))

    def partner_k(self, k: int | None = None, lengths: Sequence[int] | None = None) -> Accuracy:
        """Pooled partner accuracy over k (all when None) and lengths (all when None)."""
        sel = [a for (kk, L, _), a in self.partner.items() if (k is None or kk == k) and (lengths is None or L in lengths)]
        return Accuracy(sum(a.k for a in sel), sum(a.n for a in sel))

    def partner_by_pattern(self) -> dict[tuple[int, str], Accuracy]:
        out: dict[tuple[int, str], list[Accuracy]] = {}
        for (k, _, pat), a in self.partner.items():
            out.setdefault((k, pat), []).append(a)
        return {key: Accuracy(sum(a.k for a in v), sum(a.n for a in v)) for key, v in sorted(out.items())}

    @property
    def original_change(self) -> float:
        return self.original.value - self.original_base.value

    @property
    def weights_unchanged(self) -> bool:
        return self.digest_before == self.digest_after


@dataclasses.dataclass
class _UnitSets:
    val: DigitBatch
    heldout: DigitBatch
    partner: dict
    original: DigitBatch


def _unit_sets(cfg: SkillConfig, seed: int, skill: str, test_op: str) -> _UnitSets:
    s, t = op_index(skill), op_index(test_op)
    others = cfg.others(test_op)
    val = sample_skill_centred(_rng(seed, _VAL, s, t), cfg.val_size, skill, others, cfg.ks, cfg.train_lengths)
    held = sample_skill_centred(_rng(seed, _HELD, s, t), cfg.val_size, skill, others, cfg.ks, cfg.heldout_lengths)
    partner = partner_test_sets(_rng(seed, _PARTNER, s, t), skill, test_op, others, cfg.all_lengths, cfg.n_per_group,
                                ks=cfg.partner_ks)
    orig = sample_pretraining(_rng(seed, _ORIG, s, t), cfg.forget_size, cfg.pretrain_ops, cfg.ks, cfg.train_lengths)
    return _UnitSets(val, held, partner, orig)


def _exact(model, batch: DigitBatch, encode_fn, zeroed, chunk: int = 512) -> np.ndarray:
    """Exact match per item read off the teacher-forced argmax (:func:`.training.teacher_forced_exact`), which is
    exactly greedy decoding's exact match (tested) at the cost of one forward pass; in chunks of ``chunk`` items."""
    out = [teacher_forced_exact(model, encode_fn(batch.select(np.arange(i, min(i + chunk, len(batch))))), zeroed)
           for i in range(0, len(batch), chunk)]
    return np.concatenate(out) if out else np.zeros(0, dtype=bool)


def _by_k(batch: DigitBatch, right: np.ndarray) -> dict[int, Accuracy]:
    k = batch.n_ops
    return {int(kk): accuracy_of(right[k == kk]) for kk in np.unique(k)}


def evaluate_unit(cfg: SkillConfig, base: BaseModel, seed: int, skill: str, test_op: str, method: str, *,
                  ell: int | None = None, init: str = "mean_ops", corrupt: float = 0.0,
                  trained: bool = True, orig_base: Accuracy | None = None) -> UnitResult:
    """Train (``trained=True``) and evaluate ``method`` on the unit (skill, test_op, seed).

    ``method`` is one of :data:`GRID_METHODS`, or ``"base"`` (the frozen base with the literal token: no
    training) or ``"oracle"`` (``base`` must then be the oracle; no training). ``trained=False`` evaluates a
    method at its initialisation (the neologism's mean-operation rows untrained, a trivial method).
    ``orig_base``: the frozen base's accuracy on this unit's original-operation set when already measured (the
    ``original_base`` of another unit of the same base, seed, skill and T: the same model on the same items),
    so that :func:`skill_study` computes it once per T instead of once per method."""
    v = vocab()
    sets = _unit_sets(cfg, seed, skill, test_op)
    model0 = base.model()
    digest0 = weights_digest(model0)
    ell = cfg.ell if ell is None else int(ell)
    s, t = op_index(skill), op_index(test_op)
    plain = lambda b, answer=True, require=True: encode(b, v, answer=answer)  # noqa: E731
    if orig_base is None:
        orig_base = accuracy_of(_exact(model0, sets.original, plain, []))
    empty = np.zeros(0)
    if method in ("base", "oracle"):
        model, encode_fn, zeroed, n_tr, seconds = model0, plain, [], 0, 0.0
        curve_steps, curve_in, curve_partner, loss_steps, loss = empty.astype(int), empty, empty, empty.astype(int), empty
        curve_original = empty
        digest1, rows = digest0, None
        eff = None
    else:
        gen = torch.Generator().manual_seed(_stream_seed(seed, _TRAIN, s, t, 99))
        adapted = make_adapter(method, model0, v, skill, length=ell, init=init, lora_r=cfg.lora_r,
                               lora_alpha=cfg.lora_alpha, generator=gen)
        steps = cfg.adapt_steps
        eval_at = sorted({0, *[int(round(steps * f / 6)) for f in range(1, 7)], int(round(steps / (1 + cfg.plateau_extend)))})
        partner_all = DigitBatch.concat(list(sets.partner.values()))
        partner_e = adapted.encode_fn(partner_all)
        original_e = adapted.encode_fn(sets.original, True, require=False)
        if trained:
            tm = train_method(adapted, skill=skill, others=cfg.others(test_op), ks=cfg.ks, lengths=cfg.train_lengths,
                              steps=steps, batch_size=cfg.adapt_batch, lr=cfg.lr_of(method), warmup=cfg.adapt_warmup,
                              weight_decay=0.0, seed=_stream_seed(seed, _TRAIN, s, t), val=sets.val,
                              eval_at=eval_at, corrupt=corrupt,
                              extra_eval={"partner_exact": partner_e, "original_exact": original_e})
            curve_steps, curve_in, loss_steps, loss, seconds = tm.curve_steps, tm.curve, tm.loss_steps, tm.loss, tm.seconds
            curve_partner, curve_original = tm.extra_curves["partner_exact"], tm.extra_curves["original_exact"]
        else:
            curve_steps, curve_in, curve_partner, curve_original = empty.astype(int), empty, empty, empty
            loss_steps, loss, seconds = empty.astype(int), empty, 0.0
        model, encode_fn, zeroed, n_tr = adapted.model, adapted.encode_fn, adapted.zeroed, adapted.n_trainable
        eff = None
        if method in ("neologism", "prompt_tuning"):
            digest1 = model.base_digest()                       # the frozen copy inside the method
            rows = model.gpt.tok.extra.detach().clone()
        else:
            eff = effective_state(model)                        # what the adapted model computes with
            digest1 = weights_digest(eff)
            rows = None
    val_right = _exact(model, sets.val, encode_fn, zeroed)
    held_right = _exact(model, sets.heldout, encode_fn, zeroed)
    partner_right = evaluate_sets(model, sets.partner, encode_fn, v, zeroed)      # the paper's test: greedy decoding
    if method in ("base", "oracle"):
        orig = orig_base                                      # the same model on the same items: computed once
    else:
        orig = accuracy_of(_exact(model, sets.original, lambda b, answer=True: encode_fn(b, answer, require=False),
                                  zeroed))
    return UnitResult(method, skill, test_op, seed, ell, init, float(corrupt), n_tr, _by_k(sets.val, val_right),
                      accuracy_of(held_right), {k: accuracy_of(r) for k, r in partner_right.items()}, orig, orig_base,
                      np.asarray(curve_steps), np.asarray(curve_in), np.asarray(curve_partner), np.asarray(loss_steps),
                      np.asarray(loss), digest0, digest1, float(seconds), rows,
                      None if eff is None else {k: v.detach().clone() for k, v in eff.items()},
                      np.asarray(curve_original))


_LABELS = {"base": "frozen base, literal token", "neologism": "neologism", "prompt_tuning": "prompt tuning",
           "lora": "LoRA", "full_ft": "full fine-tuning", "oracle": "oracle"}


def plots_label(method: str) -> str:
    """A method's name on the page."""
    return _LABELS[method]


def rebuild(unit: UnitResult, base: BaseModel):
    """The trained model of ``unit`` on ``base`` and its prompt writer: ``(model, encode_fn, zeroed)`` with
    ``encode_fn(batch, answer=True)``."""
    v = vocab()
    g = base.model()
    if unit.method in ("neologism", "prompt_tuning"):
        if unit.rows is None:
            raise ValueError(f"the {unit.method} unit carries no rows")
        m = (SkilledLM(g, [Skill(unit.skill, unit.rows)]) if unit.method == "neologism"
             else SkilledLM(g, prefix=Skill("PREFIX", unit.rows)))
        return m, (lambda b, answer=True: m.encode(b, v, answer)), m.new_ids
    if unit.method in ("lora", "full_ft"):
        if unit.weights is None:
            raise ValueError(f"the {unit.method} unit carries no weights")
        g.load_state_dict(unit.weights)
    elif unit.method not in ("base", "oracle"):
        raise ValueError(f"unit.method={unit.method!r} is not allowed; allowed values: base, oracle, neologism, "
                         "prompt_tuning, lora, full_ft")
    g.eval()
    return g, (lambda b, answer=True: encode(b, v, answer=answer)), []


# ------------------------------------------------------------------------------------------------ one skill
@dataclasses.dataclass
class SkillStudy:
    """Every unit of one (seed, skill): ``units[(method, T)]`` for the grid's methods and the frozen base, the
    ablations on the first T: ``ablations[name]`` (``"ell=1"``, ``"init=random"``, ``"corrupt=0.2"``, and
    ``"untrained"``: the mean-operation rows before any update), and the base's :class:`Competence` (the claims
    decide nothing on a base that cannot do the known operations)."""

    seed: int
    skill: str
    units: dict[tuple[str, str], UnitResult]
    ablations: dict[str, UnitResult]
    competence: Competence | None = None


def skill_study(cfg: SkillConfig, base: BaseModel, seed: int, skill: str) -> SkillStudy:
    """All trainings of one skill on one base (a job of ``run.cached_many``)."""
    units = {}
    for test_op in cfg.test_ops:
        units[("base", test_op)] = evaluate_unit(cfg, base, seed, skill, test_op, "base")
        ob = units[("base", test_op)].original_base               # the frozen base's, measured once per T
        for method in GRID_METHODS:
            units[(method, test_op)] = evaluate_unit(cfg, base, seed, skill, test_op, method, orig_base=ob)
    t0 = cfg.test_ops[0]
    ob = units[("base", t0)].original_base
    ablations = {"untrained": evaluate_unit(cfg, base, seed, skill, t0, "neologism", trained=False, orig_base=ob)}
    for ell in cfg.ablation_ells:
        if ell != cfg.ell:
            ablations[f"ell={ell}"] = evaluate_unit(cfg, base, seed, skill, t0, "neologism", ell=ell, orig_base=ob)
    if cfg.ablation_random_init:
        ablations["init=random"] = evaluate_unit(cfg, base, seed, skill, t0, "neologism", init="random",
                                                 orig_base=ob)
    for c in cfg.ablation_corrupt:
        if c > 0:
            ablations[f"corrupt={c:g}"] = evaluate_unit(cfg, base, seed, skill, t0, "neologism", corrupt=c,
                                                        orig_base=ob)
    return SkillStudy(seed, skill, units, ablations, competence(cfg, base, seed))


def oracle_units(cfg: SkillConfig, oracle: BaseModel, seed: int) -> dict[tuple[str, str], UnitResult]:
    """The oracle evaluated on every (skill, T) unit of ``seed`` (no training: it knows the skills)."""
    return {(skill, t): evaluate_unit(cfg, oracle, seed, skill, t, "oracle") for skill in cfg.skills
            for t in cfg.test_ops}


# ------------------------------------------------------------------------------------------------ composition
@dataclasses.dataclass
class Composition:
    """Zero-shot composition on one (seed, T): items with exactly the two new skills, either order; accuracy with
    both neologisms loaded (``both``), and with one loaded and the other written literally (``alone[name]``);
    per (length, order)."""

    seed: int
    test_op: str
    both: dict[tuple[int, str], Accuracy]
    alone: dict[str, dict[tuple[int, str], Accuracy]]

    @staticmethod
    def pooled(cells: dict) -> Accuracy:
        return Accuracy(sum(a.k for a in cells.values()), sum(a.n for a in cells.values()))


def composition(cfg: SkillConfig, base: BaseModel, seed: int, rows: dict[str, torch.Tensor], test_op: str) -> Composition:
    """Load the independently trained neologisms ``rows`` (skill name -> (ℓ, d)) together and one at a time."""
    if len(rows) != 2:
        raise ValueError(f"composition needs exactly two skills; got {sorted(rows)}")
    v = vocab()
    a, b = sorted(rows, key=op_index)
    model0 = base.model()
    sets = composition_test_set(_rng(seed, _COMP, op_index(test_op)), a, b, cfg.all_lengths, cfg.comp_n_per)
    both = SkilledLM(model0, [Skill(a, rows[a]), Skill(b, rows[b])])
    out_both = evaluate_sets(both, sets, lambda x, answer=True: both.encode(x, v, answer, require=(a, b)), v,
                             both.new_ids)
    alone = {}
    for name in (a, b):
        one = SkilledLM(model0, [Skill(name, rows[name])])
        res = evaluate_sets(one, sets, lambda x, answer=True, m=one: m.encode(x, v, answer), v, one.new_ids)
        alone[name] = {k: accuracy_of(r) for k, r in res.items()}
    return Composition(seed, test_op, {k: accuracy_of(r) for k, r in out_both.items()}, alone)


# ------------------------------------------------------------------------------------------------ keyword analogue
@dataclasses.dataclass
class KeywordAnalogue:
    """Per pretraining operation, the base's one-operation accuracy with its token (``with_token``), with the
    token's row replaced by the mean operation row (``mean_row``) and by a random row of the same norm
    (``random_row``)."""

    seed: int
    with_token: dict[str, Accuracy]
    mean_row: dict[str, Accuracy]
    random_row: dict[str, Accuracy]


def keyword_analogue(cfg: SkillConfig, base: BaseModel, seed: int) -> KeywordAnalogue:
    """The tiny model's analogue of the paper's keyword experiment (section 4): is the procedure addressed
    through the operation's token?"""
    v = vocab()
    model0 = base.model()
    plain = lambda b, answer=True: encode(b, v, answer=answer)  # noqa: E731
    mean = mean_op_embedding(model0, v, base.ops)
    norm = float(model0.tok.weight.detach()[[v.op_id(o) for o in base.ops]].norm(dim=1).mean())
    gen = torch.Generator().manual_seed(_stream_seed(seed, _KEY, 7))
    rng = _rng(seed, _KEY)
    with_token, mean_row, random_row = {}, {}, {}
    for op in base.ops:
        items = sample_pretraining(rng, cfg.keyword_n, (op,), (1,), cfg.train_lengths)
        with_token[op] = accuracy_of(greedy_exact(model0, items, plain, v))
        r = torch.randn(model0.cfg.d_model, generator=gen)
        r = r / r.norm() * norm
        for row, store in ((mean, mean_row), (r, random_row)):
            m = SkilledLM(model0, [Skill(op, row[None, :])])
            store[op] = accuracy_of(greedy_exact(m, items, lambda x, answer=True, mm=m: mm.encode(x, v, answer), v,
                                                 m.new_ids))
    return KeywordAnalogue(seed, with_token, mean_row, random_row)
