"""The live playground: every detector's numbers for another monitored topic, cipher, site, k, τ or FPR target,
re-derived from the first seed's stored scores (no retraining of the language model; the monitors and probes
for every topic were fitted in :func:`.experiments.run_seed`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...runtime.style import PALETTE, new_figure
from .capture import Site
from .experiments import SeedRun
from .metrics import auroc, check_fpr, rate_above, threshold_at_fpr
from .plots import fmt_name
from .probes import streaming_scores
from .world import TOPICS, check_topic

__all__ = ["PlaygroundResult", "playground"]


@dataclasses.dataclass(frozen=True)
class PlaygroundResult:
    topic: str
    cipher: str
    site: str
    k: int
    tau: float
    fpr_target: float
    rows: list[tuple[str, float, float, float]]      # (detector, AUROC, TPR, FPR) on encoded eval answers
    plain_rows: list[tuple[str, float, float, float]]
    figure: object


def _metrics(scores_e, y_e, thr):
    return (auroc(scores_e, y_e) if 0 < y_e.sum() < y_e.size else float("nan"), rate_above(scores_e[y_e], thr),
            rate_above(scores_e[~y_e], thr))


def playground(run: SeedRun, topic: str, cipher: str, layer: int, kind: str, k: int, fpr_target: float,
               tau: float | None = None) -> PlaygroundResult:
    """Detectors of ``topic`` on ``cipher`` answers (eval split of the first seed). Thresholds are set on plain
    calibration negatives at ``fpr_target`` (deployment); ``tau`` (a per-token probability) fixes the k-of-n
    rule's threshold instead of calibrating it."""
    t = check_topic(topic)
    fpr_target = check_fpr(fpr_target)
    if cipher not in run.responses or cipher == "plain":
        raise ValueError(f"cipher={cipher!r} is not allowed; this run has {sorted(f for f in run.responses if f != 'plain')}")
    if run.probe_token is None or t not in run.topics:
        raise ValueError("the playground needs the first seed's run, which keeps every topic's scores")
    site = Site(int(layer), kind)
    if site not in run.sites:
        raise ValueError(f"layer={layer!r}, kind={kind!r}: no such site; sites are {[s.label for s in run.sites]}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k={k!r} is not allowed; it must be an integer >= 1")
    if tau is not None and not 0.0 < float(tau) < 1.0:
        raise ValueError(f"tau={tau!r} is not allowed; it must lie strictly between 0 and 1 (a probability)")
    s = run.sites.index(site)
    j = run.topics.index(t)
    P, E = run.responses["plain"], run.responses[cipher]
    pc, pe, ee = P.rows("calib"), P.rows("eval"), E.rows("eval")
    neg_c = P.label[pc] != t
    y_p, y_e = P.label[pe] == t, E.label[ee] == t

    def detector(scores_p, scores_e):
        thr = threshold_at_fpr(scores_p[pc][neg_c], fpr_target)
        return thr, _metrics(scores_e[ee], y_e, thr), _metrics(scores_p[pe], y_p, thr)

    tok_p = run.probe_token["plain"][:, :, s, j].astype(np.float64)
    tok_e = run.probe_token[cipher][:, :, s, j].astype(np.float64)
    st_p = streaming_scores(tok_p, run.token_mask["plain"], k)
    st_e = streaming_scores(tok_e, run.token_mask[cipher], k)
    rows, plain_rows, thresholds = [], [], {}
    for name, sp, se in (("text monitor", run.monitor["plain"][:, j], run.monitor[cipher][:, j]),
                         ("keyword list", run.keyword["plain"][:, j], run.keyword[cipher][:, j]),
                         (f"probe {site.label}, mean pooling", run.probe_mean["plain"][:, s, j],
                          run.probe_mean[cipher][:, s, j]),
                         (f"probe {site.label}, {k}-of-n", st_p, st_e)):
        thr, m_e, m_p = detector(sp, se)
        if name.endswith("-of-n") and tau is not None:
            thr = float(np.log(tau / (1 - tau)))
            m_e, m_p = _metrics(se[ee], y_e, thr), _metrics(sp[pe], y_p, thr)
        thresholds[name] = thr
        rows.append((name, *m_e))
        plain_rows.append((name, *m_p))
    tau_used = float(1 / (1 + np.exp(-thresholds[f"probe {site.label}, {k}-of-n"])))

    fig, (ax, ax2) = new_figure(1, 2, width=10.5, height=3.6)
    for a, (sp, se, name) in zip((ax, ax2), ((run.probe_mean["plain"][:, s, j], run.probe_mean[cipher][:, s, j],
                                              f"probe {site.label}, mean pooling"), (st_p, st_e,
                                                                                    f"probe {site.label}, {k}-of-n"))):
        vals = [sp[pe][~y_p], sp[pe][y_p], se[ee][~y_e], se[ee][y_e]]
        finite = np.concatenate([v[np.isfinite(v)] for v in vals] + [np.zeros(1)])
        bins = np.linspace(finite.min(), finite.max() + 1e-6, 40)
        for v, lab, c in zip(vals, ("plain, other topics", f"plain, {TOPICS[t]}", f"{fmt_name(cipher)}, other topics",
                                    f"{fmt_name(cipher)}, {TOPICS[t]}"), (PALETTE[5], PALETTE[0], PALETTE[1], PALETTE[3])):
            v = v[np.isfinite(v)]
            if v.size:
                a.hist(np.clip(v, bins[0], bins[-1]), bins=bins, histtype="step", color=c, label=f"{lab} ({v.size})",
                       density=True)
        a.axvline(thresholds[name], color="k", ls="--", lw=1)
        r = rows[[x[0] for x in rows].index(name)]
        a.set(xlabel="probe logit" if "mean" in name else f"{k}-th largest token logit", ylabel="density",
              title=f"{name}: TPR {r[2]:.2f} at FPR {r[3]:.3f} on {fmt_name(cipher)}")
        a.legend(fontsize=7)
    return PlaygroundResult(TOPICS[t], cipher, site.label, int(k), tau_used, fpr_target, rows, plain_rows, fig)
