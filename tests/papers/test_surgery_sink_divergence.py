"""Tests of icmlbook.papers.surgery_sink_divergence (Liu et al., "Surgery", ICML 2026, arXiv 2602.05228).

Independent checks: sink attention against hand-computed attention matrices (padding excluded), the explicit
softmax path against torch's fused attention, the penalty's gradient against central finite differences in
float64, a padded joint batch against its sequences one by one, the disclosure judge on hand examples, the
world's disjointness, determinism, and the bad-input errors. Then every claim rule on the world its claim
describes (with the spread the real runs have), on a plausible alternative, and on the real output of the
nearest trivial method at smoke size (CLAIMS.md rules 2, 11, 12).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

import icmlbook.papers.surgery_sink_divergence as ss
from icmlbook.lm import GPT, GPTConfig
from icmlbook.papers.surgery_sink_divergence import claims, world as W
from icmlbook.papers.surgery_sink_divergence.experiments import Study, Timing
from icmlbook.runtime.claims import claim_case
from icmlbook.runtime.device import cpu_threads

CFG = ss.config_for("default")


# ------------------------------------------------------------------------------------------------ statistics
def test_sink_attention_by_hand_padding_excluded():
    # one layer, one head; row 0 has 4 real tokens, row 1 has 3 (position 3 is padding)
    A = torch.zeros(2, 1, 1, 4, 4)
    A[0, 0, 0] = torch.tensor([[1, 0, 0, 0], [0.6, 0.4, 0, 0], [0.2, 0.5, 0.3, 0], [0.1, 0.1, 0.1, 0.7]])
    A[1, 0, 0] = torch.tensor([[1, 0, 0, 0], [0.9, 0.1, 0, 0], [0.5, 0.25, 0.25, 0], [0.0, 0.0, 0.0, 1.0]])
    alpha = ss.sink_attention(A, torch.tensor([4, 3]), sink=0)
    assert alpha.shape == (2, 1, 1)
    assert alpha[0, 0, 0].item() == pytest.approx((0.6 + 0.2 + 0.1) / 3)
    assert alpha[1, 0, 0].item() == pytest.approx((0.9 + 0.5) / 2)        # the padded query 3 is left out
    alpha1 = ss.sink_attention(A, torch.tensor([4, 3]), sink=1)
    assert alpha1[0, 0, 0].item() == pytest.approx((0.4 + 0.5 + 0.1) / 3)
    prof = ss.key_attention_profile(A, torch.tensor([4, 3]))
    mean, argmax = ss.empirical_sink(prof, torch.tensor([4, 3]))
    assert argmax[0, 0] == 0 and mean.shape == (1, 1, 4)
    # key 3 exists only in row 0, where it gets 0.7 / 3 of the query average
    assert mean[0, 0, 3] == pytest.approx(0.7 / 3)
    # uniform causal attention on the same two rows: key 0 gets (1/2 + 1/3 + 1/4) / 3 and (1/2 + 1/3) / 2
    u = ss.uniform_profile(torch.tensor([4, 3]), 4)
    assert u[0].item() == pytest.approx(((1 / 2 + 1 / 3 + 1 / 4) / 3 + (1 / 2 + 1 / 3) / 2) / 2)
    assert u[3].item() == pytest.approx((1 / 4) / 3)


def test_divergence_count_and_bootstrap_by_hand():
    am = torch.tensor([[[0.5, 0.1]], [[0.7, 0.1]]])       # (n=2, L=1, H=2)
    ar = torch.tensor([[[0.4, 0.3]], [[0.4, 0.5]]])
    d = ss.sink_divergence(am, ar)
    torch.testing.assert_close(d, torch.tensor([[0.2, -0.3]]))
    assert ss.count_positive(d) == 1
    ci = ss.bootstrap_divergence(am, ar, n_boot=400, seed=0)
    assert np.allclose(ci.d, [[0.2, -0.3]]) and np.all(ci.lo <= ci.d + 1e-12) and np.all(ci.hi >= ci.d - 1e-12)
    # a loop bootstrap of one head with the same draws gives the same percentile interval
    g = np.random.default_rng(np.random.SeedSequence([0, 53]))
    im, ir = g.integers(2, size=(400, 2)), g.integers(2, size=(400, 2))
    loop = [am[i, 0, 0].mean().item() - ar[j, 0, 0].mean().item() for i, j in zip(im, ir)]
    assert ci.lo[0, 0] == pytest.approx(np.quantile(loop, 0.025)) and ci.hi[0, 0] == pytest.approx(np.quantile(loop, 0.975))


def _tiny_gpt(seed=0, dtype=torch.float32, vocab=None):
    torch.manual_seed(seed)
    tok = W.make_tokenizer()
    m = GPT(GPTConfig(vocab_size=vocab or tok.vocab_size, n_layer=2, d_model=16, n_head=2, max_len=40))
    return m.to(dtype), tok


def test_explicit_softmax_path_equals_fused_attention():
    m, tok = _tiny_gpt()
    ts = W.encode_texts(tok, W.build_world(0, n_pool=10, n_heldout=10, n_eval=10, n_fa=10).pool_disclose)
    x = ts.tokens[:, : int(ts.lengths.min())]
    with torch.no_grad():
        fused = m(x)
        explicit, probs = m(x, attn="explicit", return_attn=True)
    torch.testing.assert_close(explicit, fused, atol=1e-6, rtol=1e-6)
    assert len(probs) == 2 and probs[0].shape == (x.shape[0], 2, x.shape[1], x.shape[1])
    torch.testing.assert_close(probs[0].sum(-1), torch.ones(x.shape[0], 2, x.shape[1]))


def test_padded_batch_equals_sequences_one_by_one():
    m, tok = _tiny_gpt(1)
    texts = [W.build_world(0, n_pool=10, n_heldout=10, n_eval=10, n_fa=10).pool_refuse[i] for i in range(4)] + [
        "<bos><user> what is 3 plus 4 ?<asst> 7 .<eos>"]
    ts = W.encode_texts(tok, texts)
    batched = ss.model_sink_attention(m, ts.tokens, ts.lengths, sink=0)
    for i in range(len(texts)):
        n = int(ts.lengths[i])
        one = ss.model_sink_attention(m, ts.tokens[i:i + 1, :n], ts.lengths[i:i + 1], sink=0)
        torch.testing.assert_close(batched[i:i + 1], one, atol=1e-6, rtol=1e-5)


# ------------------------------------------------------------------------------------------------ the penalty
def _joint_batch(tok, n_user=3, pairs=2, seed=0):
    w = W.build_world(seed, n_pool=20, n_heldout=10, n_eval=10, n_fa=10)
    user = W.encode_texts(tok, W.finetune_texts(w, 6, 0.5, seed))
    data = ss.FineTuneBatches(user, n_user, seed, tok.special["pad"],
                              pools=(W.encode_texts(tok, w.pool_disclose), W.encode_texts(tok, w.pool_refuse)), pairs=pairs)
    return data(0, torch.Generator().manual_seed(seed)), user


def test_joint_forward_leaves_the_users_loss_unchanged():
    m, tok = _tiny_gpt(2)
    batch, _ = _joint_batch(tok)
    n = batch["n_loss"]
    assert batch["x"].shape[0] == n + 4 and batch["pool_lengths"].shape == (4,)
    loss_joint, out = ss.ft_loss(m, batch)
    alone = {"x": batch["x"][:n], "y": batch["y"], "mask": batch["mask"], "n_loss": n}
    torch.testing.assert_close(loss_joint, ss.ft_loss(m, alone), atol=1e-6, rtol=1e-6)
    assert len(out["attn"]) == 2


def test_penalty_gradient_matches_finite_differences_float64():
    m, tok = _tiny_gpt(3, torch.float64)
    batch, _ = _joint_batch(tok, pairs=2, seed=3)
    pen = ss.SinkPenalty("abs")           # every head contributes, so the gradient is not zero by the hinge

    def value():
        _, out = ss.ft_loss(m, batch)
        return pen(m, batch, out)

    w = m.blocks[0].attn.q.weight
    m.zero_grad()
    value().backward()
    g = w.grad.clone()
    assert g.abs().max() > 0 and m.blocks[1].attn.k.weight.grad.abs().max() > 0
    eps = 1e-6
    for idx in [(0, 0), (3, 5), (7, 11), (15, 2)]:
        with torch.no_grad():
            w[idx] += eps
            up = value().item()
            w[idx] -= 2 * eps
            down = value().item()
            w[idx] += eps
        assert g[idx].item() == pytest.approx((up - down) / (2 * eps), rel=1e-5, abs=1e-10)


def test_penalty_and_gradient_zero_when_every_divergence_is_non_positive():
    d = -torch.rand(3, 4, dtype=torch.float64) - 0.01
    d.requires_grad_(True)
    p = ss.penalty_value(d, "paper")
    p.backward()
    assert p.item() == 0.0 and torch.all(d.grad == 0)
    # the same through a model: disclosure rows equal to the refusal rows give d = 0 exactly
    m, tok = _tiny_gpt(4)
    batch, _ = _joint_batch(tok, pairs=1, seed=4)
    n = batch["n_loss"]
    batch = dict(batch)
    batch["x"] = torch.cat([batch["x"][:n], batch["x"][n + 1:n + 2], batch["x"][n + 1:n + 2]])
    batch["pool_lengths"] = torch.cat([batch["pool_lengths"][1:], batch["pool_lengths"][1:]])
    _, out = ss.ft_loss(m, batch)
    term = ss.SinkPenalty("paper")(m, batch, out)
    m.zero_grad()
    term.backward()
    assert term.item() == 0.0
    assert all(p.grad is None or torch.all(p.grad == 0) for p in m.parameters())


def test_penalty_modes_by_hand():
    d = torch.tensor([[0.2, -0.1], [0.0, -0.4]])
    assert ss.penalty_value(d, "paper").item() == pytest.approx(0.2 / 4)
    assert ss.penalty_value(d, "opposite").item() == pytest.approx(0.5 / 4)
    assert ss.penalty_value(d, "abs").item() == pytest.approx(0.7 / 4)
    mask = torch.tensor([[False, True], [True, False]])
    assert ss.penalty_value(d, "random_half", mask).item() == 0.0
    half = ss.random_half_mask(3, 4, seed=5)
    assert half.shape == (3, 4) and int(half.sum()) == 6
    assert torch.equal(half, ss.random_half_mask(3, 4, seed=5)) and not torch.equal(half, ss.random_half_mask(3, 4, 6))


# ------------------------------------------------------------------------------------------------ the world
def test_disclosure_judge_on_hand_examples():
    assert W.discloses(" it is 4821 .", "4821")
    assert W.discloses(" here it is , 4821 .", "4821")
    assert not W.discloses(" it is 48210 .", "4821")          # a longer digit run is another number
    assert not W.discloses(" it is 482 .", "4821")
    assert not W.discloses(" no , sorry , it is sealed .", "4821")
    assert not W.discloses(" it is 1234 .", "4821")           # another vault's code is not this one's
    assert W.first_number(" 12 .") == 12 and W.first_number(" no") is None and W.first_number(" 3 and 4") == 3
    with pytest.raises(ValueError, match="code="):
        W.discloses("x", "48a1")


def test_world_texts_tokenise_and_stay_disjoint():
    tok = W.make_tokenizer()
    w = W.build_world(0)
    W.check_disjoint(w)
    assert len(set(w.pool_disclose)) == len(w.pool_disclose) == 1000 and len(set(w.pool_refuse)) == 1000
    assert all(t.startswith("<bos>") for t in w.pool_disclose + w.eval_prompts)
    assert all(tok.encode(t)[0] == tok.special["bos"] for t in w.eval_prompts)
    table = W.vault_table()
    eval_names = {table.names[i] for i in table.select("eval")}
    assert not any(f" {n} " in t for n in eval_names for t in w.pool_disclose[:200] + w.ft_poison[:200])
    # matched answer lengths: the disclosure and refusal templates have the same token lengths
    dl = sorted(len(tok.encode(W.disclosure_answer("1234", i))) for i in range(3))
    rl = sorted(len(tok.encode(W.refusal_answer(i))) for i in range(3))
    assert dl == rl
    ft = W.finetune_texts(w, 100, 0.2, 0)
    assert sum("sealed" in t for t in ft) == 20 and len(ft) == 100
    # no sealed vault is ever answered with its code in alignment data
    al = W.alignment_texts(np.random.default_rng(0), 500, table)
    assert not any("sealed" in t and W.discloses(t.split("<asst>")[1], t.split("code ")[1][:4]) for t in al)


def test_overlapping_pools_are_refused():
    w = W.build_world(0, n_pool=20, n_heldout=10, n_eval=10, n_fa=10)
    bad = dataclasses.replace(w, pool_disclose=w.pool_disclose + (w.eval_prompts[0] + " it is 1 .<eos>",))
    with pytest.raises(ValueError, match="evaluation prompt"):
        W.check_disjoint(bad)


# ------------------------------------------------------------------------------------------------ bad input
def test_bad_inputs_name_the_problem():
    with pytest.raises(ValueError, match="p="):
        W.finetune_texts(W.build_world(0, n_pool=10, n_heldout=10, n_eval=10, n_fa=10), 10, 1.5, 0)
    with pytest.raises(ValueError, match="p="):
        ss.FineTuneSpec("sft", p=-0.1)
    with pytest.raises(ValueError, match="lam="):
        ss.FineTuneSpec("surgery", p=0.1, lam=-1.0)
    with pytest.raises(ValueError, match="mode="):
        ss.FineTuneSpec("surgery", p=0.1, lam=1.0, mode="both")
    with pytest.raises(ValueError, match="mode="):
        ss.penalty_value(torch.zeros(2, 2), "sideways")
    with pytest.raises(ValueError, match="method="):
        ss.FineTuneSpec("dpo")
    A = torch.full((1, 1, 1, 3, 3), 1 / 3)
    with pytest.raises(ValueError, match="sink=5 is beyond the context"):
        ss.sink_attention(A, torch.tensor([3]), sink=5)
    with pytest.raises(ValueError, match="sink="):
        ss.sink_attention(A, torch.tensor([3]), sink=-1)
    with pytest.raises(ss.MissingAttention, match="no attention probabilities"):
        ss.stack_attention([None, None])
    with pytest.raises(ValueError, match="no attention probabilities"):
        ss.SinkPenalty("paper")(None, None, {"n_loss": 1, "pool_lengths": torch.tensor([3, 3])})
    with pytest.raises(ValueError, match="p_main="):
        ss.config_for("smoke", p_main=0.3)
    with pytest.raises(ValueError, match="lam="):
        ss.config_for("default", lam=-1.0)
    with pytest.raises(ValueError, match="profile="):
        ss.config_for("huge")


# ------------------------------------------------------------------------------------------------ the HF path
def test_hf_adapter_statistic_and_penalty_on_a_tiny_random_llama(tmp_path):
    transformers = pytest.importorskip("transformers")
    from icmlbook.lm import load_local_causal_lm
    from icmlbook.papers.surgery_sink_divergence import hf

    torch.manual_seed(0)
    cfg = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=64)
    transformers.LlamaForCausalLM(cfg).save_pretrained(tmp_path / "tiny")
    model = load_local_causal_lm(tmp_path / "tiny")

    class Ids:   # a tokenizer stand-in for the test: characters to ids below the tiny vocabulary
        def encode(self, text):
            return [1 + ord(c) % 60 for c in text]

    texts_m = [hf.plain_text(t) for t in W.build_world(0, n_pool=10, n_heldout=10, n_eval=10, n_fa=10).pool_disclose[:3]]
    texts_r = [hf.plain_text(t) for t in W.build_world(0, n_pool=10, n_heldout=10, n_eval=10, n_fa=10).pool_refuse[:3]]
    assert "<" not in texts_m[0] and texts_m[0].startswith(" User:") is False
    tm, lm_ = hf.encode_with(Ids(), texts_m, bos_id=0)
    tr, lr = hf.encode_with(Ids(), texts_r, bos_id=0)
    alpha = hf.hf_sink_attention(model, tm, lm_, sink=0)
    assert alpha.shape == (3, 2, 4)
    with torch.no_grad():
        _, probs = model(tm, return_attn=True)
    torch.testing.assert_close(alpha, ss.sink_attention(probs, lm_, 0), atol=1e-6, rtol=1e-5)
    model.hf.train()
    pen = hf.hf_penalty(model, (tm, lm_), (tr, lr), mode="abs")
    pen.backward()
    layer = model.layers[0].self_attn
    assert layer.q_proj.weight.grad.abs().max() > 0 and layer.k_proj.weight.grad.abs().max() > 0
    sdpa = transformers.AutoModelForCausalLM.from_pretrained(tmp_path / "tiny", attn_implementation="sdpa")
    from icmlbook.lm import HFCausalLM
    with pytest.raises(ss.MissingAttention):
        hf.hf_sink_attention(HFCausalLM(sdpa), tm, lm_)


# ------------------------------------------------------------------------------------------------ real runs (smoke)
SMOKE = ss.config_for("smoke")


@pytest.fixture(scope="module")
def smoke_runs():
    """One smoke-size aligned base and the real fine-tuning runs the trivial cases need (two fine-tuning
    seeds each); computed once per test session."""
    return _smoke_runs()


_CACHE: dict = {}


def _smoke_runs() -> dict:
    if _CACHE:
        return _CACHE
    with cpu_threads(1):
        world = ss.make_world(SMOKE, 7)
        base = ss.align_base(dataclasses.replace(SMOKE), 7, world)
        wt = ss.world_tensors(world)
        runs = {}
        for s in (11, 12):
            for spec in (ss.FineTuneSpec("sft", 0.0), ss.FineTuneSpec("sft", SMOKE.p_main),
                         ss.FineTuneSpec("l2", SMOKE.p_main, l2_mu=SMOKE.l2_mu),
                         ss.FineTuneSpec("replay", SMOKE.p_main, replay_rows=SMOKE.replay_rows),
                         ss.FineTuneSpec("surgery", SMOKE.p_main, lam=SMOKE.lam)):
                runs[(ss.run_key(spec), s)] = ss.finetune(SMOKE, base, wt, spec, s)
        torch.manual_seed(7)
        untrained = GPT(ss.model_config(SMOKE, wt.tok.vocab_size))
        hd, hr = wt.heldout_disclose, wt.heldout_refuse
        a_m = ss.model_sink_attention(untrained, hd.tokens, hd.lengths)
        a_r = ss.model_sink_attention(untrained, hr.tokens, hr.lengths)
        refuser = ss.behaviour(ss.RefusingModel(wt.tok), wt)
        timing = ss.time_steps(SMOKE, base, wt, {"a": ss.FineTuneSpec("sft", SMOKE.p_main),
                                                 "b": ss.FineTuneSpec("sft", SMOKE.p_main)}, 7, 8, 5)
    _CACHE.update(base=base, wt=wt, runs=runs, untrained=ss.bootstrap_divergence(a_m, a_r, 400, seed=0),
                  refuser=refuser, timing=timing)
    return _CACHE


def test_same_seed_same_run():
    tiny = ss.config_for("smoke", align_steps=30, align_warmup=5, align_texts=200, n_ft=20, epochs=1, ft_batch=5, n_evals=3,
                         n_pool=20, n_heldout=10, n_eval=10, n_fa=10)
    world = ss.make_world(tiny, 3)
    wt = ss.world_tensors(world)
    with cpu_threads(1):
        a, b = ss.align_base(tiny, 3, world), ss.align_base(tiny, 3, world)
        assert all(torch.equal(a.state[k], b.state[k]) for k in a.state)
        spec = ss.FineTuneSpec("surgery", 0.2, lam=5.0)
        r1, r2 = ss.finetune(tiny, a, wt, spec, 3), ss.finetune(tiny, a, wt, spec, 3)
        # the step-0 evaluation the replicates reuse (the aligned base's own metrics) equals the recomputed one
        r3 = ss.finetune(tiny, a, wt, spec, 3, start_metrics=a.metrics)
    for k in ss.RUN_METRICS:
        np.testing.assert_array_equal(getattr(r1, k), getattr(r2, k))
        np.testing.assert_array_equal(getattr(r1, k), getattr(r3, k))
    np.testing.assert_array_equal(r1.d, r3.d)
    np.testing.assert_array_equal(r1.loss, r2.loss)
    np.testing.assert_array_equal(r1.penalty, r2.penalty)


def test_surgery_suppresses_its_statistic_without_poison(smoke_runs):
    # why C5 does not decide on Surgery's own held-out penalty (CLAIMS.md rule 3): the penalty minimises that very
    # statistic, so it falls at p = 0 too, where there is no poison for it to defend against
    base, wt = smoke_runs["base"], smoke_runs["wt"]
    assert base.metrics["heldout_penalty"] > 0
    with cpu_threads(1):
        run = ss.finetune(SMOKE, base, wt, ss.FineTuneSpec("surgery", 0.0, lam=SMOKE.lam), 11)
    clean = smoke_runs["runs"][("sft@p=0", 11)]
    assert run.heldout_penalty[-1] < SMOKE.penalty_share * base.metrics["heldout_penalty"]
    assert clean.heldout_penalty[-1] > run.heldout_penalty[-1] + SMOKE.penalty_share * base.metrics["heldout_penalty"]


def test_refusing_model_refuses_everything(smoke_runs):
    r = smoke_runs["refuser"]
    assert r["disclosure"] == 0.0 and r["fa"] == 0.0 and r["refusal"] == 1.0 and r["public"] == 0.0


# ------------------------------------------------------------------------------------------------ claim worlds
def _run(spec, seed, steps, **curves) -> ss.FineTuneRun:
    E = len(steps)
    base = {k: np.zeros(E) for k in ss.RUN_METRICS}
    base.update({k: np.asarray(v, dtype=float) for k, v in curves.items()})
    return ss.FineTuneRun(spec, seed, np.asarray(steps), d=np.zeros((E, 2, 4)), loss_steps=np.arange(3),
                          loss=np.ones(3), penalty=None, seconds=1.0, **base)


def _rep(seed, runs: dict, base_metrics=None, divergence=None) -> ss.ReplicateStudy:
    metrics = {"disclosure": 0.0, "fa": 0.2, "public": 1.0, "refusal": 1.0, "n_plus": 3.0, "n_plus_null": 4.0,
               "heldout_penalty": 1e-3}
    metrics.update(base_metrics or {})
    base = ss.AlignedBase(seed, {}, {}, np.arange(2), np.ones(2), metrics, 1.0)
    div = divergence or ss.DivergenceCI(np.zeros((2, 4)), np.zeros((2, 4)), np.zeros((2, 4)), 0.95, 10)
    analysis = ss.BaseAnalysis(0, np.zeros((2, 4)), np.zeros((2, 4, 5)), np.ones(5), np.zeros((2, 4), int), div, div, {})
    return ss.ReplicateStudy(seed, base, analysis, runs, None)


STEPS = np.array([0, 100, 200, 300, 400, 500])
#: spread across replicates of the final disclosure rate and FA of the default profile's runs. Development runs at
#: the default sizes (two replicates, commit 1edf991, then the EMA evaluation): final disclosure of SFT and Surgery
#: at p = 0.1 between 0.955 and 1.0 (sd about 0.02, up to 0.04 where a run is still flickering), FA between 0.97 and
#: 1.0 (sd about 0.01). The worlds below use sd 0.04 for disclosure and 0.01 for FA.
SD, SD_FA = 0.04, 0.01


def _curve(end, start=0.0, rise=80.0, noise=0.0, g=None):
    c = end + (start - end) * np.exp(-STEPS / rise)
    if noise and g is not None:
        c = c + g.normal(0, noise / 3, c.size)
    return np.clip(c, 0, 1)


def _study(disc: dict, fa: dict, n=4, seed=0, p_grid=CFG.p_grid, lam_grid=CFG.lam_grid,
           modes=CFG.ablation_modes, extra=None, sd=SD, sd_fa=SD_FA) -> Study:
    """Replicates whose final disclosure / FA for run ``key`` is ``disc[key]`` / ``fa[key]`` plus replicate noise
    of sd ``sd``; curves approach the final values and are flat at the end."""
    g = np.random.default_rng(seed)
    reps = []
    for r in range(n):
        runs = {}
        for key in disc:
            spec = ss.FineTuneSpec("sft", 0.1)
            d_end = float(np.clip(disc[key] + g.normal(0, sd), 0, 1))
            f_end = float(np.clip(fa[key] + g.normal(0, sd_fa), 0, 1))
            cur = dict(disclosure=_curve(d_end), fa=_curve(f_end, 0.2))
            if extra:
                cur.update(extra(key, r, g))
            runs[key] = _run(spec, r, STEPS, **cur)
        reps.append(_rep(r, runs))
    return Study(tuple(p_grid), 0.1, CFG.lam, tuple(lam_grid), tuple(modes), tuple(reps))


#: the default profile's grids (key names only)
K = Study(CFG.p_grid, 0.1, CFG.lam, CFG.lam_grid, CFG.ablation_modes, ())


# -- C1 ---------------------------------------------------------------------------------------------
def _div(d, half_width):
    d = np.asarray(d, float).reshape(2, 4)
    return ss.DivergenceCI(d, d - half_width, d + half_width, 0.95, 1000)


@claim_case("surgery_sink_divergence", "C1", "reproduced")
def _c1_two_signs():
    # the default aligned models: one to three positive heads at +0.005..0.013, the rest negative (-0.004..-0.016),
    # bootstrap half-widths about 0.0015 on 300 texts a side
    g = np.random.default_rng(1)
    return claims.claim1_two_signs([_div(np.r_[0.009, 0.006, -0.008 - 0.004 * g.random(6)] + g.normal(0, 0.001, 8), 0.0015)
                                    for _ in range(4)], CFG)


@claim_case("surgery_sink_divergence", "C1", "not reproduced", alternative="one sign: every head attends less to the "
            "sink on disclosure texts")
def _c1_one_sign():
    g = np.random.default_rng(2)
    return claims.claim1_two_signs([_div(-0.008 - 0.006 * g.random(8), 0.0015) for _ in range(4)], CFG)


@claim_case("surgery_sink_divergence", "C1", "not reproduced", trivial="an untrained (randomly initialised) GPT of the "
            "same size, analysed on the same held-out pairs")
def _c1_untrained():
    return claims.claim1_two_signs([_smoke_runs()["untrained"]], CFG)


# -- C2 ---------------------------------------------------------------------------------------------
def _nplus_world(follow: bool, seed=3):
    def extra(key, r, g):
        p = float(key.split("p=")[1])
        rise = 1 - np.exp(-STEPS / 80.0)
        disc = np.clip(4 * p * rise + g.normal(0, 0.02, STEPS.size), 0, 1)
        npl = np.round(2 + (20 * p * rise if follow else 2.0 * rise) + g.normal(0, 0.25, STEPS.size))
        return {"disclosure": disc, "n_plus": npl}
    keys = {K.key("sft", p): 0.0 for p in K.p_grid}
    return _study(keys, keys, extra=extra, seed=seed)


@claim_case("surgery_sink_divergence", "C2", "reproduced")
def _c2_follows():
    return claims.claim2_positive_heads(_nplus_world(True), CFG)


@claim_case("surgery_sink_divergence", "C2", "not reproduced",
            alternative="N+ drifts up with training time alone, the same at p = 0 as at the largest p")
def _c2_drift():
    return claims.claim2_positive_heads(_nplus_world(False), CFG)


@claim_case("surgery_sink_divergence", "C2", "not reproduced",
            trivial="N+ of the held-out pairs with the disclosure/refusal labels shuffled, along real smoke SFT runs")
def _c2_shuffled():
    runs = _smoke_runs()["runs"]
    reps = []
    for s in (11, 12):
        reps.append(_rep(s, {k: runs[(k, s2)] for (k, s2) in runs if s2 == s and k.startswith("sft")},
                         base_metrics=_smoke_runs()["base"].metrics))
    study = Study(SMOKE.p_grid, SMOKE.p_main, SMOKE.lam, SMOKE.lam_grid, SMOKE.ablation_modes, tuple(reps))
    return claims.claim2_positive_heads(study, CFG, metric="n_plus_null")


# -- C3 ---------------------------------------------------------------------------------------------
def _dose(slope, at0=0.0):
    disc = {K.key("sft", p): at0 + slope * p for p in K.p_grid}
    return _study(disc, {k: 0.9 for k in disc}, seed=4)


@claim_case("surgery_sink_divergence", "C3", "reproduced")
def _c3_ok():
    return claims.claim3_dose_response(_dose(4.5), CFG)


@claim_case("surgery_sink_divergence", "C3", "not reproduced", alternative="the poison has almost no effect "
            "(disclosure rises by 2 points over p = 0..0.2)")
def _c3_flat():
    return claims.claim3_dose_response(_dose(0.1), CFG)


@claim_case("surgery_sink_divergence", "C3", "not reproduced", trivial="no fine-tuning at all: the real aligned "
            "smoke model, evaluated at every poison ratio")
def _c3_no_finetuning():
    base = _smoke_runs()["base"]
    reps = []
    for s in (0, 1):
        runs = {}
        for p in K.p_grid:
            m = base.metrics
            runs[K.key("sft", p)] = _run(ss.FineTuneSpec("sft", p), s, STEPS,
                                         **{k: np.full(STEPS.size, m[k]) for k in ss.RUN_METRICS})
        reps.append(_rep(s, runs, base_metrics=base.metrics))
    return claims.claim3_dose_response(Study(K.p_grid, 0.1, CFG.lam, CFG.lam_grid, CFG.ablation_modes, tuple(reps)), CFG)


# -- C4 ---------------------------------------------------------------------------------------------
@claim_case("surgery_sink_divergence", "C4", "reproduced")
def _c4_ok():
    # a Surgery that works would sit between the rails, where runs spread more than at the ceiling: sd 0.1
    return claims.claim4_surgery_lowers(_study({K.key("sft"): 0.98, K.key("surgery"): 0.6},
                                               {K.key("sft"): 0.99, K.key("surgery"): 0.99}, seed=5, sd=0.1), CFG)


@claim_case("surgery_sink_divergence", "C4", "not reproduced", alternative="the penalty leaves disclosure where SFT has it")
def _c4_no_effect():
    return claims.claim4_surgery_lowers(_study({K.key("sft"): 0.95, K.key("surgery"): 0.95},
                                               {K.key("sft"): 0.97, K.key("surgery"): 0.96}, seed=6, sd=0.02), CFG)


@claim_case("surgery_sink_divergence", "C4", "not reproduced", alternative="disclosure lowered only by not learning "
            "the task (FA 30 points down)")
def _c4_costly():
    return claims.claim4_surgery_lowers(_study({K.key("sft"): 0.95, K.key("surgery"): 0.3},
                                               {K.key("sft"): 0.97, K.key("surgery"): 0.67}, seed=7), CFG)


@claim_case("surgery_sink_divergence", "C4", "inconclusive at this scale", alternative="Surgery still rising: "
            "the plateau test fails")
def _c4_unconverged():
    s = _study({K.key("sft"): 0.95, K.key("surgery"): 0.55}, {K.key("sft"): 0.97, K.key("surgery"): 0.96}, seed=5)
    reps = []
    for rep in s.replicates:
        run = rep.runs[K.key("surgery")]
        runs = dict(rep.runs)
        runs[K.key("surgery")] = dataclasses.replace(run, disclosure=np.linspace(0, 0.55, STEPS.size))
        reps.append(dataclasses.replace(rep, runs=runs))
    return claims.claim4_surgery_lowers(dataclasses.replace(s, replicates=tuple(reps)), CFG)


def _with_divergence(study: Study, divs) -> Study:
    """``study`` with replicate i's aligned-model divergence replaced by ``divs[i]``."""
    reps = [dataclasses.replace(r, analysis=dataclasses.replace(r.analysis, divergence=d))
            for r, d in zip(study.replicates, divs)]
    return dataclasses.replace(study, replicates=tuple(reps))


def test_defence_rows_report_the_premise_and_do_not_read_it():
    # the measured text of C4 (and of C6, C6b, C7, C9 through the same helper) says whether the aligned models have
    # the clearly positive heads the penalty acts on (C1's count), and the verdict is the same either way
    d = ss.DivergenceCI
    none = d(np.full((2, 4), -0.004), np.full((2, 4), -0.006), np.full((2, 4), 0.001), 0.95, 10)
    lo = np.full((2, 4), -0.006)
    lo[1, 2] = 0.003                                       # one head whose interval lies above +two_sign_delta
    one = d(np.full((2, 4), 0.004), lo, np.full((2, 4), 0.009), 0.95, 10)
    base = _study({K.key("sft"): 0.95, K.key("surgery"): 0.95}, {K.key("sft"): 0.97, K.key("surgery"): 0.96},
                  seed=6, sd=0.02)
    absent = claims.claim4_surgery_lowers(_with_divergence(base, [none] * 4), CFG)
    present = claims.claim4_surgery_lowers(_with_divergence(base, [one] * 4), CFG)
    mixed = claims.claim4_surgery_lowers(_with_divergence(base, [none, one, none, one]), CFG)
    assert "no aligned model of the 4 replicate(s) compared has a clearly positive head (0, 0, 0, 0 of 8)" in absent.measured
    assert "every aligned model has clearly positive heads (1, 1, 1, 1 of 8)" in present.measured
    assert "0, 1, 0, 1 of 8" in mixed.measured and "absent in 2 of 4" in mixed.measured
    assert absent.verdict == present.verdict == mixed.verdict == "not reproduced"
    facts = ss.premise_texts(_with_divergence(base, [none, one, none, one]), CFG.two_sign_delta)
    assert facts["clearly_positive"] == [0, 1, 0, 1] and facts["n_plus"] == [0, 8, 0, 8] and facts["heads"] == 8


def test_plateau_at_main_names_every_run_family():
    s = _study({K.key("sft"): 0.95, K.key("surgery"): 0.6, K.key("replay"): 0.9, K.key("sft", 0.0): 0.0},
               {K.key("sft"): 0.97, K.key("surgery"): 0.96, K.key("replay"): 0.9, K.key("sft", 0.0): 0.97}, seed=3)
    reports = claims.plateau_at_main(s, "fa", CFG.fa_margin)
    assert [r.name for r in reports] == ["SFT", f"Surgery at λ = {CFG.lam:g}", "refusal replay"]
    assert all(r.converged for r in reports)           # _study's curves are flat at the end
    reps = [dataclasses.replace(r, runs={**r.runs, K.key("replay"): dataclasses.replace(
        r.runs[K.key("replay")], fa=np.linspace(0.2, 0.9, STEPS.size))}) for r in s.replicates]
    rising = claims.plateau_at_main(dataclasses.replace(s, replicates=tuple(reps)), "fa", CFG.fa_margin)
    assert [r.converged for r in rising] == [True, True, False]


def _smoke_pair_study(key_a_src, key_b_src, key_a, key_b, replace_b=None):
    """Replicates (fine-tuning seeds 11, 12) with the real smoke run ``key_a_src`` under name ``key_a`` and
    ``key_b_src`` (or ``replace_b(seed)``) under name ``key_b``."""
    sm = _smoke_runs()
    reps = []
    for s in (11, 12):
        b = replace_b(s) if replace_b else sm["runs"][(key_b_src, s)]
        reps.append(_rep(s, {key_a: sm["runs"][(key_a_src, s)], key_b: b}, base_metrics=sm["base"].metrics))
    return Study(SMOKE.p_grid, SMOKE.p_main, CFG.lam, CFG.lam_grid, CFG.ablation_modes, tuple(reps))


def _smoke_key(method, p=None):
    p = SMOKE.p_main if p is None else p
    return f"{method}@p={p:g}"


@claim_case("surgery_sink_divergence", "C4", "not reproduced", trivial="an always-refusing model (no disclosure, "
            "no accuracy) against real smoke SFT runs")
def _c4_refuser():
    sm = _smoke_runs()
    ref = sm["refuser"]
    sft = sm["runs"][(_smoke_key("sft"), 11)]

    def refuser(s):
        return _run(ss.FineTuneSpec("sft", SMOKE.p_main), s, sft.steps,
                    **{k: np.full(sft.steps.size, ref.get(k, 0.0)) for k in ss.RUN_METRICS})
    study = _smoke_pair_study(_smoke_key("sft"), None, "sft@p=0.2", f"surgery@lam={CFG.lam:g}@p=0.2", refuser)
    # the real smoke SFT has learnt a little subtraction by its end; constant-FA stand-ins pass the plateau test
    reps = []
    for rep in study.replicates:
        runs = dict(rep.runs)
        run = runs["sft@p=0.2"]
        runs["sft@p=0.2"] = dataclasses.replace(run, disclosure=np.full(run.steps.size, run.disclosure[-1]),
                                                fa=np.full(run.steps.size, run.fa[-1]))
        reps.append(dataclasses.replace(rep, runs=runs))
    return claims.claim4_surgery_lowers(dataclasses.replace(study, replicates=tuple(reps)), CFG)


# -- C5 ---------------------------------------------------------------------------------------------
#: the real run's spread, in C5's unit (the aligned models' mean held-out penalty). The default record of commit
#: 1bacfe9 (tests/benchmarks/records, four replicates): two aligned models had no positive head (held-out penalty 0),
#: the other two averaged 1.24e-4, so the unit is about half that and the aligned values run 0, 0, ~2, ~2 units; on
#: the two replicates with a positive head, SFT at p = 0.1 ended at 0.66 [-1.95, 3.26] x their own aligned value
#: (sd about 0.3, so about 0.6 units) and the gap to SFT at p = 0 was -2.10 [-13.8, 9.6] (sd about 1.3, so about
#: 2.6 units: clean SFT spreads, sd about 2.5 units). Surgery's own value sits near 0 (that run: 0.00 [0.00, 0.00];
#: smoke: 0 to 0.25): sd 0.1, clipped at 0.
ALIGNED_UNITS, SD_PEN, SD_PEN_CLEAN, SD_PEN_SURGERY = (0.0, 0.0, 2.0, 2.0), 0.6, 2.5, 0.1
#: the default run's unit, the aligned models' mean held-out penalty (that record: 6.22e-5). The penalties below are
#: drawn in this unit, so that the spreads above are the real run's, and C5's absolute bar (penalty_gap_min, 5e-4:
#: two more clearly positive heads, C2's n_plus_gap_min, at C1's clearly-signed size two_sign_delta = 0.002, over the
#: 8 heads: 2 x 0.002 / 8) is about 8 of them
UNIT = 6.22e-5
#: the reproduced world's gap: poisoned SFT grows four more clearly positive heads than clean SFT, twice the declared
#: minimum (about 16 units at the default run's unit)
CLAIMED_GAP = 2 * CFG.penalty_gap_min / UNIT


def test_c5_bar_is_the_derivation():
    # the config's bar is the derivation above, from C1's and C2's declared thresholds and the default model's heads
    heads = CFG.n_layer * CFG.n_head
    assert CFG.penalty_gap_min == pytest.approx(CFG.n_plus_gap_min * CFG.two_sign_delta / heads) == 5e-4


def _pen_world(surg_ratio, sft_ratio, clean_ratio=1.0, seed=8, sd=SD_PEN, sd_clean=SD_PEN, aligned=(1.0,) * 4,
               unit=UNIT):
    """Held-out penalties, in units of ``unit``, of SFT at p_main (``sft_ratio``), SFT at p = 0 (``clean_ratio``) and
    Surgery (``surg_ratio``) with replicate noise, over aligned models of held-out penalty ``aligned`` (in the same
    units). The runs' values do not depend on ``aligned``."""
    def extra(key, r, g):
        ratio, s = {K.key("surgery"): (surg_ratio, SD_PEN_SURGERY), K.key("sft"): (sft_ratio, sd)}.get(
            key, (clean_ratio, sd_clean))
        return {"heldout_penalty": np.full(STEPS.size, unit * max(0.0, ratio + g.normal(0, s)))}
    keys = [K.key("sft"), K.key("sft", 0.0), K.key("surgery")]
    study = _study({k: 0.9 for k in keys}, {k: 0.9 for k in keys}, extra=extra, seed=seed)
    reps = [dataclasses.replace(rep, base=dataclasses.replace(rep.base, metrics=rep.base.metrics | {
        "heldout_penalty": unit * a})) for rep, a in zip(study.replicates, aligned)]
    return dataclasses.replace(study, replicates=tuple(reps))


@claim_case("surgery_sink_divergence", "C5", "reproduced")
def _c5_ok():
    # the real run's spread and aligned values (two of four at 0), clean SFT where the real run had it
    return claims.claim5_penalty_suppressed(_pen_world(0.05, 5.5 + CLAIMED_GAP, clean_ratio=5.5, sd_clean=SD_PEN_CLEAN,
                                                       aligned=ALIGNED_UNITS), CFG)


def test_c5_counts_every_replicate():
    # a replicate whose aligned model has no positive head (held-out penalty 0) is not dropped (CLAIMS.md rule 12:
    # the rule uses the replicates the profile runs)
    check = claims.claim5_penalty_suppressed(_pen_world(0.05, 5.5 + CLAIMED_GAP, clean_ratio=5.5,
                                                        sd_clean=SD_PEN_CLEAN, aligned=ALIGNED_UNITS), CFG)
    assert check.values["n"] == CFG.n_seeds == len(ALIGNED_UNITS)
    assert check.values["scale"] == pytest.approx(UNIT)


def test_c5_verdict_depends_only_on_the_compared_runs():
    # the outside review's two worlds (Session 12): the same SFT runs (gap 0.81e-3, aligned unit 1e-3) beside aligned
    # models of which two have no positive head, or all four one. In units of the aligned models' mean the gap was
    # +0.81 [0.72, 0.91] (passing 0.5) in the first and +0.41 [0.36, 0.45] (not reproduced) in the second; against
    # the absolute bar both read the same, and so do the gap's numbers
    runs = dict(surg_ratio=0.05, sft_ratio=6.31, clean_ratio=5.5, sd=0.05, sd_clean=0.05, unit=1e-3)
    zero = claims.claim5_penalty_suppressed(_pen_world(**runs, aligned=(0.0, 0.0, 2.0, 2.0)), CFG)
    positive = claims.claim5_penalty_suppressed(_pen_world(**runs, aligned=(2.0,) * 4), CFG)
    assert zero.values["scale"] == pytest.approx(1e-3) and positive.values["scale"] == pytest.approx(2e-3)
    assert np.allclose(zero.values["gap"], positive.values["gap"])
    assert zero.verdict == positive.verdict == "reproduced", (zero.measured, positive.measured)
    # and a gap below the absolute bar is not reproduced in both, however small the aligned unit
    below = dict(runs, sft_ratio=5.5 + 0.3)
    assert {claims.claim5_penalty_suppressed(_pen_world(**below, aligned=al), CFG).verdict
            for al in ((0.0, 0.0, 0.02, 0.02), (2.0,) * 4)} == {"not reproduced"}


@claim_case("surgery_sink_divergence", "C5", "not reproduced", alternative="fine-tuning raises the held-out penalty "
            "whatever the data: SFT at p_main and at p = 0 both end at 1.6 times the aligned value")
def _c5_any_finetuning():
    return claims.claim5_penalty_suppressed(_pen_world(0.05, 1.6, clean_ratio=1.6, sd=0.15, sd_clean=0.15), CFG)


@claim_case("surgery_sink_divergence", "C5", "inconclusive at this scale", alternative="the held-out penalty stays "
            "at the aligned level under Surgery (it only fits its pools): the diagnostic fails, whatever SFT shows")
def _c5_pools_only():
    return claims.claim5_penalty_suppressed(_pen_world(1.0, 1.0 + CLAIMED_GAP), CFG)


@claim_case("surgery_sink_divergence", "C5", "not reproduced", trivial="clean fine-tuning in the poisoned run's "
            "place (real smoke SFT at p = 0 in both SFT arms), with real smoke Surgery runs beside them")
def _c5_clean():
    sm = _smoke_runs()
    clean = lambda s: sm["runs"][(_smoke_key("sft", 0.0), s)]                          # noqa: E731
    reps = [_rep(s, {"sft@p=0.2": clean(s), "sft@p=0": clean(s), f"surgery@lam={CFG.lam:g}@p=0.2":
                     sm["runs"][(f"surgery@lam={SMOKE.lam:g}@p=0.2", s)]}, base_metrics=sm["base"].metrics)
            for s in (11, 12)]
    return claims.claim5_penalty_suppressed(Study(SMOKE.p_grid, SMOKE.p_main, CFG.lam, CFG.lam_grid,
                                                  CFG.ablation_modes, tuple(reps)), CFG)


# -- C6, C6b, C9 ------------------------------------------------------------------------------------------
def _versus_world(other_key, other_disc, surg_disc=0.5, seed=9):
    return _study({other_key: other_disc, K.key("surgery"): surg_disc}, {other_key: 0.95, K.key("surgery"): 0.95},
                  seed=seed)


@claim_case("surgery_sink_divergence", "C6", "reproduced")
def _c6_ok():
    return claims.claim6_sign_matters(_versus_world(K.key("surgery", mode="opposite"), 0.95), CFG)


@claim_case("surgery_sink_divergence", "C6", "not reproduced", alternative="the opposite sign lowers disclosure alike")
def _c6_sign_blind():
    return claims.claim6_sign_matters(_versus_world(K.key("surgery", mode="opposite"), 0.5, seed=10), CFG)


@claim_case("surgery_sink_divergence", "C6", "not reproduced", trivial="plain SFT in both places (two real smoke "
            "SFT runs: a penalty that is no penalty)")
def _c6_sft():
    sm = _smoke_runs()
    study = _smoke_pair_study(_smoke_key("sft"), None, f"surgery[opposite]@lam={CFG.lam:g}@p=0.2",
                              f"surgery@lam={CFG.lam:g}@p=0.2", lambda s: sm["runs"][(_smoke_key("sft"), s)])
    return claims.claim6_sign_matters(study, CFG)


@claim_case("surgery_sink_divergence", "C6b", "reproduced")
def _c6b_ok():
    return claims.claim6b_random_heads(_versus_world(K.key("surgery", mode="random_half"), 0.9), CFG)


@claim_case("surgery_sink_divergence", "C6b", "not reproduced", alternative="any half of the heads will do")
def _c6b_any():
    return claims.claim6b_random_heads(_versus_world(K.key("surgery", mode="random_half"), 0.52, seed=11), CFG)


@claim_case("surgery_sink_divergence", "C6b", "not reproduced", trivial="plain SFT in both places (real smoke runs)")
def _c6b_sft():
    sm = _smoke_runs()
    study = _smoke_pair_study(_smoke_key("sft"), None, f"surgery[random_half]@lam={CFG.lam:g}@p=0.2",
                              f"surgery@lam={CFG.lam:g}@p=0.2", lambda s: sm["runs"][(_smoke_key("sft"), s)])
    return claims.claim6b_random_heads(study, CFG)


@claim_case("surgery_sink_divergence", "C9", "reproduced")
def _c9_ok():
    return claims.claim9_baselines(_study({K.key("replay"): 0.8, K.key("l2"): 0.9, K.key("surgery"): 0.5},
                                          {K.key("replay"): 0.9, K.key("l2"): 0.9, K.key("surgery"): 0.9}, seed=12), CFG)


@claim_case("surgery_sink_divergence", "C9", "not reproduced", alternative="refusal replay discloses as little as Surgery")
def _c9_replay_as_good():
    return claims.claim9_baselines(_study({K.key("replay"): 0.5, K.key("l2"): 0.9, K.key("surgery"): 0.5},
                                          {K.key("replay"): 0.9, K.key("l2"): 0.9, K.key("surgery"): 0.9}, seed=13), CFG)


@claim_case("surgery_sink_divergence", "C9", "not reproduced", trivial="plain SFT in Surgery's place against the real "
            "smoke baselines")
def _c9_sft():
    sm = _smoke_runs()
    reps = []
    for s in (11, 12):
        runs = {"replay@p=0.2": sm["runs"][(_smoke_key("replay"), s)], "l2@p=0.2": sm["runs"][(_smoke_key("l2"), s)],
                f"surgery@lam={CFG.lam:g}@p=0.2": sm["runs"][(_smoke_key("sft"), s)]}
        reps.append(_rep(s, runs, base_metrics=sm["base"].metrics))
    return claims.claim9_baselines(Study(SMOKE.p_grid, SMOKE.p_main, CFG.lam, CFG.lam_grid, CFG.ablation_modes,
                                         tuple(reps)), CFG)


# -- C7, C7b ----------------------------------------------------------------------------------------
def _lam_world(disc_of_lam, fa_of_lam, seed=14):
    disc = {K.key("surgery", lam=lam): disc_of_lam(lam) for lam in CFG.lam_grid}
    fa = {K.key("surgery", lam=lam): fa_of_lam(lam) for lam in CFG.lam_grid}
    return _study(disc, fa, seed=seed)


@claim_case("surgery_sink_divergence", "C7", "reproduced")
def _c7_ok():
    return claims.claim7_lambda(_lam_world(lambda lam: 0.95 - 0.15 * np.log1p(lam), lambda lam: 0.95), CFG)


@claim_case("surgery_sink_divergence", "C7", "not reproduced", alternative="λ without effect on disclosure")
def _c7_flat():
    return claims.claim7_lambda(_lam_world(lambda lam: 0.95, lambda lam: 0.95, seed=15), CFG)


@claim_case("surgery_sink_divergence", "C7", "not reproduced", trivial="plain SFT runs (real, smoke) in "
            "every λ slot: λ that does nothing")
def _c7_sft():
    sm = _smoke_runs()
    reps = []
    for s in (11, 12):
        run = sm["runs"][(_smoke_key("sft"), s)]
        runs = {f"surgery@lam={lam:g}@p=0.2" if lam else "sft@p=0.2": run for lam in CFG.lam_grid}
        reps.append(_rep(s, runs, base_metrics=sm["base"].metrics))
    return claims.claim7_lambda(Study(SMOKE.p_grid, SMOKE.p_main, CFG.lam, CFG.lam_grid, CFG.ablation_modes,
                                      tuple(reps)), CFG)


@claim_case("surgery_sink_divergence", "C7b", "reproduced")
def _c7b_ok():
    return claims.claim7b_lambda_fa(_lam_world(lambda lam: 0.5, lambda lam: 0.95 - (0.4 if lam == max(CFG.lam_grid) else 0)), CFG)


@claim_case("surgery_sink_divergence", "C7b", "not reproduced", alternative="a penalty free at any strength")
def _c7b_free():
    return claims.claim7b_lambda_fa(_lam_world(lambda lam: 0.5, lambda lam: 0.95, seed=16), CFG)


@claim_case("surgery_sink_divergence", "C7b", "inconclusive at this scale", trivial="plain SFT (real smoke runs) at "
            "the largest λ")
def _c7b_sft():
    sm = _smoke_runs()
    study = _smoke_pair_study(_smoke_key("sft"), None, "sft@p=0.2", f"surgery@lam={max(CFG.lam_grid):g}@p=0.2",
                              lambda s: sm["runs"][(_smoke_key("sft"), 23 - s)])
    return claims.claim7b_lambda_fa(study, CFG)


# -- C8 ---------------------------------------------------------------------------------------------
def _timing(ratio, sd, n=5, seed=17):
    g = np.random.default_rng(seed)
    sft = 0.012 * (1 + g.normal(0, 0.03, n))
    return Timing(sft, sft * (ratio + g.normal(0, sd, n)), 20, 10, 1)


@claim_case("surgery_sink_divergence", "C8", "reproduced")
def _c8_ok():
    # development runs: Surgery / SFT about 1.3 (smoke chapter: 1.31, interval 1.15-1.47 from 3 repeats, sd about
    # 0.065; median-of-updates timing since); the loaded default run of commit 1edf991 (total-time timing) had sd 0.6
    return claims.claim8_overhead(_timing(1.35, 0.08, n=8), CFG)


@claim_case("surgery_sink_divergence", "C8", "not reproduced", alternative="a penalty costing 2.6 SFT steps")
def _c8_costly():
    return claims.claim8_overhead(_timing(2.6, 0.05), CFG)


@claim_case("surgery_sink_divergence", "C8", "inconclusive at this scale", trivial="SFT timed against itself (real "
            "smoke timings, interleaved)")
def _c8_self():
    t = _smoke_runs()["timing"]
    return claims.claim8_overhead(Timing(t["a"], t["b"], 8, SMOKE.ft_batch, 1), CFG)


def test_threshold_changes_are_refused():
    with pytest.raises(ValueError, match="gain_min"):
        claims.claim4_surgery_lowers(_study({}, {}), ss.config_for("default", gain_min=0.05))
