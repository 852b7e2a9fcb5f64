"""The chapter's claims, declared under the claims contract (``shared/design/CLAIMS.md``).

Every stability label a rule reads comes from the adversarial search (:mod:`.stability`): "stable",
"unstable" or "undecided"; an undecided set never counts as agreeing. Thresholds come from the
chapter's config (fixed before the run). The abstract is the only text of the paper we read; the
``paper`` column quotes it.
"""

from __future__ import annotations

import numpy as np

from ..runtime.claims import ClaimCheck, abstract_sentence, claim_rule
from .experiments import CounterexampleStudy, LeakStudy, LimitSetStudy, RateStudy, SubgameStudy

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


def _class_text(pc: dict) -> str:
    return "; ".join(f"{cls}: {v['agree']}/{v['n']} as predicted, {v['undecided']} undecided, {v['opposite']} opposite"
                     for cls, v in pc.items())


def _per_class_check(st: SubgameStudy, agree_min: float) -> ClaimCheck:
    pc = st.per_class()
    rates = {cls: (v["agree"] / v["n"] if v["n"] else float("nan")) for cls, v in pc.items()}
    if any(v["n"] == 0 for v in pc.values()):
        empty = [cls for cls, v in pc.items() if v["n"] == 0]
        return ClaimCheck(_class_text(pc), None, values=dict(per_class=pc, rates=rates),
                          reason=f"no {' / '.join(empty)} subgames at this profile: that class cannot be checked")
    ok = all(r >= agree_min for r in rates.values())
    return ClaimCheck(_class_text(pc) + f" ({st.starts_per_set} searched starts per set)", bool(ok),
                      values=dict(per_class=pc, rates=rates))


@claim_rule("C2", statement="The skeleton of every dynamically stable set is preferentially stable: no span of a "
                            "set that is not preferentially stable is stable.",
            rule="among sets that are not preferentially stable (subgames with both regularisers, and random "
                 "non-product sets), none is labelled stable by the search, in each class separately, and each "
                 "class has at least one set; undecided sets are counted apart",
            rejects="a world where a set left by a profitable arc can still have a stable span (one such set "
                    "labelled stable)",
            paper="the skeleton of every dynamically stable set ... must be preferentially stable")
def claim2(subgames: list[SubgameStudy], lk: LeakStudy) -> ClaimCheck:
    prod = [r for st in subgames for r in st.records if not r["pref_stable"]]
    nonprod = lk.controls
    counts = {}
    for name, rs in (("subgames", prod), ("non-product sets", nonprod)):
        counts[name] = dict(n=len(rs), stable=sum(r["label"] == "stable" for r in rs),
                            undecided=sum(r["label"] == "undecided" for r in rs),
                            unstable=sum(r["label"] == "unstable" for r in rs))
    text = "; ".join(f"{k}: {v['stable']} of {v['n']} labelled stable ({v['unstable']} unstable, "
                     f"{v['undecided']} undecided)" for k, v in counts.items())
    if any(v["n"] == 0 for v in counts.values()):
        return ClaimCheck(text, None, values=counts, reason="a class of non-preferentially-stable sets is empty "
                                                            "at this profile")
    return ClaimCheck(text, all(v["stable"] == 0 for v in counts.values()), values=counts)


@claim_rule("C2b", statement="(The dossier's proxy, stronger than the paper's claim) the pure profiles that typical "
                             "exponential-weights trajectories approach form a preferentially stable set.",
            rule="the empirical skeleton (profiles within 1e-3 of the late trajectories) is preferentially stable "
                 "in every game",
            rejects="limit sets of single trajectories that wind around part of a cyclic sink (a skeleton left by "
                    "a profitable arc in some game)",
            paper="not reached (our extra check)")
def claim2b(r1: LimitSetStudy) -> ClaimCheck:
    ok = bool(r1.naive_stable.all())
    return ClaimCheck(f"{r1.naive_stable.mean():.1%} of {len(r1.naive_stable)} games at tolerance "
                      f"{r1.tol_dossier:g} ({r1.skeleton_stable.mean():.1%} at {r1.tol:g})", ok,
                      values=dict(naive=r1.naive_stable, strict=r1.skeleton_stable))


@claim_rule("C3", statement="For subgames, preferential stability characterises asymptotic stability of the span "
                            "(entropic FTRL).",
            rule="in each class separately (preferentially stable subgames must be labelled stable, the others "
                 "unstable) at least agree_min of the subgames get the predicted label; undecided counts against",
            rejects="preferences predict one class only, e.g. a dynamics (or a test) that calls every span unstable: "
                    "100% on the unstable class, 0% on the stable one",
            paper="preferences are enough to fully characterize asymptotic stability")
def claim3(st: SubgameStudy, agree_min: float) -> ClaimCheck:
    return _per_class_check(st, agree_min)


@claim_rule("C4", statement="A three-player game has a preferentially stable set whose span is dynamically unstable, "
                            "and a variant with the same preference graph (one payoff changed) has a stable span.",
            rule="S preferentially stable with one preference graph at every G; the search labels the span "
                 "unstable at G = cx_unstable_G and stable at G = cx_stable_G",
            rejects="the preference graph decides: both variants labelled alike (both stable, as the one-exit "
                    "sampling protocol finds, or both unstable)",
            paper="we construct a three-player counterexample with a preferentially stable set whose span is "
                  "dynamically unstable")
def claim4(cx: CounterexampleStudy, stable_G: float, unstable_G: float) -> ClaimCheck:
    ru, rs = cx.result_at(unstable_G), cx.result_at(stable_G)
    same = bool(cx.same_graph.all() and cx.pref_stable.all())
    text = (f"G={unstable_G:g}: {ru.label}, ε(d) {ru.eps.min():.2f}–{ru.eps.max():.2f} for d={cx.levels.max():.0e}…"
            f"{cx.levels.min():.0e}; G={stable_G:g}: {rs.label}, ε({cx.levels.min():.0e})={rs.eps[-1]:.1e}; "
            f"one preference graph and S preferentially stable at all {len(cx.G)} G: {same}")
    return ClaimCheck(text, bool(same and ru.label == "unstable" and rs.label == "stable"),
                      values=dict(unstable=ru.eps, stable=rs.eps))


@claim_rule("C5", statement="In our counterexample the exit along the matching-pennies face grows at the averaged "
                            "rate (G+h-2)/4 on every face orbit, and the search's labels switch where it changes sign.",
            rule="slope of log x_{3,1} along an off-centre orbit within rate_tol of (G+h-2)/4 for every G of the rate "
                 "grid, and every label of the G grid is 'stable' where G+h<2 and 'unstable' where G+h>2",
            rejects="the rate read at one point of the orbit (its start), which differs from the average by more "
                    "than rate_tol, or a switch elsewhere in the grid",
            paper="not reached (our construction)")
def claim5(rate: RateStudy, cx: CounterexampleStudy, rate_tol: float) -> ClaimCheck:
    err = np.abs(rate.slope - rate.predicted)
    want = np.where(cx.G + cx.h < 2, "stable", "unstable")
    match = [lab == w for lab, w in zip(cx.labels, want)]
    text = (f"slopes {', '.join(f'{s:.4f}' for s in rate.slope)} vs {', '.join(f'{p:.4f}' for p in rate.predicted)} "
            f"(largest error {np.nanmax(err):.1e}); labels {', '.join(f'G={G:g}: {lab}' for G, lab in zip(cx.G, cx.labels))}")
    return ClaimCheck(text, bool(np.all(err <= rate_tol) and all(match)), values=dict(error=err, match=match))


@claim_rule("C6", statement="Leaklessness (aggregate payoff drift away from S negative near the span; our "
                            "definition from the abstract's words) is sufficient for a stable and attracting span.",
            rule="no certified set is labelled unstable by the search (certified-but-undecided reported apart), and "
                 "at least one set is certified; power reported as certified / preferentially stable sets",
            rejects="an ordinal certificate such as preferential stability itself, which certifies spans the "
                    "search finds unstable",
            paper="a payoff-based condition under which the span of a set of pure profiles remains stable and "
                  "attracting")
def claim6(lk: LeakStudy) -> ClaimCheck:
    c = lk.confusion()
    if c["n"] == 0:
        return ClaimCheck("no non-product preferentially stable sets", None, values=c,
                          reason="no non-product preferentially stable sets at this profile")
    text = (f"{c['certified']} of {c['n']} preferentially stable non-product sets certified (power "
            f"{c['certified'] / c['n']:.0%}); of those {c['false']} labelled unstable, {c['certified_undecided']} "
            f"undecided, {c['certified_stable']} stable; the search labels {c['stable']} stable, {c['unstable']} "
            f"unstable, {c['undecided']} undecided")
    return ClaimCheck(text, bool(c["false"] == 0 and c["certified"] > 0), values=c)


@claim_rule("C7", statement="The subgame characterisation holds for the Euclidean regulariser too.",
            rule="in each class separately at least agree_min of the subgames get the predicted label under Euclidean "
                 "FTRL; undecided counts against",
            rejects="a regulariser-dependent characterisation: one class mislabelled under the Euclidean projection",
            paper="no-regret dynamics such as follow-the-regularized-leader (FTRL)")
def claim7(st: SubgameStudy, agree_min: float) -> ClaimCheck:
    return _per_class_check(st, agree_min)


@claim_rule("C8", statement="(Ours) A preferentially stable set with a split corner (two players gaining by moves "
                            "that stay in S, their joint move leaving S) has an unstable span.",
            rule="every preferentially stable non-product set with a split corner is labelled unstable by the search; "
                 "at least one such set",
            rejects="split corners harmless unless the gains are large (a split-corner set labelled stable or "
                    "undecided)",
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
    return ClaimCheck(text, sc["unstable"] == n, values=bc)
