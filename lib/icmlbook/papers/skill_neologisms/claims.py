r"""The claims of the skill-neologisms chapter and the rules that decide them (``shared/design/CLAIMS.md``).

Paper: Berthon, Astorga & van der Schaar, "Skill Neologisms: Towards Skill-based Continual Learning", ICML 2026,
arXiv 2605.04970. We read the abstract and the official code; the paper's figures, tables and numbers were not
reached, so every ``paper=`` text quotes the abstract or says "not reached", and the quantitative forms below
(bars, margins, which metric) are ours, fixed in the config before the run (:data:`THRESHOLDS`).

Units and statistics. The replicate of the method claims is a unit (skill S, held-out partner T, base seed): every
unit has its own base-independent data streams, and units on different base seeds share nothing. A rule takes one
number per unit (an accuracy, or a paired difference between two methods on the same unit), forms the 95 %
t-interval of its mean (:func:`icmlbook.runtime.stats.mean_t_interval`) and decides with
:func:`icmlbook.runtime.stats.decide_interval` against the declared bar or margin: reproduced when the interval
clears it, not reproduced when the whole interval lies on the far side, inconclusive ("interval spans both")
otherwise. A rule with several parts passes when every part passes and fails when any part is decided against the
claim. Every rule but claim 1 first asks that each base has learned its operations (no operation alone with its
interval wholly below ``gate_single``): on a base that has not, the row is inconclusive ("not converged"), whatever
the numbers. A part that compares trained models is decided only when each of them passed the declared plateau test
(:func:`icmlbook.training.plateau_from_curve`, CLAIMS.md rule 10: its curve, read back from T to T / (1 + extend),
moves by less than ``plateau_share`` of the rule's margin); otherwise the part, and unless another part is against
the claim the row, is inconclusive ("not converged"). A model trained for zero updates (the frozen base, an
untrained initialisation) is at its own plateau.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...runtime.claims import ClaimCheck, abstract_sentence, claim_rule, not_testable, refuse_changed_thresholds
from ...runtime.stats import IntervalDecision, decide_interval, mean_t_interval
from ...training import Convergence, PlateauTest, plateau_check, plateau_from_curve
from .config import THRESHOLD_FIELDS, SkillConfig
from .experiments import Competence, Composition, KeywordAnalogue, SkillStudy, UnitResult

__all__ = ["THRESHOLDS", "base_convergence", "check_thresholds", "claim1_base_competence", "claim2_acquisition", "claim3_transfer",
           "claim3b_transfer_vs_lora", "claim4_composition", "claim5_lengths", "claim6a_length", "claim6b_init",
           "claim6c_noise", "keyword_losses", "claim8a_forgetting_ft", "claim8b_forgetting_lora", "units_of"]

#: the decision thresholds and their declared (fixed) values
THRESHOLDS: dict[str, float] = {f: getattr(SkillConfig(), f) for f in THRESHOLD_FIELDS}
_T = THRESHOLDS
#: the margin of the convergence guard for rules decided against a bar (C2, C5, C8): the bar rules' smallest
#: accuracy change of interest, the same 0.1 as the transfer and ablation margins
_GUARD = _T["guard_margin"]
_PCT = f"{100 * _T['ci_level']:g} %"
#: every rule after claim 1 is decided only on competent bases
_ON = f"on bases that do each known operation alone above {_T['gate_single']:g} (else inconclusive), "


def check_thresholds(cfg: SkillConfig) -> None:
    """Refuse a config whose decision thresholds differ from the declared ones (fixed before the run; the rule
    texts are written from them)."""
    refuse_changed_thresholds(cfg, _T)


# ------------------------------------------------------------------------------------------------ helpers
def units_of(studies: Sequence[SkillStudy], method: str) -> list[UnitResult]:
    """The grid units of ``method`` over every study, in a fixed order (skill, T, seed)."""
    out = [u for st in studies for (m, _), u in st.units.items() if m == method]
    return sorted(out, key=lambda u: (u.skill, u.test_op, u.seed))


def _ablation(studies: Sequence[SkillStudy], name: str) -> list[UnitResult]:
    return [st.ablations[name] for st in sorted(studies, key=lambda s: (s.skill, s.seed)) if name in st.ablations]


def _main_at_t0(studies: Sequence[SkillStudy], cfg: SkillConfig) -> list[UnitResult]:
    t0 = cfg.test_ops[0]
    return [st.units[("neologism", t0)] for st in sorted(studies, key=lambda s: (s.skill, s.seed))]


def _test() -> PlateauTest:
    return PlateauTest(_T["plateau_extend"], _T["plateau_share"])


def _convergence(units: Sequence[UnitResult], curve: str, margin: float, name: str) -> Convergence:
    """The plateau test over ``units`` on their ``curve`` ("in" or "partner"); units without a curve (zero
    updates) count as converged with change 0."""
    trained = [u for u in units if u.curve_steps.size]
    if not trained:
        return plateau_check(np.zeros(len(units)), np.zeros(len(units)), margin, _test(), name)
    steps = trained[0].curve_steps
    if any(u.curve_steps.shape != steps.shape or np.any(u.curve_steps != steps) for u in trained):
        raise ValueError(f"{name}: the units' curves were logged at different steps")
    values = np.stack([u.curve_in if curve == "in" else u.curve_partner for u in trained])
    return plateau_from_curve(steps, values, margin, _test(), name)


def _interval(values) -> tuple[float, float, float, int]:
    v = np.asarray(values, float)
    ci = mean_t_interval(v, _T["ci_level"])
    return ci.mean, ci.lo, ci.hi, ci.n


def _part(decision: IntervalDecision | bool, *guards: Convergence) -> tuple[bool | None, str | None]:
    """One part of a rule: its decision, or undecided ("not converged") when a model it compares failed its
    plateau test (CLAIMS.md rule 10)."""
    if any(not g.converged for g in guards):
        return None, "not converged"
    if isinstance(decision, bool):
        return decision, None
    return decision.passed, decision.kind


def _decide(measured: str, parts: dict[str, tuple[bool | None, str | None]], guards: Sequence[Convergence],
            values: dict, competences: Sequence[Competence | None] | None = None) -> ClaimCheck:
    """All parts must pass. A part decided against the claim fails the row (evidence against it, whatever the
    other parts); otherwise an undecided part makes the row inconclusive, "not converged" when a compared model
    failed its plateau test, else "interval spans both". Before any of this, a base that does not do half of an
    operation alone, or whose pretraining loss has not passed claim 1's plateau test, makes the row inconclusive
    (:func:`base_gate`)."""
    if competences is not None:
        gate = base_gate(competences, measured)
        if gate is not None:
            return gate
    outcomes = {k: o for k, (o, _) in parts.items()}
    values = dict(values, parts=outcomes)
    against = [k for k, o in outcomes.items() if o is False]
    if against:
        return ClaimCheck(measured + "; against the claim: " + ", ".join(against), False, values)
    if all(o is True for o in outcomes.values()):
        return ClaimCheck(measured, True, values)
    open_parts = [k for k, o in outcomes.items() if o is None]
    if any(parts[k][1] == "not converged" for k in open_parts):
        return ClaimCheck.inconclusive_check(measured + "; undecided: " + ", ".join(open_parts), "not converged",
                                             "; ".join(g.text for g in guards if not g.converged), values)
    return ClaimCheck.inconclusive_check(measured + "; undecided: " + ", ".join(open_parts), "interval spans both",
                                         "a 95 % interval contains the bar or margin (too few units or too much "
                                         "spread to tell the claim from its negation)", values)


def _ci_text(mean, lo, hi, n) -> str:
    if not np.isfinite(lo):
        return f"{mean:.3f} (n = {n}: no interval)"
    return f"{mean:.3f} [{lo:.3f}, {hi:.3f}] (n = {n})"


def _paired(a: Sequence[UnitResult], b: Sequence[UnitResult], what) -> np.ndarray:
    key = lambda u: (u.skill, u.test_op, u.seed)  # noqa: E731
    bmap = {key(u): u for u in b}
    missing = [key(u) for u in a if key(u) not in bmap]
    if missing:
        raise ValueError(f"units {missing[:3]} have no partner in the comparison")
    return np.array([what(u) - what(bmap[key(u)]) for u in a])


# ------------------------------------------------------------------------------------------------ C1
def _competence_parts(c: Competence) -> dict[str, IntervalDecision]:
    parts = {f"{op} alone (seed {c.seed})": decide_interval(*a.interval, _T["competence_single"])
             for op, a in c.single.items()}
    for k, a in c.multi.items():
        parts[f"{k} operations (seed {c.seed})"] = decide_interval(*a.interval, _T["competence_multi"])
    if c.heldout_orders is not None:
        parts[f"held-out orders (seed {c.seed})"] = decide_interval(*c.heldout_orders.interval, _T["competence_multi"])
    for s, a in c.literal_new.items():
        parts[f"{s} literal (seed {c.seed})"] = decide_interval(*a.interval, _T["literal_ceiling"], side="upper")
    return parts


def _incompetent(competences: Sequence[Competence | None]) -> list[int]:
    """Seeds of bases that have not learned the known operations: some operation alone with its Wilson interval
    wholly below ``gate_single`` (a base that does not even do half of its operations; claim 1's bars are stricter).
    On such a base no comparison says anything about the method."""
    out = []
    for c in competences:
        if c is None:
            raise ValueError("the study carries no competence of its base")
        if any(decide_interval(*a.interval, _T["gate_single"]).passed is False for a in c.single.values()):
            out.append(c.seed)
    return sorted(set(out))


def base_gate(competences: Sequence[Competence | None], measured: str) -> ClaimCheck | None:
    """None when every base has learned its operations (:func:`_incompetent`) and passed claim 1's plateau test on
    its pretraining answer loss (:func:`base_convergence`); otherwise the row's *inconclusive* check (not
    converged): every method of the row is trained on that base, and a base whose loss still falls (or that does not
    do half of one operation) may give another comparison once trained longer (CLAIMS.md rule 10)."""
    bad = _incompetent(competences)
    if bad:
        return ClaimCheck.inconclusive_check(
            measured, "not converged",
            f"the base of seed(s) {bad} has not learned the known operations at this profile (an operation alone "
            f"below {_T['gate_single']:g}), so no comparison made on it can tell the claim from its negation")
    moving = [g for g in (base_convergence(c) for c in competences) if not g.converged]
    if moving:
        return ClaimCheck.inconclusive_check(
            measured, "not converged",
            "every method of this row is trained on a base still improving at this profile: "
            + "; ".join(g.text for g in moving)
            + " (the row is decided once each base passes claim 1's plateau test)")
    return None


def _comps(studies: Sequence[SkillStudy]) -> list[Competence | None]:
    return [st.competence for st in studies]


def base_convergence(c: Competence) -> Convergence:
    """Claim 1's plateau test on a base's pretraining answer loss (``base_loss_margin`` nats; each end of the curve
    averaged over a twentieth of its logged points, mini-batch losses being noisy). A base trained zero updates (no
    curve) is at its own plateau."""
    name = f"base of seed {c.seed} (pretraining answer loss)"
    steps, loss = np.asarray(c.loss_steps, float), np.asarray(c.loss, float)
    if steps.size < 2:
        return plateau_check(0.0, 0.0, _T["base_loss_margin"], _test(), name)
    return plateau_from_curve(steps, loss, _T["base_loss_margin"], _test(), name, window=max(1, steps.size // 20))


@claim_rule(
    "C1",
    statement="The base model (ours, trained from scratch) is competent in the digit world: it solves each "
              "pretraining operation alone, compositions of 2 and 3 of them, including 3-operation orders it never "
              "saw, and cannot do the new skills written with their literal token.",
    rule=f"on every base seed, the Wilson {_PCT} interval of greedy exact match above {_T['competence_single']:g} "
         f"for each operation alone (trained lengths), above {_T['competence_multi']:g} for 2 and 3 operations and "
         f"for the held-out 3-operation orders, and below {_T['literal_ceiling']:g} for each new skill written "
         f"literally; against the claim when an interval lies wholly on the wrong side and that base passed the "
         f"plateau test on its pretraining answer loss (training {100 * _T['plateau_extend']:g} % longer moves it by "
         f"less than {_T['plateau_share'] * _T['base_loss_margin']:.3g} nats), inconclusive (not converged) when "
         f"it did not",
    rejects="a base that learned single operations but not their composition (multi-operation accuracy at or "
            "below 0.5), or one that already knows the new skills (the literal token would then be no new skill); "
            "a base stopped while its loss still falls decides nothing",
    paper="the paper's base (Qwen2.5-0.5B adapted with LoRA to the digit world) is competent on the pretraining "
          "operations; its accuracies: not reached",
)
def claim1_base_competence(competences: Sequence[Competence], cfg: SkillConfig) -> ClaimCheck:
    check_thresholds(cfg)
    if not competences:
        raise ValueError("claim 1 needs at least one base's competence")
    parts: dict[str, tuple[bool | None, str | None]] = {}
    guards: list[Convergence] = []
    worst_single, worst_multi, worst_lit = 1.0, 1.0, 0.0
    for c in competences:
        g = base_convergence(c)
        guards.append(g)
        for name, d in _competence_parts(c).items():
            # a bar missed by a base whose loss is still falling is not shown, not evidence against (rule 9)
            parts[name] = (None, "not converged") if d.passed is False and not g.converged else _part(d)
        worst_single = min([worst_single] + [a.value for a in c.single.values()])
        worst_multi = min([worst_multi] + [a.value for a in c.multi.values()]
                          + ([c.heldout_orders.value] if c.heldout_orders is not None else []))
        worst_lit = max([worst_lit] + [a.value for a in c.literal_new.values()])
    held = [c.heldout_orders.value for c in competences if c.heldout_orders is not None]
    measured = (f"{len(competences)} base(s): lowest single-operation accuracy {worst_single:.3f}, lowest multi-operation "
                f"{worst_multi:.3f}" + (f" (held-out orders {min(held):.3f})" if held else "")
                + f", highest literal new-skill accuracy {worst_lit:.3f}")
    return _decide(measured, parts, guards, {})


# ------------------------------------------------------------------------------------------------ C2
@claim_rule(
    "C2",
    statement="A skill neologism learns the new skill without any weight update: in-distribution accuracy on "
              "D(S, Σ) becomes high while the base's weights stay bitwise equal.",
    rule=f"{_ON}over units (skill, T, base seed), the {_PCT} t-interval of the neologism's in-distribution exact match "
         f"(1 to max_ops operations, trained lengths) above {_T['acquisition_bar']:g}, and the SHA-256 of the base "
         "weights equal before and after training on every unit; convergence guard on the validation curve "
         f"(margin {_T['guard_margin']:g})",
    rejects="a neologism that learns only part of the skill (accuracy at or below the bar), or the frozen base with "
            "the literal token (about 0)",
    paper="abstract: “skill neologisms can be learned to improve model capabilities on specific skills”, “without "
          "weight updates”; accuracies: not reached",
)
def claim2_acquisition(studies: Sequence[SkillStudy], cfg: SkillConfig) -> ClaimCheck:
    check_thresholds(cfg)
    units = units_of(studies, "neologism")
    if not units:
        raise ValueError("claim 2 needs neologism units")
    acc = np.array([u.in_dist_all.value for u in units])
    mean, lo, hi, n = _interval(acc)
    unchanged = all(u.weights_unchanged for u in units)
    measured = (f"in-distribution exact match {_ci_text(mean, lo, hi, n)} over units; base weights "
                f"{'bitwise unchanged on every unit' if unchanged else 'CHANGED on some unit'}")
    g = _convergence(units, "in", _GUARD, "neologism")
    return _decide(measured, {"accuracy above the bar": _part(decide_interval(lo, hi, _T["acquisition_bar"]), g),
                              "weights unchanged": _part(unchanged)}, [g],
                   {"accuracy": acc, "weights_unchanged": unchanged}, _comps(studies))


# ------------------------------------------------------------------------------------------------ C3
def _transfer(studies: Sequence[SkillStudy], cfg: SkillConfig, other: str, label: str) -> ClaimCheck:
    check_thresholds(cfg)
    neo, oth = units_of(studies, "neologism"), units_of(studies, other)
    if not neo:
        raise ValueError("the transfer claim needs neologism units")
    d = _paired(neo, oth, lambda u: u.partner_k().value)
    pn = np.array([u.partner_k().value for u in neo])
    dm, dlo, dhi, n = _interval(d)
    pm, plo, phi, _ = _interval(pn)
    po = np.array([u.partner_k().value for u in oth])
    measured = (f"partner accuracy (k = 2, 3 pooled, all lengths): neologism {_ci_text(pm, plo, phi, n)}, {label} "
                f"{po.mean():.3f}; paired difference {_ci_text(dm, dlo, dhi, n)}")
    gn = _convergence(neo, "partner", _T["transfer_margin"], "neologism")
    go = _convergence(oth, "partner", _T["transfer_margin"], label)
    parts = {f"neologism above the floor {_T['transfer_floor']:g}": _part(decide_interval(plo, phi, _T["transfer_floor"]), gn),
             f"difference above {_T['transfer_margin']:g}": _part(decide_interval(dlo, dhi, _T["transfer_margin"]), gn, go)}
    return _decide(measured, parts, [gn, go], {"difference": d, "neologism": pn, "other": po}, _comps(studies))


@claim_rule(
    "C3",
    statement="A neologism composes with an out-of-distribution skill: on items pairing the new skill S with the "
              "operation T that was left out of its training data, it is well above chance and above prompt tuning "
              "(the same number of trainable rows, placed as a prefix, with S written literally).",
    rule=f"{_ON}over units, the {_PCT} t-interval of the neologism's partner-test exact match (k = 2 and 3, every "
         f"ordering pattern and length) above {_T['transfer_floor']:g}, and that of the paired difference neologism − "
         f"prompt tuning above {_T['transfer_margin']:g}; convergence guard on both partner curves (margin "
         f"{_T['transfer_margin']:g})",
    rejects="placement does not matter (the prefix transfers as well as the neologism: difference at or below "
            f"{_T['transfer_margin']:g}), or nothing transfers (neologism at or below the floor)",
    paper="abstract: neologisms improve skills “while being composable with out-of-distribution skills”; the "
          "comparison with prompt tuning and its numbers: not reached",
)
def claim3_transfer(studies: Sequence[SkillStudy], cfg: SkillConfig) -> ClaimCheck:
    return _transfer(studies, cfg, "prompt_tuning", "prompt tuning")


@claim_rule(
    "C3b",
    statement="A neologism transfers to the out-of-distribution partner better than LoRA trained on the same data "
              "and updates (the new skill written literally).",
    rule=f"{_ON}over units, the {_PCT} t-interval of the neologism's partner exact match above "
         f"{_T['transfer_floor']:g} and that of the paired difference neologism − LoRA above "
         f"{_T['transfer_margin']:g}; convergence guard on both partner curves",
    rejects=f"LoRA transfers as well (difference at or below {_T['transfer_margin']:g})",
    paper="not reached (the dossier's reading of the paper's digit-task figure: LoRA and prompt tuning transfer less)",
)
def claim3b_transfer_vs_lora(studies: Sequence[SkillStudy], cfg: SkillConfig) -> ClaimCheck:
    return _transfer(studies, cfg, "lora", "LoRA")


# ------------------------------------------------------------------------------------------------ C4
@claim_rule(
    "C4",
    statement="Independently trained neologisms compose zero-shot: loaded together, the SHIFT_RIGHT and "
              "INVERT_POLARITY neologisms solve items that need both, far better than either one alone.",
    rule=f"{_ON}over units (T, base seed), the {_PCT} t-interval of (exact match with both loaded) − (the better of the "
         f"two loaded alone, the other written literally) above {_T['composition_margin']:g}, items with exactly the two "
         "skills in either order at every length; convergence guard on both neologisms' validation curves",
    rejects=f"no zero-shot composition (gain at or below {_T['composition_margin']:g}: the pair does no better "
            "than one skill)",
    paper="abstract: “independently trained skill neologisms can be composed zero-shot”; numbers: not reached",
)
def claim4_composition(compositions: Sequence[Composition], studies: Sequence[SkillStudy], cfg: SkillConfig) -> ClaimCheck:
    check_thresholds(cfg)
    if not compositions:
        raise ValueError("claim 4 needs compositions")
    both = np.array([Composition.pooled(c.both).value for c in compositions])
    alone = np.array([max(Composition.pooled(v).value for v in c.alone.values()) for c in compositions])
    d = both - alone
    m, lo, hi, n = _interval(d)
    measured = (f"both loaded {both.mean():.3f}, better single {alone.mean():.3f}; gain {_ci_text(m, lo, hi, n)} over "
                f"(T, seed) units")
    keys = {(c.test_op, c.seed) for c in compositions}
    used = [u for u in units_of(studies, "neologism") if (u.test_op, u.seed) in keys]
    g = _convergence(used, "in", _T["composition_margin"], "neologisms")
    dec = decide_interval(lo, hi, _T["composition_margin"])
    return _decide(measured + ("" if dec.passed else f" ({dec.text})"), {"gain above the margin": _part(dec, g)}, [g],
                   {"gain": d, "both": both, "alone": alone}, _comps(studies))


# ------------------------------------------------------------------------------------------------ C5
@claim_rule(
    "C5",
    statement="Our reconstruction of the length test: a neologism learned on some digit lengths keeps its accuracy "
              "at lengths absent from every training set (the base's and its own).",
    rule=f"{_ON}over units, the {_PCT} t-interval of the neologism's in-distribution exact match above "
         f"{_T['acquisition_bar']:g} (the skill is learned), and that of (trained-length − held-out-length accuracy) "
         f"below {_T['length_gap_margin']:g}; convergence guard on the validation curve",
    rejects=f"accuracy that drops by more than {_T['length_gap_margin']:g} at unseen lengths, or a skill not learned "
            "(where a zero gap says nothing)",
    paper="not reached (the official test sets include lengths 5, 7 and 9, absent from all training)",
    reconstruction=True,
)
def claim5_lengths(studies: Sequence[SkillStudy], cfg: SkillConfig) -> ClaimCheck:
    check_thresholds(cfg)
    units = units_of(studies, "neologism")
    acc = np.array([u.in_dist_all.value for u in units])
    gap = np.array([u.in_dist_all.value - u.heldout_len.value for u in units])
    am, alo, ahi, n = _interval(acc)
    gm, glo, ghi, _ = _interval(gap)
    measured = (f"trained lengths {_ci_text(am, alo, ahi, n)}; held-out lengths {np.mean(acc - gap):.3f}; gap "
                f"{_ci_text(gm, glo, ghi, n)}")
    g = _convergence(units, "in", _GUARD, "neologism")
    parts = {"learned": _part(decide_interval(alo, ahi, _T["acquisition_bar"]), g),
             f"gap below {_T['length_gap_margin']:g}": _part(decide_interval(glo, ghi, _T["length_gap_margin"],
                                                                             side="upper"), g)}
    return _decide(measured, parts, [g], {"gap": gap, "accuracy": acc}, _comps(studies))


# ------------------------------------------------------------------------------------------------ C6
def _ablation_compare(a: Sequence[UnitResult], b: Sequence[UnitResult], threshold: float, side: str,
                      names: tuple[str, str], require_learned: Sequence[UnitResult] | None,
                      studies: Sequence[SkillStudy]) -> ClaimCheck:
    """Paired (skill, seed) difference of partner accuracy a − b decided against ``threshold``."""
    if not a or len(a) != len(b):
        raise ValueError(f"the ablation needs paired units; got {len(a)} and {len(b)}")
    pa = np.array([u.partner_k().value for u in a])
    pb = np.array([u.partner_k().value for u in b])
    d = pa - pb
    m, lo, hi, n = _interval(d)
    measured = f"partner accuracy {names[0]} {pa.mean():.3f}, {names[1]} {pb.mean():.3f}; difference {_ci_text(m, lo, hi, n)}"
    ga = _convergence(a, "partner", _T["ablation_margin"], names[0])
    gb = _convergence(b, "partner", _T["ablation_margin"], names[1])
    parts = {f"difference {'above' if side == 'lower' else 'below'} {threshold:+g}":
             _part(decide_interval(lo, hi, threshold, side=side), ga, gb)}
    guards = [ga, gb]
    if require_learned is not None:
        acc = np.array([u.in_dist_all.value for u in require_learned])
        _, alo, ahi, _ = _interval(acc)
        gr = _convergence(require_learned, "in", _GUARD, "reference")
        parts["reference learned"] = _part(decide_interval(alo, ahi, _T["acquisition_bar"]), gr)
        guards.append(gr)
        measured += f"; reference in-distribution {acc.mean():.3f}"
    return _decide(measured, parts, guards, {"difference": d}, _comps(studies))


@claim_rule(
    "C6a",
    statement="Our reconstruction of the ℓ ablation: more skill tokens help; a neologism of the default length ℓ "
              "transfers better than one of a single token, at equal updates.",
    rule=f"{_ON}over (skill, base seed) on the first T, the {_PCT} t-interval of partner exact match (ℓ default) − (ℓ = "
         f"smallest of the ablation) above {_T['ablation_margin']:g}; convergence guard on both partner curves",
    rejects=f"the number of tokens does not matter (difference at or below {_T['ablation_margin']:g})",
    paper="the paper ablates ℓ ∈ {1, 2, 5, 10, 20} and uses ℓ = 20; its findings: not reached",
    reconstruction=True,
)
def claim6a_length(studies: Sequence[SkillStudy], cfg: SkillConfig) -> ClaimCheck:
    check_thresholds(cfg)
    small = min(cfg.ablation_ells)
    return _ablation_compare(_main_at_t0(studies, cfg), _ablation(studies, f"ell={small}"), _T["ablation_margin"],
                             "lower", (f"ℓ = {cfg.ell}", f"ℓ = {small}"), None, studies)


@claim_rule(
    "C6b",
    statement="Our reconstruction of the initialisation ablation: starting every skill row at the mean operation "
              "embedding learns faster than a random start (N(0, 0.02²)).",
    rule=f"{_ON}over (skill, base seed) on the first T, the {_PCT} t-interval of the partner exact match after a third of "
         f"the updates, mean-of-operations − random, above {_T['ablation_margin']:g} (a speed comparison at a fixed "
         "early budget: the convergence guard does not apply)",
    rejects=f"the initialisation does not matter (difference at or below {_T['ablation_margin']:g})",
    paper="the paper's default is the mean of the known operations' embeddings, with random init as an ablation; "
          "its findings: not reached",
    reconstruction=True,
)
def claim6b_init(studies: Sequence[SkillStudy], cfg: SkillConfig) -> ClaimCheck:
    check_thresholds(cfg)
    a, b = _main_at_t0(studies, cfg), _ablation(studies, "init=random")
    if not a or len(a) != len(b):
        raise ValueError(f"claim 6b needs paired units; got {len(a)} and {len(b)}")
    step = int(round(cfg.adapt_steps / 3))

    def early(u: UnitResult) -> float:
        if not u.curve_steps.size:
            return u.partner_k().value  # no training: the value at every step
        i = np.flatnonzero(u.curve_steps == step)
        if not i.size:
            raise ValueError(f"the partner curve has no point at step {step}")
        return float(u.curve_partner[i[0]])

    pa, pb = np.array([early(u) for u in a]), np.array([early(u) for u in b])
    d = pa - pb
    m, lo, hi, n = _interval(d)
    dec = decide_interval(lo, hi, _T["ablation_margin"])
    measured = (f"partner accuracy after {step} updates: mean init {pa.mean():.3f}, random {pb.mean():.3f}; "
                f"difference {_ci_text(m, lo, hi, n)}")
    return _decide(measured, {f"difference above {_T['ablation_margin']:g}": _part(dec)}, [], {"difference": d},
                   _comps(studies))


@claim_rule(
    "C6c",
    statement="Our reconstruction of the noisy-label ablation: a neologism trained when 20 % of the labelled skill "
              "occurrences apply another operation transfers about as well as one trained on clean labels.",
    rule=f"{_ON}over (skill, base seed) on the first T, the {_PCT} t-interval of partner exact match (noisy) − (clean) "
         f"above −{_T['ablation_margin']:g}, and the clean neologism learned (in-distribution interval above "
         f"{_T['acquisition_bar']:g}); convergence guard on both partner curves",
    rejects=f"noisy labels cost more than {_T['ablation_margin']:g} of accuracy",
    paper="the paper ablates corrupt ratios 0, 0.2, 0.4; its findings: not reached",
    reconstruction=True,
)
def claim6c_noise(studies: Sequence[SkillStudy], cfg: SkillConfig) -> ClaimCheck:
    check_thresholds(cfg)
    noisy = [c for c in cfg.ablation_corrupt if c > 0]
    if not noisy:
        raise ValueError("claim 6c needs a corrupt ratio > 0 in ablation_corrupt")
    clean = _main_at_t0(studies, cfg)
    return _ablation_compare(_ablation(studies, f"corrupt={min(noisy):g}"), clean, -_T["ablation_margin"], "lower",
                             (f"corrupt {min(noisy):g}", "clean"), clean, studies)


# ------------------------------------------------------------------------------------------------ C7
def keyword_losses(analogues: Sequence[KeywordAnalogue]) -> dict[str, float]:
    """The keyword analogue's numbers for the page (no verdict: row C7 holds by design, see below): mean one-operation
    accuracy with the operation's token, and the mean loss when its row is replaced by the mean operation row or by
    a random row of the same norm, over (operation, base seed)."""
    if not analogues:
        raise ValueError("the keyword analogue needs at least one base's measurement")
    w = np.array([k.with_token[o].value for k in analogues for o in k.with_token])
    m = np.array([k.mean_row[o].value for k in analogues for o in k.with_token])
    r = np.array([k.random_row[o].value for k in analogues for o in k.with_token])
    return {"with_token": float(w.mean()), "mean_row_loss": float((w - m).mean()),
            "random_row_loss": float((w - r).mean()), "n": int(w.size)}


not_testable(
    "C7",
    statement="Analogue of the paper's keyword finding in our tiny base: replacing an operation's token by the mean "
              "operation row or by a random row of the same norm collapses accuracy.",
    reason="holds by design, so it is shown, not decided, at this profile and at any size of this world (CLAIMS.md "
           "rule 3): the issue asked for the dossier's claim 7 decided by the run and labelled an analogue, but in "
           "the digit world an operation is named only by its token (the dossier's pitfall: true by construction), "
           "so every base that passes claim 1 must lose most of its accuracy once the token's row is replaced "
           "(nothing else in the prompt says which operation to apply), and an untrained base has nothing to lose; "
           "no outcome of this measurement could speak against the paper. The numbers are described on the page; "
           "the paper's finding on 7-8B pretrained models is row N1",
    paper="abstract: “off-the-shelf pre-trained LLMs already demonstrate tokens associated with procedural "
          "knowledge” (the XOR keyword study on 7-8B models; numbers not reached)",
)


# ------------------------------------------------------------------------------------------------ C8
def _forgetting(studies: Sequence[SkillStudy], cfg: SkillConfig, method: str, label: str) -> ClaimCheck:
    check_thresholds(cfg)
    base_units, neo = units_of(studies, method), units_of(studies, "neologism")
    if not base_units:
        raise ValueError(f"the forgetting claim needs {method} units")
    change = np.array([u.original_change for u in base_units])
    m, lo, hi, n = _interval(change)
    neo_change = np.array([u.original_change for u in neo])
    neo_ok = bool(np.all(neo_change == 0) and all(u.weights_unchanged for u in neo))
    measured = (f"change of accuracy on the original operations: {label} {_ci_text(m, lo, hi, n)}; neologism "
                f"{'exactly 0 on every unit (weights unchanged)' if neo_ok else f'mean {neo_change.mean():+.3f}'}")
    g = _convergence(base_units, "in", _GUARD, label)
    dec = decide_interval(lo, hi, -_T["forgetting_margin"], side="upper")
    guards = [g]
    loses = _part(dec, g)
    if loses[0] is False:
        # "keeps the old skills" is evidence only once the forgetting itself has stopped moving: the compared metric's
        # own plateau test (rule 10), read along the original-operation curve; still falling, it is not shown
        gf = _forgetting_convergence(base_units, label)
        guards.append(gf)
        if not gf.converged:
            loses = (None, "not converged")
    parts = {f"{label} loses more than {_T['forgetting_margin']:g}": loses, "neologism unchanged": _part(neo_ok)}
    return _decide(measured, parts, guards, {"change": change, "neologism_change": neo_change}, _comps(studies))


def _forgetting_convergence(units: Sequence[UnitResult], label: str) -> Convergence:
    """The plateau test on the original-operation accuracy (the metric claim 8 compares) with the forgetting
    margin, counting only a fall: accuracy still dropping over the last third (by at least a third of the margin) is
    forgetting not yet measured; a rise toward the base's accuracy is no reason to doubt that the method keeps it.
    A unit without that curve (logged before it existed) fails the test."""
    name = f"{label} (accuracy on the original operations)"
    trained = [u for u in units if u.curve_steps.size]
    if not trained:
        return plateau_check(np.zeros(len(units)), np.zeros(len(units)), _T["forgetting_margin"], _test(), name)
    if any(u.curve_original.shape != u.curve_steps.shape for u in trained):
        return plateau_check(0.0, float("inf"), _T["forgetting_margin"], _test(), name + ": no curve")
    steps = trained[0].curve_steps
    if any(u.curve_steps.shape != steps.shape or np.any(u.curve_steps != steps) for u in trained):
        raise ValueError(f"{name}: the units' curves were logged at different steps")
    values = np.stack([u.curve_original for u in trained])
    t_early = steps[-1] / (1 + _T["plateau_extend"])
    if t_early < steps[0]:
        raise ValueError(f"{name}: the curve starts after T/(1+extend) = {t_early:g}")
    early = np.array([np.interp(t_early, steps, v) for v in values])
    drop = np.maximum(early - values[:, -1], 0.0)          # only a fall counts
    return plateau_check(early, early - drop, _T["forgetting_margin"], _test(), name)


@claim_rule(
    "C8a",
    statement="Weight updates forget: full fine-tuning on the skill's data lowers accuracy on the original "
              "operations, while the neologism leaves it exactly unchanged.",
    rule=f"{_ON}over units, the {_PCT} t-interval of full fine-tuning's change of exact match on original-operation items "
         f"below −{_T['forgetting_margin']:g}, and the neologism's change exactly 0 with the base weights bitwise "
         "equal; convergence guard on the validation curve; an interval wholly above the bar counts against the "
         "claim only when the original-operation accuracy has stopped falling (training "
         f"{100 * _T['plateau_extend']:g} % longer lowers it by less than a third of {_T['forgetting_margin']:g}), "
         "else inconclusive (not converged)",
    rejects=f"fine-tuning that keeps the old skills (a loss of at most {_T['forgetting_margin']:g})",
    paper="abstract: “fine-tuning and parameter-efficient variants risk catastrophic forgetting”",
)
def claim8a_forgetting_ft(studies: Sequence[SkillStudy], cfg: SkillConfig) -> ClaimCheck:
    return _forgetting(studies, cfg, "full_ft", "full fine-tuning")


@claim_rule(
    "C8b",
    statement="Parameter-efficient updates forget too: LoRA on the skill's data lowers accuracy on the original "
              "operations, while the neologism leaves it exactly unchanged.",
    rule=f"as C8a, for LoRA (rank {SkillConfig().lora_r}, all projections): the interval of its change below "
         f"−{_T['forgetting_margin']:g}",
    rejects=f"LoRA that keeps the old skills (a loss of at most {_T['forgetting_margin']:g})",
    paper="abstract: “fine-tuning and parameter-efficient variants risk catastrophic forgetting”",
)
def claim8b_forgetting_lora(studies: Sequence[SkillStudy], cfg: SkillConfig) -> ClaimCheck:
    return _forgetting(studies, cfg, "lora", "LoRA")


# ------------------------------------------------------------------------------------------------ not testable
not_testable(
    "N1",
    statement="Off-the-shelf LLMs (Qwen2.5-7B, Llama-3.1-8B, Ministral-3-8B, phi-4) solve few-shot XOR/XNOR on 3-bit "
              "strings better with the keyword than without, as well as or better than with a description.",
    reason="needs 7-8B pretrained models; none can run here (row C7, the analogue in our tiny base, holds by design "
           "and is not this)",
    paper="abstract: “off-the-shelf pre-trained LLMs already demonstrate tokens associated with procedural "
          "knowledge”; numbers: not reached",
)
not_testable(
    "N2",
    statement="Zero-shot composition of two neologisms compares favourably with in-context learning from 10 to 100 "
              "examples per skill.",
    reason="a base trained from scratch on single items has no in-context learning; a near-zero ICL number would "
           "flatter the neologisms, so none is shown",
    paper="not reached (the official code evaluates ICL with 10, 20, 50, 100 examples per skill)",
)
not_testable(
    "N3",
    statement="Independently learned neologisms for two natural-language skills (statistical syllogism, modus "
              "ponens) compose zero-shot on Skill-Mix with Llama-3.2-3B-Instruct.",
    reason="needs a 3B instruct model and GPT-5 as the grader, and the GPT-5-generated training texts; a keyword "
           "rule is no stand-in for the grader",
    paper="abstract (v2): “we validate zero-shot composition of independently learned skill neologisms on the more "
          "realistic natural language setting of the Skill-Mix benchmark”; numbers: not reached",
)
not_testable(
    "N4",
    statement="Skill neologisms may provide a scalable path towards skill-based continual learning.",
    reason="an outlook, not a measurement: no experiment of the paper or of ours decides it",
    paper="abstract: “These results suggest that skill neologisms may provide a scalable path towards skill-based "
          "continual learning.”",
)

abstract_sentence("However, extending model capabilities to new skills in a scalable manner is an open-problem: "
                  "fine-tuning and parameter-efficient variants risk catastrophic forgetting, while context-based "
                  "approaches have limited expressiveness and are constrained by the model's effective context.",
                  "C8a", "C8b", "N2")
abstract_sentence("We explore skill neologisms--i.e., soft tokens integrated in the model's vocabulary and optimized to "
                  "improve capabilities over a specific skill--as a way to selectively extend model capabilities to "
                  "new skills without weight updates.", "C2")
abstract_sentence("We first observe that off-the-shelf pre-trained LLMs already demonstrate tokens associated with "
                  "procedural knowledge.", "N1", "C7")
abstract_sentence("We then show that skill neologisms can be learned to improve model capabilities on specific skills "
                  "while being composable with out-of-distribution skills, and that independently trained skill "
                  "neologisms can be composed zero-shot.", "C2", "C3", "C3b", "C4", "N2")
abstract_sentence("Finally, we validate zero-shot composition of independently learned skill neologisms on the more "
                  "realistic natural language setting of the Skill-Mix benchmark.", "N3")
abstract_sentence("These results suggest that skill neologisms may provide a scalable path towards skill-based "
                  "continual learning.", "N4")
