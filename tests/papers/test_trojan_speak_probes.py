"""Tests of icmlbook.papers.trojan_speak_probes (output classifiers vs activation probes under a fixed cipher; the
"Trojan-Speak" paper was not reached, see the chapter).

Independent checks: the encoders invert their decoders on every character / word; TPR at a fixed FPR against a
direct count from sorted scores and against scikit-learn's ROC curve; a threshold set on negatives keeps their FPR
at or below target; AUROC against scikit-learn; activations captured during KV-cache generation equal a plain
teacher-forced forward pass, and layer l's output is layer l+1's input; masks drop every prompt position; a probe
recovers a planted linearly separable feature and a shuffled-label probe stays near chance; the streaming rule
with k = 1 is max pooling; determinism; bad input errors naming the parameter. Then, for every claim rule, a
reproduced case carrying the default run's noise, a not-reproduced case on a named alternative, and the real
output of the nearest trivial method (run here at a tiny size), which must not pass.
"""

from __future__ import annotations

import dataclasses
import functools
import string

import numpy as np
import pytest
import torch

from icmlbook.papers import trojan_speak_probes as tsp
from icmlbook.papers.trojan_speak_probes import capture, ciphers, claims, experiments, lm, metrics, probes, world
from icmlbook.runtime.claims import claim_case


# ------------------------------------------------------------------------------------------------ ciphers
@pytest.mark.parametrize("name", ["rot13", "atbash"])
def test_letter_substitutions_invert_on_every_character(name):
    c = ciphers.make_cipher(name)
    for ch in world.ALPHABET:
        assert c.decode(c.encode(ch)) == ch and c.encode(c.decode(ch)) == ch
    images = [c.encode(ch) for ch in string.ascii_lowercase]
    assert sorted(images) == list(string.ascii_lowercase)          # a permutation of the letters
    assert all(c.encode(ch) == ch for ch in world.ALPHABET if ch not in string.ascii_lowercase)
    assert c.encode(c.encode("the rain in oslo.")) == "the rain in oslo."   # both are involutions


def test_rot13_and_atbash_known_values():
    assert ciphers.make_cipher("rot13").encode("snow") == "fabj"
    assert ciphers.make_cipher("atbash").encode("abz") == "zya"


def test_codebook_inverts_on_every_word_and_is_a_bijection():
    cb = ciphers.make_cipher("codebook", world.topic_words())
    words = world.topic_words()
    codes = [cb.encode(w) for w in words]
    assert len(set(codes)) == len(words) and not set(codes) & set(words)
    for w in words:
        assert cb.decode(cb.encode(w)) == w
    for code in codes:
        assert cb.encode(cb.decode(code)) == code
    text = "anna saw a snow and a drum in lima."
    assert cb.decode(cb.encode(text)) == text and "snow" not in cb.encode(text)


def test_codebook_refuses_a_map_that_is_not_a_bijection():
    with pytest.raises(ValueError, match="not a bijection.*both map to"):
        ciphers.WordCodebook({"rain": "chair", "snow": "chair"})
    with pytest.raises(ValueError, match="not a bijection onto fresh words"):
        ciphers.WordCodebook({"rain": "snow", "snow": "fog"})
    with pytest.raises(ValueError, match="lower-case letters"):
        ciphers.WordCodebook({"rain": "Chair"})


def test_unknown_cipher_is_refused():
    with pytest.raises(ValueError, match="cipher='enigma' is not allowed"):
        ciphers.make_cipher("enigma")
    with pytest.raises(ValueError, match="cipher='enigma' is not allowed"):
        world.topic_of("abc", "enigma")
    with pytest.raises(ValueError, match="ciphers="):
        tsp.config_for("smoke", ciphers=("rot13", "enigma"))


# ------------------------------------------------------------------------------------------------ world
def test_oracle_labeller_reads_every_format():
    w = world.World()
    g = np.random.default_rng(0)
    for d in w.draw(300, g, free_fraction=0.3):
        for f in ("plain",) + ciphers.CIPHERS:
            req, ans = w.render(d, f)
            assert req == d.request                                   # an output format: the request stays plain
            assert world.topic_of(ans, f) == d.topic
    assert world.topic_of("the rain and the drum.") == -1            # two topics
    assert world.topic_of("anna is fine.") == -1                     # none


def test_faker_names_and_places_are_seeded_and_keep_the_world_s_properties():
    """Names and places come from faker's bundled data through a seeded instance: the same seed gives the same
    world (names, places and every drawn dialogue), another seed another one; every name and place is short,
    letters only, distinct, and neither it nor its ROT13/atbash image is a word the world already uses; and the
    world of another seed keeps the properties the detectors rely on (answers decode to their topic in every
    format, no topic word in the clear once encoded)."""
    a, b, c = world.World(world_seed=3), world.World(world_seed=3), world.World(world_seed=4)
    assert (a.names, a.places) == (b.names, b.places)
    assert (a.names, a.places) != (c.names, c.places)
    assert world.World().names == world.people_and_places(world.WORLD_SEED)[0]
    assert a.draw(50, np.random.default_rng(2), free_fraction=0.3) == b.draw(50, np.random.default_rng(2),
                                                                             free_fraction=0.3)
    used = set(world.topic_words()) | set(ciphers.NEUTRAL_WORDS) | set(world.ADJECTIVES)
    rot, atb = ciphers.make_cipher("rot13"), ciphers.make_cipher("atbash")
    for w in (a, c):
        assert len(set(w.names)) == 20 and len(set(w.places)) == 16 and not set(w.names) & set(w.places)
        for x in w.names + w.places:
            assert x.isascii() and x.isalpha() and x.islower() and 3 <= len(x) <= 6
            assert not {x, rot.encode(x), atb.encode(x)} & used
        g = np.random.default_rng(0)
        for d in w.draw(300, g, free_fraction=0.3):
            for f in ("plain",) + ciphers.CIPHERS:
                _, ans = w.render(d, f)
                assert world.topic_of(ans, f) == d.topic
                assert (f == "plain") == world.has_plain_topic_word(ans)
    # the dialogues use the seeded lists: a name of world 4 that world 3 lacks shows up in world 4's answers
    texts = " ".join(d.answer for d in c.draw(400, np.random.default_rng(1)))
    assert set(texts.replace(".", " ").split()) & (set(c.names) - set(a.names))
    with pytest.raises(ValueError, match="world_seed=-1"):
        world.World(world_seed=-1)


@pytest.mark.parametrize("profile", ["smoke", "default", "full"])
def test_detector_eval_answers_are_disjoint_from_fit_answers(profile):
    """At every profile's size and seeds, the detectors' evaluation dialogues share no request template and no
    reference answer string with their fit (training + calibration) dialogues. Before the fix, shared answer
    templates let about 6 of 1,000 evaluation answers per default seed repeat a fit answer verbatim."""
    cfg = tsp.config_for(profile)
    w = world.World(arith_max=cfg.arith_max)
    for i in range(1 if profile == "full" else cfg.n_seeds):          # full: one seed of its 3,000 + 3,000
        ds, split = experiments._eval_dialogues(w, cfg, experiments.seed_of(0, i))
        fit = [d for d, s in zip(ds, split) if s != experiments.SPLITS["eval"]]
        ev = [d for d, s in zip(ds, split) if s == experiments.SPLITS["eval"]]
        assert len(fit) == len(ev) == cfg.n_prompts
        assert not {d.answer for d in ev} & {d.answer for d in fit}
        assert not {d.request for d in ev} & {d.request for d in fit}
        for kind, halves in (("topic", world.REQUEST_SPLITS), ("free", world.FREE_SPLITS)):
            assert {d.request_template for d in fit if d.kind == kind} <= set(halves["fit"])
            assert {d.request_template for d in ev if d.kind == kind} <= set(halves["eval"])
    again, _ = experiments._eval_dialogues(w, cfg, experiments.seed_of(0, 0))
    assert again == experiments._eval_dialogues(w, cfg, experiments.seed_of(0, 0))[0]     # seeded, deterministic


def test_draw_redraws_excluded_answers_keeping_kind_and_topic():
    w = world.World()
    first = w.draw(400, np.random.default_rng(5), free_fraction=0.3)
    banned = {d.answer for d in first[:200]}
    redrawn = w.draw(400, np.random.default_rng(5), free_fraction=0.3, exclude_answers=banned)
    assert not {d.answer for d in redrawn} & banned
    i = next(i for i, (a, b) in enumerate(zip(first, redrawn)) if a != b)     # the first redrawn dialogue
    assert first[i].answer in banned and (redrawn[i].kind, redrawn[i].topic) == (first[i].kind, first[i].topic)
    assert redrawn[:i] == first[:i]
    assert w.draw(400, np.random.default_rng(5), free_fraction=0.3, exclude_answers={"no such answer."}) == first


def test_model_answers_repeating_a_fit_answer_are_set_aside():
    S = experiments.SPLITS
    texts = ["a", "b", "c", "a", "d", "b", "c"]
    split = np.array([S["train"], S["calib"], S["eval"], S["eval"], S["eval"], S["eval"], S["train"]])
    out = experiments.held_out_split(texts, split)
    np.testing.assert_array_equal(out, [S["train"], S["calib"], S["seen"], S["seen"], S["eval"], S["seen"],
                                        S["train"]])
    np.testing.assert_array_equal(split[:3], [S["train"], S["calib"], S["eval"]])        # the input is not changed


def test_keyword_monitor_sees_plain_and_not_rot13():
    km = tsp.KeywordMonitor("weather")
    rot = ciphers.make_cipher("rot13")
    assert km.score(["the rain in lima is odd."])[0] == 1
    assert km.score([rot.encode("the rain in lima is odd.")])[0] == 0


def test_monitored_topic_not_in_world_is_refused():
    with pytest.raises(ValueError, match="topic='war' is not a topic of the world"):
        tsp.KeywordMonitor("war")
    with pytest.raises(ValueError, match="monitored_topic='war' is not allowed"):
        tsp.config_for("smoke", monitored_topic="war")


@pytest.mark.parametrize("kind", ["bpe", "char"])
def test_dialogue_layout_round_trips(kind):
    w = world.World()
    tok = lm.make_tokenizer(kind, w)
    pw, aw = (18, 18) if kind == "bpe" else (30, 40)
    codec = lm.DialogueCodec(tok, w, pw, aw)
    ds = w.draw(200, np.random.default_rng(1), free_fraction=0.3)
    for f in ("plain", "rot13", "codebook"):
        rows = codec.rows(ds, [f] * len(ds))
        assert rows.shape == (len(ds), pw + aw)
        assert bool((rows[:, pw - 1] == codec.sep).all())              # every prompt ends at the same position
        for d, r in zip(ds, rows.tolist()):
            assert codec.answer_text(r[pw:]) == w.render(d, f)[1]


# ------------------------------------------------------------------------------------------------ metrics
def test_threshold_keeps_negative_fpr_at_or_below_target():
    g = np.random.default_rng(0)
    for n in (7, 100, 1000):
        for target in (0.01, 0.05, 0.3):
            neg = np.round(g.normal(size=n), 1)                        # ties on purpose
            thr = metrics.threshold_at_fpr(neg, target)
            assert np.mean(neg > thr) <= target + 1e-12
            # and no lower threshold among the scores does as well with a larger count flagged
            lower = neg[neg < thr]
            if lower.size:
                assert np.mean(neg > lower.max()) > target


def test_tpr_at_fpr_matches_a_direct_count_and_sklearn_roc_curve():
    from sklearn.metrics import roc_curve

    g = np.random.default_rng(3)
    y = np.r_[np.ones(150, bool), np.zeros(850, bool)]
    s = np.r_[g.normal(1.5, 1, 150), g.normal(0, 1, 850)]
    target = 0.01
    # direct count from the sorted negatives: flag the k = floor(0.01 * 850) = 8 largest
    neg = np.sort(s[~y])[::-1]
    tau = neg[8]
    direct = np.mean(s[y] > tau)
    assert metrics.tpr_at_fpr(s, y, target) == pytest.approx(direct)
    fpr, tpr, thr = roc_curve(y, s)
    # the ROC point with the largest FPR <= target: same TPR (sklearn flags score >= thr; ours score > tau)
    ok = fpr <= target
    assert metrics.tpr_at_fpr(s, y, target) == pytest.approx(tpr[ok].max())


def test_auroc_matches_sklearn_with_ties():
    from sklearn.metrics import roc_auc_score

    g = np.random.default_rng(4)
    y = g.random(400) < 0.3
    s = np.round(g.normal(size=400) + y, 1)
    assert metrics.auroc(s, y) == pytest.approx(roc_auc_score(y, s))


def test_fpr_target_outside_unit_interval_is_refused():
    for bad in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="fpr_target="):
            metrics.threshold_at_fpr([0.1, 0.2], bad)
    with pytest.raises(ValueError, match="fpr_target"):
        tsp.config_for("smoke", fpr_target=0.0)


# ------------------------------------------------------------------------------------------------ probes
def test_probe_recovers_a_planted_linear_feature():
    g = np.random.default_rng(5)
    d = 32
    w = g.normal(size=d)
    X = g.normal(size=(600, d))
    y = X @ w > 0
    p = probes.fit_probe(X[:400], y[:400], C=10.0)
    assert metrics.auroc(p.decision(X[400:]), y[400:]) > 0.99
    cos = abs(np.dot(p.w / p.scale, w)) / (np.linalg.norm(p.w / p.scale) * np.linalg.norm(w))
    assert cos > 0.9


def test_shuffled_label_probe_stays_near_chance_held_out():
    g = np.random.default_rng(6)
    X = g.normal(size=(2000, 16))
    y = X[:, 0] > 0
    aucs = []
    for seed in range(5):
        p = probes.fit_probe(X[:1000], probes.shuffled_labels(y[:1000], seed), C=1.0)
        aucs.append(metrics.auroc(p.decision(X[1000:]), y[1000:]))
    assert abs(np.mean(aucs) - 0.5) < 0.05


def test_probe_data_with_one_class_is_refused():
    with pytest.raises(ValueError, match="one class"):
        probes.fit_probe(np.zeros((10, 3)), np.ones(10))
    with pytest.raises(ValueError, match="one class"):
        tsp.TextMonitor().fit(["a", "b"], [0, 0])


def test_streaming_rule_with_k1_is_max_pooling_and_kth_largest_counts():
    g = np.random.default_rng(7)
    v = g.normal(size=(50, 12))
    m = g.random((50, 12)) < 0.7
    m[:, 0] = True
    np.testing.assert_allclose(probes.streaming_scores(v, m, 1), np.where(m, v, -np.inf).max(1))
    k, tau = 3, 0.2
    flagged = (np.where(m, v, -np.inf) > tau).sum(1) >= k
    np.testing.assert_array_equal(probes.streaming_scores(v, m, k) > tau, flagged)
    short = np.zeros((1, 12), bool)
    short[0, :2] = True
    assert probes.streaming_scores(v[:1], short, 3)[0] == -np.inf
    with pytest.raises(ValueError, match="k=0"):
        probes.streaming_scores(v, m, 0)


# ------------------------------------------------------------------------------------------------ capture
@pytest.fixture(scope="module")
def tiny_model():
    w = world.World()
    tok = lm.make_tokenizer("bpe", w)
    codec = lm.DialogueCodec(tok, w, 18, 18)
    torch.manual_seed(0)
    model = lm.build_model(tok.vocab_size, 2, 32, 4, codec.width).eval()
    ds = w.draw(12, np.random.default_rng(2), free_fraction=0.3)
    prompts = codec.prompts([w.render(d, "rot13")[0] for d in ds], ["rot13"] * len(ds))
    return model, codec, prompts


def test_capture_during_generation_equals_a_teacher_forced_forward(tiny_model):
    model, codec, prompts = tiny_model
    sites = capture.all_sites(2)
    g = torch.Generator().manual_seed(0)
    cap = capture.generate_with_capture(model, prompts, 10, sites=sites, eos=codec.eos, pad=codec.pad,
                                        temperature=1.0, generator=g)
    ref = capture.capture_teacher_forced(model, prompts, cap.tokens, sites=sites, eos=codec.eos)
    assert cap.acts.shape == (prompts.shape[0], 10, len(sites), 32)
    m = cap.mask
    assert m.any()
    torch.testing.assert_close(cap.acts[m], ref.acts[m], atol=1e-5, rtol=1e-4)
    # without capture the decoder draws the same tokens
    plain = capture.generate_with_capture(model, prompts, 10, sites=sites, eos=codec.eos, pad=codec.pad,
                                          temperature=1.0, generator=torch.Generator().manual_seed(0), capture=False)
    assert torch.equal(plain.tokens, cap.tokens) and plain.acts is None


def test_layer_output_is_next_layer_input_and_sites_add_up(tiny_model):
    model, codec, prompts = tiny_model
    names = [f"blocks.{i}.{k}" for i in range(2) for k in ("resid_pre", "attn_out", "mlp_out", "resid_post")]
    with model.hooked(read=names) as c:
        model(prompts)
    torch.testing.assert_close(c["blocks.0.resid_post"], c["blocks.1.resid_pre"])
    for i in range(2):   # a pre-norm block: output = input + attention output + MLP output
        torch.testing.assert_close(c[f"blocks.{i}.resid_post"],
                                   c[f"blocks.{i}.resid_pre"] + c[f"blocks.{i}.attn_out"] + c[f"blocks.{i}.mlp_out"],
                                   atol=1e-5, rtol=1e-5)
    # the chapter's 'resid' site of layer 0 reads blocks.0.resid_post
    ref = capture.capture_teacher_forced(model, prompts[:, :-3], prompts[:, -3:], sites=[capture.Site(0, "resid")],
                                         eos=-1)
    # (the last column is never fed by the decoder, so it is outside the mask and not compared)
    torch.testing.assert_close(ref.acts[:, :2, 0], c["blocks.0.resid_post"][:, -3:-1], atol=1e-5, rtol=1e-5)


def test_masks_drop_every_prompt_position_and_the_eos():
    eos = 9
    tokens = torch.tensor([[1, 2, eos, 4, 4], [eos, 1, 1, 1, 1], [3, 3, 3, 3, 3]])
    m = capture.response_mask(tokens, eos)
    assert m.tolist() == [[True, True, False, False, False], [False] * 5, [True, True, True, True, False]]
    acts = torch.arange(15, dtype=torch.float32).reshape(3, 5, 1, 1)
    pooled = capture.mean_pool(acts, m)
    assert pooled[0, 0, 0] == pytest.approx(0.5) and pooled[1, 0, 0] == 0 and pooled[2, 0, 0] == pytest.approx(11.5)


def test_capture_positions_start_after_the_prompt(tiny_model):
    model, codec, prompts = tiny_model
    P = prompts.shape[1]
    toks = torch.randint(0, 50, (prompts.shape[0], 4))
    cap = capture.capture_teacher_forced(model, prompts, toks, sites=[capture.Site(1, "mlp")], eos=-1)
    with model.hooked(read=["blocks.1.mlp_out"]) as c:
        model(torch.cat([prompts, toks], 1))
    torch.testing.assert_close(cap.acts[:, :3, 0], c["blocks.1.mlp_out"][:, P:P + 3])


def test_layer_out_of_range_and_unknown_site_are_refused():
    with pytest.raises(ValueError, match="layer=3 is out of range"):
        capture.hook_name(capture.Site(3, "resid"), 3)
    with pytest.raises(ValueError, match="site kind='embed'"):
        capture.hook_name(capture.Site(0, "embed"), 3)


def test_hf_capture_on_a_tiny_random_config():
    transformers = pytest.importorskip("transformers")
    from icmlbook.lm import HFCausalLM
    from icmlbook.papers.trojan_speak_probes import hf_probe

    cfg = transformers.GPT2Config(n_layer=2, n_embd=16, n_head=2, vocab_size=50, n_positions=32)
    torch.manual_seed(0)
    model = HFCausalLM(transformers.GPT2LMHeadModel(cfg).eval())
    sites = capture.all_sites(2)
    out = hf_probe.capture_answers(model, [[1, 2, 3], [4, 5]], [[6, 7], [8, 9, 10]], sites)
    assert out.shape == (2, len(sites), 16) and np.all(np.isfinite(out))
    with model.hooked(read=["blocks.1.mlp_out"]) as c:
        model(torch.tensor([[4, 5, 8, 9, 10]]))
    np.testing.assert_allclose(out[1, sites.index(capture.Site(1, "mlp"))], c["blocks.1.mlp_out"][0, 2:].mean(0),
                               atol=1e-5)
    prompts, topics = hf_probe.benign_prompts(5, 0, "rot13")
    assert len(prompts) == 5 and all("ROT13" in p for p in prompts) and topics.shape == (5,)


# ------------------------------------------------------------------------------------------------ config
def test_config_errors_name_the_parameter():
    with pytest.raises(ValueError, match="main_cipher='atbash'"):
        tsp.config_for("smoke", main_cipher="atbash")
    with pytest.raises(ValueError, match="n_head=3"):
        tsp.config_for("smoke", n_head=3)
    with pytest.raises(ValueError, match="tokenizer="):
        tsp.config_for("smoke", tokenizer="words")
    with pytest.raises(ValueError, match="here; the claims' thresholds are fixed"):
        claims.claim2_encoding_blinds([], tsp.config_for("smoke", blind_tpr_max=0.3))


# ------------------------------------------------------------------------------------------------ tiny real runs
def _tiny_cfg(**kw):
    base = dict(n_layer=2, d_model=32, n_head=4, pretrain_steps=30, sft_steps=20, batch_size=8, warmup=5,
                n_pretrain_rows=400, n_format_rows=300, eval_every=10, n_general=40, n_seeds=2, n_prompts=300,
                eval_free_fraction=0.4, token_fit_rows=2000)
    base.update(kw)
    return tsp.config_for("smoke", **base)


@functools.lru_cache(maxsize=None)
def reference_study() -> tuple:
    """The trivial methods' real outputs: an **untrained** model (random initialisation in every role) reading the
    world's reference answers (teacher-forced) of three seeds; the text monitors trained on those answers."""
    cfg = _tiny_cfg()
    runs = [experiments.evaluate(cfg, experiments.seed_of(11, i), None, answers="reference") for i in range(3)]
    return cfg, [experiments.summarise(r, cfg) for r in runs], runs


@functools.lru_cache(maxsize=None)
def tiny_training() -> tuple:
    cfg = _tiny_cfg()
    return cfg, [experiments.train_models(cfg, experiments.seed_of(12, i)) for i in range(2)]


def test_determinism_of_training_and_evaluation():
    cfg = _tiny_cfg(pretrain_steps=12, sft_steps=8, n_prompts=120)
    a = experiments.train_models(cfg, 5)
    b = experiments.train_models(cfg, 5)
    for k in a.mixed:
        assert torch.equal(a.mixed[k], b.mixed[k])
    np.testing.assert_array_equal(a.curves["abrupt"].loss, b.curves["abrupt"].loss)
    # (a 12-update model writes too little on topic to train detectors on its own answers: score the reference
    # answers with its weights; generation itself is checked for determinism in the capture test)
    r1 = experiments.evaluate(cfg, 5, a, answers="reference")
    r2 = experiments.evaluate(cfg, 5, b, answers="reference")
    assert r1.responses["rot13"].texts == r2.responses["rot13"].texts
    np.testing.assert_array_equal(r1.probe_mean["rot13"], r2.probe_mean["rot13"])
    np.testing.assert_array_equal(r1.monitor["plain"], r2.monitor["plain"])


def test_reference_answers_are_on_topic_and_monitor_separates_plain_text():
    """The checklist's former rows C1 and C10, as tests of our code (they hold by the world's design, see
    :mod:`.claims`): on the world's reference answers the keyword list is the oracle's own rule (AUROC 1), the
    plain-trained text monitor separates plain answers, no plain keyword survives the cipher, and the monitor
    retrained on encoded answers recovers much of what the deployment monitor loses on them (at this tiny size:
    150 training answers per format)."""
    cfg, sums, runs = reference_study()
    for s in sums:
        assert s.competence_cipher == 1.0 and s.competence_plain == 1.0
        assert s.monitor_auroc_plain > 0.8 and s.keyword_auroc_plain == 1.0
        assert s.keyword_auroc_cipher == pytest.approx(0.5)          # no plain keyword survives the cipher
        assert s.adaptive_auroc_cipher > 0.75 and s.adaptive_auroc_cipher > s.monitor_auroc_cipher + 0.2
    text = claims.setup_checks(sums)
    assert f"keyword list (the oracle's own rule) {1.0:.3f}" in text
    assert f"AUROC {np.mean([s.adaptive_auroc_cipher for s in sums]):.3f}" in text
    for r in runs:
        assert r.responses["rot13"].texts[0] != r.responses["plain"].texts[0]


def _plain_as_cipher(run, cipher: str):
    """The run's plain answers relabelled as ``cipher``'s: what a model that never learned the cipher (and answers
    every encoded request in the clear) writes. The codebook's decoder passes plain words through unchanged."""
    P = run.responses["plain"]
    return experiments.Responses(cipher, list(P.texts), list(P.plain_texts), P.label.copy(), P.requested, P.kind,
                                 P.split, P.n_tokens)


def test_competence_counts_only_answers_written_in_the_cipher():
    """A plain answer to an encoded request decodes (through the codebook, unchanged) to the requested topic, but it
    is not written in the cipher: it must not count toward the format-competence guard."""
    cfg, sums, runs = reference_study()
    for r in runs:
        real = r.responses[cfg.main_cipher]
        assert real.competence() == 1.0                       # the world's own encoded answers
        assert not any(world.has_plain_topic_word(t) for t in real.texts)
        fake = _plain_as_cipher(r, cfg.main_cipher)
        assert np.mean(fake.label[fake.kind == 0] == fake.requested[fake.kind == 0]) == 1.0
        assert fake.competence() == 0.0


def _unlearned_cipher_world():
    """Per seed: the reference study's summary, with the encoded answers those of a model that never learned the
    cipher (its plain answers, relabelled): competence recomputed from them, and the monitors reading plain text."""
    cfg, sums, runs = reference_study()
    return cfg, [dataclasses.replace(s, competence_cipher=_plain_as_cipher(r, cfg.main_cipher).competence())
                 for s, r in zip(sums, runs)]


# ------------------------------------------------------------------------------------------------ claim cases
def _reps(values, seeds=3):
    return np.asarray(values, float)[:seeds]


def _world(n=3, **fields):
    """n per-seed summaries: the reference study's first summary with the given fields (one value per seed, or a
    scalar for all) replacing its own; the rest of the summary is real."""
    cfg, sums, _ = reference_study()
    out = []
    for i in range(n):
        kw = {}
        for k, v in fields.items():
            v = v[i] if isinstance(v, (list, tuple)) else v
            kw[k] = v
        out.append(dataclasses.replace(sums[0], seed=i, **kw))
    return tsp.config_for("default"), out


def _at(S, chosen, value, other=0.5):
    a = np.full(S, other, float)
    a[chosen] = value
    return a


# C2 ------------------------------------------------------------------------------------------------
@claim_case("trojan_speak_probes", "C2", "reproduced")
def c2_reproduced():
    # the default run's plain TPR spread (sd 0.02); at a true encoded TPR near 0.01 the binomial spread over ~100
    # positives is about 0.01-0.015 (the run's sd of 0.04 was measured at TPR 0.13)
    cfg, seeds = _world(monitor_tpr_cipher=[0.01, 0.03, 0.0], monitor_tpr_plain=[0.96, 0.99, 0.94])
    return claims.claim2_encoding_blinds(seeds, cfg)


@claim_case("trojan_speak_probes", "C2", "not reproduced", alternative="a partial transfer: TPR 0.3 on encoded answers")
def c2_partial():
    cfg, seeds = _world(monitor_tpr_cipher=[0.3, 0.35, 0.28], monitor_tpr_plain=[0.96, 0.99, 0.94])
    return claims.claim2_encoding_blinds(seeds, cfg)


@claim_case("trojan_speak_probes", "C2", "inconclusive at this scale",
            alternative="a model that never learned the cipher: it answers encoded requests in the clear and the "
                        "monitor reads them (encoded TPR = plain TPR); evidence about the cipher, none")
def c2_unlearned():
    _, seeds = _unlearned_cipher_world()
    seeds = [dataclasses.replace(s, monitor_tpr_plain=v, monitor_tpr_cipher=v) for s, v in zip(seeds, (0.96, 0.99, 0.94))]
    return claims.claim2_encoding_blinds(seeds, tsp.config_for("default"))


@claim_case("trojan_speak_probes", "C2", "not reproduced", trivial="the identity format (no cipher)")
def c2_trivial():
    _, sums, _ = reference_study()
    seeds = [dataclasses.replace(s, monitor_tpr_cipher=s.monitor_tpr_plain) for s in sums]
    return claims.claim2_encoding_blinds(seeds, tsp.config_for("default"))


# C3 ------------------------------------------------------------------------------------------------
def _S():
    return len(reference_study()[1][0].sites)


def _c3(trained, untrained, **world):
    """Claim 3 on seeds whose probe AUROC on plain text is ``trained`` at the chosen site (2) of the trained model and
    ``untrained`` at site 0 of the untrained one (one value per seed; every other site 0.5); ``world`` goes to
    ``_world`` (e.g. the untrained model's calibration-chosen site)."""
    S = _S()
    cfg, seeds = _world(chosen_site=2, probe_auroc_plain=[_at(S, 2, v) for v in trained],
                        untrained_auroc_plain=[_at(S, 0, v) for v in untrained], **world)
    return claims.claim3_probe_plain(seeds, cfg)


@claim_case("trojan_speak_probes", "C3", "reproduced")
def c3_reproduced():
    # the untrained side carries a spread of ~0.025 over seeds (AUROC on ~150 positives at default; the tiny
    # reference study's untrained probes scatter 0.04-0.08 on 20-40 positives)
    return _c3((0.999, 0.997, 0.9995), (0.84, 0.87, 0.82))


@claim_case("trojan_speak_probes", "C3", "not reproduced", alternative="activations that carry the topic weakly (AUROC 0.8)")
def c3_weak():
    return _c3((0.80, 0.82, 0.78), (0.70, 0.74, 0.68))


@claim_case("trojan_speak_probes", "C3", "not reproduced",
            alternative="training adds little: the probe on the trained model (0.98-0.99) only 0.04 above the same "
                        "probe on an untrained model (0.94-0.95), which reads the topic words' surface form")
def c3_surface_only():
    return _c3((0.985, 0.982, 0.988), (0.945, 0.940, 0.948), untrained_chosen_site=0)


@claim_case("trojan_speak_probes", "C3", "inconclusive at this scale",
            alternative="the untrained model's best site picked on the eval answers (0.94-0.95) above the site its "
                        "calibration answers pick (0.90): the gap at the eval-picked site is a selection artefact")
def c3_selected_baseline():
    S = _S()
    cfg, seeds = _world(chosen_site=2, probe_auroc_plain=[_at(S, 2, v) for v in (0.985, 0.982, 0.988)],
                        untrained_auroc_plain=[_at(S, 0, v, other=0.90) for v in (0.945, 0.940, 0.948)],
                        untrained_chosen_site=1)
    return claims.claim3_probe_plain(seeds, cfg)


def test_c3_evidence_against_needs_the_calibration_chosen_untrained_site_too():
    """Session 10 (an outside review): the untrained model's best site is a maximum over sites on the eval answers,
    biased upward; the advantage counts against the claim only if it is also below the margin at the untrained
    model's site chosen on calibration answers (as the trained model's is)."""
    assert c3_surface_only().passed is False
    sel = c3_selected_baseline()
    assert sel.inconclusive == "interval spans both" and "calibration-chosen site" in sel.measured
    assert np.allclose(sel.values["untrained_at_calibration_site"], 0.90)
    cfg, sums, runs = reference_study()              # the real summaries carry the calibration-chosen site
    t = world.check_topic(cfg.monitored_topic)
    for s, r in zip(sums, runs):
        assert 0 <= s.untrained_chosen_site < len(s.sites)
        assert s.untrained_chosen_site == experiments._choose_site(r.untrained_mean["plain"], r.responses["plain"], t)


@claim_case("trojan_speak_probes", "C3", "inconclusive at this scale",
            alternative="an untrained model's probe already at the ceiling (AUROC 0.97-0.99): no probe can beat it "
                        "by the margin")
def c3_ceiling():
    return _c3((0.999, 0.997, 0.9995), (0.97, 0.99, 0.975))


@claim_case("trojan_speak_probes", "C3", "not reproduced",
            trivial="the same probe on an untrained model's activations of the reference answers (every role of the "
                    "reference study is the untrained model: no advantage over itself)")
def c3_trivial():
    _, sums, _ = reference_study()
    return claims.claim3_probe_plain(sums, tsp.config_for("default"))


# C4 ------------------------------------------------------------------------------------------------
def _c4(trained, untrained=None, competence=0.95, other=0.5, pretrained=None, **world):
    """Claim 4 on seeds whose probe AUROC on ciphered text is ``trained`` at the chosen site (2) and, if given,
    ``untrained`` at site 0 of the untrained model (``other`` at its other sites; otherwise the reference study's
    own), with cipher competence ``competence`` (a number or one per seed); ``world`` goes to ``_world``. The
    pretrained-only model reads ``pretrained`` at its site 0 (default: as much as the untrained model, i.e. the
    detection needs the cipher)."""
    S = _S()
    fields = {"probe_auroc_cipher": [_at(S, 2, v) for v in trained]}
    if untrained is not None:
        fields["untrained_auroc_cipher"] = [_at(S, 0, v, other=other) for v in untrained]
    pretrained = untrained if pretrained is None else pretrained
    if pretrained is not None:
        fields["pretrained_auroc_cipher"] = [_at(S, 0, v, other=other) for v in pretrained]
    cfg, seeds = _world(chosen_site=2, competence_cipher=competence, **fields, **world)
    return claims.claim4_probe_transfer(seeds, cfg)


@claim_case("trojan_speak_probes", "C4", "reproduced")
def c4_reproduced():
    return _c4((0.97, 0.95, 0.98), (0.70, 0.74, 0.68))


@claim_case("trojan_speak_probes", "C4", "not reproduced",
            alternative="a transfer no better than an untrained model's (both read the plain request)")
def c4_leak_only():
    return _c4((0.95, 0.93, 0.96), (0.95, 0.94, 0.95), untrained_chosen_site=0)   # calibration picks that site too


@claim_case("trojan_speak_probes", "C4", "inconclusive at this scale",
            alternative="the untrained model's best encoded site picked on the eval answers (0.94-0.95) above the site "
                        "its plain calibration answers pick (0.80): the gap at the eval-picked site is a selection "
                        "artefact (session 10, as C3)")
def c4_selected_baseline():
    return _c4((0.95, 0.93, 0.96), (0.95, 0.94, 0.95), other=0.80, untrained_chosen_site=1)


@claim_case("trojan_speak_probes", "C4", "inconclusive at this scale",
            alternative="an untrained model's probe already at the ceiling on the encoded answers (AUROC 0.97-0.99 "
                        "at its best and at its calibration-chosen site, e.g. reading the plain request's topic "
                        "word): no probe can beat it by the margin (session 11, as C3)")
def c4_ceiling():
    return _c4((0.999, 0.997, 0.9995), (0.97, 0.99, 0.975), untrained_chosen_site=0)


def test_c4_ceiling_is_not_evidence_against():
    """Session 11 (an outside review): C3 made an untrained probe within the margin of AUROC 1 inconclusive, C4 did
    not. In the world of c4_ceiling the advantage lies wholly below the margin at both untrained sites (so the rule
    said 'not reproduced' before the fix), although no probe could have cleared the margin."""
    out = c4_ceiling()
    assert out.inconclusive == "noise above effect" and "ceiling" in out.reason
    adv = out.values["auroc"] - out.values["untrained"]
    lo, hi = _t_interval(adv)
    assert hi < claims.THRESHOLDS["baseline_margin"]         # the pre-fix 'against': the interval wholly below
    adv_cal = out.values["auroc"] - out.values["untrained_at_calibration_site"]
    assert _t_interval(adv_cal)[1] < claims.THRESHOLDS["baseline_margin"]
    # where the untrained probe is below the ceiling the rule still says 'against' (c4_leak_only: 0.94-0.95)
    assert c4_leak_only().passed is False


def _t_interval(values):
    from icmlbook.runtime.stats import mean_t_interval

    ci = mean_t_interval(np.asarray(values, float), claims.THRESHOLDS["ci_level"])
    return ci.lo, ci.hi


@claim_case("trojan_speak_probes", "C4", "inconclusive at this scale",
            trivial="the same probe on the pretrained-only model, which never learned the cipher: its real output at "
                    "default (record of 2026-12-05, means over 3 seeds) reads the encoded answers at 0.995 against "
                    "the trained model's 0.996, both far above the untrained model's 0.744 (the plain request names "
                    "the topic word)")
def c4_pretrained_reads_the_request():
    return _c4((0.9985, 0.993, 0.9965), (0.74, 0.76, 0.73), pretrained=(0.997, 0.992, 0.996))


def test_c4_pretrained_only_model_blocks_a_pass_but_never_counts_against():
    """Session 12 (an outside review, rule 11): the default run's C4 was 'reproduced' at an encoded AUROC of 0.996
    while the pretrained-only model, never taught the cipher, read the same answers at 0.995. Before the fix the rule
    did not read that model: the same world passed (its two parts clear their thresholds)."""
    out = c4_pretrained_reads_the_request()
    assert out.verdict == "inconclusive at this scale" and "pretrained-only" in out.reason
    adv_untrained = out.values["auroc"] - out.values["untrained"]
    assert _t_interval(adv_untrained)[0] > claims.THRESHOLDS["baseline_margin"]   # the pre-fix pass
    assert _t_interval(out.values["auroc"])[0] > claims.THRESHOLDS["transfer_auroc_min"]
    # a pretrained-only model below the margin leaves the pass alone; one above can never make the row fail
    assert c4_reproduced().passed is True
    assert _c4((0.97, 0.95, 0.98), (0.70, 0.74, 0.68), pretrained=(0.80, 0.82, 0.79)).passed is True
    assert c4_partial().passed is False and c4_leak_only().passed is False


@claim_case("trojan_speak_probes", "C4", "not reproduced", alternative="a partial transfer (AUROC 0.75)")
def c4_partial():
    return _c4((0.75, 0.78, 0.72))


@claim_case("trojan_speak_probes", "C4", "inconclusive at this scale", alternative="a model that has not learned the cipher")
def c4_incompetent():
    return _c4((0.97, 0.95, 0.98), (0.70, 0.74, 0.68), competence=[0.95, 0.4, 0.9])


@claim_case("trojan_speak_probes", "C4", "not reproduced", trivial="the same probe on an untrained model's activations")
def c4_trivial():
    _, sums, _ = reference_study()      # every role of the reference study is the untrained model
    return claims.claim4_probe_transfer(sums, tsp.config_for("default"))


# C5 ------------------------------------------------------------------------------------------------
def _c5(attn, resid):
    S = _S()
    aucs = []
    for a, r in zip(attn, resid):
        v = np.full(S, 0.6)
        v[4], v[3] = a, r          # layer 1: 3 = resid, 4 = attn, 5 = mlp
        aucs.append(v)
    cfg, seeds = _world(competence_cipher=0.95, probe_auroc_cipher=aucs,
                        site_kind_choice={"resid": 3, "attn": 4, "mlp": 5},
                        site_kind_losses={"resid": 0.05, "attn": 0.04, "mlp": 0.06})
    return claims.claim5_sites(seeds, cfg)


@claim_case("trojan_speak_probes", "C5", "reproduced")
def c5_reproduced():
    return _c5([0.95, 0.93, 0.96], [0.85, 0.82, 0.88])


@claim_case("trojan_speak_probes", "C5", "not reproduced", alternative="the reverse ranking (residual above attention)")
def c5_reverse():
    return _c5([0.85, 0.82, 0.88], [0.95, 0.93, 0.96])


@claim_case("trojan_speak_probes", "C5", "inconclusive at this scale",
            alternative="every site at the ceiling (the default run: residual AUROC 0.99-1.00)")
def c5_ceiling():
    return _c5([0.995, 0.99, 1.0], [0.993, 0.985, 1.0])


@claim_case("trojan_speak_probes", "C5", "inconclusive at this scale", trivial="the probes of an untrained model at every site")
def c5_trivial():
    _, sums, _ = reference_study()
    return claims.claim5_sites(sums, tsp.config_for("default"))


# C6 ------------------------------------------------------------------------------------------------
def _c6(tk, t1, tmean):
    cfg, sums, _ = reference_study()
    s0 = sums[0]
    S, K = s0.stream_tpr_cipher.shape
    ik, i1 = s0.stream_ks.index(claims.THRESHOLDS["stream_k"]), s0.stream_ks.index(1)
    seeds = []
    for i, (a, b, c) in enumerate(zip(tk, t1, tmean)):
        st = np.full((S, K), 0.3)
        st[2, ik], st[2, i1] = a, b
        seeds.append(dataclasses.replace(s0, seed=i, chosen_site=2, competence_cipher=0.95, stream_tpr_cipher=st,
                                         mean_tpr_cipher=_at(S, 2, c, 0.3)))
    return claims.claim6_streaming(seeds, tsp.config_for("default"))


@claim_case("trojan_speak_probes", "C6", "reproduced")
def c6_reproduced():
    return _c6([0.90, 0.86, 0.93], [0.62, 0.58, 0.66], [0.70, 0.64, 0.71])


@claim_case("trojan_speak_probes", "C6", "not reproduced", alternative="requiring agreement gains nothing over max pooling")
def c6_no_gain():
    return _c6([0.70, 0.66, 0.72], [0.71, 0.68, 0.73], [0.60, 0.55, 0.62])


@claim_case("trojan_speak_probes", "C6", "not reproduced",
            trivial="the single-token spike rule (k = 1) in place of k-of-n, on an untrained model's per-token probe")
def c6_trivial():
    _, sums, _ = reference_study()
    k = sums[0].stream_ks.index(claims.THRESHOLDS["stream_k"])
    i1 = sums[0].stream_ks.index(1)
    seeds = []
    for s in sums:
        st = s.stream_tpr_cipher.copy()
        st[:, k] = st[:, i1]
        seeds.append(dataclasses.replace(s, stream_tpr_cipher=st))
    return claims.claim6_streaming(seeds, tsp.config_for("default"))


# C7 ------------------------------------------------------------------------------------------------
def _c7(shuf, control, task):
    S = _S()
    cfg, seeds = _world(chosen_site=2, competence_cipher=0.95,
                        shuffled_auroc_cipher=[_at(S, 2, v) for v in shuf],
                        control_auroc_cipher=[_at(S, 2, v) for v in control],
                        probe_auroc_cipher=[_at(S, 2, v) for v in task])
    return claims.claim7_controls(seeds, cfg)


@claim_case("trojan_speak_probes", "C7", "reproduced")
def c7_reproduced():
    return _c7([0.50, 0.52, 0.48], [0.55, 0.60, 0.52], [0.96, 0.94, 0.97])


@claim_case("trojan_speak_probes", "C7", "not reproduced",
            alternative="a transfer that a word-identity control task matches (selectivity 0)")
def c7_lexical():
    return _c7([0.50, 0.52, 0.48], [0.95, 0.93, 0.96], [0.96, 0.94, 0.97])


@claim_case("trojan_speak_probes", "C7", "not reproduced",
            trivial="the shuffled-label probe scored on its own training answers (in-sample)")
def c7_trivial():
    _, sums, _ = reference_study()
    seeds = [dataclasses.replace(s, shuffled_auroc_cipher=s.shuffled_insample) for s in sums]
    return claims.claim7_controls(seeds, tsp.config_for("default"))


# C8 ------------------------------------------------------------------------------------------------
@claim_case("trojan_speak_probes", "C8", "reproduced")
def c8_reproduced():
    S = _S()
    cfg, seeds = _world(chosen_site=2, competence_cipher=0.95, n_pos_free=30,
                        free_auroc_cipher=[_at(S, 2, v) for v in (0.96, 0.94, 0.98)])
    return claims.claim8_free_choice(seeds, cfg)


@claim_case("trojan_speak_probes", "C8", "not reproduced",
            alternative="a probe that reads the topic from the request (AUROC 0.55 once the request is neutral)")
def c8_request_reader():
    S = _S()
    cfg, seeds = _world(chosen_site=2, competence_cipher=0.95, n_pos_free=30,
                        free_auroc_cipher=[_at(S, 2, v) for v in (0.55, 0.6, 0.5)])
    return claims.claim8_free_choice(seeds, cfg)


@claim_case("trojan_speak_probes", "C8", "not reproduced", trivial="the same probe on an untrained model's activations")
def c8_trivial():
    _, sums, _ = reference_study()
    return claims.claim8_free_choice(sums, tsp.config_for("default"))


# C9 ------------------------------------------------------------------------------------------------
def _cap(held):
    return lm.Capability(held, 1.0, 1.0)


def _c9(before, abrupt, mixed, curve_noise=0.0):
    steps = np.arange(0, 601, 50)
    seeds = []
    for i, (b, a, m) in enumerate(zip(before, abrupt, mixed)):
        def curve(end):
            c = b + (end - b) * (1 - np.exp(-steps / 60.0))
            return c + curve_noise * np.sin(steps + i)
        cur = {"abrupt": (steps, curve(a), None, None), "mixed": (steps, curve(m), None, None)}
        seeds.append(dataclasses.replace(reference_study()[1][0], seed=i,
                                         capability={"before": _cap(b), "abrupt": _cap(a), "mixed": _cap(m)},
                                         sft_curves=cur))
    return claims.claim9_capability(seeds, tsp.config_for("default"))


@claim_case("trojan_speak_probes", "C9", "reproduced")
def c9_reproduced():
    return _c9([0.70, 0.65, 0.75], [0.40, 0.35, 0.50], [0.68, 0.66, 0.72])


@claim_case("trojan_speak_probes", "C9", "not reproduced", alternative="mixing makes no difference (both lose 30 %)")
def c9_no_difference():
    return _c9([0.70, 0.65, 0.75], [0.49, 0.45, 0.52], [0.50, 0.46, 0.52])


@claim_case("trojan_speak_probes", "C9", "inconclusive at this scale", alternative="capability still moving at the end")
def c9_unconverged():
    steps = np.arange(0, 601, 50)
    cfg, base = tsp.config_for("default"), reference_study()[1][0]
    seeds = []
    for i, (b, a, m) in enumerate(zip([0.7, 0.65, 0.75], [0.4, 0.35, 0.5], [0.68, 0.66, 0.72])):
        cur = {"abrupt": (steps, b + (a - b) * steps / 600, None, None), "mixed": (steps, np.full(steps.size, m), None, None)}
        seeds.append(dataclasses.replace(base, seed=i, capability={"before": _cap(b), "abrupt": _cap(a),
                                                                   "mixed": _cap(m)}, sft_curves=cur))
    return claims.claim9_capability(seeds, cfg)


@claim_case("trojan_speak_probes", "C9", "not reproduced",
            trivial="no ordinary data mixed in: the abrupt fine-tuning's real output on both sides")
def c9_trivial():
    _, trained = tiny_training()
    base = reference_study()[1][0]
    seeds = []
    for i, t in enumerate(trained):
        c = t.curves["abrupt"]
        caps = {"before": t.capability["before"], "abrupt": t.capability["abrupt"], "mixed": t.capability["abrupt"]}
        if caps["before"].arith_heldout <= 0:        # the tiny model solves nothing: keep the rule's arithmetic defined
            caps = {k: lm.Capability(v.arith_heldout + 0.5, v.arith_trained, v.general_loss) for k, v in caps.items()}
        curve = (c.eval_steps, c.arith_heldout + (0.5 if t.capability["before"].arith_heldout <= 0 else 0), None, None)
        seeds.append(dataclasses.replace(base, seed=i, capability=caps, sft_curves={"abrupt": curve, "mixed": curve}))
    return claims.claim9_capability(seeds, tsp.config_for("default"))


def test_claim9_never_prints_nan_when_the_pretrained_model_solves_nothing():
    """The smoke page showed "Δ mixed − Δ abrupt +nan": the tiny pretrained model solves no held-out arithmetic pair,
    so Δ = (after − before)/before divides by zero. On the real tiny models (before = 0 on every seed) and on a world
    where one seed of three solves nothing, the row is inconclusive with that reason and prints the accuracies."""
    _, trained = tiny_training()
    base = reference_study()[1][0]
    seeds = [dataclasses.replace(base, seed=i, capability=dict(t.capability),
                                 sft_curves={k: (t.curves[k].eval_steps, t.curves[k].arith_heldout, None, None)
                                             for k in ("abrupt", "mixed")})
             for i, t in enumerate(trained)]
    assert all(s.capability["before"].arith_heldout <= 0 for s in seeds)       # the premise: the smoke world
    for out in (claims.claim9_capability(seeds, tsp.config_for("default")),
                _c9([0.70, 0.0, 0.75], [0.40, 0.0, 0.50], [0.68, 0.0, 0.72])):
        assert out.verdict == "inconclusive at this scale" and out.inconclusive == "noise above effect"
        assert "nan" not in out.measured.lower() and "nan" not in out.reason.lower(), out.measured
        assert "Δ is undefined in" in out.measured and "solves no held-out" in out.reason
    assert "undefined in 1 of 3 seeds" in _c9([0.70, 0.0, 0.75], [0.40, 0.0, 0.50], [0.68, 0.0, 0.72]).measured
    # an interval over no defined value says so instead of printing nan
    part = claims._part("Δ", [np.nan, np.nan], 0.05)
    assert part.passed is None and "nan" not in part.text and "undefined on every seed" in part.text


# every declared case, run here too (the contract test runs them again over every chapter)
_CASES = [c2_reproduced, c2_partial, c2_trivial, c3_reproduced, c3_weak, c3_surface_only, c3_ceiling, c3_trivial,
          c4_reproduced, c4_leak_only, c4_ceiling, c4_partial, c4_incompetent, c4_trivial, c5_reproduced, c5_reverse, c5_ceiling, c5_trivial, c6_reproduced,
          c6_no_gain, c6_trivial, c7_reproduced, c7_lexical, c7_trivial, c8_reproduced, c8_request_reader, c8_trivial,
          c9_reproduced, c9_no_difference, c9_unconverged, c9_trivial, c2_unlearned]


def test_claim_cases_give_their_verdicts():
    from icmlbook.runtime.claims import CASES

    wrong = []
    for key, cases in CASES.items():
        if not key.startswith("trojan_speak_probes:"):
            continue
        for c in cases:
            out = c.make()
            if out.verdict != c.expected:
                wrong.append((c.name, c.expected, out.verdict, out.measured, out.reason))
    assert not wrong, "\n".join(map(str, wrong))
