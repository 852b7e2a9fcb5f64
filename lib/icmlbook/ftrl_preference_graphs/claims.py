"""The chapter's claims: statements, decision rules, and the functions that apply the rules to a run.

Each ``claimN`` function returns a :class:`ClaimCheck` (``measured`` text and ``passed``: a bool from
the rule, or None when the rule cannot be evaluated at this profile, with ``reason``).
"""

from __future__ import annotations


import numpy as np

from ..runtime.claims import ClaimCheck
from .experiments import CounterexampleStudy, LeakStudy, LimitSetStudy, SubgameStudy

CLAIM_STATEMENTS = {
    "1": "In generic random games, the singleton sink equilibria of the preference graph are exactly the strict pure "
         "Nash equilibria.",
    "2": "The skeleton of every dynamically stable set is preferentially stable (closed under profitable deviations).",
    "2b": "(Dossier's proxy, stronger than the paper's claim) the pure profiles approached by typical exponential-weights "
          "trajectories form a preferentially stable set.",
    "3": "For subgames (product sets), the span is asymptotically stable under FTRL iff the set is preferentially stable.",
    "4": "A three-player game has a preferentially stable set whose span is unstable; the same preference graph can "
         "carry a stable span for other payoffs.",
    "5": "In our counterexample the escape rate from the face is (G-3)/4 and stability switches at G = 3.",
    "6": "Leaklessness (our stand-in, see text) is sufficient: every certified set has a stable and attracting span.",
    "7": "The subgame characterisation holds for the Euclidean regulariser too, where convergence to the face happens "
         "in finite time.",
}

CLAIM_RULES = {
    "1": "sets equal in 100% of games",
    "2": "no span of a non-preferentially-stable set (product sets + random controls) is labelled asymptotically stable",
    "2b": "the empirical skeleton (tolerance 1e-3) is preferentially stable in 100% of games",
    "3": "agreement >= 99% over all product sets (entropic)",
    "4": "G=5 (or the largest G): excursion >= 0.3 at every δ and max/min over δ <= 1.5; smallest G: excursion at the "
         "smallest δ <= 1e-3; identical arc sets for all G",
    "5": "fitted slopes within 5% of (G-3)/4; largest stable and smallest unstable G of the grid both in [2.8, 3.2]",
    "6": "zero false certifications by L1 (and at least one certified set)",
    "7": "Euclidean agreement >= 99% and every asymptotically stable subgame ends with D_S exactly 0",
}


def claim1(r1: LimitSetStudy) -> ClaimCheck:
    m = r1.nash_match
    return ClaimCheck(f"{m.mean():.1%} of {len(m)} games", bool(m.all()))


def claim2(subgames: list[SubgameStudy], lk: LeakStudy) -> ClaimCheck:
    bad = [r for st in subgames for r in st.records if not r["pref_stable"]]
    wrong = sum(r["stable"] for r in bad)
    ctrl_wrong = sum(c["stable"] for c in lk.controls)
    n = len(bad) + len(lk.controls)
    return ClaimCheck(f"{wrong + ctrl_wrong} of {n} non-preferentially-stable sets labelled stable "
                      f"({len(bad)} subgames, {len(lk.controls)} random non-product sets)",
                      (wrong + ctrl_wrong) == 0 if n else None,
                      None if n else "not testable at this profile: no non-preferentially-stable sets")


def claim2b(r1: LimitSetStudy) -> ClaimCheck:
    ok = bool(r1.naive_stable.all())
    return ClaimCheck(f"{r1.naive_stable.mean():.1%} of {len(r1.naive_stable)} games at tolerance 1e-3 "
                      f"({r1.skeleton_stable.mean():.1%} at 1e-6)", ok,
                      None if ok else "limit sets of single trajectories can attract without being stable; "
                                      "the paper's statement (claim 2) is about stable sets")


def claim3(st: SubgameStudy) -> ClaimCheck:
    return ClaimCheck(f"{st.agreement:.2%} of {len(st.records)} subgames ({len(st.disagreements)} disagreements)",
                      st.agreement >= 0.99)


def claim4(cx: CounterexampleStudy) -> ClaimCheck:
    hi = int(np.argmax(cx.G)) if 5.0 not in cx.G else int(np.where(cx.G == 5.0)[0][0])
    lo = int(np.argmin(cx.G))
    e_hi = cx.excursion[hi]
    d_min = int(np.argmin(cx.deltas))
    flat = e_hi.min() >= 0.3 and e_hi.max() / e_hi.min() <= 1.5
    small = cx.excursion[lo, d_min] <= 1e-3
    same = bool(cx.same_graph.all() and cx.pref_stable.all())
    return ClaimCheck(f"G={cx.G[hi]:g}: excursion {e_hi.min():.3f}–{e_hi.max():.3f} over δ={cx.deltas.max():.0e}…"
                      f"{cx.deltas.min():.0e}; G={cx.G[lo]:g}: {cx.excursion[lo, d_min]:.1e} at δ={cx.deltas.min():.0e}; "
                      f"same graph for all {len(cx.G)} G: {same}", bool(flat and small and same))


def claim5(cx: CounterexampleStudy) -> ClaimCheck:
    rel = np.abs(cx.fit_slope - cx.fit_predicted) / np.abs(cx.fit_predicted)
    stable_G = cx.G[~cx.unstable]
    unstable_G = cx.G[cx.unstable]
    if len(stable_G) == 0 or len(unstable_G) == 0:
        return ClaimCheck("no switch in the grid", False)
    lo, hi = float(stable_G.max()), float(unstable_G.min())
    fits = bool(np.all(rel <= 0.05))
    measured = (f"slopes {', '.join(f'{s:.4f}' for s in cx.fit_slope)} vs "
                f"{', '.join(f'{p:.4f}' for p in cx.fit_predicted)} (max error {rel.max():.2%}); "
                f"switch between G={lo:g} and G={hi:g}")
    if lo < 2.8 and hi > 3.2 and fits and lo < hi:
        return ClaimCheck(measured, None, reason="not testable at this profile: the G grid has no point in [2.8, 3.2]")
    return ClaimCheck(measured, bool(fits and lo < hi and 2.8 <= lo <= 3.2 and 2.8 <= hi <= 3.2))


def claim6(lk: LeakStudy, criterion: str = "L1") -> ClaimCheck:
    c = lk.confusion(criterion)
    if c["n"] == 0:
        return ClaimCheck("no sets", None, reason="not testable at this profile: no non-product preferentially stable sets")
    return ClaimCheck(f"{criterion}: {c['certified']} certified, {c['false_certifications']} falsely; "
                      f"{c['missed']} of {c['stable']} stable sets missed (of {c['n']})",
                      c["false_certifications"] == 0 and c["certified"] > 0)


def claim7(st: SubgameStudy) -> ClaimCheck:
    stable = [r for r in st.records if r["stable"]]
    zero = np.mean([bool(np.all(r["all_hit_zero"])) for r in stable]) if stable else float("nan")
    t0 = np.median([r["zero_time"].max() for r in stable]) if stable else float("nan")
    return ClaimCheck(f"agreement {st.agreement:.2%} on {len(st.records)} subgames; D_S exactly 0 at the end for "
                      f"{zero:.1%} of stable ones (median time {t0:.2f})",
                      bool(st.agreement >= 0.99 and zero == 1.0))
