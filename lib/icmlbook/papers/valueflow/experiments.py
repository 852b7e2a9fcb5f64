"""The experiments of the VALUEFLOW chapter: one function per study, each returning plain arrays the claims
(:mod:`.claims`) and figures (:mod:`.plots`) read. Every replicate is independent (its own seed: fresh texts,
judges, batches, initialisation)."""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.stats import spearmanr

from ...runtime import progress
from . import pl
from .trueskill import trueskill_estimate
from .config import ValueflowConfig
from .hives import EmbeddingCache, HeadRun, train_head
from .judges import KeywordJudge, ProjectionJudge, SimulatedJudge, TemplateReader, judge_panel
from .steering import asymmetry, delta_table, steer, steering_corpus, train_steering_lm
from .synthetic import generate_corpus, level_of
from .taxonomy import STEERED, leaves_of

__all__ = ["HivesSeed", "hives_seed", "SimReplicate", "sim_replicate", "build_vidb", "ValueEvaluator",
           "ValueDatabase", "value_database", "value_evaluator", "EvaluatorStudy", "evaluator_study", "SteeringStudy",
           "steering_study", "steered_order", "score_texts", "keyword_scores", "text_studies", "playground", "sim_study"]

TRAIN_SUBJECTS = tuple(range(9))
#: names of the two extra arms of the ranking-vs-rating comparison
ABSTAIN = "abstaining (0 for every item)"
ZSCORED = "rating z-scored per judge over the batch"


def steered_order() -> list[str]:
    """The 32 steered values interleaved across theories (so a prefix covers every theory)."""
    lists = [STEERED[t] for t in ("schwartz", "mft", "ross", "vasak")]
    out = []
    for i in range(max(len(v) for v in lists)):
        out += [v[i] for v in lists if i < len(v)]
    return out


# ------------------------------------------------------------------------------------------------ HiVES
@dataclasses.dataclass
class HivesSeed:
    """One HiVES replicate: the runs (``stage1``, ``stage2``, ``stage1_more`` = stage 1 for the stage-2 budget,
    ``stage2_no_theory``, ``flat``, ``flat_dir`` = flat SupCon on leaf and direction, ``shuffled``), the base metrics, a sample of held-out embeddings (base and
    HiVES) with their labels for the figure."""

    seed: int
    base: dict
    runs: dict
    z_base: np.ndarray
    z_hives: np.ndarray
    labels: dict
    n_train: int
    n_eval: int


def hives_seed(cfg: ValueflowConfig, seed: int, cache: EmbeddingCache | None = None) -> HivesSeed:
    """Generate a corpus (seed), embed it with MiniLM once, train every head of the chapter on the cached
    embeddings, and evaluate on held-out subjects."""
    cache = cache or EmbeddingCache(cfg.max_length)
    corpus = generate_corpus(cfg.n_per_leaf, seed)
    is_tr = np.isin(corpus.subject, TRAIN_SUBJECTS)
    ctr, cev = corpus.subset(np.flatnonzero(is_tr)), corpus.subset(np.flatnonzero(~is_tr))
    x = cache(corpus.texts, desc="MiniLM embeddings (HiVES corpus)")
    xtr, xev = x[is_tr], x[~is_tr]
    kw = dict(batch=cfg.hives_batch, lr=cfg.hives_lr, tau=cfg.tau, lam_dir=cfg.lam_dir, lam_indiv=cfg.lam_indiv,
              lam_theory=cfg.lam_theory, n_evals=cfg.n_evals, n_anchors=cfg.eval_anchors)
    runs: dict[str, HeadRun] = {}
    runs["stage1"] = train_head(xtr, ctr, xev, cev, stage="stage1", steps=cfg.stage1_steps, seed=seed, **kw)
    runs["stage2"] = train_head(xtr, ctr, xev, cev, stage="stage2", steps=cfg.stage2_steps, seed=seed + 1,
                                init=runs["stage1"], **kw)
    runs["stage1_more"] = train_head(xtr, ctr, xev, cev, stage="stage1", steps=cfg.stage2_steps, seed=seed + 1,
                                     init=runs["stage1"], **kw)
    runs["stage2_no_theory"] = train_head(xtr, ctr, xev, cev, stage="stage2", steps=cfg.stage2_steps,
                                          seed=seed + 1, init=runs["stage1"], **(kw | {"lam_theory": 0.0}))
    runs["flat"] = train_head(xtr, ctr, xev, cev, stage="flat", steps=cfg.stage1_steps, seed=seed, **kw)
    runs["flat_dir"] = train_head(xtr, ctr, xev, cev, stage="flat_dir", steps=cfg.stage1_steps, seed=seed, **kw)
    runs["shuffled"] = train_head(xtr, ctr, xev, cev, stage="shuffled", steps=cfg.stage1_steps, seed=seed, **kw)
    head = runs["stage2"].head()
    labels = {"value": cev.value, "theory": cev.theory, "direction": cev.direction, "leaf": cev.leaf,
              "text": np.array(cev.texts)}
    return HivesSeed(seed, runs["stage1"].curve[0], runs, xev, head.apply_np(xev), labels, len(ctr), len(cev))


# ------------------------------------------------------------------------------------------------ simulation
def build_vidb(latent: np.ndarray, panel, windows: int, rng: np.random.Generator, neutral=None) -> np.ndarray:
    """The database's ratings of items with latent intensities: every item in ``windows`` pairwise windows with
    random partners, each judged by a random panel member; full Plackett-Luce fit; normalisation to [-10, 10]."""
    n = len(latent)
    a = np.repeat(np.arange(n), windows)
    b = (a + rng.integers(1, n, size=a.size)) % n
    items = np.stack([a, b], 1)
    who = rng.integers(len(panel), size=len(items))
    pos = np.empty_like(items)
    for j, judge in enumerate(panel):
        sel = who == j
        pos[sel] = judge.rank(latent[items[sel]], rng)
    orders = np.take_along_axis(items, pl.orders_from_positions(pos), 1)
    return pl.normalise_ratings(pl.fit_pl(n, orders), neutral)


def _windows(judge, q_latent, pool_latent, pool_I, m, k, rng):
    idx, fallback = pl.bucket_anchors(pool_I, len(q_latent), m, k, rng)
    lat = np.concatenate([np.broadcast_to(q_latent[:, None, None], idx.shape[:2] + (1,)), pool_latent[idx]], -1)
    return judge.rank(lat, rng), pool_I[idx], fallback


@dataclasses.dataclass
class SimReplicate:
    """One simulation replicate. Recovery sweep: ``spearman[method][(k, m)]`` and ``mae[...]`` of the anchored
    estimator and its baselines (mean rank, Bradley-Terry, TrueSkill on the same windows; direct rating) against
    the latent truth (one judge); "anchors only" is the mean intensity of the
    anchors an item was shown (an estimator that ignores the judge's answers). Ranking vs rating: per-item across-judge
    variance and sign-flip rate of anchored scores, of direct ratings (averaged over m prompts), of a second
    independent set of direct ratings (the trivial arm), of an abstaining scorer (0 for every item: no variance,
    no sign flips, no information) and of direct ratings z-scored per judge over the whole batch (then put back on
    the pooled mean and spread; it needs every judge to rate the same batch, which single-item scoring does not
    have); ``err[arm]`` the mean absolute error of an arm's scores against the latent, over judges and items.
    ``vidb_mae``/``vidb_rho``: the database's own error."""

    seed: int
    spearman: dict
    mae: dict
    temp: dict
    var: dict
    flip: dict
    err: dict
    vidb_rho: float
    vidb_mae: float
    fallback: int
    example: dict


def _spread(scores: np.ndarray) -> tuple[float, float]:
    """(mean across-judge variance, share of items whose sign is not unanimous) of scores (judges, items)."""
    sign = np.sign(np.round(scores, 6))
    flip = np.mean(~np.all(sign == sign[:1], axis=0))
    return float(scores.var(0, ddof=1).mean()), float(flip)


def sim_replicate(cfg: ValueflowConfig, seed: int) -> SimReplicate:
    rng = np.random.default_rng([seed, 11])
    panel = judge_panel(cfg.n_panel, rng, cfg.judge_noise, cfg.gamma_spread, cfg.offset_sd)
    pool_latent = rng.uniform(-10, 10, cfg.vidb_items)
    pool_I = build_vidb(pool_latent, panel, cfg.vidb_windows, rng)
    q = rng.uniform(-10, 10, cfg.n_query)
    judge = judge_panel(1, rng, cfg.judge_noise, cfg.gamma_spread, cfg.offset_sd)[0]
    rho: dict = {"anchored PL": {}, "mean rank": {}, "Bradley-Terry": {}, "TrueSkill": {}, "direct rating": {},
                 "anchors only": {}}
    mae: dict = {k: {} for k in rho}
    fallback = 0
    for k in cfg.k_grid:
        for m in cfg.m_grid:
            pos, aI, fb = _windows(judge, q, pool_latent, pool_I, m, k, rng)
            fallback += fb
            est = {"anchored PL": pl.anchored_estimate(pos, aI, cfg.temperature).estimate,
                   "mean rank": pl.mean_rank_estimate(pos, aI),
                   "Bradley-Terry": pl.bradley_terry_estimate(pos, aI, temperature=cfg.temperature).estimate,
                   "TrueSkill": trueskill_estimate(pos, aI).estimate,
                   "direct rating": judge.rate(np.repeat(q[:, None], m, 1), rng).mean(1),
                   "anchors only": aI.mean((1, 2))}
            for name, e in est.items():
                rho[name][(k, m)] = float(spearmanr(e, q)[0])
                mae[name][(k, m)] = float(np.abs(e - q).mean())
    temp = {}
    for t in (0.5, 1.0, 2.0, 4.0):
        pos, aI, _ = _windows(judge, q, pool_latent, pool_I, cfg.m_main, cfg.k_main, rng)
        e = pl.anchored_estimate(pos, aI, t).estimate
        temp[t] = (float(spearmanr(e, q)[0]), float(np.abs(e - q).mean()))
    judges = judge_panel(cfg.n_judges, rng, cfg.judge_noise, cfg.gamma_spread, cfg.offset_sd)
    rank_s, rate_s, rate2_s = [], [], []
    for j in judges:
        pos, aI, _ = _windows(j, q, pool_latent, pool_I, cfg.m_main, cfg.k_main, rng)
        rank_s.append(pl.anchored_estimate(pos, aI, cfg.temperature).estimate)
        rate_s.append(j.rate(np.repeat(q[:, None], cfg.m_main, 1), rng).mean(1))
        rate2_s.append(j.rate(np.repeat(q[:, None], cfg.m_main, 1), rng).mean(1))
    rate_a = np.array(rate_s)
    zs = (rate_a - rate_a.mean(1, keepdims=True)) / np.maximum(rate_a.std(1, keepdims=True), 1e-12)
    arms = {"ranking": np.array(rank_s), "rating": rate_a, "rating (second draw)": np.array(rate2_s),
            ABSTAIN: np.zeros_like(rate_a), ZSCORED: zs * rate_a.std() + rate_a.mean()}
    var, flip, err = {}, {}, {}
    for name, s in arms.items():
        var[name], flip[name] = _spread(s)
        err[name] = float(np.abs(s - q).mean())
    example = {"latent": q[:80], "ranking": np.array(rank_s)[:, :80], "rating": np.array(rate_s)[:, :80],
               "gammas": [j.gamma for j in judges], "offsets": [j.offset for j in judges],
               "pool_latent": pool_latent, "pool_I": pool_I}
    return SimReplicate(seed, rho, mae, temp, var, flip, err, float(spearmanr(pool_I, pool_latent)[0]),
                        float(np.abs(pool_I - pool_latent).mean()), fallback, example)


# ------------------------------------------------------------------------------------------------ evaluator on texts
@dataclasses.dataclass
class ValueEvaluator:
    """The database of one value (texts, latent I*, ratings, MiniLM embeddings) and its projection judge."""

    value: str
    texts: list
    latent: np.ndarray
    ratings: np.ndarray
    z: np.ndarray
    judge: ProjectionJudge


@dataclasses.dataclass
class ValueDatabase:
    """A value's database: synthetic texts, their latent intensities and the Plackett-Luce ratings."""

    value: str
    texts: list
    latent: np.ndarray
    ratings: np.ndarray


def value_database(cfg: ValueflowConfig, value: str, seed: int) -> ValueDatabase:
    """A value's database (texts of the training subjects, rated by a panel of simulated judges through the full
    Plackett-Luce fit); :func:`value_evaluator` adds MiniLM embeddings and the projection judge."""
    rng = np.random.default_rng([seed, 23, steered_order().index(value)])
    n_leaves = len(leaves_of(values=[value]))
    c = generate_corpus(-(-cfg.vidb_per_value // n_leaves), int(rng.integers(2**31)), values=[value],
                        subjects=TRAIN_SUBJECTS)
    panel = judge_panel(cfg.n_panel, rng, cfg.judge_noise, cfg.gamma_spread, cfg.offset_sd)
    ratings = build_vidb(c.intensity, panel, cfg.vidb_windows, rng, neutral=c.direction == 0)
    return ValueDatabase(value, list(c.texts), c.intensity, ratings)


def value_evaluator(cfg: ValueflowConfig, value: str, seed: int, cache: EmbeddingCache) -> ValueEvaluator:
    db = value_database(cfg, value, seed)
    z = cache(db.texts, desc=f"MiniLM embeddings (database: {value})")
    return ValueEvaluator(value, db.texts, db.latent, db.ratings, z, ProjectionJudge(z, db.ratings))


def score_texts(ev: ValueEvaluator, z_query: np.ndarray, k: int, m: int, rng, temperature: float = 1.0) -> np.ndarray:
    """Anchored scores of texts (their embeddings) ranked by the value's projection judge among database anchors."""
    idx, _ = pl.bucket_anchors(ev.ratings, len(z_query), m, k, rng)
    zs = np.concatenate([np.broadcast_to(z_query[:, None, None, :], idx.shape[:2] + (1, z_query.shape[1])),
                         ev.z[idx]], 2)
    return pl.anchored_estimate(ev.judge.rank(zs), ev.ratings[idx], temperature).estimate


def keyword_scores(ev: ValueEvaluator, texts, k: int, m: int, rng, temperature: float = 1.0) -> np.ndarray:
    """The same anchored estimator with the direction-only keyword judge (the trivial judge)."""
    kj = KeywordJudge()
    idx, _ = pl.bucket_anchors(ev.ratings, len(texts), m, k, rng)
    s_q, s_db = kj.scores(texts), kj.scores(ev.texts)
    s = np.concatenate([np.broadcast_to(s_q[:, None, None], idx.shape[:2] + (1,)), s_db[idx]], -1)
    return pl.anchored_estimate(kj.rank_scores(s, rng), ev.ratings[idx], temperature).estimate


@dataclasses.dataclass
class EvaluatorStudy:
    """Held-out texts of known level scored by the anchored evaluator with the MiniLM projection judge
    (``score``) and with the keyword judge (``keyword``); ``level`` their true level, ``value`` their value."""

    values: list
    level: np.ndarray
    value: np.ndarray
    latent: np.ndarray
    score: np.ndarray
    keyword: np.ndarray
    vidb_rho: dict


def evaluator_study(cfg: ValueflowConfig, seed: int, cache: EmbeddingCache, evaluators: dict) -> EvaluatorStudy:
    rng = np.random.default_rng([seed, 31])
    values = steered_order()[: cfg.eval_values]
    lv, val, lat, sc, kw, vr = [], [], [], [], [], {}
    for v in progress(values, desc="evaluator on held-out texts"):
        ev = evaluators[v] if v in evaluators else evaluators.setdefault(v, value_evaluator(cfg, v, seed, cache))
        vr[v] = float(spearmanr(ev.ratings, ev.latent)[0])
        c = generate_corpus(max(2, cfg.n_eval_texts), int(rng.integers(2**31)), values=[v], neutral_share=0.0,
                            subjects=[9, 10, 11])
        pick = rng.permutation(len(c))[: cfg.n_eval_texts]
        c = c.subset(pick)
        z = cache(c.texts)
        sc.append(score_texts(ev, z, cfg.k_main, cfg.m_main, rng, cfg.temperature))
        kw.append(keyword_scores(ev, c.texts, cfg.k_main, cfg.m_main, rng, cfg.temperature))
        lv.append(level_of(c.intensity))
        val += [v] * len(c)
        lat.append(c.intensity)
    return EvaluatorStudy(values, np.concatenate(lv), np.array(val), np.concatenate(lat), np.concatenate(sc),
                          np.concatenate(kw), vr)


# ------------------------------------------------------------------------------------------------ steering
@dataclasses.dataclass
class SteeringStudy:
    """The small LM's steering run: planted values, generations, and three scorings of them: ``scores`` by the
    anchored evaluator with the template reader + a simulated judge (the protocol under test), ``minilm`` by the
    anchored evaluator with the MiniLM projection judge, ``keyword`` by the trivial scorer (10 x the verb's
    direction); the Delta table, asymmetries (a, se) per value for each, the training curve and refusals."""

    values: list
    planted: list
    texts: dict
    scores: dict
    minilm: dict
    keyword: dict
    table: dict
    asym: dict
    asym_minilm: dict
    asym_keyword: dict
    loss: np.ndarray
    refusals: int
    backend: str


def steering_study(cfg: ValueflowConfig, seed: int, cache: EmbeddingCache, evaluators: dict) -> SteeringStudy:
    from .steering import is_refusal

    rng = np.random.default_rng([seed, 41])
    values = steered_order()[: cfg.lm_values]
    planted = sorted(rng.choice(values, size=cfg.planted, replace=False).tolist())
    rows = steering_corpus(values, set(planted), cfg.lm_texts, int(rng.integers(2**31)))
    lm = train_steering_lm(rows, steps=cfg.lm_steps, batch=cfg.lm_batch, lr=cfg.lm_lr, n_layer=cfg.lm_layers,
                           d_model=cfg.lm_width, seed=seed, device=cfg.device)
    texts = steer(lm, values, cfg.n_gen, seed)
    scores, minilm, keyword = {}, {}, {}
    kj = KeywordJudge()
    # an undistorted judge (noise only): a judge's scale distortion makes the anchored scores regress unevenly
    # on the two sides (about +1 point of asymmetry in development runs), which claim 2 studies; here the
    # asymmetry measured should be the generator's
    judge = SimulatedJudge(cfg.judge_noise)
    for v in values:
        ev = evaluators[v] if v in evaluators else evaluators.setdefault(v, value_evaluator(cfg, v, seed, cache))
        for level in (-2, -1, 0, 1, 2):
            t = texts[(v, level)]
            pos, aI, _ = _windows(judge, TemplateReader.latent(t), ev.latent, ev.ratings, cfg.m_main, cfg.k_main, rng)
            scores[(v, level)] = pl.anchored_estimate(pos, aI, cfg.temperature).estimate
            minilm[(v, level)] = score_texts(ev, cache(t), cfg.k_main, cfg.m_main, rng, cfg.temperature)
            keyword[(v, level)] = 10.0 * kj.scores(t)
    refusals = sum(is_refusal(t) for ts in texts.values() for t in ts)
    return SteeringStudy(values, planted, texts, scores, minilm, keyword, delta_table(scores),
                         {v: asymmetry(scores, v) for v in values}, {v: asymmetry(minilm, v) for v in values},
                         {v: asymmetry(keyword, v) for v in values}, lm.loss, refusals, lm.backend)


# ------------------------------------------------------------------------------------------------ chapter drivers
def text_studies(cfg: ValueflowConfig, seed: int) -> tuple[EvaluatorStudy, SteeringStudy]:
    """The evaluator study (claim 6) and the steering study (claim 8), sharing one MiniLM cache and databases."""
    cache = EmbeddingCache(cfg.max_length)
    evaluators: dict = {}
    es = evaluator_study(cfg, seed, cache, evaluators)
    return es, steering_study(cfg, seed, cache, evaluators)


def playground(k: int, m: int, noise: float, gamma_spread: float, temperature: float, seed: int = 0,
               n: int = 300, vidb_items: int = 150) -> tuple:
    """One quick simulation for the live playground: (latent, anchored estimate, direct rating of the same judge)."""
    rng = np.random.default_rng([seed, 97])
    panel = judge_panel(3, rng, noise, gamma_spread, 2.0)
    pool_latent = rng.uniform(-10, 10, vidb_items)
    pool_I = build_vidb(pool_latent, panel, 8, rng)
    q = rng.uniform(-10, 10, n)
    judge = judge_panel(1, rng, noise, gamma_spread, 2.0)[0]
    pos, aI, _ = _windows(judge, q, pool_latent, pool_I, m, k, rng)
    return q, pl.anchored_estimate(pos, aI, temperature).estimate, judge.rate(np.repeat(q[:, None], m, 1), rng).mean(1)


def sim_study(cfg: ValueflowConfig, seed: int) -> list[SimReplicate]:
    """``cfg.sim_reps`` independent simulation replicates (seeds 1000 * seed + i)."""
    return [sim_replicate(cfg, 1000 * seed + i) for i in progress(range(cfg.sim_reps), desc="simulation replicates")]
