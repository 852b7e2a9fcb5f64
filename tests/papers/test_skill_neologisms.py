"""Tests of icmlbook.papers.skill_neologisms (Berthon, Astorga & van der Schaar, "Skill Neologisms", arXiv 2605.04970).

Independent checks: the operations on hand-worked examples and their identities; the generators' exclusions
(held-out lengths and orders never in a training set; one S and one T in every partner item); the skill tokens'
mechanics (base weights bitwise unchanged, gradients only on the new rows, weight decay never touching frozen
rows, a skill whose row is an existing operation's embedding reproducing that operation exactly); peft's LoRA
against the low-rank update computed by hand; batched greedy decoding against one item at a time and against the
teacher-forced argmax; the pluggable Hugging Face path on a tiny random config; bad input; determinism; and the
claim rules both ways and on the real output of the nearest trivial method (a tiny base trained here).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
import torch

from icmlbook.lm import lm_loss
from icmlbook.papers import skill_neologisms as sn
from icmlbook.papers.skill_neologisms import claims, digits as D, evaluate as E, experiments as ex, skills as S
from icmlbook.papers.skill_neologisms import training as T
from icmlbook.runtime.claims import claim_case

V = D.DigitVocab()


# ------------------------------------------------------------------------------------------------ operations
@pytest.mark.parametrize("ops, digits, expected", [
    (["ADD", "REVERSE"], "3141", "2524"),          # the dossier's example: 3141 -> 4252 -> 2524
    (["ASC"], "52918", "12589"),
    (["DESC"], "52918", "98521"),
    (["SUB"], "1090", "0989"),
    (["POLARITY"], "123456", "101010"),
    (["INVERT_POLARITY"], "123456", "010101"),
    (["SHIFT_RIGHT"], "12345", "51234"),
    (["REVERSE"], "12345", "54321"),
    (["ID"], "907", "907"),
    (["ADD"], "999", "000"),
    (["SHIFT_RIGHT", "SHIFT_RIGHT"], "1234", "3412"),
    (["ASC", "ADD", "REVERSE"], "3190", "0421"),   # 0139 -> 1240 -> 0421
])
def test_operations_on_hand_examples(ops, digits, expected):
    assert D.apply_ops_str(ops, digits) == expected


def test_operation_identities_on_random_strings():
    rng = np.random.default_rng(0)
    for L in range(1, 10):
        for _ in range(20):
            s = "".join(map(str, rng.integers(0, 10, L)))
            assert D.apply_ops_str(["ADD", "SUB"], s) == s
            assert D.apply_ops_str(["SUB", "ADD"], s) == s
            assert D.apply_ops_str(["REVERSE", "REVERSE"], s) == s
            assert D.apply_ops_str(["SHIFT_RIGHT"] * L, s) == s                    # L rotations: identity
            pol, inv = D.apply_ops_str(["POLARITY"], s), D.apply_ops_str(["INVERT_POLARITY"], s)
            assert all(a != b and a in "01" and b in "01" for a, b in zip(pol, inv))   # complements
            assert D.apply_ops_str(["ADD", "POLARITY"], s) == inv                   # (d+1) mod 2 = 1 - d mod 2
            assert D.apply_ops_str(["ASC"], s) == "".join(sorted(s))
            assert D.apply_ops_str(["DESC"], s) == "".join(sorted(s, reverse=True))


def test_vectorised_ops_match_the_string_version_with_ragged_lengths():
    rng = np.random.default_rng(1)
    b = D.sample_pretraining(rng, 300, D.OPS, (1, 2, 3), (2, 3, 4, 6, 9))
    for i, text in enumerate(b.texts()):
        L = int(b.lengths[i])
        names = [D.OPS[o] for o in b.ops[i] if o >= 0]
        digits = "".join(map(str, b.digits[i, :L]))
        assert text.endswith("=" + D.apply_ops_str(names, digits))


# ------------------------------------------------------------------------------------------------ generators
def test_pretraining_never_shows_heldout_lengths_or_orders():
    rng = np.random.default_rng(2)
    held = D.heldout_orders(D.PRETRAIN_OPS, 0.25, seed=3)
    assert len(held) == round(0.25 * 7 * 6 * 5)
    b = D.sample_pretraining(rng, 4000, D.PRETRAIN_OPS, (1, 2, 3), (2, 3, 4, 6, 8), held)
    assert set(np.unique(b.lengths)) == {2, 3, 4, 6, 8}
    seen = {tuple(D.OPS[o] for o in row if o >= 0) for row in b.ops}
    assert not (seen & held)
    threes = {s for s in seen if len(s) == 3}
    assert len(threes) == 210 - len(held)                                      # every other order does appear
    assert all(len(set(s)) == len(s) for s in seen)                            # distinct operations per sample
    assert not np.isin(b.ops, [D.op_index(o) for o in D.NEW_OPS]).any()


def test_skill_centred_set_holds_the_skill_once_and_never_T():
    rng = np.random.default_rng(4)
    others = [o for o in D.PRETRAIN_OPS if o != "ADD"]
    b = D.sample_skill_centred(rng, 3000, "SHIFT_RIGHT", others, (1, 2, 3), (2, 3, 4, 6, 8))
    s, t = D.op_index("SHIFT_RIGHT"), D.op_index("ADD")
    assert np.all((b.ops == s).sum(1) == 1) and not np.any(b.ops == t)
    assert set(np.unique(b.n_ops)) == {1, 2, 3}
    assert not np.isin(b.lengths, [5, 7]).any()
    pos = np.argmax(b.ops == s, axis=1)[b.n_ops == 3]
    assert set(np.unique(pos)) == {0, 1, 2}                                    # shuffled order


def test_noisy_labels_apply_another_op_but_keep_the_label():
    rng = np.random.default_rng(5)
    others = ("ADD", "SUB")
    b = D.sample_skill_centred(rng, 2000, "INVERT_POLARITY", others, (1,), (4,), corrupt=0.3)
    clean = D.apply_ops(b.ops, b.digits, b.lengths)
    wrong = np.any(clean[:, :4] != b.results[:, :4], axis=1)
    assert 0.25 < wrong.mean() < 0.35                                          # ADD/SUB never equal INVERT_POLARITY
    assert np.all(b.ops[:, 0] == D.op_index("INVERT_POLARITY"))


def test_partner_sets_have_one_S_one_T_and_every_pattern_and_length():
    rng = np.random.default_rng(6)
    others = [o for o in D.PRETRAIN_OPS if o != "REVERSE"]
    sets = D.partner_test_sets(rng, "SHIFT_RIGHT", "REVERSE", others, range(2, 10), 8)
    assert {k for k, _, _ in sets} == {2, 3} and {L for _, L, _ in sets} == set(range(2, 10))
    assert {p for k, _, p in sets if k == 2} == {"S_T", "T_S"}
    assert {p for k, _, p in sets if k == 3} == {"S_T_X", "S_X_T", "T_S_X", "T_X_S", "X_S_T", "X_T_S"}
    s, t = D.op_index("SHIFT_RIGHT"), D.op_index("REVERSE")
    fillers = set()
    for (k, L, pat), b in sets.items():
        assert len(b) == 8 and np.all(b.lengths == L)
        assert np.all((b.ops == s).sum(1) == 1) and np.all((b.ops == t).sum(1) == 1)
        for col, sym in enumerate(pat.split("_")):
            if sym == "X":
                fillers |= set(b.ops[:, col].tolist())
    assert len(fillers) > 2                                                     # the filler is drawn per item


# ------------------------------------------------------------------------------------------------ encoding
def test_encoding_places_answer_mask_on_result_and_eos():
    b = D.parse_typed(["ADD", "REVERSE"], "3141")
    e = D.encode(b, V)
    ids = e.ids[0].tolist()
    assert ids[0] == V.bos and ids[1:3] == [V.op_id("ADD"), V.op_id("REVERSE")] and ids[7] == V.eq
    assert V.tokenizer.decode(ids) == "<bos>[ADD][REVERSE]3141=2524<eos>"
    assert e.targets[0, e.loss_mask[0]].tolist() == [V.digit_ids[d] for d in (2, 5, 2, 4)] + [V.eos]
    ins = D.encode(b, V, insert={"ADD": [40, 41, 42]}, prefix=[50])
    assert ins.ids[0, :6].tolist() == [V.bos, 50, 40, 41, 42, V.op_id("REVERSE")]
    assert int(ins.prompt_len[0]) == int(e.prompt_len[0]) + 3


def test_random_pads_keep_the_answer_and_only_add_pads():
    rng = np.random.default_rng(7)
    b = D.sample_pretraining(rng, 200, D.PRETRAIN_OPS, (1, 2, 3), (2, 4))
    plain, padded = D.encode(b, V), D.encode(b, V, pads=D.random_pads(rng, b, 4, 0.5, 6))
    for i in range(len(b)):
        p = [t for t in padded.ids[i].tolist() if t != V.pad]
        q = [t for t in plain.ids[i].tolist() if t != V.pad]
        assert p == q
        assert padded.targets[i, padded.loss_mask[i]].tolist() == plain.targets[i, plain.loss_mask[i]].tolist()
    assert (padded.ids == V.pad).sum() > (plain.ids == V.pad).sum()


# ------------------------------------------------------------------------------------------------ a small model
@functools.lru_cache(maxsize=1)
def small_gpt() -> sn.training.GPT:
    torch.manual_seed(0)
    g = T.build_gpt(V, 32, 2, 4)
    with torch.no_grad():                               # a spread-out random table so that rows differ clearly
        g.tok.weight.normal_(0, 1.0)
    return g.eval()


def test_new_rows_are_the_only_trainable_parameters_and_base_stays_bitwise_equal():
    g = small_gpt()
    before = S.weights_digest(g)
    m = S.SkilledLM(g, [S.Skill("SHIFT_RIGHT", S.init_rows(g, V, 3))])
    assert [p for p in m.parameters() if p.requires_grad] == m.trainable()
    assert m.trainable()[0].shape == (3, 32) and m.ids["SHIFT_RIGHT"] == [V.size, V.size + 1, V.size + 2]
    frozen = {k: v.clone() for k, v in m.gpt.state_dict().items() if not k.endswith("tok.extra")}
    opt = torch.optim.AdamW(m.trainable(), lr=0.1, weight_decay=0.5)
    b = D.sample_skill_centred(np.random.default_rng(0), 16, "SHIFT_RIGHT", ["ADD", "SUB"], (1, 2), (3, 4))
    e = m.encode(b, V, require=("SHIFT_RIGHT",))
    rows0 = m.rows("SHIFT_RIGHT").detach().clone()
    for _ in range(3):
        opt.zero_grad()
        T.answer_loss(m, (e.ids, e.targets, e.loss_mask)).backward()
        assert m.gpt.tok.weight.grad is None                                    # no gradient outside the new rows
        assert all(p.grad is None for n, p in m.named_parameters() if not n.endswith("tok.extra"))
        opt.step()
    assert not torch.equal(m.rows("SHIFT_RIGHT"), rows0)
    for k, v in m.gpt.state_dict().items():
        if not k.endswith("tok.extra"):
            assert torch.equal(v, frozen[k]), k                                  # weight decay never touched them
    assert m.base_digest() == before == S.weights_digest(g)


def test_full_table_gradient_is_zero_outside_new_rows():
    """The joined lookup's gradient with respect to the whole table [E; e_S] is zero on every base row (the
    paper's masking view), checked with an explicit table that requires gradients."""
    g = small_gpt()
    m = S.SkilledLM(g, [S.Skill("INVERT_POLARITY", S.init_rows(g, V, 2))])
    table = m.gpt.tok.table.detach().clone().requires_grad_(True)
    b = D.sample_skill_centred(np.random.default_rng(1), 8, "INVERT_POLARITY", ["ID"], (1, 2), (3,))
    e = m.encode(b, V, require=("INVERT_POLARITY",))
    x = torch.nn.functional.embedding(e.ids, table)
    # run the rest of the model by hooking the embedding output
    handle = m.gpt.tok.register_forward_hook(lambda mod, inp, out: x)
    try:                                 # one full-width pass (answer_loss cuts the batch, the hook returns it whole)
        lm_loss(m(e.ids), e.targets, e.loss_mask).backward()
    finally:
        handle.remove()
    g_table = table.grad
    used_base = sorted(set(e.ids.flatten().tolist()) & set(range(V.size)))
    assert g_table[used_base].abs().sum() > 0                                   # base rows would move if trainable
    assert g_table[V.size:].abs().sum() > 0
    # ... but the model's own parameters give gradient only to the new rows
    m.zero_grad()
    T.answer_loss(m, (e.ids, e.targets, e.loss_mask)).backward()
    assert m.gpt.tok.extra.grad is not None and m.gpt.tok.weight.grad is None


def test_skill_with_an_existing_ops_row_reproduces_that_op_exactly():
    g = small_gpt()
    add_row = g.tok.weight.detach()[V.op_id("ADD")][None, :]
    m = S.SkilledLM(g, [S.Skill("SHIFT_RIGHT", add_row)])
    rng = np.random.default_rng(3)
    items = D.sample_skill_centred(rng, 40, "SHIFT_RIGHT", ["SUB", "REVERSE"], (1, 2, 3), (3, 5))
    as_add = dataclasses.replace(items, ops=np.where(items.ops == D.op_index("SHIFT_RIGHT"), D.op_index("ADD"), items.ops))
    e_skill, e_add = m.encode(items, V), D.encode(as_add, V)
    assert torch.equal(m(e_skill.ids)[..., :V.size], g(e_add.ids))              # identical logits
    a = E.decode_answers(m, items, lambda b, answer=True: m.encode(b, V, answer), V, m.new_ids)
    b = E.decode_answers(g, as_add, lambda b, answer=True: D.encode(b, V, answer=answer), V)
    assert a == b


def test_skill_rows_save_load_and_several_skills_at_once(tmp_path):
    g = small_gpt()
    a = S.Skill("SHIFT_RIGHT", torch.randn(3, 32))
    b = S.Skill("INVERT_POLARITY", torch.randn(2, 32))
    path = a.save(tmp_path / "shift.pt")
    loaded = S.Skill.load(path, width=32)
    assert loaded.name == a.name and torch.equal(loaded.rows, a.rows)
    m = S.SkilledLM(g, [loaded, b])
    assert m.ids == {"SHIFT_RIGHT": [V.size, V.size + 1, V.size + 2], "INVERT_POLARITY": [V.size + 3, V.size + 4]}
    assert torch.equal(m.export("INVERT_POLARITY").rows, b.rows)
    item = D.parse_typed(["SHIFT_RIGHT", "INVERT_POLARITY"], "2718")
    ids = m.encode(item, V).ids[0, :6].tolist()
    assert ids == [V.bos, *m.ids["SHIFT_RIGHT"], *m.ids["INVERT_POLARITY"]]
    with pytest.raises(ValueError, match="width 16"):
        S.Skill.load(path, width=16)


def test_tied_head_new_logits_are_zeroed_at_decoding():
    g = small_gpt()
    big = S.Skill("SHIFT_RIGHT", 50 * torch.ones(2, 32))                       # rows that would dominate the logits
    m = S.SkilledLM(g, [big])
    item = D.parse_typed(["SHIFT_RIGHT"], "1234")
    enc = lambda b, answer=True: m.encode(b, V, answer)  # noqa: E731
    e = enc(item, answer=False)
    from icmlbook.lm import generate
    raw = generate(m, e.ids, 5)
    zeroed = generate(m, e.ids, 5, zeroed=m.new_ids)
    assert set(raw[0].tolist()) & set(m.new_ids)                                 # unmasked, it emits skill tokens
    assert not set(zeroed[0].tolist()) & set(m.new_ids)
    logits = m(e.ids)[0, -1].clone()
    logits[m.new_ids] = 0.0
    assert int(zeroed[0, 0]) == int(logits.argmax())


# ------------------------------------------------------------------------------------------------ LoRA
def test_peft_lora_output_equals_the_low_rank_update_by_hand():
    g = small_gpt()
    lora = T.attach_lora(g, r=4, alpha=8.0)
    trainable = [n for n, p in lora.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in n for n in trainable)
    layer = lora.blocks[0].attn.q
    with torch.no_grad():
        layer.lora_B["default"].weight.normal_(0, 0.3)                          # B = 0 at the start: make it bite
    x = torch.randn(5, 32)
    A, B = layer.lora_A["default"].weight, layer.lora_B["default"].weight
    W = g.blocks[0].attn.q.weight
    by_hand = x @ W.T + (8.0 / 4) * (x @ A.T) @ B.T
    torch.testing.assert_close(layer(x), by_hand, rtol=1e-5, atol=1e-6)
    eff = T.effective_state(lora)
    torch.testing.assert_close(eff["blocks.0.attn.q.weight"], W + 2.0 * B @ A, rtol=1e-5, atol=1e-6)
    assert S.weights_digest(eff) != S.weights_digest(g)
    assert S.weights_digest(T.effective_state(T.attach_lora(g, 4, 8.0))) == S.weights_digest(g)   # B = 0: same weights


# ------------------------------------------------------------------------------------------------ decoding
def test_batched_greedy_equals_one_by_one_and_teacher_forced():
    study = tiny()
    base = study["base"].model()
    u = study["studies"][0].units[("neologism", study["cfg"].test_ops[0])]
    m = S.SkilledLM(base, [S.Skill(u.skill, u.rows)])
    enc = lambda b, answer=True: m.encode(b, V, answer)  # noqa: E731
    rng = np.random.default_rng(8)
    cfg = study["cfg"]
    items = D.DigitBatch.concat([D.sample_skill_centred(rng, 60, u.skill, cfg.others(cfg.test_ops[0]), cfg.ks,
                                                        cfg.all_lengths),
                                 D.sample_pretraining(rng, 60, cfg.pretrain_ops, cfg.ks, cfg.train_lengths)])
    batched = E.greedy_exact(m, items, enc, V, m.new_ids)
    one = E.greedy_exact_one_by_one(m, items, enc, V, m.new_ids)
    forced = T.teacher_forced_exact(m, enc(items), m.new_ids)
    assert batched.any() and not batched.all()                 # a partly right model: the test can tell
    np.testing.assert_array_equal(batched, one)
    np.testing.assert_array_equal(batched, forced)


def test_teacher_forced_exact_by_length_buckets_equals_one_full_width_pass():
    """The length-bucketed check against the plain rule computed here on one full-width forward pass (argmax right
    at every answer position), on a mixed-length set; and the buckets cover every row once, each within 25 % of
    its narrowest row."""
    study = tiny()
    base = study["base"].model().eval()
    cfg = study["cfg"]
    rng = np.random.default_rng(3)
    items = D.DigitBatch.concat([D.sample_pretraining(rng, 80, cfg.pretrain_ops, cfg.ks, cfg.all_lengths)])
    e = D.encode(items, V)
    with torch.no_grad():
        full = base(e.ids).argmax(-1)
    by_hand = ((full == e.targets) | ~e.loss_mask).all(dim=1).numpy()
    assert by_hand.any() and not by_hand.all()
    np.testing.assert_array_equal(T.teacher_forced_exact(base, e), by_hand)
    widths = T._row_widths(e)
    assert widths.min() < e.ids.shape[1]                        # mixed lengths: something is cut
    buckets = T._width_buckets(widths)
    assert len(buckets) > 1
    np.testing.assert_array_equal(np.sort(np.concatenate(buckets)), np.arange(len(items)))
    for b in buckets:
        assert widths[b].max() <= 1.25 * widths[b].min()
    for i in range(len(items)):                                  # nothing after the last answer target is needed
        assert not bool(e.loss_mask[i, widths[i]:].any()) and bool(e.loss_mask[i, widths[i] - 1])


def test_answer_loss_split_by_width_equals_one_full_width_pass():
    """The training loss, run as two width-cut parts, against the plain masked cross-entropy computed here on one
    full-width forward pass of the same batch (value and every gradient, to float rounding), on a padded
    pretraining batch of mixed lengths and on a neologism's batch (gradients reach only its rows); and the split
    covers every row once and computes fewer positions than the full width."""
    torch.manual_seed(0)
    g = T.build_gpt(V, 32, 2, 4)
    rng = np.random.default_rng(5)
    items = D.sample_pretraining(rng, 96, ("ADD", "SUB", "REVERSE"), (1, 2), (2, 3, 4, 6, 8))
    e = D.encode(items, V, pads=D.random_pads(rng, items, 3, 0.3, 4))
    neo = T.make_adapter("neologism", g, V, "SHIFT_RIGHT", length=3)
    e_neo = neo.encode_fn(D.sample_skill_centred(rng, 64, "SHIFT_RIGHT", ("ADD", "SUB", "REVERSE"), (1, 2, 3),
                                                 (2, 3, 4, 6, 8)))
    for model, enc in ((g, e), (neo.model, e_neo)):
        widths = T._loss_widths(enc.loss_mask)
        parts = T._two_width_split(widths)
        assert len(parts) == 2
        np.testing.assert_array_equal(np.sort(np.concatenate(parts)), np.arange(enc.ids.shape[0]))
        assert sum(len(p) * widths[p].max() for p in parts) < 0.9 * enc.ids.numel()
        params = [p for p in model.parameters() if p.requires_grad]
        logits = model(enc.ids)                                   # by hand: every position, one pass
        ce = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), enc.targets.reshape(-1),
                                               reduction="none").reshape(enc.ids.shape)
        ref = (ce * enc.loss_mask).sum() / enc.loss_mask.sum()
        ref_grads = torch.autograd.grad(ref, params)
        loss = T.answer_loss(model, (enc.ids, enc.targets, enc.loss_mask))
        grads = torch.autograd.grad(loss, params)
        assert torch.allclose(loss, ref, rtol=1e-5, atol=1e-6)
        for a, b in zip(grads, ref_grads):
            assert torch.allclose(a, b, rtol=1e-4, atol=1e-7)
        assert any(float(b.abs().max()) > 1e-4 for b in ref_grads)  # gradients that could differ


def test_wilson_interval_against_closed_form():
    k, n, z = 37, 50, 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    lo, hi = E.wilson_interval(k, n)
    assert np.isclose(lo, centre - half) and np.isclose(hi, centre + half)


# ------------------------------------------------------------------------------------------------ bad input
def test_bad_inputs_fail_with_errors_naming_the_problem():
    g = small_gpt()
    no_marker = D.sample_pretraining(np.random.default_rng(0), 4, ("ADD",), (1,), (3,))
    m = S.SkilledLM(g, [S.Skill("SHIFT_RIGHT", torch.zeros(1, 32))])
    with pytest.raises(ValueError, match=r"skill marker \[SHIFT_RIGHT\]"):
        m.encode(no_marker, V, require=("SHIFT_RIGHT",))
    with pytest.raises(ValueError, match="length=0"):
        S.init_rows(g, V, 0)
    with pytest.raises(ValueError, match="ell=0"):
        sn.config_for("smoke", ell=0)
    with pytest.raises(ValueError, match="test_op='SHIFT_RIGHT'"):
        D.partner_test_sets(np.random.default_rng(0), "SHIFT_RIGHT", "SHIFT_RIGHT", ["ADD"], (3,), 2)
    with pytest.raises(ValueError, match="test_ops"):
        sn.config_for("smoke", test_ops=("SHIFT_RIGHT",))
    with pytest.raises(ValueError, match="test_op='ASC'"):
        sn.config_for("smoke").others("ASC")                                      # not among smoke's pretrain ops
    with pytest.raises(ValueError, match="digits='12a4'"):
        D.parse_typed(["ADD"], "12a4")
    with pytest.raises(ValueError, match="length 11"):
        D.parse_typed(["ADD"], "12345678901", lengths=range(2, 9))
    with pytest.raises(ValueError, match="wrong width"):
        S.SkilledLM(g, [S.Skill("SHIFT_RIGHT", torch.zeros(2, 16))])
    with pytest.raises(ValueError, match="two skills under one name"):
        S.SkilledLM(g, [S.Skill("SHIFT_RIGHT", torch.zeros(1, 32)), S.Skill("SHIFT_RIGHT", torch.zeros(2, 32))])
    with pytest.raises(ValueError, match="operation 'ROTATE'"):
        D.op_index("ROTATE")
    with pytest.raises(ValueError, match="method='adapter'"):
        T.make_adapter("adapter", g, V, "SHIFT_RIGHT", length=2)
    with pytest.raises(ValueError, match="init='zeros'"):
        S.init_rows(g, V, 2, init="zeros")


# ------------------------------------------------------------------------------------------------ the pluggable HF path
def test_hf_path_on_a_tiny_random_transformers_model():
    transformers = pytest.importorskip("transformers")
    from icmlbook.papers.skill_neologisms.hf_path import HFSkillAdapter

    torch.manual_seed(0)
    cfg = transformers.Qwen2Config(vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                                   tie_word_embeddings=True)
    model = transformers.Qwen2ForCausalLM(cfg).eval()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    ad = HFSkillAdapter(model)
    ids = ad.add_skill("SHIFT_RIGHT", 3, init="mean", init_ids=[5, 6, 7])
    assert ids == [50, 51, 52]
    assert model.get_output_embeddings().weight.shape[0] == 53                    # resized (tied head)
    torch.testing.assert_close(ad.rows("SHIFT_RIGHT"), before["model.embed_tokens.weight"][[5, 6, 7]].mean(0).expand(3, 32))
    ids2 = ad.add_skill("INVERT_POLARITY", 2, init="random")
    assert ids2 == [53, 54] and ad.trainable()[0].shape == (5, 32)
    opt = torch.optim.AdamW(ad.trainable(), lr=0.05, weight_decay=0.5)
    x = torch.tensor([[1, 50, 51, 52, 9, 10, 53, 54, 11, 12]])
    for _ in range(2):
        opt.zero_grad()
        logits = model(input_ids=x).logits
        assert logits.shape == (1, 10, 55)
        assert torch.all(logits[..., 50:] == 0)                                   # the new ids are never emitted
        loss = torch.nn.functional.cross_entropy(logits[0, :-1, :50], x[0, 1:].clamp(max=49))
        loss.backward()
        grads = [n for n, p in model.named_parameters() if p.grad is not None and p.grad.abs().sum() > 0]
        assert grads == ["model.embed_tokens.extra"]                               # gradient only on the new rows
        opt.step()
    after = model.state_dict()
    for k, v in before.items():
        if k in after and after[k].shape == v.shape:
            assert torch.equal(after[k], v), k                                      # frozen, weight decay included
    assert torch.equal(after["model.embed_tokens.base.weight"][:50], before["model.embed_tokens.weight"])
    with pytest.raises(ValueError, match="two skills under one name"):
        ad.add_skill("SHIFT_RIGHT", 1, init="random")
    with pytest.raises(ValueError, match="wrong width"):
        ad.load_rows("INVERT_POLARITY", torch.zeros(2, 16))


# ------------------------------------------------------------------------------------------------ determinism, config
def test_same_seed_same_base_and_units():
    cfg = tiny()["cfg"]
    a, b = ex.pretrain(cfg, 3), ex.pretrain(cfg, 3)
    assert all(torch.equal(a.state[k], b.state[k]) for k in a.state)
    u1 = ex.evaluate_unit(cfg, a, 3, "SHIFT_RIGHT", cfg.test_ops[0], "neologism")
    u2 = ex.evaluate_unit(cfg, b, 3, "SHIFT_RIGHT", cfg.test_ops[0], "neologism")
    assert torch.equal(u1.rows, u2.rows) and u1.partner == u2.partner and np.array_equal(u1.curve_in, u2.curve_in)


def test_profiles_and_derived_sets():
    for p in ("smoke", "default", "full"):
        c = sn.config_for(p)
        assert not set(c.train_lengths) & set(c.heldout_lengths)
        assert set(c.all_lengths) == set(c.train_lengths) | set(c.heldout_lengths)
        assert all(t in c.pretrain_ops for t in c.test_ops)
        assert claims.THRESHOLDS == {f: getattr(c, f) for f in claims.THRESHOLDS}
    with pytest.raises(ValueError, match="acquisition_bar=0.5 is not allowed here"):
        claims.check_thresholds(sn.config_for("smoke", acquisition_bar=0.5))
    with pytest.raises(ValueError, match="heldout_lengths"):
        sn.config_for("smoke", heldout_lengths=(2,))


# ------------------------------------------------------------------------------------------------ the claims
@functools.lru_cache(maxsize=1)
def tiny() -> dict:
    """(Its base does not pass claim 1's plateau test at 400 updates, nor at 800: 0.35 and 0.08 nats against 0.033, so
    every rule's row on it is inconclusive behind :func:`claims.base_gate`; the trivial cases declare that, and the
    rules' "not reproduced" paths are checked by the alternative worlds.)
    A tiny real run (smoke's operations, lengths 2-4, no pads, a base that learns its operations in 400 updates,
    30 updates per method, two held-out partners T so that the rules pooling units see four: with two, one unit's
    chance hits (at length 2 SHIFT_RIGHT is REVERSE, so the frozen base's literal token is sometimes right) made the
    t-interval span every bar): the base, both skills' studies, compositions, competence, keyword analogue, and the
    untrained GPT's competence and keyword analogue (the trivial methods' real output)."""
    torch.set_num_threads(1)
    cfg = sn.config_for("smoke", test_ops=("ADD", "SUB"), max_len=4, heldout_lengths=(3,), d_model=64, pre_steps=400,
                        pre_warmup=40, pad_left=0,
                        pad_prob=0.0, adapt_steps=30, adapt_warmup=5, val_size=40, forget_size=40, competence_n=30,
                        keyword_n=20, comp_n_per=4, n_per_group=3)
    base = ex.pretrain(cfg, 0)
    studies = [ex.skill_study(cfg, base, 0, s) for s in cfg.skills]
    t = cfg.test_ops[0]

    def comp(which):
        return ex.composition(cfg, base, 0, {st.skill: st.units[("neologism", t)].rows for st in studies}, t)

    torch.manual_seed(0)
    g = T.build_gpt(V, cfg.d_model, cfg.n_layer, cfg.n_head)
    random_base = T.BaseModel(g.cfg, {k: v.clone() for k, v in g.state_dict().items()}, base.ops, np.zeros(0),
                              np.zeros(0), 0.0)
    untrained = {st.skill: st.ablations["untrained"].rows for st in studies}   # the same rows for every T
    comp_untrained = [ex.composition(cfg, base, 0, untrained, tt) for tt in ("ADD", "SUB")]
    return {"cfg": cfg, "base": base, "studies": studies, "comp": [comp("main")], "comp_untrained": comp_untrained,
            "competence": ex.competence(cfg, base, 0), "competence_random": ex.competence(cfg, random_base, 0),
            "keyword": ex.keyword_analogue(cfg, base, 0), "keyword_random": ex.keyword_analogue(cfg, random_base, 0)}


def _swap(studies, replace: dict) -> list:
    """Copies of ``studies`` whose grid units of method m are replaced by ``replace[m](study, T)``."""
    out = []
    for st in studies:
        units = dict(st.units)
        for (m, t) in list(units):
            if m in replace:
                units[(m, t)] = replace[m](st, t)
        out.append(ex.SkillStudy(st.seed, st.skill, units, dict(st.ablations), st.competence))
    return out


# synthetic units carrying the spread of the real runs
_CFG = sn.config_for("default")
_STEPS = np.array(sorted({0, *[round(_CFG.adapt_steps * f / 6) for f in range(1, 7)],
                          round(_CFG.adapt_steps / (1 + _CFG.plateau_extend))}))
_N = 300


def _acc(p: float, n: int = _N) -> E.Accuracy:
    return E.Accuracy(int(round(min(max(p, 0.0), 1.0) * n)), n)


def _curve(final: float, tau: float) -> np.ndarray:
    return final * (1 - np.exp(-_STEPS / tau))


def _unit(method, skill, t, seed, *, inn, partner, held=None, orig=0.0, tau=30.0, changed=None, partner3=None,
          orig_power=None):
    partner3 = partner if partner3 is None else partner3
    pats = {(2, L, p): _acc(partner, 16) for L in _CFG.all_lengths for p in D.partner_patterns(2)}
    pats.update({(3, L, p): _acc(partner3, 16) for L in _CFG.all_lengths for p in D.partner_patterns(3)})
    trained = method not in ("base", "oracle")
    changed = (method in ("lora", "full_ft")) if changed is None else changed
    return ex.UnitResult(method, skill, t, seed, _CFG.ell, "mean_ops", 0.0, 0, {1: _acc(inn), 2: _acc(inn), 3: _acc(inn)},
                         _acc(inn if held is None else held), pats, _acc(0.9 + orig), _acc(0.9), _STEPS if trained else
                         np.zeros(0, int), _curve(inn, tau) if trained else np.zeros(0),
                         _curve(partner, tau) if trained else np.zeros(0), np.zeros(0, int), np.zeros(0), "a",
                         "b" if changed else "a", 0.0, None, None,
                         (0.9 + (_curve(orig, tau) if orig_power is None else orig * (_STEPS / _STEPS[-1]) ** orig_power))
                         if trained else np.zeros(0))


def _world(noise: float = 1.0, seed: int = 0, **spec) -> list:
    """Studies on 2 skills x 2 T x 2 seeds (the default grid). ``spec[method] = dict(inn=, partner=, ...)`` gives
    each method's mean numbers. Noise, times ``noise``: every unit (skill, T, base seed) shifts all its methods'
    accuracies together (sd 0.06 in distribution, 0.08 on the partner test: skills and bases differ), and each
    method of the unit moves on its own by sd 0.02 (in distribution) and 0.03 (partner): the methods of a unit see
    the same training stream and the same test items, so paired differences carry only the latter (about the
    binomial error of ~450 partner items)."""
    rng = np.random.default_rng(seed)
    studies = []
    for s_seed in (0, 1):
        for skill in D.NEW_OPS:
            units, abl = {}, {}
            shared = {}
            for t in _CFG.test_ops:
                shared[t] = {"inn": 0.06 * rng.standard_normal(), "partner": 0.08 * rng.standard_normal(),
                             "held": 0.0, "orig": 0.0}
                shared[t]["held"] = shared[t]["inn"]
                for m, sp in spec.items():
                    if m.startswith("abl:"):
                        continue
                    units[(m, t)] = _unit(m, skill, t, s_seed, **_jitter(sp, shared[t], noise, rng))
            for name, sp in spec.items():
                if name.startswith("abl:"):
                    abl[name[4:]] = _unit("neologism", skill, _CFG.test_ops[0], s_seed,
                                          **_jitter(sp, shared[_CFG.test_ops[0]], noise, rng))
            studies.append(ex.SkillStudy(s_seed, skill, units, abl, _competence(seed=s_seed)))
    return studies


def _jitter(sp: dict, shared: dict, noise: float, rng) -> dict:
    sp = dict(sp)
    own = {"inn": 0.02, "partner": 0.03, "held": 0.02, "orig": 0.01}
    for key, sd in own.items():
        if key in sp and sp[key] is not None and sp[key] != 0:
            sp[key] = sp[key] + noise * (shared[key] + sd * rng.standard_normal())
    return sp


_GOOD = {"base": dict(inn=0.0, partner=0.0), "neologism": dict(inn=0.95, partner=0.6, held=0.93),
         "prompt_tuning": dict(inn=0.6, partner=0.2), "lora": dict(inn=0.9, partner=0.35, orig=-0.15),
         "full_ft": dict(inn=0.93, partner=0.1, orig=-0.4),
         "abl:ell=1": dict(inn=0.8, partner=0.35), "abl:init=random": dict(inn=0.9, partner=0.55, tau=150.0),
         "abl:corrupt=0.2": dict(inn=0.93, partner=0.6)}


def _with(**changes) -> dict:
    spec = {k: dict(v) for k, v in _GOOD.items()}
    for key, val in changes.items():
        m, field = key.split("__")
        m = m.replace("abl_", "abl:").replace("ell1", "ell=1").replace("initrandom", "init=random").replace(
            "corrupt02", "corrupt=0.2")
        spec[m][field] = val
    return spec


# ---- C1
def _base_loss(falling: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A pretraining answer-loss curve logged every 15 of 1500 updates: on its plateau (time constant 100 updates),
    or still falling at the end (time constant 2000 updates: the last third moves it by about 0.3 nats)."""
    steps = np.arange(15, _CFG.pre_steps + 1, 15).astype(float)
    return steps, 0.05 + 2.0 * np.exp(-steps / (2000.0 if falling else 100.0))


def _competence(single=0.99, multi=0.9, held=0.85, literal=0.0, n=150, seed=0, falling=False):
    ops = _CFG.pretrain_ops
    return ex.Competence(seed, ops, {o: _acc(single, n) for o in ops}, {o: _acc(single, n) for o in ops},
                         {2: _acc(multi, n), 3: _acc(multi, n)}, _acc(held, n), {s: _acc(literal, n) for s in D.NEW_OPS},
                         *_base_loss(falling))


@claim_case("skill_neologisms", "C1", "reproduced")
def _c1_good():
    return claims.claim1_base_competence([_competence(seed=0), _competence(single=0.993, multi=0.88, seed=1)], _CFG)


@claim_case("skill_neologisms", "C1", "not reproduced", alternative="single operations learned, compositions not (0.3)")
def _c1_no_composition():
    return claims.claim1_base_competence([_competence(multi=0.3, held=0.2)], _CFG)


@claim_case("skill_neologisms", "C1", "not reproduced", alternative="the base already does the new skill (literal 0.4)")
def _c1_knows_skill():
    return claims.claim1_base_competence([_competence(literal=0.4)], _CFG)


@claim_case("skill_neologisms", "C1", "inconclusive at this scale",
            alternative="the composition bar missed by a base whose pretraining loss is still falling (as the smoke "
                        "preset's 200-update base: that is not shown, not evidence against)")
def _c1_unconverged_base():
    return claims.claim1_base_competence([_competence(multi=0.3, held=0.2, falling=True)], _CFG)


def test_c1_guard_reads_the_base_curve():
    assert claims.base_convergence(_competence()).converged
    assert not claims.base_convergence(_competence(falling=True)).converged
    # a converged base below the bars stays against the claim; a falling one that passes stays reproduced
    assert claims.claim1_base_competence([_competence(multi=0.3, held=0.2)], _CFG).verdict == "not reproduced"
    assert claims.claim1_base_competence([_competence(falling=True)], _CFG).verdict == "reproduced"


@claim_case("skill_neologisms", "C1", "not reproduced", trivial="an untrained GPT (random initialisation), decoded")
def _c1_trivial():
    return claims.claim1_base_competence([tiny()["competence_random"]], tiny()["cfg"])


# ---- C2
@claim_case("skill_neologisms", "C2", "reproduced")
def _c2_good():
    return claims.claim2_acquisition(_world(**_GOOD), _CFG)


@claim_case("skill_neologisms", "C2", "not reproduced", alternative="a neologism that learns half the skill (0.5)")
def _c2_half():
    return claims.claim2_acquisition(_world(**_with(neologism__inn=0.5)), _CFG)


@claim_case("skill_neologisms", "C2", "not reproduced", alternative="a method that changes the base's weights")
def _c2_changed():
    return claims.claim2_acquisition(_world(**_with(neologism__changed=True)), _CFG)


@claim_case("skill_neologisms", "C2", "inconclusive at this scale", alternative="a neologism still learning at the end")
def _c2_unconverged():
    return claims.claim2_acquisition(_world(**_with(neologism__tau=400.0)), _CFG)


@claim_case("skill_neologisms", "C2", "inconclusive at this scale", trivial="the frozen base with the literal op token")  # behind the base gate
def _c2_trivial_base():
    st = tiny()["studies"]
    return claims.claim2_acquisition(_swap(st, {"neologism": lambda s, t: s.units[("base", t)]}), tiny()["cfg"])


@claim_case("skill_neologisms", "C2", "inconclusive at this scale",
            trivial="the neologism's mean-of-operations rows, untrained")  # behind the base gate
def _c2_trivial_untrained():
    st = tiny()["studies"]
    return claims.claim2_acquisition(_swap(st, {"neologism": lambda s, t: s.ablations["untrained"]}), tiny()["cfg"])


@claim_case("skill_neologisms", "C2", "inconclusive at this scale",
            alternative="the same good numbers on a base below claim 1's bars")
def _c2_incompetent_base():
    studies = _world(**_GOOD)
    for st in studies:
        st.competence = _competence(single=0.3, multi=0.1, held=0.1, seed=st.seed)
    return claims.claim2_acquisition(studies, _CFG)


# ---- C3, C3b
@claim_case("skill_neologisms", "C3", "reproduced")
def _c3_good():
    return claims.claim3_transfer(_world(**_GOOD), _CFG)


@claim_case("skill_neologisms", "C3", "not reproduced", alternative="placement does not matter: prompt tuning as good")
def _c3_equal():
    return claims.claim3_transfer(_world(**_with(prompt_tuning__partner=0.6)), _CFG)


@claim_case("skill_neologisms", "C3", "not reproduced", alternative="nothing transfers (neologism 0.05, prompt 0.0)")
def _c3_nothing():
    return claims.claim3_transfer(_world(noise=0.2, **_with(neologism__partner=0.05, prompt_tuning__partner=0.0)), _CFG)


@claim_case("skill_neologisms", "C3", "inconclusive at this scale", trivial="untrained neologism rows against trained prompt tuning")  # behind the base gate
def _c3_trivial():
    st = tiny()["studies"]
    return claims.claim3_transfer(_swap(st, {"neologism": lambda s, t: s.ablations["untrained"]}), tiny()["cfg"])


@claim_case("skill_neologisms", "C3b", "reproduced")
def _c3b_good():
    return claims.claim3b_transfer_vs_lora(_world(**_GOOD), _CFG)


@claim_case("skill_neologisms", "C3b", "not reproduced", alternative="LoRA transfers as well (0.6)")
def _c3b_equal():
    return claims.claim3b_transfer_vs_lora(_world(**_with(lora__partner=0.62)), _CFG)


@claim_case("skill_neologisms", "C3b", "inconclusive at this scale", trivial="untrained neologism rows against trained LoRA")  # behind the base gate
def _c3b_trivial():
    st = tiny()["studies"]
    return claims.claim3b_transfer_vs_lora(_swap(st, {"neologism": lambda s, t: s.ablations["untrained"]}),
                                           tiny()["cfg"])


# ---- C4
def _comp(both, alone_a, alone_b, seed, t, n=24):
    keys = [(L, o) for L in _CFG.all_lengths for o in ("SHIFT_RIGHT_INVERT_POLARITY", "INVERT_POLARITY_SHIFT_RIGHT")]
    return ex.Composition(seed, t, {k: _acc(both, n) for k in keys},
                          {"SHIFT_RIGHT": {k: _acc(alone_a, n) for k in keys},
                           "INVERT_POLARITY": {k: _acc(alone_b, n) for k in keys}})


def _comps(both, alone, sd=0.08, seed=0):
    rng = np.random.default_rng(seed)
    return [_comp(both + sd * rng.standard_normal(), alone + 0.02 * rng.standard_normal(), 0.02, s, t)
            for s in (0, 1) for t in _CFG.test_ops]


@claim_case("skill_neologisms", "C4", "reproduced")
def _c4_good():
    return claims.claim4_composition(_comps(0.7, 0.03), _world(**_GOOD), _CFG)


@claim_case("skill_neologisms", "C4", "not reproduced", alternative="the pair does no better than one skill")
def _c4_none():
    return claims.claim4_composition(_comps(0.06, 0.05), _world(**_GOOD), _CFG)


@claim_case("skill_neologisms", "C4", "inconclusive at this scale", trivial="the two neologisms' untrained mean-of-operations rows")  # behind the base gate
def _c4_trivial():
    st = _swap(tiny()["studies"], {"neologism": lambda s, t: s.ablations["untrained"]})
    return claims.claim4_composition(tiny()["comp_untrained"], st, tiny()["cfg"])


# ---- C5
@claim_case("skill_neologisms", "C5", "reproduced")
def _c5_good():
    return claims.claim5_lengths(_world(**_GOOD), _CFG)


@claim_case("skill_neologisms", "C5", "not reproduced", alternative="accuracy drops by 0.3 at unseen lengths")
def _c5_drop():
    return claims.claim5_lengths(_world(**_with(neologism__held=0.65)), _CFG)


@claim_case("skill_neologisms", "C5", "inconclusive at this scale", trivial="the frozen base with the literal op token (gap 0)")  # behind the base gate
def _c5_trivial():
    st = tiny()["studies"]
    return claims.claim5_lengths(_swap(st, {"neologism": lambda s, t: s.units[("base", t)]}), tiny()["cfg"])


# ---- C6
@claim_case("skill_neologisms", "C6a", "reproduced")
def _c6a_good():
    return claims.claim6a_length(_world(**_GOOD), _CFG)


@claim_case("skill_neologisms", "C6a", "not reproduced", alternative="one token does as well as ℓ")
def _c6a_same():
    return claims.claim6a_length(_world(**_with(abl_ell1__partner=0.6)), _CFG)


@claim_case("skill_neologisms", "C6a", "inconclusive at this scale", trivial="untrained mean-of-operations rows in both arms")  # behind the base gate
def _c6a_trivial():
    st = tiny()["studies"]
    t0 = tiny()["cfg"].test_ops[0]
    out = _swap(st, {"neologism": lambda s, t: s.ablations["untrained"] if t == t0 else s.units[("neologism", t)]})
    for s in out:
        s.ablations["ell=1"] = s.ablations["untrained"]
    return claims.claim6a_length(out, tiny()["cfg"])


@claim_case("skill_neologisms", "C6b", "reproduced")
def _c6b_good():
    return claims.claim6b_init(_world(**_GOOD), _CFG)


@claim_case("skill_neologisms", "C6b", "not reproduced", alternative="random init learns as fast")
def _c6b_same():
    return claims.claim6b_init(_world(**_with(abl_initrandom__tau=30.0, abl_initrandom__partner=0.6)), _CFG)


@claim_case("skill_neologisms", "C6b", "inconclusive at this scale", trivial="random initialisation in both arms")  # behind the base gate
def _c6b_trivial():
    st = tiny()["studies"]
    t0 = tiny()["cfg"].test_ops[0]
    return claims.claim6b_init(_swap(st, {"neologism": lambda s, t: s.ablations["init=random"] if t == t0 else s.units[("neologism", t)]}),
                               tiny()["cfg"])


@claim_case("skill_neologisms", "C6c", "reproduced")
def _c6c_good():
    return claims.claim6c_noise(_world(**_GOOD), _CFG)


@claim_case("skill_neologisms", "C6c", "not reproduced", alternative="noisy labels cost 0.3")
def _c6c_costly():
    return claims.claim6c_noise(_world(**_with(abl_corrupt02__partner=0.3)), _CFG)


@claim_case("skill_neologisms", "C6c", "inconclusive at this scale", trivial="untrained neologism rows in both arms")  # behind the base gate
def _c6c_trivial():
    st = tiny()["studies"]
    t0 = tiny()["cfg"].test_ops[0]
    out = _swap(st, {"neologism": lambda s, t: s.ablations["untrained"] if t == t0 else s.units[("neologism", t)]})
    for s in out:
        s.ablations["corrupt=0.2"] = s.ablations["untrained"]
    return claims.claim6c_noise(out, tiny()["cfg"])


# ---- C7
def _keyword(with_token, mean_row, random_row, seed, sd=0.03):
    rng = np.random.default_rng(seed)
    ops = _CFG.pretrain_ops
    f = lambda p: {o: _acc(p + sd * rng.standard_normal(), 100) for o in ops}  # noqa: E731
    return ex.KeywordAnalogue(seed, f(with_token), f(mean_row), f(random_row))


def test_c7_is_declared_not_decided_and_its_numbers_are_computed():
    """C7 holds by design in the digit world (the operation is named only by its token): it is a not-testable row,
    and the page's numbers come from :func:`claims.keyword_losses`. On the tiny real base (competent on its
    operations) the loss is large; on an untrained GPT it is 0 (it had nothing to lose)."""
    from icmlbook.runtime import claims as registry

    rule = registry.RULES["skill_neologisms:C7"]
    assert not rule.testable and "by design" in rule.reason
    k = [_keyword(0.99, 0.1, 0.05, s, sd=0.0) for s in (0, 1)]
    out = claims.keyword_losses(k)
    assert out["n"] == 2 * len(_CFG.pretrain_ops)
    assert out["with_token"] == pytest.approx(0.99) and out["mean_row_loss"] == pytest.approx(0.89)
    assert out["random_row_loss"] == pytest.approx(0.94)
    assert claims.keyword_losses([tiny()["keyword_random"]])["mean_row_loss"] == pytest.approx(0.0, abs=0.05)


# ---- C8
@claim_case("skill_neologisms", "C8a", "reproduced")
def _c8a_good():
    return claims.claim8a_forgetting_ft(_world(**_GOOD), _CFG)


@claim_case("skill_neologisms", "C8a", "not reproduced", alternative="fine-tuning keeps the old skills (change 0)")
def _c8a_keeps():
    return claims.claim8a_forgetting_ft(_world(**_with(full_ft__orig=0.0)), _CFG)


@claim_case("skill_neologisms", "C8a", "inconclusive at this scale",
            alternative="fine-tuning that has lost only 0.009 so far, but whose accuracy on the original operations "
                        "is still falling (by 0.008 over the last third of its updates): forgetting not yet measured")
def _c8a_still_forgetting():
    return claims.claim8a_forgetting_ft(_world(noise=0.5, **_with(full_ft__orig=-0.009, full_ft__orig_power=5)), _CFG)


def test_c8_guard_counts_only_a_fall():
    rising = _world(noise=0.2, **_with(lora__orig=0.005, lora__orig_power=5))   # recovering toward the base: no doubt
    assert claims.claim8b_forgetting_lora(rising, _CFG).verdict == "not reproduced"
    unit = claims.units_of(_world(**_with(full_ft__orig=-0.009, full_ft__orig_power=5)), "full_ft")
    assert not claims._forgetting_convergence(unit, "full fine-tuning").converged


@claim_case("skill_neologisms", "C8a", "inconclusive at this scale", trivial="the frozen base in place of fine-tuning")  # behind the base gate
def _c8a_trivial():
    st = tiny()["studies"]
    return claims.claim8a_forgetting_ft(_swap(st, {"full_ft": lambda s, t: s.units[("base", t)]}), tiny()["cfg"])


@claim_case("skill_neologisms", "C8b", "reproduced")
def _c8b_good():
    return claims.claim8b_forgetting_lora(_world(**_GOOD), _CFG)


@claim_case("skill_neologisms", "C8b", "not reproduced", alternative="LoRA keeps the old skills (change +0.005)")
def _c8b_keeps():
    return claims.claim8b_forgetting_lora(_world(**_with(lora__orig=0.005)), _CFG)


@claim_case("skill_neologisms", "C8b", "inconclusive at this scale", trivial="the frozen base in place of LoRA")  # behind the base gate
def _c8b_trivial():
    st = tiny()["studies"]
    return claims.claim8b_forgetting_lora(_swap(st, {"lora": lambda s, t: s.units[("base", t)]}), tiny()["cfg"])


def test_every_rule_gives_its_declared_verdicts():
    from icmlbook.runtime import claims as registry

    for rule in registry.rules_for("skill_neologisms"):
        assert registry.case_problems(rule) == [], rule.key


_TRIVIAL_BEHIND_GATE = ("_c2_trivial_base", "_c2_trivial_untrained", "_c3_trivial", "_c3b_trivial", "_c4_trivial",
                        "_c5_trivial", "_c6a_trivial", "_c6b_trivial", "_c6c_trivial", "_c8a_trivial", "_c8b_trivial")


def test_trivial_outputs_fail_the_rules_behind_the_base_gate(monkeypatch):
    """Session 12 (an outside review, rule 11): since the base gate, the tiny base fails claim 1's plateau test, so
    the eleven trivial cases above declare 'inconclusive at this scale' and no longer show that the rule proper
    rejects the trivial method. Here the gate is satisfied (each base declared at its plateau) and the same real
    outputs must be *not reproduced*: a rule that a trivial method passes once the bases converge is too loose,
    whatever the gate hides at this scale."""
    from icmlbook.training import PlateauTest, plateau_check

    def at_plateau(c):
        return plateau_check(0.0, 0.0, claims.THRESHOLDS["base_loss_margin"], PlateauTest(), f"base {c.seed} (set flat)")

    gated = {name: globals()[name]() for name in _TRIVIAL_BEHIND_GATE}
    assert all(out.inconclusive == "not converged" for out in gated.values())     # the gate at this scale
    monkeypatch.setattr(claims, "base_convergence", at_plateau)
    for name in _TRIVIAL_BEHIND_GATE:
        out = globals()[name]()
        assert out.passed is False, (name, out.verdict, out.measured)
