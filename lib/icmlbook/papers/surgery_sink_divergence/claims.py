r"""The claims of the Surgery chapter and the rules that decide them (``shared/design/CLAIMS.md``).

Paper: Liu, Lin, Huang, Mo, Mu, Wang, Shen, "Surgery: Mitigating Harmful Fine-Tuning for Large Language Models
via Attention Sink", ICML 2026, arXiv 2602.05228. Of the paper we read the abstract and the opening of the
introduction; the method comes from the official code (read, not copied). The ``paper=`` texts quote the
abstract, or say "not reached". The paper's "harmful score" is, here, the **disclosure rate** of the fictional
vault world (:mod:`.world`); nothing on this page measures harmfulness.

Every rule takes the run's results (:class:`.experiments.Study`, a list of :class:`.stats.DivergenceCI`, or a
:class:`.experiments.Timing`) and the chapter's config, whose threshold fields are fixed before the run (the
rule texts are written from their declared defaults; a config with other thresholds is refused). Replicates are
independent (own world draw, aligned base and fine-tuning data); a comparison is a paired difference per
replicate with its 95 % t-interval, decided by rule 9's three-way test (:func:`icmlbook.runtime.stats.
decide_interval`): reproduced when the interval clears the minimum effect, not reproduced when it lies wholly on
the far side, inconclusive otherwise. Trained models are compared only after each passes the declared plateau
test (rule 10, :func:`icmlbook.training.convergence_guard`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy import stats as sps

from ...runtime.claims import ClaimCheck, abstract_sentence, claim_rule, not_testable, refuse_changed_thresholds
from ...runtime.stats import IntervalDecision, decide_interval, t_interval_or_unbounded
from ...runtime.stats import interval_text
from ...training import Convergence, PlateauTest, convergence_guard, plateau_from_curve
from .config import THRESHOLD_FIELDS, SurgeryConfig
from .experiments import Study, Timing
from .stats import DivergenceCI

__all__ = ["THRESHOLDS", "check_thresholds", "claim1_two_signs", "claim2_positive_heads", "claim3_dose_response",
           "claim4_surgery_lowers", "claim5_penalty_suppressed", "claim6_sign_matters", "claim6b_random_heads",
           "claim7_lambda", "claim7b_lambda_fa", "claim8_overhead", "claim9_baselines", "interval",
           "convergence_reports", "premise_clause", "plateau_at_main", "run_label"]

#: the decision thresholds and their declared (fixed) values
THRESHOLDS: dict[str, float] = {f: getattr(SurgeryConfig(), f) for f in THRESHOLD_FIELDS}
_T = THRESHOLDS
_PCT = f"{100 * _T['ci_level']:g}%"
_PLATEAU = (f"each compared model passes the plateau test first (training {100 * _T['plateau_extend']:g} % longer "
            f"moves its compared metric by less than {_T['plateau_share']:.2g} of the rule's margin, read back along "
            "its evaluation curve; otherwise inconclusive)")


def check_thresholds(cfg: SurgeryConfig) -> None:
    """Refuse a config whose decision thresholds differ from the declared ones."""
    refuse_changed_thresholds(cfg, _T)


# ----------------------------------------------------------------------------------------------- helpers
def interval(values) -> tuple[float, float, float, int]:
    """(mean, lo, hi, n) of the two-sided t-interval at the declared level ((-inf, inf) below two values)."""
    return t_interval_or_unbounded(values, _T["ci_level"])


def _fmt(mean, lo, hi, n, f="+.3f") -> str:
    return interval_text(mean, lo, hi, n, f)


def _combine(parts: dict[str, IntervalDecision], measured: str, values: dict) -> ClaimCheck:
    """All parts reproduced: reproduced; any part on the far side: not reproduced; otherwise inconclusive."""
    failed = [k for k, d in parts.items() if d.passed is False]
    open_ = [k for k, d in parts.items() if d.passed is None]
    text = measured + "; " + "; ".join(f"{k}: {d.text}" for k, d in parts.items())
    if failed:
        return ClaimCheck(text + f"; fails: {', '.join(failed)}", False, values)
    if open_:
        return ClaimCheck.inconclusive_check(text, "interval spans both",
                                             f"the interval of {', '.join(open_)} contains the minimum effect "
                                             f"(with n = {values.get('n', '?')} replicate(s))", values)
    return ClaimCheck(text, True, values)


def _guarded_part(guard: ClaimCheck | None, decision: IntervalDecision) -> IntervalDecision | ClaimCheck:
    """A part of a conjunction: its interval decision when its models passed the plateau test, else the guard."""
    return decision if guard is None else guard


def _combine_parts(parts: dict, measured: str, values: dict) -> ClaimCheck:
    """A conjunction decided part by part (rule 9 on each): a part whose interval lies on the far side (its models
    converged) makes the claim not reproduced whatever the others say; otherwise any undecided part (interval
    spanning the threshold, or models that failed their plateau test) makes it inconclusive."""
    texts, failed, open_, kinds, reasons = [], [], [], [], []
    for name, part in parts.items():
        if isinstance(part, ClaimCheck):                       # the part's convergence guard failed
            texts.append(f"{name}: not converged")
            open_.append(name)
            kinds.append(part.inconclusive)
            reasons.append(f"{name}: {part.reason}")
        else:
            texts.append(f"{name}: {part.text}")
            if part.passed is False:
                failed.append(name)
            elif part.passed is None:
                open_.append(name)
                kinds.append(part.kind)
                reasons.append(f"the interval of {name} contains the minimum effect (n = {values.get('n', '?')})")
    text = measured + "; " + "; ".join(texts)
    if failed:
        return ClaimCheck(text + f"; fails: {', '.join(failed)}", False, values)
    if open_:
        kind = "not converged" if "not converged" in kinds else kinds[0]
        return ClaimCheck.inconclusive_check(text, kind, "; ".join(reasons), values)
    return ClaimCheck(text, True, values)


def _plateau() -> PlateauTest:
    return PlateauTest(extend=_T["plateau_extend"], share=_T["plateau_share"])


def convergence_reports(study: Study, keys: Sequence[str], metric: str, margin: float,
                        names: Sequence[str] | None = None, window: int = 1) -> list[Convergence]:
    """The plateau test of each run family ``keys`` on ``metric`` (every replicate's curve; ``window`` > 1
    averages each end over that many evaluations)."""
    out = []
    for i, key in enumerate(keys):
        steps, values = study.curves(key, metric)
        out.append(plateau_from_curve(steps, values, margin, _plateau(), name=(names[i] if names else key),
                                      window=window))
    return out


def run_label(key: str) -> str:
    """A reader's name for a run key: ``"surgery[opposite]@lam=10@p=0.1"`` -> ``"opposite sign at λ = 10"``."""
    method, *rest = key.split("@")
    lam = next((r.split("=")[1] for r in rest if r.startswith("lam=")), None)
    names = {"sft": "SFT", "replay": "refusal replay", "l2": "L2 anchor", "surgery": "Surgery",
             "surgery[opposite]": "opposite sign", "surgery[random_half]": "random half", "surgery[abs]": "|d_h|"}
    name = names.get(method, method)
    return f"{name} at λ = {lam}" if lam is not None else name


def plateau_at_main(study: Study, metric: str, margin: float) -> list[Convergence]:
    """The plateau test on ``metric`` (margin ``margin``) of every run family at ``p_main`` (a report for the page:
    which trained models settled; the rules run their own guards)."""
    main = study.key("surgery")
    keys = sorted({k for r in study.replicates for k in r.runs if k.endswith(f"@p={study.p_main:g}")},
                  key=lambda k: (k != study.key("sft"), k != main, k))
    return convergence_reports(study, keys, metric, margin, [run_label(k) for k in keys])


def _guarded(study: Study, keys: Sequence[str], metric: str, margin: float, measured: str) -> ClaimCheck | None:
    return convergence_guard(*convergence_reports(study, keys, metric, margin), measured=measured)


def _need(study: Study, keys: Sequence[str]) -> ClaimCheck | None:
    missing = [k for k in keys if not study.runs(k)]
    if missing:
        return ClaimCheck("—", None, reason=f"this profile runs no {', '.join(missing)}")
    return None


# ----------------------------------------------------------------------------------------------- C1
_D1 = _T["two_sign_delta"]


def premise_clause(study: Study, keys: Sequence[str] = ()) -> str:
    """What the penalty had to act on, for the measured text of a defence row: claim 1's count of clearly positive
    heads (held-out bootstrap interval above +two_sign_delta) on each aligned model of the replicates that ran every
    run of ``keys``. A report, not a decision: the verdicts do not read it."""
    reps = [r for r in study.replicates if all(k in r.runs for k in keys)]
    if not reps:
        return ""
    counts = [int(r.analysis.divergence.clearly_positive(_D1).sum()) for r in reps]
    heads = int(reps[0].analysis.divergence.d.size)
    absent = sum(c == 0 for c in counts)
    listed = f"{', '.join(map(str, counts))} of {heads}"
    if absent == len(reps):
        return (f"; premise (C1): no aligned model of the {len(reps)} replicate(s) compared has a clearly positive head "
                f"({listed}), so this row tests the penalty where the group it acts on is absent")
    if absent:
        return (f"; premise (C1): clearly positive heads per aligned model {listed}; the group the penalty acts on is "
                f"absent in {absent} of {len(reps)}")
    return f"; premise (C1): every aligned model has clearly positive heads ({listed})"


@claim_rule(
    "C1",
    statement="On the aligned model, attention heads fall into two groups by the sign of their sink divergence "
              "(disclosure minus refusal samples): some clearly positive, some clearly negative.",
    rule=f"per replicate, the held-out population sink divergence d_h of every head with its {_PCT} bootstrap "
         f"interval (texts resampled on each side); a head is clearly positive when the interval lies above "
         f"+{_D1:g}, clearly negative below -{_D1:g} (attention mass). Reproduced when every replicate has at least "
         f"one clearly positive and one clearly negative head; not reproduced when in most replicates no head can be "
         f"clearly positive (every upper end < +{_D1:g}) or none clearly negative (every lower end > -{_D1:g})",
    rejects="one sign only: every head attends more (or every head less) to the sink on disclosure texts, as an "
            "untrained model or a length confound gives; or no contrast at all (every |d_h| below the minimum)",
    paper="abstract: “different attention heads exhibit two different signs of sink divergence”",
)
def claim1_two_signs(divergences: Sequence[DivergenceCI], cfg: SurgeryConfig) -> ClaimCheck:
    check_thresholds(cfg)
    if not divergences:
        return ClaimCheck("no aligned model analysed", None, reason="this profile analyses no aligned model")
    rows, two, one = [], 0, 0
    for ci in divergences:
        pos, neg = int(ci.clearly_positive(_D1).sum()), int(ci.clearly_negative(_D1).sum())
        single = bool(np.all(ci.hi < _D1) or np.all(ci.lo > -_D1))
        two += pos >= 1 and neg >= 1
        one += single
        rows.append(f"{pos} clearly positive, {neg} clearly negative of {ci.d.size} (d from {ci.d.min():+.4f} to "
                    f"{ci.d.max():+.4f}, N+ = {ci.n_positive})")
    n = len(divergences)
    measured = "; ".join(f"replicate {i}: {r}" for i, r in enumerate(rows))
    values = {"two_signed": two, "one_signed": one, "n": n}
    if two == n:
        return ClaimCheck(measured, True, values)
    if one > n / 2:
        return ClaimCheck(measured + f"; {one} of {n} replicate(s) show a single sign", False, values)
    return ClaimCheck.inconclusive_check(measured, "interval spans both",
                                         f"{two} of {n} replicate(s) two-signed, {one} single-signed: the intervals "
                                         "leave the sign of some heads open", values)


# ----------------------------------------------------------------------------------------------- C2
_R2, _N2 = _T["rho_min"], _T["n_plus_gap_min"]
_W2 = 2            # N+ is a count that flickers by a head between evaluations: its ends average two evaluations


def positive_heads_data(study: Study, metric: str = "n_plus") -> list[dict]:
    """Per replicate: the (N+, disclosure) points of every SFT run (all p, every evaluation; the aligned model's
    point once) and the final N+ at the largest and at the zero poison ratio."""
    p_max, out = max(study.p_grid), []
    for rep in study.replicates:
        xs, ys = [], []
        for j, p in enumerate(study.p_grid):
            run = rep.runs.get(study.key("sft", p))
            if run is None:
                continue
            start = 0 if not xs else 1
            xs += list(getattr(run, metric)[start:])
            ys += list(run.disclosure[start:])
        r_max, r_0 = rep.runs.get(study.key("sft", p_max)), rep.runs.get(study.key("sft", 0.0))
        end = lambda run: float(np.mean(getattr(run, metric)[-_W2:]))          # noqa: E731
        out.append({"n_plus": np.array(xs), "disclosure": np.array(ys),
                    "end_gap": end(r_max) - end(r_0) if r_max and r_0 else np.nan})
    return out


@claim_rule(
    "C2",
    statement="Our reconstruction of the paper's key observation: during plain fine-tuning on disclosure-poisoned "
              "data, the number N+ of heads with positive sink divergence rises together with the disclosure rate.",
    rule=f"per replicate, Spearman's ρ between N+ (held-out pairs) and the disclosure rate over every evaluation of "
         f"the SFT runs at every poison ratio (the aligned model once); (a) the {_PCT} t-interval of ρ over "
         f"replicates above {_R2:g}; (b) N+ at the end of SFT at the largest p minus N+ at the end of SFT at p = 0 "
         f"(each the mean of the last {_W2} evaluations), its interval above {_N2:g} heads (harm, not training time, "
         f"moves N+; both runs pass the plateau test on N+ first, ends averaged the same way). Not reproduced when "
         f"either interval lies on the far side",
    rejects="N+ unrelated to disclosure (a count that drifts with training time alone, or the N+ of a statistic "
            "with the disclosure/refusal labels shuffled, which gives ρ near 0 and no gap between p = 0 and the "
            "largest p)",
    paper="abstract: “the number of attention heads of positive sink divergence increases along with the increase "
          "of the model’s harmfulness when undergoing harmful fine-tuning”; its figure values: not reached",
    reconstruction=True,
)
def claim2_positive_heads(study: Study, cfg: SurgeryConfig, metric: str = "n_plus") -> ClaimCheck:
    check_thresholds(cfg)
    data = positive_heads_data(study, metric)
    rhos = []
    for d in data:
        x, y = d["n_plus"], d["disclosure"]
        rhos.append(float(sps.spearmanr(x, y).statistic) if np.ptp(x) > 0 and np.ptp(y) > 0 else 0.0)
    gaps = np.array([d["end_gap"] for d in data])
    if not data or not np.all(np.isfinite(gaps)):
        return ClaimCheck("—", None, reason="this profile runs no SFT at p = 0 and at a positive p")
    r = interval(rhos)
    g = interval(gaps)
    measured = (f"ρ per replicate {', '.join(f'{v:+.2f}' for v in rhos)}, mean {_fmt(*r, '+.2f')}; "
                f"N+ gap (p = {max(study.p_grid):g} minus p = 0, at the end) {_fmt(*g, '+.2f')}")
    ends = [study.key("sft", max(study.p_grid)), study.key("sft", 0.0)]
    gap_guard = convergence_guard(*convergence_reports(study, ends, metric, _N2, [f"SFT p = {max(study.p_grid):g} (N+)",
                                                                                  "SFT p = 0 (N+)"], window=_W2),
                                  measured=measured)
    parts = {"ρ": decide_interval(r[1], r[2], _R2), "gap": _guarded_part(gap_guard, decide_interval(g[1], g[2], _N2))}
    return _combine_parts(parts, measured, {"rho": rhos, "gap": gaps, "n": len(data)})


# ----------------------------------------------------------------------------------------------- C3
_S3, _M3 = _T["dose_slope_min"], _T["p0_margin"]


@claim_rule(
    "C3",
    statement="Poisoned fine-tuning undoes the alignment (the threat model; our reconstruction of the paper's "
              "setting): the disclosure rate of plain SFT rises with the poison ratio p and stays near the aligned "
              "model's at p = 0.",
    rule=f"per replicate, the least-squares slope of SFT's final disclosure rate on p over the p grid, its {_PCT} "
         f"t-interval above {_S3:g} per unit p; and the disclosure rate at p = 0 minus the aligned model's, its "
         f"interval below {_M3:g}; {_PLATEAU}",
    rejects="poison without effect (the aligned model's disclosure at every p: slope 0), or a fine-tuning that "
            "discloses even without poison (p = 0 far above the aligned model)",
    paper="abstract: “Harmful fine-tuning can invalidate safety alignment of large language models”; the dose "
          "values: not reached",
    reconstruction=True,
)
def claim3_dose_response(study: Study, cfg: SurgeryConfig) -> ClaimCheck:
    check_thresholds(cfg)
    ps = np.array(study.p_grid)
    keys = [study.key("sft", p) for p in ps]
    need = _need(study, keys)
    if need:
        return need
    final = np.stack([study.final(k, "disclosure") for k in keys], axis=1)        # (R, P)
    slopes = np.array([np.polyfit(ps, row, 1)[0] for row in final])
    at0 = final[:, list(ps).index(0.0)] - study.aligned("disclosure")
    s, z = interval(slopes), interval(at0)
    measured = ("final disclosure by p: " + ", ".join(f"{p:g}: {final[:, j].mean():.2f}" for j, p in enumerate(ps))
                + f"; slope {_fmt(*s, '+.2f')} per unit p; p = 0 minus aligned {_fmt(*z, '+.3f')}")
    guard = _guarded(study, keys, "disclosure", _S3 * ps.max(), measured)
    if guard is not None:
        return guard
    parts = {"slope": decide_interval(s[1], s[2], _S3), "p = 0": decide_interval(z[1], z[2], _M3, side="upper")}
    return _combine(parts, measured, {"final": final, "slopes": slopes, "at0": at0, "n": len(slopes)})


# ----------------------------------------------------------------------------------------------- C4
_G, _FA = _T["gain_min"], _T["fa_margin"]
#: the scope of the defence rows (C4, C6, C6b, C7, C9): they test the penalty on our models, whatever their heads show
_SCOPE = (" Read with C1: the penalty acts only on heads of positive sink divergence; the measured column says how many "
          "clearly positive heads the aligned models it compares have, and a row measured where there are none tests "
          "the penalty without the positive group it is meant to shrink.")


def _paired(study: Study, key_a: str, key_b: str, metric: str) -> np.ndarray:
    """Per replicate (that ran both), metric(a) - metric(b) at the end."""
    out = []
    for rep in study.replicates:
        if key_a in rep.runs and key_b in rep.runs:
            out.append(getattr(rep.runs[key_a], metric)[-1] - getattr(rep.runs[key_b], metric)[-1])
    return np.array(out, dtype=float)


@claim_rule(
    "C4",
    statement="Surgery lowers the disclosure rate of fine-tuning on poisoned data (the paper's harmful score) at "
              "little cost in fine-tune accuracy." + _SCOPE,
    rule=f"at p = p_main, per replicate, disclosure(SFT) − disclosure(Surgery): its {_PCT} t-interval above "
         f"{_G:g}; and FA(SFT) − FA(Surgery): its interval below {_FA:g}; {_PLATEAU}, part by part (a part whose "
         f"converged interval lies on the far side fails the claim whatever the other part says)",
    rejects="a penalty that does not lower disclosure (the SFT rate), or one that lowers it only by stopping the "
            "model from learning the user's task (an always-refusing model: no disclosure and no accuracy)",
    paper="abstract: Surgery “reduc[es] the model’s tendency to learn and amplify harmful patterns”; FA: not reached",
)
def claim4_surgery_lowers(study: Study, cfg: SurgeryConfig) -> ClaimCheck:
    check_thresholds(cfg)
    a, b = study.key("sft"), study.key("surgery")
    need = _need(study, [a, b])
    if need:
        return need
    dd, df = _paired(study, a, b, "disclosure"), _paired(study, a, b, "fa")
    i_d, i_f = interval(dd), interval(df)
    measured = (f"p = {study.p_main:g}: disclosure SFT {study.final(a, 'disclosure').mean():.3f}, Surgery "
                f"{study.final(b, 'disclosure').mean():.3f}, difference {_fmt(*i_d)}; FA SFT "
                f"{study.final(a, 'fa').mean():.3f}, Surgery {study.final(b, 'fa').mean():.3f}, drop {_fmt(*i_f)}"
                + premise_clause(study, [a, b]))
    g_d = convergence_guard(*convergence_reports(study, [a, b], "disclosure", _G, ["SFT (disclosure)", "Surgery (disclosure)"]),
                            measured=measured)
    g_f = convergence_guard(*convergence_reports(study, [a, b], "fa", _FA, ["SFT (FA)", "Surgery (FA)"]), measured=measured)
    parts = {"disclosure": _guarded_part(g_d, decide_interval(i_d[1], i_d[2], _G)),
             "FA drop": _guarded_part(g_f, decide_interval(i_f[1], i_f[2], _FA, side="upper"))}
    return _combine_parts(parts, measured, {"disclosure_diff": dd, "fa_diff": df, "n": dd.size})


# ----------------------------------------------------------------------------------------------- C5
_SH, _GP = _T["penalty_share"], _T["penalty_gap_min"]


@claim_rule(
    "C5",
    statement="Our reconstruction of the observation the penalty rests on: plain fine-tuning on disclosure-poisoned "
              "data raises the penalty's statistic on held-out disclosure/refusal pairs (not the training pools), "
              "mean_h ReLU(d_h), above the aligned model's, and by more than clean fine-tuning does. Surgery's own "
              "held-out value is a diagnostic, not a decision: Surgery minimises this very statistic on pairs of the "
              "same templates, so its suppression holds by construction.",
    rule=f"at p = p_main, on every replicate, the final held-out value of mean_h ReLU(d_h) (attention mass): "
         f"(a) SFT at p_main minus its own aligned model, its {_PCT} t-interval above 0; (b) SFT at p_main minus SFT "
         f"at p = 0 (paired per replicate), its interval above {_GP:g} in absolute terms (the poison, not fine-tuning "
         f"alone, raises it; {_GP:g} is two more clearly positive heads, C2's minimum, at C1's clearly-signed size "
         f"{_T['two_sign_delta']:g}, over the default model's 8 heads); both SFT arms pass the plateau test (margin "
         f"{_GP:g}); not reproduced when a converged part's interval lies on the far side. Diagnostic, which can only "
         f"make the row inconclusive: Surgery's value at p_main in units of the aligned models' mean value (a "
         f"replicate whose aligned model has no positive head counts, with its aligned value 0), its interval below "
         f"{_SH:g}; {_PLATEAU}",
    rejects="a statistic that any fine-tuning moves alike (clean SFT in the poisoned run's place: the gap is 0), or "
            "one that fine-tuning leaves at the aligned level; a rule decided by Surgery's own suppression, which "
            "Surgery reaches at p = 0 as well, would accept either",
    paper="abstract: Surgery “steers attention heads toward the negative sink divergence group”; the values: not reached",
    reconstruction=True,
)
def claim5_penalty_suppressed(study: Study, cfg: SurgeryConfig, method: str = "surgery") -> ClaimCheck:
    check_thresholds(cfg)
    a, c, b = study.key("sft"), study.key("sft", 0.0), study.key(method)
    need = _need(study, [a, c, b])
    if need:
        return need
    reps = [rep for rep in study.replicates if a in rep.runs and b in rep.runs and c in rep.runs]
    aligned = np.array([rep.base_metrics["heldout_penalty"] for rep in reps])
    scale = float(aligned.mean())
    if not scale > 0:
        return ClaimCheck.inconclusive_check(
            f"no aligned model of the {aligned.size} replicate(s) has a head with positive held-out divergence",
            "noise above effect", "with a held-out penalty of 0 before fine-tuning there is nothing to grow from or "
            "to push toward zero", {"aligned": aligned})
    # the compared quantities (growth over the own aligned model, poison gap) in the statistic's own units, so that
    # their verdict depends only on the compared runs (Session 12: a gap in units of the aligned models' mean moved
    # with replicates having nothing to do with it); only Surgery's diagnostic is read in that unit
    fin = lambda key: np.array([rep.runs[key].heldout_penalty[-1] for rep in reps])  # noqa: E731
    rs, rf, r0 = fin(b) / scale, fin(a), fin(c)
    growth, gap = rf - aligned, rf - r0
    i_s, i_f, i_g = interval(rs), interval(growth), interval(gap)
    name = b.split("@")[0]
    n_zero = int((aligned <= 0).sum())
    measured = (f"aligned held-out penalty {scale:.2e} (mean of {aligned.size}; the diagnostic's unit"
                + (f"; {n_zero} aligned model(s) with no positive head" if n_zero else "")
                + f"); end of SFT at p = {study.p_main:g} minus its aligned model: {_fmt(*i_f, '+.2e')}; minus SFT at "
                  f"p = 0: {_fmt(*i_g, '+.2e')} (bar {_GP:g}); diagnostic, end of {name} in that unit: "
                  f"{_fmt(*i_s, '.2f')}")
    values = {"sft_final": rf, "clean_final": r0, "growth": growth, "gap": gap, "surgery_ratio": rs,
              "scale": scale, "n": rf.size}
    reports = []
    for key, label in ((a, f"SFT p = {study.p_main:g}"), (c, "SFT p = 0")):
        steps = reps[0].runs[key].steps
        curves = np.stack([rep.runs[key].heldout_penalty for rep in reps])
        reports.append(plateau_from_curve(steps, curves, _GP, _plateau(), name=f"{label} (held-out penalty)"))
    g_f, g_g = convergence_guard(reports[0], measured=measured), convergence_guard(*reports, measured=measured)
    parts = {"SFT growth": _guarded_part(g_f, decide_interval(i_f[1], i_f[2], 0.0)),
             "poison gap": _guarded_part(g_g, decide_interval(i_g[1], i_g[2], _GP))}
    check = _combine_parts(parts, measured, values)
    diag = decide_interval(i_s[1], i_s[2], _SH, side="upper")
    if check.passed is False or diag.passed is True:
        return check
    return ClaimCheck.inconclusive_check(
        check.measured, check.inconclusive or "interval spans both",
        (check.reason + "; " if check.reason else "")
        + f"diagnostic: {name}'s held-out penalty is not clearly below {_SH:g} of the aligned models' ({diag.text}), so "
          "the penalty did not reach its own target and the run cannot be read as Surgery's mechanism", values)


# ----------------------------------------------------------------------------------------------- C6
def _versus(study: Study, key_other: str, label: str, measured_extra: str = "") -> ClaimCheck:
    """disclosure(other) - disclosure(Surgery) at p_main per replicate, above gain_min, both converged."""
    b = study.key("surgery")
    need = _need(study, [key_other, b])
    if need:
        return need
    diff = _paired(study, key_other, b, "disclosure")
    i = interval(diff)
    measured = (f"p = {study.p_main:g}: disclosure {label} {study.final(key_other, 'disclosure').mean():.3f}, "
                f"Surgery {np.mean([r.runs[b].disclosure[-1] for r in study.replicates if key_other in r.runs]):.3f}; "
                f"difference {_fmt(*i)}" + measured_extra + premise_clause(study, [key_other, b]))
    guard = convergence_guard(*convergence_reports(study, [key_other, b], "disclosure", _G, [label, "Surgery"]),
                              measured=measured)
    if guard is not None:
        return guard
    return _combine({"difference": decide_interval(i[1], i[2], _G)}, measured, {"diff": diff, "n": diff.size})


@claim_rule(
    "C6",
    statement="Our reconstruction of the test of the separable sink divergence hypothesis: the sign matters, since "
              "penalising the opposite sign, ReLU(−d_h), does not lower disclosure as much as Surgery's ReLU(d_h)." + _SCOPE,
    rule=f"at p = p_main, per replicate, disclosure(opposite sign) − disclosure(Surgery): its {_PCT} t-interval above "
         f"{_G:g}; {_PLATEAU}; |d_h| is reported beside it where the profile runs it",
    rejects="the sign is irrelevant: any penalty on sink divergence (either sign) lowers disclosure alike",
    paper="abstract: “attention heads associating with learning harmful patterns during fine-tuning are separable "
          "by their sign of sink divergence”; the ablation: not reached",
    reconstruction=True,
)
def claim6_sign_matters(study: Study, cfg: SurgeryConfig) -> ClaimCheck:
    check_thresholds(cfg)
    extra = ""
    k_abs = study.key("surgery", mode="abs")
    if study.runs(k_abs):
        extra = f"; |d_h| penalty: disclosure {study.final(k_abs, 'disclosure').mean():.3f}"
    return _versus(study, study.key("surgery", mode="opposite"), "opposite sign", extra)


@claim_rule(
    "C6b",
    statement="Our reconstruction of a control for the hypothesis: the heads must be chosen by their sign; the same "
              "hinge on a random half of the heads does not lower disclosure as much." + _SCOPE,
    rule=f"at p = p_main, per replicate, disclosure(ReLU(d_h) on a fixed random half of the heads) − "
         f"disclosure(Surgery): its {_PCT} t-interval above {_G:g}; {_PLATEAU}",
    rejects="any subset of heads will do (the penalty works through the number of heads it touches, not their sign)",
    paper="not reached",
    reconstruction=True,
)
def claim6b_random_heads(study: Study, cfg: SurgeryConfig) -> ClaimCheck:
    check_thresholds(cfg)
    return _versus(study, study.key("surgery", mode="random_half"), "random half")


# ----------------------------------------------------------------------------------------------- C7
_L7 = _T["lam_slope_min"]


def _lambda_finals(study: Study, metric: str) -> tuple[np.ndarray, np.ndarray]:
    lams = np.array(sorted(study.lam_grid))
    rows = []
    for rep in study.replicates:
        keys = [study.key("surgery", lam=lam) for lam in lams]
        if all(k in rep.runs for k in keys):
            rows.append([getattr(rep.runs[k], metric)[-1] for k in keys])
    return lams, np.array(rows, dtype=float).reshape(len(rows), lams.size)


def _lambda_slopes(lams: np.ndarray, finals: np.ndarray) -> np.ndarray:
    x = np.log1p(lams)            # ln(1 + lambda): lambda = 0 (SFT) included
    return np.array([np.polyfit(x, row, 1)[0] for row in finals])


@claim_rule(
    "C7",
    statement="Our reconstruction of the λ trade-off: a stronger penalty lowers the disclosure rate." + _SCOPE,
    rule=f"at p = p_main, per replicate, the least-squares slope of the final disclosure rate on ln(1 + λ) over the λ "
         f"grid (λ = 0 is SFT); its {_PCT} t-interval below −{_L7:g} (per e-fold of 1 + λ); {_PLATEAU}",
    rejects="λ without effect on disclosure (slope 0), or a penalty that raises it",
    paper="not reached",
    reconstruction=True,
)
def claim7_lambda(study: Study, cfg: SurgeryConfig) -> ClaimCheck:
    check_thresholds(cfg)
    lams, fin = _lambda_finals(study, "disclosure")
    if fin.shape[0] == 0:
        return ClaimCheck("—", None, reason="this profile runs no complete λ sweep")
    slopes = _lambda_slopes(lams, fin)
    i = interval(slopes)
    measured = ("final disclosure by λ: " + ", ".join(f"{lam:g}: {fin[:, j].mean():.2f}" for j, lam in enumerate(lams))
                + f"; slope per e-fold of 1 + λ {_fmt(*i)}")
    keys = [study.key("surgery", lam=lam) for lam in lams]
    measured += premise_clause(study, keys)
    guard = _guarded(study, keys, "disclosure", _L7 * np.log1p(lams.max()), measured)
    if guard is not None:
        return guard
    return _combine({"slope": decide_interval(i[1], i[2], -_L7, side="upper")}, measured,
                    {"lams": lams, "finals": fin, "slopes": slopes, "n": slopes.size})


@claim_rule(
    "C7b",
    statement="Our reconstruction of the other side of the λ trade-off: at the largest λ, fine-tune accuracy falls "
              "below that of SFT.",
    rule=f"at p = p_main, per replicate, FA(SFT) − FA(largest λ): its {_PCT} t-interval above {_FA:g}; {_PLATEAU}",
    rejects="a penalty free at any strength (FA at the largest λ within the margin of SFT's)",
    paper="not reached",
    reconstruction=True,
)
def claim7b_lambda_fa(study: Study, cfg: SurgeryConfig) -> ClaimCheck:
    check_thresholds(cfg)
    lam = max(study.lam_grid)
    a, b = study.key("sft"), study.key("surgery", lam=lam)
    need = _need(study, [a, b])
    if need:
        return need
    diff = _paired(study, a, b, "fa")
    i = interval(diff)
    measured = (f"FA SFT {study.final(a, 'fa').mean():.3f}, λ = {lam:g}: {study.final(b, 'fa').mean():.3f}; "
                f"drop {_fmt(*i)}")
    guard = _guarded(study, [a, b], "fa", _FA, measured)
    if guard is not None:
        return guard
    return _combine({"FA drop": decide_interval(i[1], i[2], _FA)}, measured, {"diff": diff, "n": diff.size})


# ----------------------------------------------------------------------------------------------- C8
_O8 = _T["overhead_max"]


@claim_rule(
    "C8",
    statement="Surgery's overhead is low: a Surgery update costs well under twice a plain SFT update (our bound).",
    rule=f"seconds per update of Surgery / SFT, per interleaved repeat; its {_PCT} t-interval inside (1, {_O8:g}): "
         f"above 1 (the penalty's extra rows and explicit attention are measured, not lost in timing noise) and below "
         f"{_O8:g}; not reproduced when the interval lies above {_O8:g}",
    rejects=f"a penalty that costs a full extra training step or more (ratio ≥ {_O8:g}); or a timing that cannot tell "
            "Surgery from SFT (SFT timed against itself)",
    paper="not reached",
    timed=True,
)
def claim8_overhead(timing: Timing, cfg: SurgeryConfig) -> ClaimCheck:
    check_thresholds(cfg)
    ratio = np.asarray(timing.ratio, dtype=float)
    m, lo, hi, n = interval(ratio)
    measured = (f"SFT {1e3 * np.median(timing.sft):.1f} ms, Surgery {1e3 * np.median(timing.surgery):.1f} ms per "
                f"update (medians of {n}); ratio {_fmt(m, lo, hi, n, '.2f')}")
    values = {"ratio": ratio, "n": n}
    if lo > _O8:
        return ClaimCheck(measured + f"; whole interval above {_O8:g}", False, values)
    if lo > 1.0 and hi < _O8:
        return ClaimCheck(measured, True, values)
    if hi >= _O8:
        return ClaimCheck.inconclusive_check(measured, "interval spans both", f"the interval reaches {_O8:g}", values)
    return ClaimCheck.inconclusive_check(measured, "noise above effect",
                                         "the interval reaches 1: the timing cannot tell Surgery's cost from SFT's",
                                         values)


# ----------------------------------------------------------------------------------------------- C9
@claim_rule(
    "C9",
    statement="Our reconstruction of the headline comparison: Surgery discloses less than the stronger of two "
              "fine-tuning-stage baselines run on the same data (refusal replay, an L2 pull to the aligned weights)."
              + _SCOPE,
    rule=f"at p = p_main, the baseline with the lower mean final disclosure; per replicate, its disclosure − "
         f"Surgery's: the {_PCT} t-interval above {_G:g}; {_PLATEAU}; FA reported beside it",
    rejects="Surgery no better than a simple anchor (replaying alignment texts, or staying near the aligned weights)",
    paper="abstract: “Surgery improves defense performance by 5.90%, 11.25%, and 9.55% on the BeaverTails, HarmBench, "
          "and SorryBench benchmarks”; the baselines and the metric's definition: not reached",
    reconstruction=True,
)
def claim9_baselines(study: Study, cfg: SurgeryConfig) -> ClaimCheck:
    check_thresholds(cfg)
    keys = [study.key("replay"), study.key("l2")]
    have = [k for k in keys if study.runs(k)]
    if not have:
        return ClaimCheck("—", None, reason="this profile runs no baseline")
    best = min(have, key=lambda k: study.final(k, "disclosure").mean())
    label = {keys[0]: "refusal replay", keys[1]: "L2 anchor"}[best]
    fa = "; FA " + ", ".join(f"{lab} {study.final(k, 'fa').mean():.3f}" for k, lab in
                             zip(keys + [study.key("surgery")], ["replay", "L2", "Surgery"]) if study.runs(k))
    return _versus(study, best, f"{label} (the stronger baseline)", fa)


# ----------------------------------------------------------------------------------------------- not testable
_NT = ("the paper fine-tunes Llama-3-8B-Instruct and scores harmfulness on real harmful-prompt benchmarks with a 7B "
       "moderation model; this book trains small GPTs from scratch in a fictional vault world and ships no harmful "
       "data, model or judge, so the number has no counterpart here (C4 and C9 test the mechanism)")
not_testable("P1", statement="Surgery improves defence performance by 5.90 % on BeaverTails (the paper's result).",
             reason=_NT, paper="abstract: 5.90 % (BeaverTails)")
not_testable("P2", statement="Surgery improves defence performance by 11.25 % on HarmBench (the paper's result).",
             reason=_NT, paper="abstract: 11.25 % (HarmBench)")
not_testable("P3", statement="Surgery improves defence performance by 9.55 % on SorryBench (the paper's result).",
             reason=_NT, paper="abstract: 9.55 % (SorryBench)")

abstract_sentence("Harmful fine-tuning can invalidate safety alignment of large language models, exposing "
                  "significant safety risks.", "C3")
abstract_sentence("we first measure a statistic named sink divergence for each attention head and observe that "
                  "different attention heads exhibit two different signs of sink divergence.", "C1")
abstract_sentence("we conduct experiments and find that the number of attention heads of positive sink divergence "
                  "increases along with the increase of the model’s harmfulness when undergoing harmful fine-tuning.",
                  "C2")
abstract_sentence("we propose a separable sink divergence hypothesis – attention heads associating with learning "
                  "harmful patterns during fine-tuning are separable by their sign of sink divergence.", "C6", "C6b")
abstract_sentence("Surgery utilizes a regularizer for sink divergence suppression, which steers attention heads toward "
                  "the negative sink divergence group, thereby reducing the model’s tendency to learn and amplify "
                  "harmful patterns.", "C5", "C4")
abstract_sentence("Extensive experiments demonstrate that Surgery improves defense performance by 5.90%, 11.25%, and "
                  "9.55% on the BeaverTails, HarmBench, and SorryBench benchmarks, respectively.",
                  "P1", "P2", "P3", "C9")
