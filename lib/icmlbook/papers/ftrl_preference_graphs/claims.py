"""The chapter's claims, declared under the claims contract (``shared/design/CLAIMS.md``).

Every stability label a rule reads comes from the adversarial search (:mod:`.stability`): "stable",
"unstable" or "undecided"; an undecided set never counts as agreeing. Thresholds come from the
chapter's config (fixed before the run). The abstract is the only text of the paper we read; the
``paper`` column quotes it.
"""

from __future__ import annotations

import numpy as np

from ...runtime.claims import ClaimCheck, abstract_sentence, claim_rule, not_testable
from ...runtime.stats import binomial_interval
from .config import PreferenceConfig
from .experiments import CounterexampleStudy, LeakStudy, LimitSetStudy, RateStudy, SubgameStudy

#: the decision thresholds the notebook passes, as declared in the config before any run (the rule texts are
#: written from them, and a rule refuses another value)
_DECLARED = PreferenceConfig()
AGREE_MIN, RATE_TOL, GAME_LOWER = _DECLARED.agree_min, _DECLARED.rate_tol, _DECLARED.game_agree_lower


def _fixed(name: str, value: float, declared: float) -> None:
    if value != declared:
        raise ValueError(f"{name}={value!r} is not allowed here; the claims' thresholds are fixed before the run "
                         f"({name}={declared!r})")


def games_needed(lower: float = GAME_LOWER, level: float = 0.95) -> int:
    """Fewest games whose full agreement gives a one-sided Clopper-Pearson lower bound above ``lower``."""
    n = 1
    while (1.0 - level) ** (1.0 / n) <= lower:
        n += 1
    return n


def agreement_lower_bound(k: int, n: int, level: float = 0.95) -> float:
    """One-sided ``level`` Clopper-Pearson lower bound of a proportion k/n: the lower end of the shared two-sided
    exact interval at level 2 * level - 1 (:func:`icmlbook.runtime.stats.binomial_interval`)."""
    if n == 0:
        return float("nan")
    return binomial_interval(k, n, 2 * level - 1)[0]

ABSTRACT_1 = ("In one direction, we show that the skeleton of every dynamically stable set, i.e., the set of pure "
              "profiles it contains, must be preferentially stable, that is, closed under pure profitable deviations.")
ABSTRACT_2 = ("For subgames—subsets of pure profiles obtained by restricting players' action sets—preferences are "
              "enough to fully characterize asymptotic stability.")
ABSTRACT_3 = ("Beyond subgames however, we construct a three-player counterexample with a preferentially stable set "
              "whose span is dynamically unstable, thus establishing that preferences are not sufficient to describe "
              "dynamically stable behavior in general.")
ABSTRACT_4 = ("To restore stability, we introduce the notion of leaklessness, a measure of aggregate payoff drift away "
              "from a set of pure profiles, and use it to identify a payoff-based condition under which the span of a "
              "set of pure profiles remains stable and attracting")

abstract_sentence(ABSTRACT_1, "C2")
abstract_sentence(ABSTRACT_2, "C3", "C7")
abstract_sentence(ABSTRACT_3, "C4")
abstract_sentence(ABSTRACT_4, "C6")


def agreement_upper_bound(k: int, n: int, level: float = 0.95) -> float:
    """One-sided ``level`` Clopper-Pearson upper bound of a proportion k/n (the shared exact interval's upper end at
    level 2 * level - 1)."""
    if n == 0:
        return float("nan")
    return binomial_interval(k, n, 2 * level - 1)[1]


def proportion_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Two-sided ``level`` Clopper-Pearson interval of a proportion k/n (:func:`icmlbook.runtime.stats.
    binomial_interval`; (0, 1) when n = 0: nothing measured)."""
    return (0.0, 1.0) if n == 0 else binomial_interval(k, n, level)


def _class_text(pc: dict) -> str:
    return "; ".join(f"{cls}: {v['agree']}/{v['n']} as predicted, {v['undecided']} undecided, {v['opposite']} opposite"
                     for cls, v in pc.items())


def _per_game(st: SubgameStudy) -> dict:
    """Per class: the games with a set of that class, how many of them get the predicted label on all of their sets
    of that class (nested sets of one game are not independent; the game is the replicate), how many have no set
    labelled the opposite way (undecided sets could go either way), and the one-sided 95 % Clopper-Pearson lower
    bound of the first share and upper bound of the second."""
    out = {}
    for cls, want in (("preferentially stable", "stable"), ("not preferentially stable", "unstable")):
        games: dict = {}
        for r in st.records:
            if r["pref_stable"] == (want == "stable"):
                games.setdefault(r["game"], []).append(r["label"])
        agree = sum(all(lab == want for lab in v) for v in games.values())
        not_opposite = sum(all(lab in (want, "undecided") for lab in v) for v in games.values())
        out[cls] = dict(games=len(games), agree=agree, lower=agreement_lower_bound(agree, len(games)),
                        not_opposite=not_opposite, upper=agreement_upper_bound(not_opposite, len(games)))
    return out


def _per_class_check(st: SubgameStudy, agree_min: float) -> ClaimCheck:
    """Claims 3 and 7 (rule 9 of the contract since issue 28): reproduced when every class reaches ``agree_min`` of
    its sets and the games' lower bound exceeds GAME_LOWER; not reproduced on evidence against (a class whose sets
    labelled the opposite way alone push it below ``agree_min``, or whose games' upper bound, counting undecided
    sets as agreeing, is below GAME_LOWER); inconclusive otherwise (undecided sets or too few games: the interval
    spans both)."""
    _fixed("agree_min", agree_min, AGREE_MIN)
    pc = st.per_class()
    pg = _per_game(st)
    rates = {cls: (v["agree"] / v["n"] if v["n"] else float("nan")) for cls, v in pc.items()}
    values = dict(per_class=pc, rates=rates, per_game=pg)
    games_text = "; ".join(f"{cls}: {v['agree']}/{v['games']} games all as predicted (95% lower bound {v['lower']:.2f}), "
                           f"{v['not_opposite']}/{v['games']} with none opposite (upper bound {v['upper']:.2f})"
                           for cls, v in pg.items())
    text = _class_text(pc) + f" ({st.starts_per_set} searched starts per set); {games_text}"
    if any(v["n"] == 0 for v in pc.values()):
        empty = [cls for cls, v in pc.items() if v["n"] == 0]
        return ClaimCheck(_class_text(pc), None, values=values,
                          reason=f"no {' / '.join(empty)} subgames at this profile: that class cannot be checked")
    against = [f"{cls}: {v['opposite']} of {v['n']} sets labelled the opposite way (at most "
               f"{(v['n'] - v['opposite']) / v['n']:.0%} can agree < {agree_min:.0%})"
               for cls, v in pc.items() if (v["n"] - v["opposite"]) / v["n"] < agree_min]
    against += [f"{cls}: games' upper bound {v['upper']:.2f} < {GAME_LOWER:g}" for cls, v in pg.items()
                if v["upper"] < GAME_LOWER]
    if against:
        return ClaimCheck(text + f"; evidence against: {', '.join(against)}", False, values=values)
    short = [f"{cls}: {rates[cls]:.0%} of sets < {agree_min:.0%} ({pc[cls]['undecided']} undecided)" for cls in pc
             if not rates[cls] >= agree_min]
    short += [f"{cls}: games' lower bound {v['lower']:.2f} <= {GAME_LOWER:g} ({v['games']} games; {games_needed()} "
              "needed even if all agree)" for cls, v in pg.items() if not v["lower"] > GAME_LOWER]
    if short:
        return ClaimCheck.inconclusive_check(
            text, "interval spans both", "; ".join(short) + ": neither shown nor contradicted at this profile",
            values=values)
    return ClaimCheck(text, True, values=values)


def open_set_check(subgames: list[SubgameStudy], lk: LeakStudy) -> dict:
    """What the search labels the sets that are *not* preferentially stable (subgames with both regularisers, and
    random non-product controls), with its power on the preferentially stable ones: counts per class and a
    sentence. This was claim C2 until issue 28: the theorem's proof is the one-arc argument (a profitable arc out
    of S grows from its vertex), and the search's vertex-exit seeds start exactly there, so "none labelled stable"
    holds by how the search is built. It is a test of our search (``tests/``), shown on the page, not a row."""
    power = {"subgames": sum(r["label"] == "stable" for st in subgames for r in st.records if r["pref_stable"]),
             "non-product sets": sum(r["label"] == "stable" for r in lk.records)}
    counts = {}
    for name, rs in (("subgames", [r for st in subgames for r in st.records if not r["pref_stable"]]),
                     ("non-product sets", lk.controls)):
        counts[name] = dict(n=len(rs), stable=sum(r["label"] == "stable" for r in rs),
                            undecided=sum(r["label"] == "undecided" for r in rs),
                            unstable=sum(r["label"] == "unstable" for r in rs), power=power[name])
    text = "; ".join(f"{k}: {v['stable']} of {v['n']} labelled stable ({v['unstable']} unstable, "
                     f"{v['undecided']} undecided; {v['power']} preferentially stable ones labelled stable)"
                     for k, v in counts.items())
    return dict(counts=counts, text=text, ok=all(v["stable"] == 0 for v in counts.values()))


not_testable("C2", statement="The skeleton of every dynamically stable set is preferentially stable: no span of a "
                             "set that is not preferentially stable is stable.",
             paper="the skeleton of every dynamically stable set ... must be preferentially stable",
             reason="true by the construction of our check (issue 28): the theorem's proof is the one-arc argument "
                    "(a profitable arc out of S grows from its vertex at its gain), and our search's vertex-exit seeds "
                    "start exactly there, so 'no such span labelled stable' tests that our search follows a profitable "
                    "arc, not the paper; it is a test of our code (tests/papers/test_ftrl_preference_graphs.py, "
                    "test_search_never_labels_an_open_set_stable), and the page shows its counts")


@claim_rule("C2b", statement="(The dossier's proxy, stronger than the paper's claim) the pure profiles that typical "
                             "exponential-weights trajectories approach form a preferentially stable set.",
            rule="the empirical skeleton (profiles within 1e-3 of the late trajectories) is preferentially stable "
                 "in every game where it is not empty, and it is not empty in at least one game (issue 28: an empty "
                 "skeleton, which trajectories that approach no vertex give, is closed vacuously and no longer "
                 "counts as agreeing; no game with one: inconclusive, the trajectories had not converged)",
            rejects="limit sets of single trajectories that wind around part of a cyclic sink (a skeleton left by "
                    "a profitable arc in some game)",
            paper="not reached (our extra check)")
def claim2b(r1: LimitSetStudy) -> ClaimCheck:
    filled = np.array([bool(s) for s in r1.naive_skeleton])
    ok = r1.naive_stable[filled]
    text = (f"{ok.mean() if ok.size else float('nan'):.1%} of the {int(filled.sum())} games with a non-empty skeleton "
            f"at tolerance {r1.tol_dossier:g} (of {len(filled)} games; {r1.skeleton_stable.mean():.1%} of all games at "
            f"{r1.tol:g})")
    values = dict(naive=r1.naive_stable, strict=r1.skeleton_stable, filled=filled)
    if not ok.size:
        return ClaimCheck.inconclusive_check(text, "not converged", f"no trajectory came within {r1.tol_dossier:g} of "
                                             f"a vertex by T = {r1.horizon:g}: no skeleton to check", values=values)
    return ClaimCheck(text, bool(ok.all()), values=values)


@claim_rule("C3", statement="For subgames, preferential stability characterises asymptotic stability of the span "
                            "(entropic FTRL).",
            rule=f"in each class separately (preferentially stable subgames must be labelled stable, the others "
                 f"unstable): reproduced when at least {AGREE_MIN:.0%} of the subgames get the predicted label and the "
                 f"one-sided 95% Clopper-Pearson lower bound of the share of games whose sets all get it is above "
                 f"{GAME_LOWER:g}; not reproduced on evidence against (sets labelled the opposite way alone put the "
                 f"class below {AGREE_MIN:.0%}, or the games' upper bound, undecided sets counted as agreeing, is below "
                 f"{GAME_LOWER:g}); otherwise inconclusive (undecided sets, or fewer than {games_needed()} games: the "
                 "interval spans both)",
            rejects="preferences predict one class only, e.g. a dynamics (or a test) that calls every span unstable: "
                    "100% on the unstable class, 0% on the stable one; or preferences that hold in one game whose "
                    "many nested sets carry the pool while they fail in other games",
            paper="preferences are enough to fully characterize asymptotic stability")
def claim3(st: SubgameStudy, agree_min: float) -> ClaimCheck:
    return _per_class_check(st, agree_min)


@claim_rule("C4", statement="Our reconstruction of the counterexample (the paper's game was not reached; the span "
                            "as a union of faces is our reading): a three-player game has a preferentially stable set "
                            "whose span is dynamically unstable, and a variant with the same preference graph (one "
                            "payoff changed) has a stable span.",
            rule="S preferentially stable with one preference graph at every G; the search labels the span "
                 "unstable at G = cx_unstable_G and stable at G = cx_stable_G; a decided label on the wrong side (or "
                 "two graphs) is evidence against; an 'undecided' label at either G (no label on the wrong side) is "
                 "inconclusive",
            rejects="the preference graph decides: both variants labelled alike (both stable, as the one-exit "
                    "sampling protocol finds, or both unstable)",
            paper="we construct a three-player counterexample with a preferentially stable set whose span is "
                  "dynamically unstable", reconstruction=True)
def claim4(cx: CounterexampleStudy, stable_G: float, unstable_G: float) -> ClaimCheck:
    ru, rs = cx.result_at(unstable_G), cx.result_at(stable_G)
    same = bool(cx.same_graph.all() and cx.pref_stable.all())
    text = (f"G={unstable_G:g}: {ru.label}, ε(d) {ru.eps.min():.2f}–{ru.eps.max():.2f} for d={cx.levels.max():.0e}…"
            f"{cx.levels.min():.0e}; G={stable_G:g}: {rs.label}, ε({cx.levels.min():.0e})={rs.eps[-1]:.1e}; "
            f"one preference graph and S preferentially stable at all {len(cx.G)} G: {same}")
    values = dict(unstable=ru.eps, stable=rs.eps)
    wrong = (ru.label == "stable") or (rs.label == "unstable")
    if same and not wrong and "undecided" in (ru.label, rs.label):
        return ClaimCheck.inconclusive_check(text, "interval spans both", "the search left the span undecided at G = "
                                             + ", ".join(f"{G:g}" for G, r in ((unstable_G, ru), (stable_G, rs))
                                                         if r.label == "undecided")
                                             + ": ε(d) neither bounded away from 0 nor falling to 0", values=values)
    return ClaimCheck(text, bool(same and ru.label == "unstable" and rs.label == "stable"), values=values)


@claim_rule("C5", statement="In our counterexample the exit along the matching-pennies face grows at the averaged "
                            "rate (G+h-2)/4 on every face orbit (zero at G+h = 2: a neutral span, nothing escapes and "
                            "nothing returns), and the search labels the span unstable where G+h > 2 and stable where "
                            "G+h < 2 (there 'stable' is the search's finding, not a proof).",
            rule=f"slope of log x_{{3,1}} along an off-centre orbit within {RATE_TOL:g} of (G+h-2)/4 for every G of "
                 "the rate grid (which includes G+h = 2), and every label of the G grid is 'stable' where G+h<2 and "
                 "'unstable' where G+h>2; a label on the wrong side or a slope off by more than the tolerance is "
                 "evidence against; an 'undecided' label (none wrong) is inconclusive",
            rejects="the rate read at one point of the orbit (its start), which differs from the average by more "
                    "than rate_tol, or a switch elsewhere in the grid",
            paper="not reached (our construction)")
def claim5(rate: RateStudy, cx: CounterexampleStudy, rate_tol: float) -> ClaimCheck:
    _fixed("rate_tol", rate_tol, RATE_TOL)
    err = np.abs(rate.slope - rate.predicted)
    want = np.where(cx.G + cx.h < 2, "stable", "unstable")
    match = [lab == w for lab, w in zip(cx.labels, want)]
    wrong = [lab not in (w, "undecided") for lab, w in zip(cx.labels, want)]
    text = (f"slopes {', '.join(f'{s:.4f}' for s in rate.slope)} vs {', '.join(f'{p:.4f}' for p in rate.predicted)} "
            f"at G = {', '.join(f'{G:g}' for G in rate.G)} (largest error {np.nanmax(err):.1e}); labels "
            f"{', '.join(f'G={G:g}: {lab}' for G, lab in zip(cx.G, cx.labels))}")
    values = dict(error=err, match=match)
    rates_ok = bool(np.all(err <= rate_tol))
    if rates_ok and not any(wrong) and not all(match):
        return ClaimCheck.inconclusive_check(text, "interval spans both", "the search left the span undecided at G = "
                                             + ", ".join(f"{G:g}" for G, m in zip(cx.G, match) if not m), values=values)
    return ClaimCheck(text, bool(rates_ok and all(match)), values=values)


@claim_rule("C6", statement="Our reconstruction of leaklessness (aggregate payoff drift away from S negative near the "
                            "span; our definition from the abstract's words, sufficient by a one-line argument, so its "
                            "soundness holds by construction) gives a payoff-based condition that tells stable spans "
                            "apart better than preferences: among preferentially stable non-product sets, the sets it "
                            "certifies are stable more often than the preference graph alone predicts.",
            rule="no certified set labelled unstable by the search (one is evidence against); the two-sided 95% "
                 "Clopper-Pearson interval of the share of certified sets labelled stable lies above the share of "
                 "all preferentially stable non-product sets labelled stable (the preference graph's precision: it "
                 "predicts 'stable' for all of them): reproduced; wholly below it: not reproduced; otherwise "
                 "inconclusive (interval spans both; no certified set: the interval is [0, 1])",
            rejects="an ordinal certificate (certify every preferentially stable set: precision = the base rate, and "
                    "it certifies split-corner sets the search finds unstable), or a certificate that certifies nothing",
            paper="a payoff-based condition under which the span of a set of pure profiles remains stable and "
                  "attracting", reconstruction=True)
def claim6(lk: LeakStudy) -> ClaimCheck:
    c = lk.confusion()
    if c["n"] == 0:
        return ClaimCheck("no non-product preferentially stable sets", None, values=c,
                          reason="no non-product preferentially stable sets at this profile")
    base = c["stable"] / c["n"]
    lo, hi = proportion_interval(c["certified_stable"], c["certified"])
    c = dict(c, base=base, interval=(lo, hi))
    text = (f"{c['certified']} of {c['n']} preferentially stable non-product sets certified (power "
            f"{c['certified'] / c['n']:.0%}); of those {c['false']} labelled unstable, {c['certified_undecided']} "
            f"undecided, {c['certified_stable']} stable: share stable [{lo:.2f}, {hi:.2f}] (95% Clopper-Pearson) "
            f"against the preference graph's {base:.2f} (the search labels {c['stable']} stable, {c['unstable']} "
            f"unstable, {c['undecided']} undecided)")
    if c["false"]:
        return ClaimCheck(text + f"; evidence against: {c['false']} certified set(s) labelled unstable", False, values=c)
    if lo > base:
        return ClaimCheck(text, True, values=c)
    if hi < base:
        return ClaimCheck(text + "; the certified sets are stable less often than the preference graph predicts",
                          False, values=c)
    return ClaimCheck.inconclusive_check(text, "interval spans both",
                                         f"the certified sets' interval [{lo:.2f}, {hi:.2f}] contains the preference "
                                         f"graph's precision {base:.2f}" + (" (no set certified)" if not c["certified"]
                                                                           else ""), values=c)


@claim_rule("C7", statement="The subgame characterisation holds for the Euclidean regulariser too.",
            rule=f"claim 3's rule under Euclidean FTRL: in each class at least {AGREE_MIN:.0%} of the subgames get the "
                 f"predicted label and the games' one-sided 95% Clopper-Pearson lower bound is above {GAME_LOWER:g} "
                 f"(reproduced); sets labelled the opposite way alone below {AGREE_MIN:.0%}, or the games' upper bound "
                 f"below {GAME_LOWER:g} (not reproduced); otherwise inconclusive (fewer than {games_needed()} games in "
                 "a class, or undecided sets)",
            rejects="a regulariser-dependent characterisation: one class mislabelled under the Euclidean projection, "
                    "or right in one game's nested sets only",
            paper="no-regret dynamics such as follow-the-regularized-leader (FTRL)")
def claim7(st: SubgameStudy, agree_min: float) -> ClaimCheck:
    return _per_class_check(st, agree_min)


@claim_rule("C8", statement="(Ours) A preferentially stable set with a split corner (two players gaining by moves "
                            "that stay in S, their joint move leaving S) has an unstable span.",
            rule="every preferentially stable non-product set with a split corner is labelled unstable by the search "
                 "(its 'stable' labels re-checked); at least one such set; one labelled stable is evidence against, "
                 "one left undecided (none stable) is inconclusive",
            rejects="split corners harmless unless the gains are large (a split-corner set labelled stable)",
            paper="not reached (our analysis of the chapter's first counterexample)")
def claim8(lk: LeakStudy) -> ClaimCheck:
    bc = lk.by_corner()
    sc = bc["split corner"]
    n = sum(sc.values())
    nc = bc["no split corner"]
    text = (f"split corner: {sc['unstable']} of {n} unstable ({sc['stable']} stable, {sc['undecided']} undecided); "
            f"without one: {nc['unstable']} unstable, {nc['stable']} stable, {nc['undecided']} undecided")
    if n == 0:
        return ClaimCheck(text, None, values=bc, reason="no preferentially stable set with a split corner at this profile")
    if sc["stable"] == 0 and sc["undecided"]:
        return ClaimCheck.inconclusive_check(text, "interval spans both", f"{sc['undecided']} split-corner set(s) left "
                                             "undecided by the search (none labelled stable)", values=bc)
    return ClaimCheck(text, sc["unstable"] == n, values=bc)
