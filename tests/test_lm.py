"""Tests of icmlbook.lm: tokeniser round trips, explicit attention == SDPA, KV-cache decoding == recomputation,
hook wiring, extra embedding rows, decoding, the mixture's exact accounting, corpora, the HF adapter."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

from icmlbook import lm
from icmlbook.runtime import cpu_threads
from icmlbook.training import LossLogger, Trainer, TrainerConfig

TEXT = "def f(x):\n    return x ** 2  # é ü 😀 — tabs\tand <eos> inside\n"


# -- tokenisers ---------------------------------------------------------------------------------------------
def test_byte_tokenizer_round_trip_special_and_added_tokens():
    tok = lm.ByteTokenizer()
    assert tok.vocab_size == 259 and tok.special == {"bos": 256, "eos": 257, "pad": 258}
    ids = tok.encode(TEXT)
    assert tok.decode(ids) == TEXT and ids.count(257) == 1          # "<eos>" in the text is one token
    new = tok.add_tokens(["<SKILL_A>", "<SKILL_AB>"])
    assert new == [259, 260] and tok.vocab_size == 261
    assert tok.encode("x<SKILL_AB>y") == [ord("x"), 260, ord("y")]  # longest match first
    assert tok.decode(tok.encode("<SKILL_A><SKILL_AB>")) == "<SKILL_A><SKILL_AB>"
    with pytest.raises(ValueError, match="outside the vocabulary"):
        tok.decode([5, 261])
    with pytest.raises(ValueError, match="already in the vocabulary"):
        tok.add_tokens(["<eos>"])


def test_char_tokenizer_round_trip_and_unknowns():
    tok = lm.CharTokenizer.from_text("abc +=0123456789")
    s = "12+3=15"
    assert tok.decode(tok.encode(s)) == s and len(tok.encode(s)) == len(s)
    with pytest.raises(ValueError, match="not in the alphabet"):
        tok.encode("z")
    unk = lm.CharTokenizer("ab", special=("<unk>", "<eos>"))
    assert unk.encode("azb") == [0, unk.special["unk"], 1]
    (op,) = tok.add_tokens(["<ADD>"])
    assert tok.encode("<ADD>12") == [op, tok.token_to_id("1"), tok.token_to_id("2")]


def test_bpe_tokenizer_trains_offline_round_trips_and_is_deterministic():
    corpus = lm.stdlib_corpus(modules=("json", "textwrap"))
    texts = corpus.text.split("\n# ---- file:")
    a = lm.BPETokenizer(texts, vocab_size=400)
    b = lm.BPETokenizer(texts, vocab_size=400)
    assert a.to_json() == b.to_json()
    assert 257 < a.vocab_size <= 403
    sample = corpus.text[:3000] + TEXT
    ids = a.encode(sample)
    assert a.decode(ids) == sample
    assert len(ids) < 0.75 * len(sample.encode())                   # 144 merges already compress code
    (new,) = a.add_tokens(["<NEW>"])
    assert a.encode("<NEW>") == [new] and a.decode([new]) == "<NEW>"
    with pytest.raises(ValueError, match="vocab_size"):
        lm.BPETokenizer(texts, vocab_size=100)


# -- the model ----------------------------------------------------------------------------------------------
CONFIGS = [
    dict(norm="rms", positions="rope", mlp="swiglu", qk_norm=True, tie_embeddings=False),
    dict(norm="layer", positions="learned", mlp="gelu", qk_norm=False, tie_embeddings=True),
    dict(norm="rms", positions="learned", mlp="swiglu", qk_norm=False, tie_embeddings=False),
]


def make_gpt(seed=0, **kw):
    torch.manual_seed(seed)
    cfg = lm.GPTConfig(**{"vocab_size": 40, "n_layer": 2, "d_model": 32, "d_head": 8, "max_len": 32, **kw})
    return lm.GPT(cfg).double()


@pytest.mark.parametrize("kw", CONFIGS)
def test_explicit_attention_equals_sdpa_with_gradients(kw):
    model = make_gpt(**kw)
    x = torch.randint(0, 40, (3, 12), generator=torch.Generator().manual_seed(1))
    fused = model(x)
    g1 = torch.autograd.grad(fused.pow(2).mean(), list(model.parameters()))
    explicit, probs = model(x, attn="explicit", return_attn=True)
    g2 = torch.autograd.grad(explicit.pow(2).mean(), list(model.parameters()))
    torch.testing.assert_close(explicit, fused, rtol=1e-10, atol=1e-12)
    for a, b in zip(g1, g2):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-12)
    assert len(probs) == 2 and probs[0].shape == (3, model.cfg.n_head, 12, 12)
    torch.testing.assert_close(probs[1].sum(-1), torch.ones(3, model.cfg.n_head, 12, dtype=torch.float64))
    assert torch.all(probs[0].triu(diagonal=1) == 0)                # causal
    assert probs[0].requires_grad


@pytest.mark.parametrize("kw", CONFIGS[:2])
def test_kv_cache_equals_full_recomputation(kw):
    model = make_gpt(**kw).eval()
    x = torch.randint(0, 40, (2, 14), generator=torch.Generator().manual_seed(2))
    full = model(x)
    cache = lm.KVCache(model.cfg.n_layer)
    parts = [model(x[:, :5], cache=cache), model(x[:, 5:9], cache=cache)]          # prefill, then a chunk
    parts += [model(x[:, t:t + 1], cache=cache) for t in range(9, 14)]              # then one token at a time
    torch.testing.assert_close(torch.cat(parts, 1), full, rtol=1e-10, atol=1e-12)
    assert cache.length == 14
    with_cache = lm.generate(model, x[:, :4], 10)
    without = lm.generate(model, x[:, :4], 10, use_cache=False)
    assert torch.equal(with_cache, without)


@pytest.mark.parametrize("kw", CONFIGS)
def test_tree_attention_equals_decoding_each_branch(kw):
    """``positions`` and ``attn_mask``: a prefix followed by three candidate next tokens side by side (all at the
    prefix's length, each seeing the prefix and itself) gives, at each candidate, what the full recomputation of
    prefix + that candidate gives at its last position; the default mask and positions are the causal ones."""
    model = make_gpt(**kw).eval()
    x = torch.randint(0, 40, (2, 6), generator=torch.Generator().manual_seed(3))
    cands = torch.tensor([4, 17, 33])
    row = torch.cat([x, cands.expand(2, -1)], 1)
    pos = torch.tensor([0, 1, 2, 3, 4, 5, 6, 6, 6])
    mask = torch.ones(9, 9, dtype=torch.bool).tril()
    mask[6:, 6:] = torch.eye(3, dtype=torch.bool)
    for attn in ("sdpa", "explicit"):
        tree = model(row, positions=pos, attn_mask=mask, attn=attn)
        torch.testing.assert_close(tree[:, :6], model(x), rtol=1e-10, atol=1e-12)
        for j, c in enumerate(cands):
            branch = model(torch.cat([x, c.expand(2, 1)], 1))[:, -1]
            torch.testing.assert_close(tree[:, 6 + j], branch, rtol=1e-9, atol=1e-11)
    torch.testing.assert_close(model(x, positions=torch.arange(6), attn_mask=torch.ones(6, 6, dtype=torch.bool).tril()),
                               model(x), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="without a KV cache"):
        model(x, cache=lm.KVCache(model.cfg.n_layer), positions=torch.arange(6))
    with pytest.raises(ValueError, match="attn_mask must be"):
        model(x, attn_mask=torch.ones(5, 5, dtype=torch.bool))


@pytest.mark.parametrize("kw", CONFIGS + [dict(positions="sinusoidal")])
def test_out_positions_give_those_positions_of_the_full_forward(kw):
    """``out_positions``: the logits at the kept positions equal those of the full forward (causal, and with tree
    attention's positions and mask), for both attention paths; bad indices and a cache are refused."""
    model = make_gpt(**kw).eval()
    x = torch.randint(0, 40, (2, 9), generator=torch.Generator().manual_seed(4))
    keep = torch.tensor([0, 5, 6, 7, 8])
    pos = torch.tensor([0, 1, 2, 3, 4, 5, 6, 6, 6])
    mask = torch.ones(9, 9, dtype=torch.bool).tril()
    mask[6:, 6:] = torch.eye(3, dtype=torch.bool)
    for attn in ("sdpa", "explicit"):
        torch.testing.assert_close(model(x, attn=attn, out_positions=keep), model(x, attn=attn)[:, keep],
                                   rtol=1e-6, atol=1e-6)
        torch.testing.assert_close(model(x, positions=pos, attn_mask=mask, attn=attn, out_positions=keep),
                                   model(x, positions=pos, attn_mask=mask, attn=attn)[:, keep], rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="out_positions"):
        model(x, out_positions=torch.tensor([9]))
    with pytest.raises(ValueError, match="out_positions"):
        model(x[:, :3], cache=lm.KVCache(model.cfg.n_layer), out_positions=torch.tensor([0]))


@pytest.mark.parametrize("kw", CONFIGS + [dict(positions="sinusoidal")])
def test_preallocated_cache_gives_the_concatenated_cache_bitwise(kw):
    """A cache with ``capacity`` (buffers written in place) gives the very numbers of the growing one, for both
    attention paths, prefill then a chunk then single tokens; it refuses to overflow."""
    model = make_gpt(**kw).eval()
    x = torch.randint(0, 40, (3, 16), generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        for attn in ("sdpa", "explicit"):
            grow, pre = lm.KVCache(2), lm.KVCache(2, capacity=16)
            feeds = [x[:, :6], x[:, 6:9]] + [x[:, t:t + 1] for t in range(9, 16)]
            a = [model(f, cache=grow, attn=attn) for f in feeds]
            b = [model(f, cache=pre, attn=attn) for f in feeds]
            assert all(torch.equal(u, w) for u, w in zip(a, b))
            assert pre.length == grow.length == 16 and pre.k[1].shape == grow.k[1].shape
        with pytest.raises(ValueError, match="capacity"):
            model(x[:, :1], cache=pre)


def _greedy_by_recomputation(model, prompt: torch.Tensor, n: int, zeroed=(), stop=None, pad=0) -> list[int]:
    """Greedy continuation of one prompt (T,) by the full forward pass over the whole sequence at every step."""
    seq, out = prompt[None], []
    for _ in range(n):
        with torch.no_grad():
            logits = model(seq)[0, -1].clone()
        logits[list(zeroed)] = 0.0
        tok = int(logits.argmax())
        out.append(pad if (out and stop is not None and stop in out) else tok)
        seq = torch.cat([seq, torch.tensor([[tok]])], 1)
    return out


@pytest.mark.parametrize("kw", CONFIGS + [dict(positions="sinusoidal")])
def test_prompts_of_different_lengths_decode_together_as_each_alone(kw):
    """``prompt_lens``: right-padded prompts of different lengths decoded in one batch (each row at its own
    positions in one preallocated cache) give token for token the greedy continuation that the full forward pass
    over each row's own sequence gives, also with new embedding rows in the prompts (skill tokens, logits
    zeroed) and a stop token; the grouped path without a cache gives the same."""
    model = make_gpt(**kw).eval()
    new = model.add_embedding_rows(3, init=torch.randn(3, 32, dtype=torch.float64,
                                                         generator=torch.Generator().manual_seed(7)))
    g = torch.Generator().manual_seed(6)
    lens = torch.tensor([5, 2, 9, 5, 1, 7])
    prompts = torch.randint(0, 40, (6, 9), generator=g)
    prompts[0, 1], prompts[2, 3:5], prompts[5, 0] = new[0], torch.tensor(new[1:]), new[2]   # skill tokens inside
    for i, n in enumerate(lens.tolist()):
        prompts[i, n:] = 39                                                       # padding, never read
    out = lm.generate(model, prompts, 8, zeroed=new, prompt_lens=lens)
    for i, n in enumerate(lens.tolist()):
        assert out[i].tolist() == _greedy_by_recomputation(model, prompts[i, :n], 8, zeroed=new)
    assert torch.equal(lm.generate(model, prompts, 8, zeroed=new, prompt_lens=lens, use_cache=False), out)
    stop = int(out[2, 2])
    stopped = lm.generate(model, prompts, 8, zeroed=new, prompt_lens=lens, stop=[stop], pad_id=38)
    for i, n in enumerate(lens.tolist()):
        assert stopped[i].tolist() == _greedy_by_recomputation(model, prompts[i, :n], 8, zeroed=new, stop=stop,
                                                               pad=38)
    changed = prompts.clone()
    changed[1, 2:] = 0                                                            # other padding: same output
    assert torch.equal(lm.generate(model, changed, 8, zeroed=new, prompt_lens=lens), out)
    budgets = torch.tensor([8, 0, 3, 8, 5, 1])           # per-row budgets: a prefix of each row, pad after
    cut = lm.generate(model, prompts, 8, zeroed=new, prompt_lens=lens, max_new_per_row=budgets, pad_id=38)
    for i, n in enumerate(budgets.tolist()):
        assert cut[i].tolist() == out[i, :n].tolist() + [38] * (8 - n)
    assert torch.equal(lm.generate(model, prompts, 8, zeroed=new, prompt_lens=lens, max_new_per_row=budgets,
                                   pad_id=38, use_cache=False), cut)
    same_len = lm.generate(model, prompts[:, :5], 8, zeroed=new, max_new_per_row=budgets, pad_id=38)
    assert torch.equal(same_len, lm.generate(model, prompts[:, :5], 8, zeroed=new, pad_id=38).masked_fill(
        torch.arange(8)[None, :] >= budgets[:, None], 38))
    with pytest.raises(ValueError, match="max_new_per_row"):
        lm.generate(model, prompts, 4, max_new_per_row=[5] * 6)
    with pytest.raises(ValueError, match="prompt_lens"):
        lm.generate(model, prompts, 4, prompt_lens=[3, 2])
    with pytest.raises(ValueError, match="prompt_lens"):
        lm.generate(model, prompts, 4, prompt_lens=[0, 2, 9, 5, 1, 7])


def test_sinusoidal_positions_and_extra_embeddings():
    """The fixed table of Vaswani et al. (2017) by its formula; ``extra`` adds to the token embeddings (with and
    without a cache); the default path is unchanged by the new argument."""
    tab = lm.sinusoidal_table(10, 6)
    t, i = 7, 2
    assert math.isclose(float(tab[t, 2 * i]), math.sin(t / 10000 ** (2 * i / 6)), rel_tol=1e-6)
    assert math.isclose(float(tab[t, 2 * i + 1]), math.cos(t / 10000 ** (2 * i / 6)), rel_tol=1e-6)
    torch.manual_seed(0)
    model = lm.GPT(lm.GPTConfig(vocab_size=30, n_layer=2, d_model=16, n_head=2, max_len=12,
                                positions="sinusoidal")).double().eval()
    x = torch.randint(0, 30, (3, 12), generator=torch.Generator().manual_seed(1))
    extra = torch.randn(12, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        by_hand = model.tok(x) + model.sin_pos[:12] + extra              # the input the blocks must see
        seen = []
        h = model.blocks[0].resid_pre.register_forward_hook(lambda m, i, o: seen.append(o))
        full = model(x, extra=extra)
        h.remove()
        torch.testing.assert_close(seen[0], by_hand)
        cache = lm.KVCache(2)
        parts = [model(x[:, :5], cache=cache, extra=extra[:5])]
        parts += [model(x[:, t:t + 1], cache=cache, extra=extra[t:t + 1]) for t in range(5, 12)]
        torch.testing.assert_close(torch.cat(parts, 1), full, rtol=1e-10, atol=1e-12)
        assert not torch.allclose(model(x), full)
        torch.testing.assert_close(model(x, extra=torch.zeros(12, 16, dtype=torch.float64)), model(x))
    with pytest.raises(ValueError, match="extra must be"):
        model(x, extra=torch.zeros(11, 16, dtype=torch.float64))
    with pytest.raises(ValueError, match="positions='absolute'"):
        lm.GPTConfig(vocab_size=5, positions="absolute")


def test_greedy_and_sampled_decoding():
    model = make_gpt(**CONFIGS[0]).eval()
    prompt = torch.randint(0, 40, (3, 4), generator=torch.Generator().manual_seed(3))
    greedy = lm.generate(model, prompt, 6)
    seq = prompt.clone()
    for _ in range(6):                                             # the greedy rule, by hand
        seq = torch.cat([seq, model(seq)[:, -1].argmax(-1, keepdim=True)], 1)
    assert torch.equal(greedy, seq[:, 4:])
    s1 = lm.generate(model, prompt, 8, temperature=1.0, generator=torch.Generator().manual_seed(0), banned=[5, 7])
    s2 = lm.generate(model, prompt, 8, temperature=1.0, generator=torch.Generator().manual_seed(0), banned=[5, 7])
    assert torch.equal(s1, s2) and not torch.isin(s1, torch.tensor([5, 7])).any()
    top1 = lm.generate(model, prompt, 6, temperature=0.7, top_k=1, generator=torch.Generator().manual_seed(1))
    assert torch.equal(top1, greedy)
    stop = int(greedy[0, 1])
    stopped = lm.generate(model, prompt, 6, stop=[stop], pad_id=39)
    row = stopped[0].tolist()
    assert row[1] == stop and all(t == 39 for t in row[2:])


def test_zeroed_logits_decoding_matches_the_rule_by_hand():
    """``zeroed`` ids decode as if their logit were 0 (a tied head with those unembedding rows set to zero)."""
    model = make_gpt(**CONFIGS[0]).eval()
    prompt = torch.randint(0, 40, (3, 4), generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        first = model(prompt)[:, -1]
    lift = [int(i) for i in first.argmax(-1)]                     # the ids greedy would pick first
    out = lm.generate(model, prompt, 5, zeroed=lift)
    seq = prompt.clone()
    for _ in range(5):
        with torch.no_grad():
            logits = model(seq)[:, -1].clone()
        logits[:, lift] = 0.0
        seq = torch.cat([seq, logits.argmax(-1, keepdim=True)], 1)
    assert torch.equal(out, seq[:, 4:])
    assert torch.equal(lm.generate(model, prompt, 5, zeroed=lift, use_cache=False), out)


def test_hook_sites_read_and_add():
    model = make_gpt(**CONFIGS[2])
    x = torch.randint(0, 40, (2, 7), generator=torch.Generator().manual_seed(4))
    names = model.hook_names()
    assert len(names) == 8 and names[0] == "blocks.0.resid_pre"
    with model.hooked(read=names) as cache:
        logits = model(x)
    for i in range(2):
        c = lambda k: cache[f"blocks.{i}.{k}"]
        torch.testing.assert_close(c("resid_post"), c("resid_pre") + c("attn_out") + c("mlp_out"))
    torch.testing.assert_close(cache["blocks.0.resid_post"], cache["blocks.1.resid_pre"])
    torch.testing.assert_close(model(x), logits)                      # the hooks are gone
    # adding v to block 0's input is adding v to every row of the learned position table
    v = torch.randn(32, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    with model.hooked(add={"blocks.0.resid_pre": v}, read=["blocks.0.resid_pre"]) as cache:
        steered = model(x)
    with torch.no_grad():
        model.pos += v
    torch.testing.assert_close(steered, model(x))
    with model.hooked(add={"blocks.1.mlp_out": lambda a: 0 * a}):
        model(x)
    with pytest.raises(ValueError, match="unknown hook sites"):
        with model.hooked(read=["blocks.2.resid_pre"]):
            pass


def test_extra_embedding_rows_train_beside_a_frozen_table():
    for tied in (False, True):
        model = make_gpt(tie_embeddings=tied)
        x = torch.randint(0, 40, (2, 6), generator=torch.Generator().manual_seed(6))
        before = model(x).detach()
        new = model.add_embedding_rows(2)
        assert new == [40, 41] and model.vocab_size == 42
        after = model(x)
        assert after.shape[-1] == 42
        torch.testing.assert_close(after[..., :40], before)            # old tokens: the same model
        y = torch.tensor([[40, 3, 41, 4, 5, 40]])
        lm.lm_loss(model(y), torch.tensor([[3, 41, 4, 5, 40, 1]])).backward()
        assert model.tok.weight.grad is None and model.tok.extra.grad.abs().sum() > 0
        if not tied:
            assert model.head.weight.grad is None and model.head_extra.grad.abs().sum() > 0
        with pytest.raises(ValueError, match="outside the vocabulary"):
            model(torch.tensor([[42]]))


def test_bad_configs_and_ids_are_refused():
    with pytest.raises(ValueError, match="not divisible by the head dimension"):
        lm.GPTConfig(vocab_size=10, d_model=48, d_head=32)
    with pytest.raises(ValueError, match="norm"):
        lm.GPTConfig(vocab_size=10, norm="batch")
    model = make_gpt()
    with pytest.raises(ValueError, match="outside the vocabulary"):
        model(torch.tensor([[0, 40]]))
    with pytest.raises(ValueError, match="max_len"):
        model(torch.zeros(1, 33, dtype=torch.long))
    with pytest.raises(ValueError, match="attn"):
        model(torch.zeros(1, 3, dtype=torch.long), attn="flash")
    cfg = lm.GPTConfig(vocab_size=10, d_model=96, d_head=32)
    assert cfg.n_head == 3 and cfg.d_ff == 256


# -- data ---------------------------------------------------------------------------------------------------
def test_mixture_sampler_meets_step_dependent_weights_exactly():
    streams = {"code": torch.arange(1000), "math": torch.arange(1000, 1500), "chat": torch.arange(2000, 2300)}

    def weights(step):
        return {"code": 1.0 + np.sin(step), "math": 0.3 if step < 20 else 2.0, "chat": 0.1 * (step % 3)}

    s = lm.MixtureSampler(streams, weights, batch_size=7, seq_len=5, seed=0)
    target = np.zeros(3)
    for step in range(60):
        x, y = s(step)
        assert x.shape == y.shape == (7, 5) and torch.equal(x[:, 1:], y[:, :-1])
        w = np.array([weights(step)[k] for k in s.names])
        target += 7 * w / w.sum()
        assert np.all(np.abs(s.rows - target) < 1.0 + 1e-9)       # every stream within one row of its target
        for row, src in zip(x, s.last_sources):                      # rows come from their stream
            lo = {"code": 0, "math": 1000, "chat": 2000}[src]
            assert lo <= int(row.min()) and int(row.max()) < lo + len(streams[src])
    assert sum(s.tokens_seen.values()) == 60 * 7 * 5
    assert s.tokens_seen == {k: int(r) * 5 for k, r in zip(s.names, s.rows)}
    # resuming from its state gives the same batches
    state = s.state_dict()
    a = [s(t)[0] for t in range(60, 63)]
    s2 = lm.MixtureSampler(streams, weights, batch_size=7, seq_len=5, seed=99)
    s2.load_state_dict(state)
    assert all(torch.equal(p, q) for p, q in zip(a, [s2(t)[0] for t in range(60, 63)]))
    with pytest.raises(ValueError, match="do not exist"):
        lm.MixtureSampler(streams, lm.constant_weights({"prose": 1.0}), 4, 5)(0)
    switch = lm.MixtureSampler(streams, lm.switch_weights({"code": 1.0}, {"math": 1.0}, at=2), 4, 5)
    assert [set(switch(t) and switch.last_sources) for t in range(4)] == [{"code"}, {"code"}, {"math"}, {"math"}]


def test_stdlib_corpus_is_pinned_and_hashed():
    c = lm.stdlib_corpus(modules=("json", "email", "textwrap"))
    assert c.files[0].startswith("email/") and "textwrap.py" in c.files
    assert not any(part in ("test", "tests") for f in c.files for part in f.split("/"))
    import hashlib

    assert c.sha256 == hashlib.sha256(c.text.encode()).hexdigest()
    assert lm.stdlib_corpus(modules=("json", "email", "textwrap"), expected_sha256=c.sha256).text == c.text
    with pytest.raises(ValueError, match="expected"):
        lm.stdlib_corpus(modules=("json",), expected_sha256=c.sha256)
    with pytest.raises(ValueError, match="no Python source"):
        lm.stdlib_corpus(modules=("no_such_module_here",))
    assert len(lm.STDLIB_MODULES) == len(set(lm.STDLIB_MODULES))


def test_markov_source_entropy_rate_is_the_loss_floor():
    src = lm.MarkovSource(12, alpha=0.3, seed=1)
    P, pi = src.transition, src.stationary
    np.testing.assert_allclose(pi @ P, pi, atol=1e-12)
    np.testing.assert_allclose(P.sum(1), 1.0)
    x = src.sample(60_000, seed=2)
    assert torch.equal(x, src.sample(60_000, seed=2))
    # the chain's own likelihood of a long sample estimates H; empirical bigram frequencies match P
    assert src.cross_entropy(x) == pytest.approx(src.entropy_rate, abs=0.03)
    counts = np.zeros((12, 12))
    np.add.at(counts, (x[:-1].numpy(), x[1:].numpy()), 1)
    freq = counts / counts.sum(1, keepdims=True)
    assert np.abs(freq - P).max() < 0.05
    # a small GPT trained on it through the shared trainer approaches the floor from above
    torch.manual_seed(0)
    model = lm.GPT(lm.GPTConfig(vocab_size=12, n_layer=1, d_model=32, d_head=16, max_len=32))
    mix = lm.MixtureSampler({"markov": x}, lm.constant_weights({"markov": 1.0}), batch_size=16, seq_len=32, seed=0)
    tr = Trainer(model, torch.optim.AdamW(model.parameters(), lr=1e-2), lambda m, b: lm.lm_loss(m(b[0]), b[1]), mix,
                 TrainerConfig(steps=150, device="cpu", show_progress=False), [LossLogger(every=1)])
    with cpu_threads(1):                         # small kernels: one thread is several times faster on 2 cores
        tr.run()
    final = tr.history("loss")[1][-20:].mean()
    assert src.entropy_rate - 0.05 < final < src.entropy_rate + 0.15
    assert tr.history("loss")[1][0] > src.entropy_rate + 0.5


# -- a local Hugging Face model behind the same hooks --------------------------------------------------------
@pytest.mark.parametrize("family", ["llama", "gpt2"])
def test_hf_adapter_on_a_tiny_random_model(tmp_path, family):
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    if family == "llama":   # model.layers, self_attn, mlp
        cfg = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                       num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=64)
        transformers.LlamaForCausalLM(cfg).save_pretrained(tmp_path / "tiny")
    else:                   # transformer.h, attn, mlp
        cfg = transformers.GPT2Config(vocab_size=64, n_embd=32, n_layer=2, n_head=4, n_positions=64)
        transformers.GPT2LMHeadModel(cfg).save_pretrained(tmp_path / "tiny")
    model = lm.load_local_causal_lm(tmp_path / "tiny")
    x = torch.randint(0, 64, (2, 9), generator=torch.Generator().manual_seed(0))
    with model.hooked(read=model.hook_names()) as cache:
        logits, attn = model(x, return_attn=True)
    assert logits.shape == (2, 9, 64) and attn[0].shape == (2, 4, 9, 9)
    torch.testing.assert_close(attn[0].sum(-1), torch.ones(2, 4, 9))
    for i in range(2):
        c = lambda k: cache[f"blocks.{i}.{k}"]
        assert c("resid_pre").shape == (2, 9, 32)
        torch.testing.assert_close(c("resid_post"), c("resid_pre") + c("attn_out") + c("mlp_out"), rtol=1e-5,
                                   atol=1e-6)
    torch.testing.assert_close(cache["blocks.0.resid_post"], cache["blocks.1.resid_pre"])
    v = torch.randn(32)
    with model.hooked(add={"blocks.1.resid_pre": v}):
        steered = model(x)
    assert (steered - logits).abs().max() > 1e-3
    with model.hooked(add={"blocks.1.resid_pre": torch.zeros(32)}):
        torch.testing.assert_close(model(x), logits)
    model.hf.train()
    lm.lm_loss(model(x[:, :-1]), x[:, 1:]).backward()
    assert all(p.grad is not None for p in model.hf.parameters() if p.requires_grad)
    with pytest.raises(FileNotFoundError, match="never downloads"):
        lm.load_local_causal_lm(tmp_path / "absent")


def test_calibration_measures_positive_throughput():
    res = lm.measure_throughput(lm.GPTConfig(vocab_size=64, n_layer=1, d_model=32, d_head=16, max_len=16), 2, 16,
                                steps=2, warmup=1)
    assert res.tokens_per_second > 0 and res.seconds_per_step > 0
    assert res.non_embedding_parameters == sum(p.numel() for n, p in lm.GPT(
        lm.GPTConfig(vocab_size=64, n_layer=1, d_model=32, d_head=16, max_len=16)).named_parameters()
        if not n.startswith("tok."))
    assert list(itertools.chain(*lm.STANDARD_SIZES))[:3] == [2, 64, 32]


@pytest.mark.gpu
def test_gpt_on_cuda_matches_the_cpu():
    """Written without a GPU at hand; runs where one is."""
    model = make_gpt(**CONFIGS[0]).float()
    x = torch.randint(0, 40, (2, 10), generator=torch.Generator().manual_seed(7))
    cpu = model(x)
    gpu = model.cuda()
    xc = x.cuda()
    torch.testing.assert_close(gpu(xc).cpu(), cpu, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(gpu(xc, attn="explicit").cpu(), cpu, rtol=1e-4, atol=1e-5)
    assert torch.equal(lm.generate(gpu, xc[:, :3], 6).cpu(), lm.generate(gpu, xc[:, :3], 6, use_cache=False).cpu())


# -- the OpenAI-compatible chat client, against a local stub server (a test fixture, never a result) -----------
def test_chat_endpoint_request_and_answer_against_a_local_stub():
    from icmlbook.lm import ChatEndpoint
    from tests.stub_endpoint import stub_server

    with stub_server(lambda body: "echo: " + body["messages"][-1]["content"]) as (url, seen):
        ep = ChatEndpoint(url + "/", "tiny", api_key="k", temperature=0.3, max_tokens=7)
        assert ep.complete("hello", system="be brief") == "echo: hello"
        assert ep.complete(messages=[{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                                     {"role": "user", "content": "c"}]) == "echo: c"
    assert ep.calls == 2 and ep.backend == f"tiny at {url}"
    first = seen[0]
    assert first["_path"] == "/v1/chat/completions" and first["_auth"] == "Bearer k"
    assert first["model"] == "tiny" and first["temperature"] == 0.3 and first["max_tokens"] == 7
    assert first["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]
    assert len(seen[1]["messages"]) == 3


def test_chat_endpoint_errors_name_the_problem():
    from icmlbook.lm import ChatEndpoint, EndpointError
    from tests.stub_endpoint import stub_server

    with pytest.raises(ValueError, match="base_url is required"):
        ChatEndpoint(None, "m")
    with pytest.raises(ValueError, match="http:// or https://"):
        ChatEndpoint("localhost:8000/v1", "m")
    with pytest.raises(ValueError, match="model is required"):
        ChatEndpoint("http://localhost:1/v1", "")
    with pytest.raises(ValueError, match="exactly one of prompt"):
        ChatEndpoint("http://localhost:1/v1", "m").complete()
    with pytest.raises(ValueError, match=r"messages\[0\]"):
        ChatEndpoint("http://localhost:1/v1", "m").complete(messages=[{"role": "robot", "content": "x"}])
    answers = iter([(503, '{"error": "overloaded"}'), (200, '{"no": "choices"}'),
                    (200, '{"choices": [{"message": {"content": null}}]}')])
    with stub_server(lambda body: next(answers)) as (url, _):
        ep = ChatEndpoint(url, "m")
        with pytest.raises(EndpointError, match="HTTP 503.*overloaded"):
            ep.complete("x")
        with pytest.raises(EndpointError, match="not answer as an OpenAI-compatible"):
            ep.complete("x")
        with pytest.raises(EndpointError, match="NoneType, not text"):
            ep.complete("x")
    assert ep.calls == 0
    with pytest.raises(EndpointError, match="could not reach"):   # the stub is shut down: nothing listens there
        ChatEndpoint(url, "m", timeout=2).complete("x")
