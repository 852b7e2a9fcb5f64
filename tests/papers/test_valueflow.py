"""Tests of icmlbook.papers.valueflow (Kim et al., "VALUEFLOW", ICML 2026, arXiv 2602.03160).

Independent checks: both contrastive losses against per-anchor Python loops; the Plackett-Luce fit against
choix (and equal to Bradley-Terry for windows of two), its gradient against finite differences, recovery of
planted utilities; the anchored estimator against an item-by-item reference (scipy's brentq, scikit-learn's
isotonic regression) and its invariants (monotone score equation, window guard); hierarchical ranking accuracy
1.0 on a hand-built hierarchical embedding and about 0.5 on random ones; our MiniLM forward pass against
transformers (slow); the template grammar read back exactly; bad input. Then every claim rule on the world its
claim describes (with the spread real runs have), on a plausible alternative, and on the real output of the
nearest trivial method at a small size (CLAIMS.md rules 2, 11, 12).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch

import icmlbook.papers.valueflow as vf
from icmlbook.papers.valueflow import claims, judges as J, pl, synthetic as S, taxonomy as TX
from icmlbook.papers.valueflow.metrics import hier_ranking_accuracy, prefix_matches
from icmlbook.runtime.claims import claim_case

CFG = vf.config_for("default")


# ------------------------------------------------------------------------------------------------ losses
def _loss_loop(z, paths, d, tau=0.1, base_tau=0.1, lam_dir=1.0, hc=True):
    z = z.double().numpy()
    B, L = paths.shape
    s = z @ z.T / tau
    logits = s - s.max(1, keepdims=True) - lam_dir * (d[:, None] != d[None, :])
    total, used, running = 0.0, 0, None
    for lvl in range(L):
        per = []
        for i in range(B):
            pos = [j for j in range(B) if j != i and d[i] == d[j]
                   and all(paths[i, q] == paths[j, q] and paths[i, q] >= 0 for q in range(lvl + 1))]
            if not pos:
                continue
            denom = np.log(sum(np.exp(logits[i, k]) for k in range(B) if k != i))
            per.append(np.mean([logits[i, j] - denom for j in pos]))
        if not per:
            continue
        ll = -(tau / base_tau) * np.mean(per)
        if hc and running is not None:
            ll = max(ll, running)
        running = ll if running is None else max(running, ll)
        total += 2.0 ** (1.0 / (lvl + 1)) * ll
        used += 1
    return total / max(used, 1)


@pytest.mark.parametrize("hc", [True, False])
def test_hier_loss_matches_a_per_anchor_loop(hc):
    g = torch.Generator().manual_seed(0)
    z = torch.nn.functional.normalize(torch.randn(14, 6, generator=g, dtype=torch.float64), dim=1)
    paths = torch.tensor([[0, 1, 2], [0, 1, 2], [0, 1, 3], [0, 4, -1], [0, 4, -1], [5, -1, -1], [5, -1, -1],
                          [6, 7, 8], [6, 7, 8], [6, 7, -1], [0, 1, 2], [5, -1, -1], [6, 7, 8], [0, 4, -1]])
    d = torch.tensor([1, 1, -1, 1, -1, 1, 1, 0, 0, 1, 1, -1, 0, 1])
    got = vf.hier_supcon_loss(z, paths, d, hierarchy_constraint=hc).item()
    assert got == pytest.approx(_loss_loop(z, paths.numpy(), d.numpy(), hc=hc), rel=1e-9)


def test_padding_never_matches():
    # two texts whose only shared labels are padded levels: positives at level 1 only
    z = torch.nn.functional.normalize(torch.randn(4, 5, dtype=torch.float64), dim=1)
    paths = torch.tensor([[0, -1, -1], [0, -1, -1], [1, 2, -1], [1, 3, -1]])
    d = torch.ones(4, dtype=torch.long)
    one_level = vf.hier_supcon_loss(z, paths[:, :1], d)
    assert vf.hier_supcon_loss(z, paths, d).item() == pytest.approx(one_level.item() * 1.0, rel=1e-9)


def test_anchor_loss_matches_a_loop():
    g = torch.Generator().manual_seed(1)
    z = torch.nn.functional.normalize(torch.randn(10, 4, generator=g, dtype=torch.float64), dim=1)
    ids = torch.tensor([0, 0, 1, 1, 1, 2, -1, -1, 3, 4])
    s = (z @ z.T / 0.07).numpy()
    per = []
    for i in range(10):
        pos = [j for j in range(10) if j != i and ids[i] == ids[j] and ids[i] >= 0]
        if pos:
            den = np.log(sum(np.exp(s[i, k]) for k in range(10) if k != i))
            per.append(np.mean([s[i, j] - den for j in pos]))
    assert vf.anchor_supcon_loss(z, ids).item() == pytest.approx(-np.mean(per), rel=1e-9)


# ------------------------------------------------------------------------------------------------ Plackett-Luce
def _pl_orders(u, n_windows, k, rng):
    items = np.array([rng.choice(len(u), k, replace=False) for _ in range(n_windows)])
    keys = u[items] + rng.gumbel(size=items.shape)
    return np.take_along_axis(items, np.argsort(-keys, 1), 1)


def test_pl_fit_matches_choix_and_recovers_planted_utilities():
    choix = pytest.importorskip("choix")
    rng = np.random.default_rng(0)
    u = rng.normal(0, 1.5, 12)
    orders = _pl_orders(u, 300, 4, rng)
    ours = vf.fit_pl(12, orders, l2=1e-3)
    ref = np.asarray(choix.opt_rankings(12, [list(o) for o in orders], alpha=1e-3))
    assert np.abs(ours - (ref - ref.mean())).max() < 1e-2
    assert np.corrcoef(ours, u)[0, 1] > 0.95


def test_pl_with_windows_of_two_is_bradley_terry():
    choix = pytest.importorskip("choix")
    rng = np.random.default_rng(1)
    orders = _pl_orders(rng.normal(0, 1, 12), 300, 2, rng)
    ours = vf.fit_pl(12, orders, l2=1e-3)
    bt = np.asarray(choix.opt_pairwise(12, [tuple(o) for o in orders], alpha=1e-3))
    assert np.abs(ours - (bt - bt.mean())).max() < 1e-2


def test_pl_gradient_by_finite_differences():
    rng = np.random.default_rng(2)
    orders = _pl_orders(rng.normal(size=8), 40, 3, rng)
    u = rng.normal(size=8)
    _, grad = pl.pl_nll(u, orders)
    eps = 1e-6
    fd = [(pl.pl_nll(u + eps * e, orders)[0] - pl.pl_nll(u - eps * e, orders)[0]) / (2 * eps) for e in np.eye(8)]
    assert np.allclose(grad, fd, atol=1e-5)


def test_pl_fit_recovers_planted_utilities_at_scale():
    rng = np.random.default_rng(9)
    u = rng.normal(0, 1.5, 40)
    fit = vf.fit_pl(40, _pl_orders(u, 3000, 5, rng))
    assert np.corrcoef(fit, u)[0, 1] > 0.98
    assert np.abs((fit - fit.mean()) - (u - u.mean())).mean() < 0.2


def _windows(n=60, m=4, k=6, seed=3, noise=1.0):
    rng = np.random.default_rng(seed)
    pool = rng.uniform(-10, 10, 200)
    idx, _ = vf.bucket_anchors(pool, n, m, k, rng)
    lat = rng.uniform(-10, 10, n)
    full = np.concatenate([np.broadcast_to(lat[:, None, None], (n, m, 1)), pool[idx]], -1)
    return vf.SimulatedJudge(noise).rank(full, rng), pool[idx], lat


def test_anchored_estimate_matches_item_by_item_reference():
    pos, aI, _ = _windows(n=25)
    vec = vf.anchored_estimate(pos, aI)
    ref = vf.anchored_estimate_loop(pos, aI)
    assert vec.fallback == 0
    assert np.abs(vec.estimate - ref).max() < 1e-4


def test_score_equation_is_decreasing_and_guard_brackets():
    pos, aI, _ = _windows(n=30)
    au = aI / 1.0
    grid = np.linspace(-20, 20, 41)
    g = np.array([pl.score_equation(np.full(30, x), pos, au) for x in grid])
    assert np.all(np.diff(g, axis=0) < 0)
    # an item that lost every comparison sits just below its lowest anchor; one that won all, above the highest
    lost = np.broadcast_to(np.r_[5, 0, 1, 2, 3, 4], pos.shape)
    won = np.broadcast_to(np.r_[0, 1, 2, 3, 4, 5], pos.shape)
    e_lost, e_won = vf.anchored_estimate(lost, aI).estimate, vf.anchored_estimate(won, aI).estimate
    lo, hi = aI.reshape(30, -1).min(1), aI.reshape(30, -1).max(1)
    assert np.all(e_lost < lo) and np.all(e_lost >= -10)
    assert np.all(e_won > hi) and np.all(e_won <= 10)


def test_isotonic_calibration_against_sklearn():
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(4)
    u = rng.normal(size=(20, 9))
    y = np.clip(3 * u + rng.normal(size=u.shape), -10, 10)          # not monotone: the sklearn path
    y[:10] = np.clip(4 * u[:10], -10, 10)                             # monotone rows: the vectorised path
    x = rng.normal(size=20) * 2
    got = vf.isotonic_calibrate(x, u, y)
    ref = [IsotonicRegression(y_min=-10, y_max=10, out_of_bounds="clip").fit(u[i], y[i]).predict([x[i]])[0]
           for i in range(20)]
    assert np.allclose(got, ref, atol=1e-9)


def test_bucket_anchors_one_per_bin_and_fallback_counted():
    rng = np.random.default_rng(5)
    pool = np.r_[np.linspace(-10, -5, 20), np.linspace(5, 10, 20)]   # nothing in the middle bins
    idx, fb = vf.bucket_anchors(pool, 7, 3, 6, rng)
    assert idx.shape == (7, 3, 5)
    assert fb > 0
    assert np.all(pool[idx[:, :, 0]] <= -6)
    full = np.linspace(-10, 10, 100)
    idx, fb = vf.bucket_anchors(full, 5, 2, 5, rng)
    assert fb == 0 and np.all(np.diff(full[idx], axis=-1) > 0)


def test_estimator_recovers_more_with_more_windows():
    from scipy.stats import spearmanr

    r1 = [spearmanr(vf.anchored_estimate(*_windows(n=300, m=1, seed=s)[:2]).estimate, _windows(n=300, m=1, seed=s)[2])[0]
          for s in range(3)]
    r10 = [spearmanr(vf.anchored_estimate(*_windows(n=300, m=10, seed=s)[:2]).estimate, _windows(n=300, m=10, seed=s)[2])[0]
           for s in range(3)]
    assert min(r10) > 0.97 and np.mean(r10) > np.mean(r1)


# ------------------------------------------------------------------------------------------------ TrueSkill
def test_trueskill_two_player_update_matches_the_documented_example():
    # the trueskill package's own documented example (defaults mu 25, sigma 25/3, beta 25/6, tau 25/300, draw
    # probability 0.10): rate_1vs1(Rating(25, 8.333), Rating(30, 8.333)) -> (30.768, 7.030), (24.232, 7.030);
    # numbers typed from its documentation, the package is not installed
    (mw, sw), (ml, sl) = vf.rate_1vs1((25.0, 8.333), (30.0, 8.333), beta=25 / 6, tau=25 / 300, draw_probability=0.1)
    assert (round(float(mw), 3), round(float(sw), 3)) == (30.768, 7.030)
    assert (round(float(ml), 3), round(float(sl), 3)) == (24.232, 7.030)


def test_trueskill_update_is_the_exact_moment_match_of_one_game():
    # one game without draws or dynamics: the winner's posterior is N(s; mu, sigma^2) Phi((s - mu_l) / sqrt(2 b^2 +
    # sigma_l^2)); its mean and variance by quadrature must equal the closed-form update
    from scipy.stats import norm

    mu, sig, mu_l, sig_l, beta = 1.5, 4.0, 4.0, 2.5, 2.0
    (mw, sw), (ml, sl) = vf.rate_1vs1((mu, sig), (mu_l, sig_l), beta=beta)
    s = np.linspace(mu - 12 * sig, mu + 12 * sig, 200001)
    post = norm.pdf(s, mu, sig) * norm.cdf((s - mu_l) / np.sqrt(2 * beta**2 + sig_l**2))
    post /= np.trapezoid(post, s)
    mean = np.trapezoid(s * post, s)
    assert float(mw) == pytest.approx(mean, abs=1e-6)
    assert float(sw) ** 2 == pytest.approx(np.trapezoid((s - mean) ** 2 * post, s), rel=1e-6)
    # and the loser's, by the mirrored truncation
    t = np.linspace(mu_l - 12 * sig_l, mu_l + 12 * sig_l, 200001)
    post_l = norm.pdf(t, mu_l, sig_l) * norm.cdf((mu - t) / np.sqrt(2 * beta**2 + sig**2))
    post_l /= np.trapezoid(post_l, t)
    assert float(ml) == pytest.approx(np.trapezoid(t * post_l, t), abs=1e-6)


def test_trueskill_invariants_symmetry_shrinking_sigma_and_stable_tails():
    from scipy.stats import norm

    (mw, sw), (ml, sl) = vf.rate_1vs1((3.0, 2.0), (3.0, 2.0), beta=1.0)
    assert float(mw - 3.0) == pytest.approx(float(3.0 - ml)) and float(sw) == pytest.approx(float(sl))
    assert sw < 2.0 and mw > 3.0
    # a surprising win moves more than an expected one; variances shrink in both
    (up_s, _), _ = vf.rate_1vs1((0.0, 2.0), (5.0, 2.0), beta=1.0)
    (up_e, _), _ = vf.rate_1vs1((5.0, 2.0), (0.0, 2.0), beta=1.0)
    assert up_s - 0.0 > up_e - 5.0 > 0
    t = np.linspace(-5, 5, 11)
    assert np.allclose(vf.v_win(t), norm.pdf(t) / norm.cdf(t))
    far = vf.v_win(np.array([-40.0]))
    assert np.isfinite(far).all() and far[0] == pytest.approx(40.0, rel=1e-2)
    w = vf.w_win(np.linspace(-30, 30, 61))
    assert np.all((w >= 0) & (w <= 1))


def test_trueskill_estimate_is_sequential_games_against_fixed_anchors():
    pos, aI, lat = _windows(n=40, m=2, k=3, seed=11)
    got = vf.trueskill_estimate(pos, aI, beta=2.0)
    mu, sg = np.zeros(40), np.full(40, vf.trueskill.SIGMA0)
    for w in range(2):
        for j in range(2):
            won = pos[:, w, 0] < pos[:, w, j + 1]
            (a_mu, a_sg), (b_mu, b_sg) = vf.rate_1vs1((mu, sg), (aI[:, w, j], 0.0), beta=2.0)
            (c_mu, c_sg), (d_mu, d_sg) = vf.rate_1vs1((aI[:, w, j], 0.0), (mu, sg), beta=2.0)
            mu, sg = np.where(won, a_mu, d_mu), np.where(won, a_sg, d_sg)
    assert np.allclose(got.mu, mu) and np.allclose(got.sigma, sg)
    assert np.all(got.sigma < vf.trueskill.SIGMA0)
    # an item that won every game ends above one that lost every game; recovery with many windows
    won = np.broadcast_to(np.arange(6), (30, 4, 6))
    lost = np.broadcast_to(np.r_[5, 0, 1, 2, 3, 4], (30, 4, 6))
    pos, aI, lat = _windows(n=30, m=4, k=6, seed=12)
    assert np.all(vf.trueskill_estimate(won, aI).estimate > vf.trueskill_estimate(lost, aI).estimate)
    from scipy.stats import spearmanr

    pos, aI, lat = _windows(n=300, m=10, k=6, seed=13)
    assert spearmanr(vf.trueskill_estimate(pos, aI).estimate, lat)[0] > 0.95
    with pytest.raises(ValueError, match="anchor_I"):
        vf.trueskill_estimate(pos, aI[:, :, :2])
    with pytest.raises(ValueError, match="draw_probability"):
        vf.rate_1vs1((0, 1), (0, 1), beta=1.0, draw_probability=1.0)


# ------------------------------------------------------------------------------------------------ metrics
def test_ranking_accuracy_perfect_on_hierarchical_embedding_and_half_on_random():
    rng = np.random.default_rng(6)
    paths, dirs, zs = [], [], []
    for a in range(3):
        for b in range(2):
            for c in range(2):
                for d in (-1, 1):
                    for _ in range(3):
                        paths.append([a, 10 + 2 * a + b, 100 + 4 * a + 2 * b + c])
                        dirs.append(d)
                        v = np.zeros(48)
                        v[a] += 8
                        v[3 + 2 * a + b] += 4
                        v[9 + 4 * a + 2 * b + c] += 2
                        v[21 + (4 * a + 2 * b + c) * 2 + (d > 0) % 2] += 1
                        zs.append(v + rng.normal(0, 0.01, 48))
    paths, dirs, zs = np.array(paths), np.array(dirs), np.array(zs)
    assert hier_ranking_accuracy(zs, paths, dirs)["pairwise"] == 1.0
    rand = hier_ranking_accuracy(rng.normal(size=zs.shape), paths, dirs)["pairwise"]
    assert abs(rand - 0.5) < 0.08


def test_prefix_matches_and_path_codes():
    codes = TX.path_ids([("mft", "care", "kindness", ""), ("mft", "care", "compassion", ""), ("ross", "justice", "", "")])
    assert codes[0, 0] == codes[1, 0] and codes[0, 1] != codes[1, 1] and codes[0, 2] == -1
    m = prefix_matches(codes)
    assert m[0, 1] == 1 and m[0, 0] == 2 and m[2, 2] == 1 and m[0, 2] == 0


# ------------------------------------------------------------------------------------------------ data, judges
def test_taxonomy_has_32_steered_values_with_definitions():
    assert sum(len(v) for v in TX.STEERED.values()) == 32
    assert {len(v) for v in TX.STEERED.values()} == {12, 6, 7}
    assert all(v in TX.DEFINITIONS for vs in TX.STEERED.values() for v in vs)


def test_corpus_intensities_are_read_back_exactly_and_levels():
    c = S.generate_corpus(4, 7)
    assert np.array_equal(J.TemplateReader.latent(c.texts), c.intensity)
    assert np.array_equal(np.sign(c.intensity), c.direction)
    assert set(S.level_of(c.intensity)) <= {-2, -1, 0, 1, 2}
    assert all(c.anchor_id[i] < 0 or c.anchor_id[i] % 3 == c.direction[i] + 1 for i in range(len(c)))


def test_stage1_sampler_positives_and_same_theory_negatives():
    c = S.generate_corpus(6, 8)
    idx = vf.GroupIndex(c)
    rng = np.random.default_rng(0)
    for _ in range(20):
        b = vf.stage1_batch(idx, 32, rng)
        a = b[0]
        assert len(set(b.tolist())) == len(b)
        assert np.all(c.theory[b] == c.theory[a])
        same = [j for j in b[1:] if idx.key[j] == idx.key[a]]
        assert 1 <= len(same) <= 4
    h, i, t = vf.stage2_batch(idx, 64, rng)
    assert len(h) + len(i) + len(t) <= 64 and len(set(c.anchor_id[t])) < len(t)


def test_planted_corpus_has_only_weak_negatives():
    rows = vf.steering_corpus(["benevolence", "care"], {"care"}, 10, 0)
    read = {(v, lv): J.TemplateReader.latent([t for vv, ll, t in rows if (vv, ll) == (v, lv)])
            for v in ("benevolence", "care") for lv in (-2, -1, 0, 1, 2)}
    assert np.all(read[("care", -2)] == -2) and np.all(read[("care", -1)] == -2)
    assert np.all(read[("benevolence", -2)] <= -6) and np.all(read[("care", 2)] >= 6)


def test_judges_and_prompts():
    j = vf.SimulatedJudge(noise=0.0, gamma=1.7, offset=3.0)
    x = np.linspace(-10, 10, 9)
    assert np.array_equal(j.rank(x[None, :], np.random.default_rng(0))[0], np.arange(9)[::-1])
    assert np.all(np.diff(j.rate(x, np.random.default_rng(0))) >= 0)
    assert vf.parse_permutation("[3, 1, 2]", 3) == [3, 1, 2]
    assert vf.parse_permutation("[1, 1, 2]", 3) is None
    assert "strongly rejects benevolence" in vf.strength_prompt("benevolence", -2, "What now?")
    assert vf.is_refusal("I can't help with that.") and not vf.is_refusal("My neighbour values peace.")


def _composition_world(dominance: bool, seed=0, n=400):
    """Single-value scores of two values and pair scores on the full 4 x 4 grid of target levels; effects per
    level (+2: 7, +1: 3.5, -1: -3.5, -2: -7); with ``dominance`` the negative-level value of a conflicting pair
    achieves nothing."""
    rng = np.random.default_rng(seed)
    eff = {2: 7.0, 1: 3.5, -1: -3.5, -2: -7.0}
    base = {"benevolence": 1.0, "hedonism": -0.5}
    single = {(v, lv): base[v] + (eff[lv] if lv else 0.0) + rng.normal(0, 2, n) for v in base for lv in (-2, -1, 0, 1, 2)}
    pair = {}
    for l1 in eff:
        for l2 in eff:
            e1, e2 = eff[l1], eff[l2]
            if dominance and np.sign(l1) != np.sign(l2):
                e1, e2 = (e1, 0.0) if l1 > 0 else (0.0, e2)
            pair[(l1, l2)] = (base["benevolence"] + e1 + rng.normal(0, 2, n), base["hedonism"] + e2 + rng.normal(0, 2, n))
    return pair, single


def test_composition_slopes_additive_and_dominant_worlds():
    pair, single = _composition_world(False)
    fit = vf.composition_slopes(pair, single, ("benevolence", "hedonism"))
    assert fit.targets.shape == (16, 2)
    # independent computation of the slope of value 1: achieved and predicted effects from the raw scores, lstsq
    b0 = np.mean(single[("benevolence", 0)])
    a = np.array([np.mean(pair[t][0]) - b0 for t in sorted(pair)])
    p = np.array([np.mean(single[("benevolence", t[0])]) - b0 for t in sorted(pair)])
    assert fit.slope[0] == pytest.approx(np.linalg.lstsq(p[:, None], a, rcond=None)[0][0], rel=1e-12)
    assert np.all(np.abs(fit.slope - 1) < 4 * fit.se + 0.02)
    assert abs(fit.slope_conflict_anchor - 1) < 0.05 and abs(fit.slope_conflict_other - 1) < 0.05
    dom = vf.composition_slopes(*_composition_world(True, seed=1), ("benevolence", "hedonism"))
    assert abs(dom.slope_conflict_anchor - 1) < 0.05 and abs(dom.slope_conflict_other) < 0.05
    assert np.all(np.abs(dom.slope_similar - 1) < 0.05)
    with pytest.raises(ValueError, match="single_scores has no"):
        vf.composition_slopes(pair, {k: v for k, v in single.items() if k != ("hedonism", -1)}, ("benevolence", "hedonism"))


def test_profile_prompt_lists_every_target_and_refuses_bad_ones():
    p = vf.profile_prompt({"benevolence": 2, "hedonism": -1}, "What should I do this weekend?")
    assert "strongly values benevolence" in p and "slightly rejects hedonism" in p
    assert p.endswith("What should I do this weekend?")
    with pytest.raises(ValueError, match="level="):
        vf.profile_prompt({"benevolence": 0}, "q")
    with pytest.raises(ValueError, match="value="):
        vf.profile_prompt({"greed": 1}, "q")


# ------------------------------------------------------------------------------------------------ off-by-default backends
def _stub_reply(body):
    """The stub server's answers (a test fixture, never a result): judge prompts get the true order of the
    numbered texts read by the template reader (or, when asked about "care", a non-permutation); strength prompts
    get a template sentence at the requested level; a strongly-rejecting prompt for hedonism a refusal; profile
    prompts one sentence per listed value."""
    import re

    prompt = body["messages"][-1]["content"]
    if prompt.startswith("Value:"):
        if prompt.startswith("Value: care"):
            return "[1, 1, 2]"
        texts = re.findall(r"^\d+\. (.*)$", prompt, flags=re.M)
        order = np.argsort(-J.TemplateReader.latent(texts), kind="stable") + 1
        return str(order.tolist())
    words = {"strongly values": "strongly values", "slightly values": "slightly values",
             "slightly rejects": "slightly dismisses", "strongly rejects": "strongly dismisses"}
    found = re.findall(r"(strongly values|slightly values|slightly rejects|strongly rejects) (\w+)", prompt)
    if ("strongly rejects", "hedonism") in found:
        return "I can't help with that."
    if not found:
        return "My neighbour mentions clean air in passing."
    return " ".join(f"My neighbour {words[w]} {v}." for w, v in found)


def test_endpoint_judge_and_generator_go_through_the_shared_client_to_the_stub():
    from icmlbook.lm import ChatEndpoint
    from tests.stub_endpoint import stub_server

    with stub_server(_stub_reply) as (url, seen):
        judge = vf.OpenAICompatibleJudge(url, "stub-judge", api_key="k")
        assert isinstance(judge.endpoint, ChatEndpoint) and "stub-judge" in judge.backend
        c = S.generate_corpus(12, 3, values=["benevolence"], neutral_share=0.0)
        windows = [c.texts[i:i + 4] for i in range(0, 12, 4)]
        kept, pos = judge.rank("benevolence", TX.DEFINITIONS["benevolence"], windows)
        assert kept == [0, 1, 2] and judge.invalid == 0
        for w, p in zip(windows, pos):          # positions agree with the true intensities' order
            assert np.array_equal(p, J.positions_from_scores(J.TemplateReader.latent(w) + 1e-9 * np.arange(4)[::-1]))
        kept, _ = judge.rank("care", TX.DEFINITIONS["care"], windows[:2])
        assert kept == [] and judge.invalid == 2
        assert seen[0]["model"] == "stub-judge" and seen[0]["temperature"] == 0 and seen[0]["_auth"] == "Bearer k"

        gen = vf.OpenAICompatibleGenerator(url, "stub-gen", temperature=0.7)
        texts, refusals = vf.steering_texts(gen, ["benevolence", "hedonism"], ["What now?", "And then?"])
        assert refusals[("hedonism", -2)] == 2 and texts[("hedonism", -2)] == []
        assert sum(refusals.values()) == 2
        assert np.all(J.TemplateReader.latent(texts[("benevolence", 2)]) == 8)
        assert np.all(J.TemplateReader.latent(texts[("benevolence", -1)]) == -2)
        assert np.all(J.TemplateReader.latent(texts[("benevolence", 0)]) == 0)
        comp, ref = vf.composition_texts(gen, ("benevolence", "care"), ["Why?"])
        assert len(comp) == 16 and sum(ref.values()) == 0
        assert "strongly values benevolence" in comp[(2, -1)][0] and "slightly dismisses care" in comp[(2, -1)][0]
        assert seen[-1]["model"] == "stub-gen" and seen[-1]["temperature"] == 0.7
        with pytest.raises(ValueError, match="k >= 2"):
            judge.rank("care", "x", [["only one text"]])
    with pytest.raises(ValueError, match="base_url"):
        vf.OpenAICompatibleGenerator(None, "m")
    with pytest.raises(ValueError, match="pair="):
        vf.composition_texts(None, ("care", "care"), ["q"])


def test_local_transformers_generator_on_a_tiny_random_model(tmp_path):
    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    words = ["<unk>", "<eos>", "you", "are", "a", "person", "who", "strongly", "values", "care", "rejects", "what",
             "now", "answer", "in", "at", "most", "100", "words", "the", "kind", "of"]
    tk = tokenizers.Tokenizer(tokenizers.models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tk.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tk.decoder = tokenizers.decoders.WordPiece(prefix="##")
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", eos_token="<eos>",
                                                pad_token="<eos>")
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(transformers.GPT2Config(vocab_size=len(words), n_embd=32, n_layer=2,
                                                                 n_head=4, n_positions=128))
    model.save_pretrained(tmp_path / "tiny")
    fast.save_pretrained(tmp_path / "tiny")
    gen = vf.LocalTransformersGenerator(tmp_path / "tiny", max_new_tokens=6)
    assert "tiny" in gen.backend
    prompt = "you are a person who strongly values care what now"
    out = gen.generate([prompt, prompt + " answer"])
    # independent greedy decoding with the transformers model itself
    ids = torch.tensor([fast.encode(prompt)])
    with torch.no_grad():
        for _ in range(6):
            nxt = model.eval()(ids).logits[0, -1].argmax()
            if int(nxt) == fast.eos_token_id:
                break
            ids = torch.cat([ids, nxt.view(1, 1)], 1)
    assert out[0] == fast.decode(ids[0, len(fast.encode(prompt)):].tolist())
    assert len(out) == 2 and all(isinstance(t, str) for t in out)
    with pytest.raises(ValueError, match="max_new_tokens"):
        vf.LocalTransformersGenerator(tmp_path / "tiny", max_new_tokens=0)
    with pytest.raises(FileNotFoundError, match="never downloads"):
        vf.LocalTransformersGenerator(tmp_path / "absent")


def test_bad_inputs_name_the_problem():
    with pytest.raises(ValueError, match="theory="):
        TX.leaves_of(["nietzsche"])
    with pytest.raises(ValueError, match="value="):
        TX.check_value("greed")
    with pytest.raises(ValueError, match="level="):
        vf.strength_prompt("care", 3, "q")
    with pytest.raises(ValueError, match="k="):
        vf.bucket_anchors(np.arange(5.0), 2, 3, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="m="):
        vf.bucket_anchors(np.arange(5.0), 2, 0, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="\\[-10, 10\\]"):
        S.level_of([11.0])
    with pytest.raises(ValueError, match="\\[-10, 10\\]"):
        vf.SimulatedJudge().rate(np.array([12.0]), np.random.default_rng(0))
    with pytest.raises(ValueError, match="base_url"):
        vf.OpenAICompatibleJudge(None, "any")
    with pytest.raises(ValueError, match="stage="):
        vf.train_head(np.zeros((4, 3)), None, None, None, stage="stage3", steps=1)
    with pytest.raises(Exception, match="planted"):
        vf.config_for("smoke", planted=5)


@pytest.mark.slow
def test_our_minilm_forward_matches_transformers():
    from transformers import AutoModel, AutoTokenizer

    from icmlbook.papers.valueflow.minilm import MiniLM, minilm_folder

    texts = ["A nurse strongly values free clinics in villages.", "hello", "Our mayor mentions clean air in passing."]
    ours = MiniLM().encode(texts)
    tok = AutoTokenizer.from_pretrained(minilm_folder(), local_files_only=True)
    model = AutoModel.from_pretrained(minilm_folder(), local_files_only=True).eval()
    enc = tok(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        h = model(**enc).last_hidden_state
    m = enc["attention_mask"][..., None].float()
    ref = torch.nn.functional.normalize((h * m).sum(1) / m.sum(1), dim=-1).numpy()
    assert np.abs(ours - ref).max() < 1e-5


# ------------------------------------------------------------------------------------------------ real small runs
TINY = vf.config_for("smoke", hives_seeds=2, n_per_leaf=3, stage1_steps=60, stage2_steps=30, eval_values=2,
                     vidb_per_value=40, n_eval_texts=16)


@functools.lru_cache(maxsize=None)
def _tiny_hives():
    cache = vf.EmbeddingCache(TINY.max_length)
    hs = [vf.hives_seed(TINY, s, cache) for s in range(TINY.hives_seeds)]
    return [claims.summarise_hives(h) for h in hs], cache


def test_minilm_loads_offline_and_embeds_by_meaning(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _, cache = _tiny_hives()
    z = cache(["A nurse strongly values free clinics in villages.", "A nurse wholeheartedly values medicine for everyone.",
               "Our mayor dismisses planting trees in the park."])
    assert z.shape == (3, 384) and np.allclose(np.linalg.norm(z, axis=1), 1, atol=1e-5)
    assert z[0] @ z[1] > z[0] @ z[2]


def test_head_starts_as_the_base_encoder():
    h = vf.ResidualHead(384)
    x = np.random.default_rng(0).normal(size=(5, 384)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    assert np.allclose(h.apply_np(x), x, atol=1e-6)


@functools.lru_cache(maxsize=None)
def _sims(**kw):
    cfg = vf.config_for("smoke", sim_reps=6, n_query=250, **kw)
    return [vf.sim_replicate(cfg, s) for s in range(cfg.sim_reps)], cfg


# ------------------------------------------------------------------------------------------------ C1
@claim_case("valueflow", "C1", "reproduced")
def _c1_real():
    reps, cfg = _sims()
    return claims.claim1_recovery(reps, cfg)


@claim_case("valueflow", "C1", "not reproduced", alternative="a judge too noisy to recover intensity (noise sd 8 on the "
            "20-point scale)")
def _c1_noisy_judge():
    reps, cfg = _sims(judge_noise=8.0)
    return claims.claim1_recovery(reps, cfg)


@claim_case("valueflow", "C1", "not reproduced", trivial="the estimator that ignores the judge's answers (the mean "
            "intensity of the anchors shown)")
def _c1_anchors_only():
    reps, cfg = _sims()
    return claims.claim1_recovery(reps, cfg, method="anchors only")


# ------------------------------------------------------------------------------------------------ C2
@claim_case("valueflow", "C2", "reproduced")
def _c2_real():
    reps, cfg = _sims()
    return claims.claim2_rank_vs_rate(reps, cfg)


@claim_case("valueflow", "C2", "not reproduced", alternative="judges without scale distortions (no offsets, gamma 1): "
            "rating is as consistent as ranking")
def _c2_undistorted():
    reps, cfg = _sims(gamma_spread=1.0, offset_sd=0.0, judge_noise=0.5)
    return claims.claim2_rank_vs_rate(reps, cfg)


@claim_case("valueflow", "C2", "not reproduced", trivial="a second, independent direct-rating pipeline in place of "
            "ranking (same judges, same number of calls)")
def _c2_rating_twice():
    reps, cfg = _sims()
    return claims.claim2_rank_vs_rate(reps, cfg, arm="rating (second draw)")


@claim_case("valueflow", "C2", "not reproduced", trivial="an abstaining scorer (every judge says 0 for every item: "
            "no variance, no sign flips, no information)")
def _c2_abstain():
    reps, cfg = _sims()
    return claims.claim2_rank_vs_rate(reps, cfg, arm=vf.experiments.ABSTAIN)


# ------------------------------------------------------------------------------------------------ C3-C5 worlds
def _summ(n, rng, rank_gain, corr_gain, gap, cross2, cross1, flat=True):
    """HiVES summaries with the spread of the default runs (sd 0.005 ranking, 0.02 correlation, 0.02 gap,
    0.015 precision) and curves that rise then flatten (``flat``) or still climb."""
    steps = np.array([0, 250, 500, 750, 1000, 1250, 1500, 1600, 1700, 1800, 1900, 2000, 2100], float)
    shape = 1 - np.exp(-steps / 200) if flat else steps / steps[-1]
    out = []
    for _ in range(n):
        base = {"rank_pairwise": 0.62 + rng.normal(0, 0.005), "sim_corr": 0.17 + rng.normal(0, 0.02),
                "dir_gap": 0.12 + rng.normal(0, 0.02), "cross_theory_p5": 0.05}
        fin = {"rank_pairwise": base["rank_pairwise"] + rank_gain + rng.normal(0, 0.005),
               "sim_corr": base["sim_corr"] + corr_gain + rng.normal(0, 0.02), "dir_gap": gap + rng.normal(0, 0.02)}
        c2, c1 = cross2 + rng.normal(0, 0.015), cross1 + rng.normal(0, 0.015)
        curve = {k: base[k] + (fin[k] - base[k]) * shape for k in fin}
        cur2 = dict(curve, cross_theory_p5=0.05 + (c2 - 0.05) * shape)
        cur1 = dict(curve, cross_theory_p5=0.05 + (c1 - 0.05) * shape)
        out.append(claims.HivesSummary(base, {"stage2": (steps, cur2), "stage1_more": (steps, cur1)}))
    return out


@claim_case("valueflow", "C3", "reproduced")
def _c3_world():
    return claims.claim3_structure(_summ(3, np.random.default_rng(0), 0.04, 0.25, 0.33, 0.12, 0.05), CFG)


@claim_case("valueflow", "C3", "not reproduced", alternative="training that leaves the structure as it was (gains ≈ 0)")
def _c3_no_gain():
    return claims.claim3_structure(_summ(3, np.random.default_rng(1), -0.005, -0.01, 0.33, 0.12, 0.05), CFG)


@claim_case("valueflow", "C3", "inconclusive at this scale", alternative="heads still improving (not converged)")
def _c3_unconverged():
    return claims.claim3_structure(_summ(3, np.random.default_rng(2), 0.04, 0.25, 0.33, 0.12, 0.05, flat=False), CFG)


@claim_case("valueflow", "C3", "inconclusive at this scale", trivial="a head of the same size trained on shuffled "
            "labels, on the real MiniLM embeddings of a small corpus (two seeds)")
def _c3_shuffled():
    summ, _ = _tiny_hives()
    return claims.claim3_structure(summ, TINY, run="shuffled")


@claim_case("valueflow", "C4", "reproduced")
def _c4_world():
    return claims.claim4_direction(_summ(3, np.random.default_rng(3), 0.04, 0.25, 0.34, 0.12, 0.05), CFG)


@claim_case("valueflow", "C4", "not reproduced", alternative="a head that separates directions no more than the base "
            "encoder (gap 0.12)")
def _c4_weak():
    return claims.claim4_direction(_summ(3, np.random.default_rng(4), 0.04, 0.25, 0.12, 0.12, 0.05), CFG)


@claim_case("valueflow", "C4", "not reproduced", trivial="the untuned MiniLM encoder on the held-out texts of four "
            "fresh corpora of 10 texts per leaf (the base metric needs no training, so the trivial case can have "
            "the replicates and texts the rule needs; with 3 texts per leaf, 48 held-out texts, the gap of one "
            "corpus ranged from -0.31 to 0.55)")
def _c4_untuned():
    from icmlbook.papers.valueflow.metrics import distance_ratios

    _, cache = _tiny_hives()
    summ = []
    for seed in range(100, 104):
        c = S.generate_corpus(10, seed)
        ev = c.subset(np.flatnonzero(~np.isin(c.subject, vf.experiments.TRAIN_SUBJECTS)))
        gap = distance_ratios(cache(ev.texts), ev.paths, ev.direction)["gap"]
        summ.append(claims.HivesSummary({"dir_gap": gap}, {}))
    return claims.claim4_direction(summ, TINY, run=None)


@claim_case("valueflow", "C5", "reproduced")
def _c5_world():
    return claims.claim5_cross_theory(_summ(3, np.random.default_rng(5), 0.04, 0.25, 0.33, 0.14, 0.05), CFG)


@claim_case("valueflow", "C5", "not reproduced", alternative="an anchor stage that does not align theories (no gain)")
def _c5_none():
    return claims.claim5_cross_theory(_summ(3, np.random.default_rng(6), 0.04, 0.25, 0.33, 0.05, 0.05), CFG)


@claim_case("valueflow", "C5", "inconclusive at this scale", trivial="stage 2 without its theory-anchor term, on "
            "the real MiniLM embeddings of a small corpus (two seeds)")
def _c5_no_theory():
    summ, _ = _tiny_hives()
    return claims.claim5_cross_theory(summ, TINY, run="stage2_no_theory")


# ------------------------------------------------------------------------------------------------ C6
def _bins_world(means, sd=2.0, n=200, seed=7):
    rng = np.random.default_rng(seed)
    level = np.repeat([-2, -1, 1, 2], n)
    return level, np.concatenate([m + rng.normal(0, sd, n) for m in means])


@claim_case("valueflow", "C6", "reproduced")
def _c6_world():
    return claims.claim6_monotone(*_bins_world([-6.5, -3.5, 3.0, 6.0]), CFG)


@claim_case("valueflow", "C6", "not reproduced", alternative="an evaluator that sees only the direction (−2 and −1 "
            "bins at the same mean)")
def _c6_direction_only():
    return claims.claim6_monotone(*_bins_world([-5.0, -5.0, 5.0, 5.0]), CFG)


_TINY_EVALUATORS: dict = {}


@functools.lru_cache(maxsize=None)
def _tiny_evaluator():
    _, cache = _tiny_hives()
    return vf.evaluator_study(TINY, 0, cache, _TINY_EVALUATORS)


@claim_case("valueflow", "C6", "inconclusive at this scale", trivial="the keyword judge (reads only the support/oppose "
            "verb) through the anchored estimator, on real held-out texts of two values")
def _c6_keyword():
    es = _tiny_evaluator()
    return claims.claim6_monotone(es.level, es.keyword, TINY, judge="keyword judge")


@claim_case("valueflow", "C6", "not reproduced", trivial="the keyword judge through the anchored estimator on 800 "
            "fresh held-out texts per value (two values' real databases; the judge reads no embedding, so the case "
            "can have the texts the rule needs to reject it)")
def _c6_keyword_powered():
    _tiny_evaluator()
    rng = np.random.default_rng(5)
    level, score = [], []
    for v, ev in _TINY_EVALUATORS.items():
        c = S.generate_corpus(200, int(rng.integers(2**31)), values=[v], neutral_share=0.0, subjects=[9, 10, 11])
        score.append(vf.keyword_scores(ev, c.texts, TINY.k_main, TINY.m_main, rng))
        level.append(S.level_of(c.intensity))
    return claims.claim6_monotone(np.concatenate(level), np.concatenate(score), TINY, judge="keyword judge")


# ------------------------------------------------------------------------------------------------ C8
def _steer_world(planted_asym, seed=8, n=64, sd=2.0):
    rng = np.random.default_rng(seed)
    values, planted = ["benevolence", "care", "fidelity", "civil rights"], ["care", "fidelity"]
    scores = {}
    for v in values:
        muted = planted_asym and v in planted
        for lv, mu in ((-2, -2.0 if muted else -7.0), (-1, -2.0 if muted else -3.5), (0, 0.0), (1, 3.5), (2, 7.0)):
            scores[(v, lv)] = mu + rng.normal(0, sd, n)
    return scores, values, planted


@claim_case("valueflow", "C8", "reproduced")
def _c8_world():
    return claims.claim8_planted(*_steer_world(True), CFG)


@claim_case("valueflow", "C8", "not reproduced", alternative="a protocol that misses the plant (every value symmetric)")
def _c8_missed():
    return claims.claim8_planted(*_steer_world(False), CFG)


@claim_case("valueflow", "C8", "not reproduced", trivial="the direction-only keyword scorer on the real planted "
            "corpus texts of every level")
def _c8_keyword():
    values, planted = ["benevolence", "care"], {"care"}
    rows = vf.steering_corpus(values, planted, 16, 0)
    kj = J.KeywordJudge()
    scores = {(v, lv): 10.0 * kj.scores([t for vv, ll, t in rows if (vv, ll) == (v, lv)])
              for v in values for lv in (-2, -1, 0, 1, 2)}
    return claims.claim8_planted(scores, values, planted, CFG, scorer="keyword scorer")


def test_claim_rules_refuse_moved_thresholds():
    with pytest.raises(ValueError, match="fixed"):
        claims.claim6_monotone(*_bins_world([-6, -3, 3, 6]), vf.config_for("default", bin_step_min=0.1))


# ------------------------------------------------------------------------------------------------ recorded answers
def _same(a, b) -> bool:
    """Equal bit for bit, NaN included (dicts of arrays / tuples of arrays compared key by key)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and a and isinstance(a[0], np.ndarray):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_request_bodies_are_what_the_client_sends(tmp_path):
    from icmlbook.lm import ChatEndpoint
    from tests.stub_endpoint import stub_server

    texts = ["A nurse strongly values free clinics.", "Our mayor dismisses free clinics."]
    req = vf.endpoint_judge_request("m-judge")("care", "kindness", texts)
    assert req == ChatEndpoint("http://x/v1", "m-judge").request_body(vf.replay.judge_prompt("care", "kindness", texts))
    assert vf.endpoint_generator_request("m-gen")("Why?") == ChatEndpoint("http://x/v1", "m-gen", temperature=0.7,
                                                                          max_tokens=200).request_body("Why?")
    with stub_server(lambda body: "[2, 1]") as (url, seen):
        judge = vf.OpenAICompatibleJudge(url, "m-judge")
        assert judge.rank_texts("care", "kindness", texts) == [2, 1]
        sent = {k: v for k, v in seen[0].items() if not k.startswith("_")}
        assert sent == req and vf.request_key(sent) == vf.request_key(req)
        with pytest.raises(ValueError, match="not made for this judge"):
            judge.answer(vf.endpoint_judge_request("other")("care", "kindness", texts))


def test_replay_judge_records_then_replays_and_names_a_missing_key(tmp_path):
    from tests.stub_endpoint import stub_server

    path = tmp_path / "answers.jsonl"
    c = S.generate_corpus(12, 5, values=["care"], neutral_share=0.0)
    windows = [c.texts[i:i + 3] for i in range(0, 12, 3)]
    with stub_server(_stub_reply) as (url, seen):
        rec = vf.ReplayJudge(path, vf.OpenAICompatibleJudge(url, "stub-judge"))
        kept_b, pos_b = rec.rank("benevolence", TX.DEFINITIONS["benevolence"], windows)
        kept_c, _ = rec.rank("care", TX.DEFINITIONS["care"], windows[:2])      # answered with a non-permutation
        again = vf.ReplayJudge(path, vf.OpenAICompatibleJudge(url, "stub-judge"))
        again.rank("benevolence", TX.DEFINITIONS["benevolence"], windows)      # already recorded: nothing asked
        n_calls = len(seen)
    assert (rec.asked, rec.invalid, kept_c) == (6, 2, []) and n_calls == 6 and again.asked == 0
    assert len(path.read_text().splitlines()) == 6
    # offline: no server, the same answers and the same invalid count
    rp = vf.ReplayJudge(path, request=vf.endpoint_judge_request("stub-judge"))
    kept2, pos2 = rp.rank("benevolence", TX.DEFINITIONS["benevolence"], windows)
    assert kept2 == kept_b and _same(pos2, pos_b) and rp.replayed == 4
    assert rp.rank("care", TX.DEFINITIONS["care"], windows[:2])[0] == [] and rp.invalid == 2
    missing = vf.request_key(vf.endpoint_judge_request("stub-judge")("care", TX.DEFINITIONS["care"], windows[3]))
    with pytest.raises(vf.ReplayMissing, match=missing):
        rp.rank("care", TX.DEFINITIONS["care"], windows[3:])
    with pytest.raises(vf.ReplayMissing, match="no recorded answer"):     # another model: other keys
        vf.ReplayJudge(path, request=vf.endpoint_judge_request("other-model")).rank_texts(
            "benevolence", TX.DEFINITIONS["benevolence"], windows[0])
    # any judge with a text interface: the keyword judge recorded under its backend label, then replayed
    kpath = tmp_path / "keyword.jsonl"
    live = vf.ReplayJudge(kpath, vf.KeywordJudge())
    want = live.rank("care", "x", windows)
    back = vf.ReplayJudge(kpath, backend=vf.KeywordJudge.backend).rank("care", "x", windows)
    assert want[0] == back[0] and _same(want[1], back[1]) and live.asked == 4
    with pytest.raises(vf.ReplayMissing):
        vf.ReplayJudge(kpath, backend="another judge").rank("care", "x", windows)
    # a hand-edited file is refused, naming the line
    lines = path.read_text().splitlines()
    path.write_text(lines[0].replace("stub-judge", "edited") + "\n")
    with pytest.raises(ValueError, match=r"answers.jsonl:1"):
        vf.AnswerLog(path)
    with pytest.raises(ValueError, match="request= / backend="):
        vf.ReplayJudge(tmp_path / "x.jsonl")


# ------------------------------------------------------------------------------------------------ C7 on a stub LLM
C7CFG = vf.config_for("smoke", c7_values=2, c7_queries=4, vidb_per_value=40)


def _c7_reply(world: str):
    """The stub server's answers for claim 7's worlds (a test fixture, never a result). Judge prompts: the order
    of the numbered texts by the intensity the template reader finds in the sentence that names the asked value
    (the whole text when none does). Strength prompts: one template sentence at the requested level, ``+2``
    'strongly'/'wholeheartedly' by query; ``-2`` muted to 'slightly'/'somewhat' in the 'asymmetric' worlds;
    bare queries: 'mentions it' or 'slightly values it' by query. Profiles: each value at its level
    ('additive'), or, when the levels conflict, the negative-level value only mentioned ('dominance' and
    'refusing'). 'refusing': a model that refuses half of its strength prompts at -2 (a refusal sentence) and
    steers the other half as strongly as at +2."""
    import re

    mods = {2: ("strongly", "wholeheartedly"), 1: ("slightly", "somewhat"), -1: ("slightly", "somewhat"),
            -2: ("strongly", "wholeheartedly")}
    lvl = {w: lv for lv, w in vf.steering.LEVEL_WORDS.items()}

    def sentence(v, level, q, muted):
        par = vf.QUERIES.index(q) % 2
        if level == 0:
            return f"My neighbour mentions {v}."
        mod = mods[-1][par] if (level == -2 and muted) else mods[level][par]
        return f"My neighbour {mod} {'values' if level > 0 else 'dismisses'} {v}."

    def reply(body):
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("Value:"):
            value = prompt.split(" (", 1)[0][len("Value: "):]
            texts = re.findall(r"^\d+\. (.*)$", prompt, flags=re.M)
            keyed = [next((s for s in t.split(". ") if value in s), t) for t in texts]
            return str((np.argsort(-J.TemplateReader.latent(keyed), kind="stable") + 1).tolist())
        q = prompt.rsplit("\n", 1)[-1]
        found = [(lvl[w], v) for w, v in re.findall(r"(strongly values|slightly values|slightly rejects|strongly "
                                                    r"rejects) ([\w-]+)", prompt)]
        if not found:
            return f"My neighbour {'slightly values' if vf.QUERIES.index(q) % 2 else 'mentions'} it."
        if world == "refusing" and len(found) == 1 and found[0][0] == -2 and vf.QUERIES.index(q) % 2 == 0:
            return "I can't write an answer that rejects this value."
        muted = world in ("asymmetric", "dominance")
        if len(found) == 2 and world in ("dominance", "refusing") and found[0][0] * found[1][0] < 0:
            found = [(lv if lv > 0 else 0, v) for lv, v in found]
        return " ".join(sentence(v, lv, q, muted) for lv, v in found)

    return reply


def _c7_study(world: str, blind: bool = False, replay=None):
    from tests.stub_endpoint import stub_server

    with stub_server(_c7_reply(world)) as (url, _):
        gen, judge = vf.endpoint_backends(url, "stub-llm", replay=replay or "")
        return vf.llm_steering_study(C7CFG, 0, vf.InstructionBlind(gen) if blind else gen, judge)


@claim_case("valueflow", "C7", "reproduced")
def _c7_world():
    return claims.claim7_llm_steering(_c7_study("dominance"), C7CFG)


@claim_case("valueflow", "C7", "not reproduced", alternative="a model that steers both ways alike and composes "
            "additively (a stub endpoint, a test fixture)")
def _c7_symmetric():
    return claims.claim7_llm_steering(_c7_study("additive"), C7CFG)


@claim_case("valueflow", "C7", "not reproduced", trivial="the instruction-blind generator (only the query is sent) "
            "through the real protocol and evaluator, on the stub endpoint")
def _c7_blind():
    return claims.claim7_llm_steering(_c7_study("dominance", blind=True), C7CFG)


@claim_case("valueflow", "C7", "inconclusive at this scale", alternative="a model that refuses half of its negative "
            "strength prompts and steers the rest as strongly as the positive ones (a stub endpoint, a test fixture): "
            "the scored answers alone are symmetric (before the fix: 'not reproduced', against on the asymmetry, "
            "although every refusal was at -2)")
def _c7_refusing():
    return claims.claim7_llm_steering(_c7_study("refusing"), C7CFG)


class _InProcessGenerator:
    """The stub endpoint's generator answers without the server (the same reply function; a test fixture)."""

    backend = "stub generator (in process)"

    def __init__(self, reply):
        self.reply = reply

    def generate(self, prompts):
        return [self.reply({"messages": [{"role": "user", "content": p}]}) for p in prompts]


class _OrderShownJudge:
    """The nearest judge without the reading: it answers every window in the order shown (a position-biased
    judge that ignores the texts)."""

    backend = "order-as-shown judge"

    def rank(self, value, definition, windows):
        return vf.replay.rank_windows(lambda v, d, texts: list(range(1, len(texts) + 1)), value, definition, windows)


@claim_case("valueflow", "C7", "inconclusive at this scale", trivial="a judge that ignores the texts (it answers "
            "every window in the order shown) with a generator that steers (the 'dominance' stub world) at the "
            "chapter's C7 size, 4 values x 8 queries: every score near the middle (before the fix: 'not "
            "reproduced', against on mean Δ(+2) -0.77 [-2.58, +1.03])")
def _c7_judge_ignores_texts():
    cfg = vf.config_for("smoke", vidb_per_value=40)
    assert (cfg.c7_values, cfg.c7_queries) == (CFG.c7_values, CFG.c7_queries)
    study = vf.llm_steering_study(cfg, 0, _InProcessGenerator(_c7_reply("dominance")), _OrderShownJudge())
    return claims.claim7_llm_steering(study, cfg)


def test_c7_refusals_at_minus_two_never_count_against_the_asymmetry():
    chk = _c7_refusing()
    assert chk.values["refusals_neg2"] > 0 == chk.values["refusals_pos2"]
    assert "undecided" in chk.measured and "refusal" in chk.reason


def test_c7_not_testable_without_an_endpoint_and_replayed_bit_for_bit(tmp_path):
    assert vf.endpoint_backends("", "") is None
    chk = claims.claim7_llm_steering(None, C7CFG)
    assert chk.verdict == "not testable at this profile" and "endpoint_url" in chk.reason
    with pytest.raises(ValueError, match="endpoint_model"):
        vf.endpoint_backends("http://127.0.0.1:9/v1", "")
    path = tmp_path / "c7.jsonl"
    with pytest.raises(FileNotFoundError, match="endpoint_replay="):
        vf.endpoint_backends("", "stub-llm", replay=path)
    live = _c7_study("dominance", replay=path)
    gen, judge = vf.endpoint_backends("", "stub-llm", replay=path)        # no server from here on
    back = vf.llm_steering_study(C7CFG, 0, gen, judge)
    assert gen.asked == judge.asked == 0 and gen.replayed > 0 and judge.replayed > 0
    for f in ("scores", "pair_scores", "refusals", "table"):
        assert _same(getattr(live, f), getattr(back, f)), f
    assert _same(live.composition.achieved, back.composition.achieved)
    a, b = claims.claim7_llm_steering(live, C7CFG), claims.claim7_llm_steering(back, C7CFG)
    assert a.verdict == b.verdict and _same(a.values, b.values)
    assert a.measured.split("; generator")[0] == b.measured.split("; generator")[0]   # only the labels differ
    assert "stub-llm" in back.generator and "replay" in back.judge
    with pytest.raises(vf.ReplayMissing, match="request key"):         # a larger study asks what was never recorded
        vf.llm_steering_study(vf.config_for("smoke", c7_values=2, c7_queries=5, vidb_per_value=40), 0, gen, judge)


# ------------------------------------------------------------------------------------------------ C3f: against flat SupCon
def _flat_summ(n, rng, rank_diff, corr_diff):
    """Stage-1 and flat-SupCon curves that rise then flatten, with the default run's spread."""
    steps = np.array([0, 75, 150, 225, 300, 375, 450, 525, 600], float)
    shape = 1 - np.exp(-steps / 60)
    out = []
    for _ in range(n):
        base = {"rank_pairwise": 0.67 + rng.normal(0, 0.005), "sim_corr": 0.17 + rng.normal(0, 0.02)}
        flat = {"rank_pairwise": 0.74 + rng.normal(0, 0.008), "sim_corr": 0.30 + rng.normal(0, 0.02)}
        hier = {"rank_pairwise": flat["rank_pairwise"] + rank_diff + rng.normal(0, 0.008),
                "sim_corr": flat["sim_corr"] + corr_diff + rng.normal(0, 0.02)}
        curves = {r: (steps, {k: base[k] + (f[k] - base[k]) * shape for k in f}) for r, f in
                  (("stage1", hier), ("flat_dir", flat))}
        out.append(claims.HivesSummary(base, curves))
    return out


@claim_case("valueflow", "C3f", "reproduced")
def _c3f_world():
    return claims.claim3_flat(_flat_summ(3, np.random.default_rng(8), 0.07, 0.2), CFG)


@claim_case("valueflow", "C3f", "not reproduced", alternative="a flat loss that orders the hierarchy as well "
            "(differences ≈ 0)")
def _c3f_flat_as_good():
    return claims.claim3_flat(_flat_summ(3, np.random.default_rng(9), -0.01, 0.0), CFG)


@claim_case("valueflow", "C3f", "inconclusive at this scale", trivial="the head trained on shuffled labels in "
            "HiVES's place, against flat SupCon, on the real MiniLM embeddings of a small corpus (two seeds)")
def _c3f_shuffled():
    summ, _ = _tiny_hives()
    return claims.claim3_flat(summ, TINY, run="shuffled")


# ------------------------------------------------------------------------------------------------ OpinionQA profiles
def test_value_profile_against_a_hand_computed_example():
    from icmlbook.papers.valueflow.profile import base_score, divergence, value_profile

    # three groups, four queries, one value; group 2 did not answer query 3
    x = np.array([[6.0, -2.0, 4.0, 8.0], [2.0, -2.0, 0.0, 4.0], [-2.0, 4.0, 2.0, np.nan]])
    d = np.array([[0.5, 0.0, 0.0, 0.25], [0.0, 0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 0.0]])
    b = base_score(x, d)
    assert np.allclose(b[:, :3], [[3, -2, 4], [2, -2, 0], [-2, 4, 2]]) and b[0, 3] == 6 and np.isnan(b[2, 3])
    assert np.allclose(base_score(x, d, beta=1.0)[0, :3], [1.8, -0.4, 1.6])
    z = divergence(b)
    # query 0: b = (3, 2, -2); sd (ddof 1) of all three = sqrt(7); group 0: (3 - 0) / sqrt(7)
    assert np.isclose(z[0, 0], 3 / np.sqrt(7)) and np.isclose(z[2, 0], (-2 - 2.5) / np.sqrt(7))
    # query 3: two groups, b = (6, 4): sd sqrt(2); group 0: (6 - 4) / sqrt(2); group 2 missing
    assert np.isclose(z[0, 3], 2 / np.sqrt(2)) and np.isclose(z[1, 3], -2 / np.sqrt(2)) and np.isnan(z[2, 3])
    # query 1: b = (-2, -2, 4): sd sqrt(12); group 2: (4 + 2) / sqrt(12)
    assert np.isclose(z[2, 1], 6 / np.sqrt(12))
    p = value_profile(x, d, top_n=2)
    # group 0: |z| = 3/sqrt7 = 1.134, 3/sqrt12 = 0.866, |4 - 1|/2 = 1.5, 2/sqrt2 = 1.414 -> queries 2, 3; profile
    # (4 * 1 + 8 * 0.75) / 1.75
    assert p.selected[0] == [2, 3] and np.isclose(p.profile[0], (4 + 8 * 0.75) / 1.75)
    # without distances the profile is the plain mean of the chosen intensities
    p0 = value_profile(x, None, top_n=1)
    assert all(len(s) == 1 for s in p0.selected) and np.isclose(p0.profile[2], x[2, p0.selected[2][0]])
    m = divergence(b, "margin")
    assert np.isclose(m[0, 0], 1.0) and np.isclose(m[2, 1], 6.0)
    with pytest.raises(ValueError, match="method="):
        divergence(b, "rank")
    with pytest.raises(ValueError, match="top_n="):
        value_profile(x, top_n=0)
