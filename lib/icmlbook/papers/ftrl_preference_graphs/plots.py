"""Figures of the chapter. Every function returns a figure (matplotlib via ``new_figure``, or plotly)."""

from __future__ import annotations

import itertools
from typing import Sequence

import networkx as nx
import numpy as np

from icmlbook.runtime import PALETTE, new_figure

from .games import NormalFormGame
from .preference import preference_graph, sink_equilibria

GREY = "#9a9a9a"


# -- preference graphs ----------------------------------------------------------------------------
def profile_positions(game: NormalFormGame) -> dict:
    """Node positions on the profile cube: a grid for two players, an oblique cube for three."""
    pos = {}
    for p in game.profiles():
        if game.n_players == 2:
            pos[p] = (p[1], -p[0])
        elif game.n_players == 3:
            pos[p] = (p[1] + 0.55 * p[2], -p[0] + 0.38 * p[2])
        else:
            pos[p] = (p[1] + 0.55 * p[2] + 2.5 * p[3], -p[0] + 0.38 * p[2])
    return pos


def draw_preference_graph(ax, game: NormalFormGame, highlight=None, title: str | None = None) -> None:
    """Draw the preference graph on ``ax``: arcs are profitable deviations; sink components coloured.

    ``highlight``: an optional set of profiles drawn with a thick black ring (e.g. a set S).
    """
    g = preference_graph(game)
    pos = profile_positions(game)
    sinks = sink_equilibria(g)
    colour = {p: GREY for p in g.nodes}
    for k, c in enumerate(sinks):
        for p in c:
            colour[p] = PALETTE[k % len(PALETTE)]
    names = game.action_names
    labels = {p: "".join(names[i][a] for i, a in enumerate(p)) for p in g.nodes}
    nodes = list(g.nodes)
    nx.draw_networkx_edges(g, pos, ax=ax, arrows=True, arrowstyle="-|>", arrowsize=11, width=1.0,
                           edge_color="#555555", node_size=520, connectionstyle="arc3,rad=0.12")
    nx.draw_networkx_nodes(g, pos, ax=ax, nodelist=nodes, node_color=[colour[p] for p in nodes], node_size=520,
                           edgecolors=["black" if highlight and p in highlight else "white" for p in nodes],
                           linewidths=[2.5 if highlight and p in highlight else 1.0 for p in nodes])
    nx.draw_networkx_labels(g, pos, labels=labels, ax=ax, font_size=7)
    ax.set_title(title or game.name, fontsize=10)
    ax.set_axis_off()
    ax.margins(0.18)


def preference_graphs_figure(games: Sequence[NormalFormGame], highlights: Sequence | None = None,
                             titles: Sequence[str] | None = None, ncols: int = 3):
    """A grid of preference graphs (one panel per game)."""
    n = len(games)
    nrows = int(np.ceil(n / ncols))
    fig, axes = new_figure(nrows, ncols, width=3.2 * ncols, height=2.9 * nrows)
    axes = np.atleast_1d(axes).ravel()
    for k, ax in enumerate(axes):
        if k >= n:
            ax.set_axis_off()
            continue
        draw_preference_graph(ax, games[k], None if highlights is None else highlights[k],
                              None if titles is None else titles[k])
    fig.suptitle("Preference graphs: arcs are profitable unilateral deviations; coloured nodes are sink equilibria",
                 fontsize=10)
    return fig


# -- trajectories ---------------------------------------------------------------------------------
def square_trajectories_figure(panels):
    """FTRL trajectories of 2x2 games on the square (x = P[player 2 plays action 0], y = same for player 1).

    ``panels``: list of (title, x (T, B, 4)) arrays from an integrator.
    """
    fig, axes = new_figure(1, len(panels), width=3.2 * len(panels), height=3.2)
    axes = np.atleast_1d(axes)
    for ax, (title, xs) in zip(axes, panels):
        for b in range(xs.shape[1]):
            c = PALETTE[b % len(PALETTE)]
            ax.plot(xs[:, b, 2], xs[:, b, 0], color=c, lw=1.1)
            ax.plot(xs[0, b, 2], xs[0, b, 0], "o", color=c, ms=4)
            ax.plot(xs[-1, b, 2], xs[-1, b, 0], "s", color=c, ms=4)
        ax.set_xlim(-0.03, 1.03)
        ax.set_ylim(-0.03, 1.03)
        ax.set_aspect("equal")
        ax.set_xlabel("P(player 2 plays action 0)")
        ax.set_ylabel("P(player 1 plays action 0)")
        ax.set_title(title, fontsize=9)
    return fig


def cube_figure(traces: dict, title: str, S):
    """Interactive 3-D view of trajectories of a three-player 2x2x2 game on the cube.

    ``traces``: label -> (T, 6) strategies. Axes: P(a_1=0), P(a_2=0), P(a_3=1). The span of the
    averaging counterexample's set S is drawn: its faces {a_3 = 0} and {a_1 = 0} shaded.
    """
    import plotly.graph_objects as go

    fig = go.Figure()
    for a, b in itertools.combinations(list(itertools.product((0, 1), repeat=3)), 2):
        if sum(u != v for u, v in zip(a, b)) == 1:
            fig.add_trace(go.Scatter3d(x=[a[0], b[0]], y=[a[1], b[1]], z=[a[2], b[2]], mode="lines",
                                       line=dict(color="#bbbbbb", width=2), showlegend=False, hoverinfo="skip"))
    fig.add_trace(go.Mesh3d(x=[0, 1, 1, 0], y=[0, 0, 1, 1], z=[0, 0, 0, 0], i=[0, 0], j=[1, 2], k=[2, 3],
                            color=PALETTE[2], opacity=0.10, name="face a₃=0 of the span", showlegend=True))
    fig.add_trace(go.Mesh3d(x=[1, 1, 1, 1], y=[0, 1, 1, 0], z=[0, 0, 1, 1], i=[0, 0], j=[1, 2], k=[2, 3],
                            color=PALETTE[1], opacity=0.10, name="face a₁=0 of the span", showlegend=True))
    verts = list(itertools.product((0, 1), repeat=3))
    # cube coordinate of profile (a1,a2,a3): (P(a1=0), P(a2=0), P(a3=1)) at the vertex
    fig.add_trace(go.Scatter3d(x=[1 - v[0] for v in verts], y=[1 - v[1] for v in verts], z=[v[2] for v in verts],
                               mode="markers+text", text=["".join(map(str, v)) for v in verts],
                               marker=dict(size=5, color=[PALETTE[2] if v in S else PALETTE[3] for v in verts]),
                               name="profiles (green: in S)", hovertemplate="profile %{text}<extra></extra>"))
    for k, (label, X) in enumerate(traces.items()):
        fig.add_trace(go.Scatter3d(x=X[:, 0], y=X[:, 2], z=X[:, 5], mode="lines", name=label,
                                   line=dict(color=PALETTE[k % len(PALETTE)], width=4)))
    fig.update_layout(title=title, height=520, margin=dict(l=0, r=0, t=40, b=0),
                      scene=dict(xaxis_title="P(a₁=0)", yaxis_title="P(a₂=0)", zaxis_title="P(a₃=1)",
                                 aspectmode="cube"), legend=dict(x=0.0, y=1.0))
    return fig


def finite_time_figure(t: np.ndarray, outside_entropic: np.ndarray, outside_euclidean: np.ndarray, t_zero: float):
    """Outside mass against time near a club face: exponential decay (entropic) vs exactly 0 (Euclidean)."""
    fig, ax = new_figure(1, 1, width=6.0, height=3.3)
    ax.semilogy(t, np.maximum(outside_entropic, 1e-300), color=PALETTE[0], label="entropic (exponential weights)")
    pos = outside_euclidean > 0
    ax.semilogy(t[pos], outside_euclidean[pos], color=PALETTE[1], label="Euclidean (projected)")
    ax.axvline(t_zero, color=PALETTE[1], ls=":", lw=1)
    ax.text(t_zero, ax.get_ylim()[1] * 0.1, f"  D_S = 0 from t = {t_zero:.2f}", color=PALETTE[1], fontsize=8)
    ax.set_ylim(max(1e-20, np.nanmin(np.maximum(outside_entropic, 1e-20))), 1)
    ax.set_xlabel("time t")
    ax.set_ylabel("outside mass D_S(x(t))")
    euc = (f"Euclidean: D_S = 0 from t = {t_zero:.2f}" if np.isfinite(t_zero)
           else f"Euclidean: D_S > 0 up to t = {t[-1]:g}")
    ax.set_title(f"{euc}; entropic: D_S = {outside_entropic[-1]:.1e} at t = {t[-1]:g}", fontsize=10)
    ax.legend()
    return fig


# -- the studies ----------------------------------------------------------------------------------
LABEL_COLOUR = {"stable": PALETTE[0], "unstable": PALETTE[3], "undecided": GREY}


def subgame_scatter_figure(studies):
    """Worst excursion at the smallest level against the preferential margin, one panel per regulariser.

    Margin = largest payoff gain of a deviation from S to outside S (< 0: preferentially stable).
    """
    fig, axes = new_figure(1, len(studies), width=4.3 * len(studies), height=3.6, sharey=True)
    axes = np.atleast_1d(axes)
    for ax, st in zip(axes, studies):
        m = np.array([r["margin"] for r in st.records])
        e = np.maximum(np.array([r["eps"][int(np.argmin(st.levels))] for r in st.records]), 1e-18)
        labels = np.array([r["label"] for r in st.records])
        for lab, col in LABEL_COLOUR.items():
            sel = labels == lab
            if sel.any():
                ax.scatter(m[sel], e[sel], s=8, color=col, alpha=0.7, label=f"search: {lab} ({int(sel.sum())})")
        ax.axvline(0.0, color="black", lw=0.8)
        ax.set_yscale("log")
        ax.set_xlabel("preferential margin of S (max gain of leaving S)")
        pc = st.per_class()
        ax.set_title(f"{st.regulariser}: " + ", ".join(f"{v['agree']}/{v['n']}" for v in pc.values())
                     + " as predicted (stable / not)", fontsize=9)
        ax.legend(loc="center left", fontsize=7)
    axes[0].set_ylabel(f"worst excursion ε(d={float(np.min(studies[0].levels)):.0e})")
    return fig


def epsilon_curves_figure(cx):
    """ε(d) of the headline sets: the search (solid) and the one-exit sampling protocol (dotted)."""
    fig, axes = new_figure(1, 2, width=10.5, height=3.7, sharey=True)
    ax = axes[0]
    for k, (G, r) in enumerate(zip(cx.G, cx.results)):
        ax.loglog(cx.levels, np.maximum(r.eps, 1e-18), "o-", ms=3, lw=1.2, color=LABEL_COLOUR[r.label],
                  alpha=0.4 + 0.6 * (k + 1) / len(cx.G), label=f"G={G:g}: {r.label}")
    first = True
    for (kind, G), e in cx.sampled.items():
        if kind == "averaging":
            ax.loglog(cx.levels, np.maximum(e, 1e-18), "s:", ms=4, mfc="none", color="black", lw=1,
                      label="one-exit starts (G=" + ", ".join(f"{g:g}" for k, g in cx.sampled if k == "averaging") + ")"
                      if first else None)
            first = False
    ax.loglog(cx.levels, cx.levels, color="black", lw=0.6, ls="--", label="ε = d")
    ax.set_xlabel("start distance d = D_S(x(0))")
    ax.set_ylabel("worst excursion ε(d) = max_t D_S(x(t))")
    ax.set_title(f"averaging game (h={cx.h:g})", fontsize=9)
    ax.legend(fontsize=6, ncol=2)
    ax = axes[1]
    for k, (G, r) in enumerate(zip(cx.leaky_G, cx.leaky)):
        ax.loglog(cx.levels, np.maximum(r.eps, 1e-18), "o-", ms=3, color=PALETTE[(k + 3) % len(PALETTE)],
                  label=f"search, G={G:g}: {r.label}")
        ax.loglog(cx.levels, np.maximum(r.random_eps, 1e-18), "x--", ms=3, lw=0.8, color=PALETTE[(k + 3) % len(PALETTE)],
                  alpha=0.6, label=f"random restarts only, G={G:g}")
        ax.loglog(cx.levels, np.maximum(cx.sampled[("leaky", float(G))], 1e-18), "s:", ms=4, mfc="none", color="black",
                  lw=1, label=f"one-exit starts, G={G:g}")
    ax.loglog(cx.levels, cx.levels, color="black", lw=0.6, ls="--")
    ax.set_xlabel("start distance d")
    ax.set_title("the earlier leaky game", fontsize=9)
    ax.legend(fontsize=6)
    return fig


def rate_figure(rate):
    """log P(a3=1) along an off-centre face orbit, with the averaged slope (G+h-2)/4 dotted."""
    fig, ax = new_figure(1, 1, width=6.2, height=3.5)
    for k, G in enumerate(rate.G):
        t, lx = rate.traces[float(G)]
        c = PALETTE[k % len(PALETTE)]
        ax.plot(t, lx, color=c, lw=1.3, label=f"G={G:g}: fitted {rate.slope[k]:+.4f}")
        ax.plot(t, lx[0] + rate.predicted[k] * t, color=c, ls=":", lw=1)
    ax.set_xlabel("time t")
    ax.set_ylabel("log P(a₃ = 1)")
    ax.set_title(f"Transverse growth along the face orbit through {rate.start} (dotted: (G+h−2)/4)", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def limit_set_figure(r1):
    """Claim 1 and the omega-limit proxy, per game shape."""
    shapes = sorted(set(r1.shapes), key=lambda s: (len(s), s))
    rows = {
        "strict NE = singleton sinks": r1.nash_match,
        "ω-limit skeleton closed (tol 1e-6)": r1.skeleton_stable,
        "ω-limit skeleton closed (tol 1e-3, dossier)": r1.naive_stable,
        "limit clusters = sink equilibria": r1.one_to_one,
    }
    fig, ax = new_figure(1, 1, width=7.2, height=3.2)
    width = 0.8 / len(shapes)
    for s_i, shape in enumerate(shapes):
        sel = np.array([s == shape for s in r1.shapes])
        vals = [float(np.mean(v[sel])) for v in rows.values()]
        ax.barh(np.arange(len(rows)) + s_i * width, vals, height=width, color=PALETTE[s_i],
                label=f"{'x'.join(map(str, shape))} games (n={int(sel.sum())})")
    ax.set_yticks(np.arange(len(rows)) + width * (len(shapes) - 1) / 2, list(rows), fontsize=8)
    ax.set_xlim(0, 1.0)
    ax.set_xlabel("fraction of random games")
    ax.set_title(f"strict NE = singleton sinks in {np.mean(r1.nash_match):.0%} of {len(r1.shapes)} games; "
                 f"limit clusters = sink equilibria in {np.mean(r1.one_to_one):.0%}", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.4, -0.2), ncol=2)
    return fig


def leak_figure(lk):
    """Leaklessness against the search's labels on random preferentially stable non-product sets."""
    fig, ax = new_figure(1, 1, width=6.4, height=3.2)
    labels = list(LABEL_COLOUR)
    cert = [sum(r["certified"] and r["label"] == lab for r in lk.records) for lab in labels]
    not_cert = [sum((not r["certified"]) and r["label"] == lab for r in lk.records) for lab in labels]
    x = np.arange(len(labels))
    ax.bar(x - 0.2, cert, 0.4, color=PALETTE[0], label="certified leakless")
    ax.bar(x + 0.2, not_cert, 0.4, color=GREY, label="not certified")
    ax.set_xticks(x, [f"search: {lab}" for lab in labels])
    ax.set_ylabel(f"sets (of {len(lk.records)})")
    c = lk.confusion()
    ax.set_title(f"Leaklessness certifies {c['certified']} of {c['n']} sets; {c['false']} of them labelled unstable",
                 fontsize=9)
    ax.legend(fontsize=7)
    return fig


def playground_figure(run, G: float, delta: float, regulariser: str, step_size: float):
    """Three panels: outside mass and exit mass over time; the face projection; excursion vs delta."""
    fig, axes = new_figure(1, 3, width=11.5, height=3.3)
    ax = axes[0]
    ax.semilogy(run.t, np.maximum(run.outside, 1e-300), color=PALETTE[0], label="outside mass D_S")
    ax.semilogy(run.t, np.maximum(run.x3, 1e-300), color=PALETTE[1], ls="--", label="P(a₃=1)")
    ax.set_ylim(max(1e-30, min(delta, 1e-3) * 1e-6), 1.5)
    ax.set_xlabel("time t")
    ax.set_ylabel("probability mass")
    ax.set_title(f"G={G:g}, δ={delta:.0e}, {regulariser}, " + ("continuous" if step_size == 0 else f"step {step_size:g}"),
                 fontsize=9)
    ax.legend(fontsize=7)
    ax = axes[1]
    ax.plot(run.face[:, 1], run.face[:, 0], color=PALETTE[2], lw=0.9)
    ax.plot(run.face[0, 1], run.face[0, 0], "o", color=PALETTE[2])
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.03)
    ax.set_aspect("equal")
    ax.set_xlabel("P(a₂=0)")
    ax.set_ylabel("P(a₁=0)")
    ax.set_title("players 1 and 2 (matching pennies)", fontsize=9)
    ax = axes[2]
    ax.loglog(run.deltas, np.maximum(run.excursion, 1e-300), "o-", color=PALETTE[3])
    ax.loglog(run.deltas, run.deltas, "k:", lw=0.8)
    ax.set_xlabel("δ")
    ax.set_ylabel("excursion")
    ax.set_title("excursion against δ (dotted: E = δ)", fontsize=9)
    return fig
