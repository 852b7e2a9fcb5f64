"""Figures of the OMAC chapter (Li, Hasson, Ghosh, ICML 2026, arXiv 2505.11765).

Every function takes results of :mod:`.experiments` (or one :class:`.engine.QueryTrace`) and returns a pyplot-free
matplotlib ``Figure`` in the book's style. Every title says what the agents are: programs (no language model) on the
list-function family, small language models trained from scratch on CPU (never an LLM) on the arithmetic family
(``family="arith"``); titles state what the data show and are computed from the data; nothing here decides a claim.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
from scipy import stats as sps

from ...runtime.style import PALETTE, new_figure
from . import dsl
from .dimensions import DIMENSIONS, Team
from .engine import QueryTrace
from .experiments import ABLATION_DIMS, Replicate

__all__ = ["network_figure", "search_curve_figure", "gains_figure", "calls_figure", "sweep_figure", "GAIN_ARMS",
           "training_figure", "TAGS"]

TAG = "program agents, no language model"
#: the label of each task family's agents, on every figure
TAGS = {"dsl": TAG, "arith": "agents: small LMs trained from scratch on CPU, not LLMs"}
_METRIC = {"dsl": "pass@1", "arith": "accuracy"}
GAIN_ARMS = tuple(f"single:{d}" for d in DIMENSIONS) + ("joint:fun1>str2", "joint:str2>fun1", "random:fun1")


def _ci(v) -> tuple[float, float]:
    v = np.asarray(v, dtype=float)
    if v.size < 2:
        return float(v.mean()), 0.0
    return float(v.mean()), float(sps.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / np.sqrt(v.size))


def network_figure(trace: QueryTrace, team: Team, tab: dsl.TaskTable):
    """The layered network of one query: who was selected, what each answered (green: passes the hidden tests),
    which kept answers each agent received, and where the consensus stopped."""
    g = nx.DiGraph()
    pos, colors, labels = {}, [], {}
    for t, layer in enumerate(trace.layers):
        for j, (ai, ans) in enumerate(layer):
            node = (t, ai)
            g.add_node(node)
            pos[node] = (t, -trace.selected.index(ai))
            labels[node] = f"{team.pool[ai].role}\n{dsl.program_text(ans)}"
        if t > 0:
            prev = trace.layers[t - 1]
            kept = [prev[i] for i in trace.kept[t - 1]]
            for ai, ix in trace.edges[t].items():
                for i in ix:
                    g.add_edge((t - 1, kept[i][0]), (t, ai))
    for node in g.nodes:
        ans = dict(trace.layers[node[0]])[node[1]]
        colors.append(PALETTE[2] if tab.hidden_pass[ans] else (PALETTE[1] if tab.vis_pass[ans] else PALETTE[3]))
    n_layers = len(trace.layers)
    fig, ax = new_figure(width=2.9 * n_layers + 1.2, height=1.1 * max(len(trace.selected), 2) + 1.3)
    nx.draw_networkx_edges(g, pos, ax=ax, edge_color="#888888", arrows=True, arrowsize=12, node_size=1800)
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=1800, alpha=0.85)
    nx.draw_networkx_labels(g, pos, labels, ax=ax, font_size=7)
    ax.set_xticks(range(n_layers), [f"layer {t + 1}" for t in range(n_layers)])
    ax.set_yticks([])
    ax.set_xlim(-0.6, n_layers - 0.4)
    stop = (f"consensus in layer {trace.consensus_layer + 1}" if trace.consensus_layer is not None
            else "no consensus: the ranker picked the final answer")
    ax.set_title(f"One query ({TAG}): {stop}; final answer {'passes' if trace.correct else 'fails'} the hidden tests"
                 f"\n{trace.agent_calls} agent calls, {trace.controller_calls} controller calls. "
                 "Green: passes hidden tests; orange: passes only the visible examples; red: fails them", fontsize=9)
    for s in ax.spines.values():
        s.set_visible(False)
    return fig


def search_curve_figure(reps: list[Replicate], family: str = "dsl"):
    """Best validation pass@1 so far against evaluations: the comparator against resampling (equal budgets, the
    tolerance stop off) and random search, mean over replicates with 95 % t-intervals."""
    fig, axes = new_figure(1, len(ABLATION_DIMS), width=10, height=3.8, squeeze=False)
    for ax, dim in zip(axes[0], ABLATION_DIMS):
        for k, (arm, name) in enumerate([(f"fixed:{dim}", "contrastive comparator"),
                                         (f"resample:{dim}", "resampling (initializer again)")]):
            curves = np.array([r[arm].best_so_far for r in reps])
            base = np.array([r["default"].val for r in reps])[:, None]
            m = (curves - base).mean(0)
            h = np.array([_ci(c)[1] for c in (curves - base).T])
            x = np.arange(1, m.size + 1)
            ax.plot(x, m, "-o", color=PALETTE[k], ms=3, label=name)
            ax.fill_between(x, m - h, m + h, color=PALETTE[k], alpha=0.15)
        ax.axhline(0, color="#999999", lw=0.8)
        ax.set_xlabel("validation evaluations of whole teams")
        ax.set_ylabel(f"best validation {_METRIC[family]} so far − default")
        ax.set_title(f"{dim}", fontsize=10)
        ax.legend(fontsize=8)
    d = np.mean([[r[f"fixed:{dim}"].val - r[f"resample:{dim}"].val for dim in ABLATION_DIMS] for r in reps])
    fig.suptitle(f"Algorithm 1's search ({TAGS[family]}): at the last evaluation the comparator is {d:+.3f} "
                 f"above resampling (mean over {len(reps)} replicates)", fontsize=10)
    return fig


def gains_figure(reps: list[Replicate], arms=GAIN_ARMS, family: str = "dsl"):
    """Validation and held-out test gain over the default team per optimised arm (95 % t-intervals over
    replicates)."""
    fig, ax = new_figure(width=9, height=4.0)
    x = np.arange(len(arms))
    for k, (what, name) in enumerate([("val", "validation (what the optimiser saw)"), ("test", "held-out test")]):
        ms = [_ci([getattr(r[a], what) - getattr(r["default"], what) for r in reps]) for a in arms]
        ax.errorbar(x + (k - 0.5) * 0.25, [m for m, _ in ms], yerr=[h for _, h in ms], fmt="o", capsize=3,
                    color=PALETTE[k], label=name)
    ax.axhline(0, color="#999999", lw=0.8)
    ax.set_xticks(x, [a.replace("single:", "").replace("joint:", "") for a in arms], rotation=20)
    ax.set_ylabel(f"{_METRIC[family]} − default team's")
    best = max(arms, key=lambda a: np.mean([r[a].test - r["default"].test for r in reps]))
    g = np.mean([r[best].test - r["default"].test for r in reps])
    ax.set_title(f"Gains over DyLAN's defaults ({TAGS[family]})\nlargest mean held-out gain: {best} ({g:+.3f})", fontsize=10)
    ax.legend(fontsize=8)
    return fig


def calls_figure(reps: list[Replicate], arms=("default",) + GAIN_ARMS, family: str = "dsl"):
    """Held-out pass@1 against calls per query (agents and controllers), mean over replicates."""
    fig, ax = new_figure(width=7, height=4.2)
    for k, a in enumerate(arms):
        c, ch = _ci([r[a].calls for r in reps])
        p, ph = _ci([r[a].test for r in reps])
        ax.errorbar([c], [p], xerr=[ch], yerr=[ph], fmt="o", color=PALETTE[k % len(PALETTE)], capsize=2,
                    label=a.replace("single:", "").replace("joint:", ""))
    ax.set_xlabel("calls per test query (agent answers + controller decisions)")
    ax.set_ylabel(f"test {_METRIC[family]}")
    cheapest = min(arms, key=lambda a: np.mean([r[a].calls for r in reps]))
    ax.set_title(f"Accuracy against cost ({TAGS[family]}); fewest calls: {cheapest}", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    return fig


def sweep_figure(pg):
    """The playground's sweep: every candidate's validation pass@1 in evaluation order, dimension by dimension,
    with the best so far."""
    family = pg.sweep.team.family
    fig, ax = new_figure(width=8, height=3.6)
    x0 = 0
    for k, tr in enumerate(pg.sweep.traces):
        x = np.arange(x0, x0 + tr.n_evals) + 1
        ax.plot(x, tr.scores, "o", color=PALETTE[k % len(PALETTE)], ms=4, label=f"{tr.dim} candidates")
        ax.step(x, tr.best_so_far, where="post", color=PALETTE[k % len(PALETTE)], lw=1.2)
        x0 += tr.n_evals
    ax.axhline(pg.default_val, color="#999999", lw=0.8, ls="--", label="default team")
    ax.set_xlabel("validation evaluations of whole teams")
    ax.set_ylabel(f"validation {_METRIC[family]}")
    ax.set_title(f"Algorithm 2 ({TAGS[family]}): validation {pg.default_val:.3f} → {pg.val:.3f}, held-out test "
                 f"{pg.default_test:.3f} → {pg.test:.3f}", fontsize=10)
    ax.legend(fontsize=8)
    return fig


def training_figure(agents, margin: float):
    """Held-out answer loss of each small LM against updates, with its plateau test (rule 10) in the legend."""
    fig, ax = new_figure(width=7.5, height=3.6)
    reports = agents.plateau(margin)
    for k, (spec, (steps, loss), rep) in enumerate(zip(agents.specs, agents.curves, reports)):
        ax.plot(steps, loss, "-", color=PALETTE[k], lw=1.4,
                label=f"{spec.name} (d={spec.d_model}, {spec.n_layer} layer{'s' if spec.n_layer > 1 else ''}): "
                      f"{'plateau' if rep.converged else 'still moving'}, Δ = {rep.change:.3f}")
    ax.set_xlabel("updates")
    ax.set_ylabel("held-out answer loss (nats per digit)")
    n_ok = sum(r.converged for r in reports)
    ax.set_title(f"Training the agents ({TAGS['arith']}): {n_ok} of {len(reports)} pass the plateau test "
                 f"(Δ < {reports[0].tolerance:.3g})", fontsize=10)
    ax.legend(fontsize=8)
    return fig
