"""Tests of icmlbook.training: resume/branch bit for bit, a convex problem to its closed-form optimum,
schedules against their formulas, EMA against a hand computation, clipping against torch's."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from icmlbook.runtime import cpu_threads as torch_threads
from icmlbook.training import (EMA, WSD, ActivationStats, AuxiliaryLoss, Callback, Checkpoint, CheckpointMismatch,
                               Constant, Evaluate, LambdaCallback, LossLogger, ShuffledBatches, Trainer,
                               TrainerConfig, WarmupCosine, clip_grad_norm, full_batch, schedule_values)


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ICMLBOOK_CACHE_DIR", str(tmp_path / "cache"))


# -- a small non-convex problem with every source of randomness the loop can meet ----------------------
N, D = 96, 6
torch.manual_seed(0)
X = torch.randn(N, D)
Y = (X[:, :3].sum(1) > 0).long()


def make_model(seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(D, 16), nn.GELU(), nn.Dropout(0.3), nn.Linear(16, 2))


def loss_fn(model, batch):
    xb, yb = batch
    hidden = model[:3](xb)
    return nn.functional.cross_entropy(model[3](hidden), yb), {"hidden": hidden}


def noisy_feature_penalty(model, batch, outputs, gen):
    noise = torch.randn(outputs["hidden"].shape, generator=gen)
    return (outputs["hidden"] * noise).pow(2).mean()


def make_trainer(name="run", steps=30, schedule=WarmupCosine(warmup=5, total=30, final=0.1), init_seed=1):
    model = make_model(init_seed)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-2, weight_decay=0.1)
    gen = torch.Generator().manual_seed(5)
    callbacks = [LossLogger(every=1), EMA(0.9),
                 AuxiliaryLoss("noise", lambda m, b, o: noisy_feature_penalty(m, b, o, gen), weight=0.01, generator=gen),
                 Evaluate(lambda m: {"acc": (m(X).argmax(1) == Y).float().mean()}, every=7, keep_best="acc")]
    cfg = TrainerConfig(steps=steps, schedule=schedule, grad_clip=0.5, seed=3, device="cpu", name=name,
                        show_progress=False)
    return Trainer(model, opt, loss_fn, ShuffledBatches(N, 20, seed=11, tensors=(X, Y)), cfg, callbacks)


def params_of(trainer):
    return [p.detach().clone() for p in trainer.model.parameters()]


def assert_same_run(a: Trainer, b: Trainer):
    for p, q in zip(params_of(a), params_of(b)):
        assert torch.equal(p, q)
    for name in ("loss", "loss/noise", "acc", "grad_norm"):
        sa, va = a.history(name)
        sb, vb = b.history(name)
        assert np.array_equal(sa, sb) and np.array_equal(va, vb), name
    for s, t in zip(a.callbacks[1].shadow, b.callbacks[1].shadow):
        assert torch.equal(s, t)
    for (k, v), (k2, v2) in zip(a.optimizer.state_dict()["state"].items(), b.optimizer.state_dict()["state"].items()):
        assert all(torch.equal(v[x], v2[x]) for x in v)


def test_resume_equals_unbroken_run_bit_for_bit():
    unbroken = make_trainer("unbroken").run()
    first = make_trainer("broken")
    first.run(until=12)
    first.save_checkpoint()
    torch.manual_seed(999); np.random.seed(999)          # the resumed process starts from other global states
    second = make_trainer("broken", init_seed=77)       # and another initialisation: all of it comes from the file
    assert second.resume() is True and second.step == 12
    second.run()
    assert second.step == 30
    assert_same_run(unbroken, second)
    # the unbroken run and a restarted one differ without the checkpoint (the test can fail)
    assert not torch.equal(params_of(make_trainer("fresh", init_seed=77).run())[0], params_of(unbroken)[0])


def test_branch_equals_unbroken_run_and_may_change_the_config():
    a = make_trainer("trunk")
    a.callbacks.append(Checkpoint(at=[12], at_end=False))
    a.run()
    b = make_trainer("branch", init_seed=5)
    b.callbacks.append(Checkpoint(at=[12], at_end=False))
    torch.manual_seed(4)
    b.branch_from("trunk", step=12)
    assert b.branched_from == "trunk@12"
    b.run()
    assert_same_run(a, b)
    # a branch with another schedule (a WSD decay from the stable phase) is allowed; resuming with it is not
    c = make_trainer("trunk", schedule=WSD(warmup=5, total=30, decay_fraction=0.3))
    c.callbacks.append(Checkpoint(at=[12], at_end=False))
    with pytest.raises(CheckpointMismatch, match="schedule|trainer"):
        c.resume(12)
    c.branch_from("trunk", 12)
    c.run()
    assert not torch.equal(params_of(c)[0], params_of(a)[0])


def test_corrupt_checkpoint_is_refused():
    t = make_trainer("corrupt")
    t.run(until=3)
    path = t.save_checkpoint()
    raw = bytearray(path.read_bytes()); raw[-10] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="does not match its manifest"):
        make_trainer("corrupt").resume()
    assert make_trainer("never-saved").resume() is False


def test_checkpoints_hold_only_tensors_and_plain_types():
    """A checkpoint loads with torch's own weights-only reader (no object of the file's choosing is built), NumPy
    values come back exactly (type, dtype, shape, bytes), and a state holding anything else is refused when saved."""
    import hashlib
    import io
    import json
    import pickle

    from icmlbook.training import checkpoint_safe, from_checkpoint_safe

    t = make_trainer("plain")
    t.run(until=8)
    path = t.save_checkpoint()
    raw = torch.load(path, weights_only=True)                     # torch's reader, independent of ours
    assert raw["format"] == 2 and raw["step"] == 8
    assert raw["rng"]["numpy"][0] == "MT19937" and raw["rng"]["numpy"][1]["__icmlbook_numpy__"] == "array"
    state = {"a": np.arange(6, dtype=np.uint32).reshape(2, 3)[:, ::2], "s": np.float32(1.5), "z": np.array(2.0),
             "i": np.int64(-3), "t": (1, "x", None, np.array([True, False])), "l": [torch.ones(2), 2.5],
             "b": b"\x00\x01"}
    buf = io.BytesIO()
    torch.save(checkpoint_safe(state), buf)
    back = from_checkpoint_safe(torch.load(io.BytesIO(buf.getvalue()), weights_only=True))
    for k in ("a", "s", "z", "i"):
        assert type(back[k]) is type(state[k]) and back[k].dtype == state[k].dtype
        assert back[k].shape == state[k].shape and np.array_equal(back[k], state[k])
    assert isinstance(back["t"], tuple) and back["t"][:3] == (1, "x", None)
    assert np.array_equal(back["t"][3], [True, False]) and torch.equal(back["l"][0], torch.ones(2))
    assert back["b"] == b"\x00\x01"
    model_state = t.model.state_dict()
    assert checkpoint_safe(model_state) is model_state                # nothing to change: the very same object

    class Opaque:
        pass

    with pytest.raises(TypeError, match=r"state\['callbacks'\]\[0\]\['thing'\] is a .*Opaque"):
        checkpoint_safe({"callbacks": [{"thing": Opaque()}]})
    with pytest.raises(TypeError, match="Python objects"):
        checkpoint_safe({"x": np.array([Opaque()], dtype=object)})
    # a checkpoint written by pickling arbitrary objects (the former format) is refused, not unpickled
    data = pickle.dumps({"format": 1, "step": 3, "numpy": np.zeros(2)}, protocol=2)
    path.write_bytes(data)
    path.with_suffix(".json").write_text(json.dumps({"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}))
    with pytest.raises(ValueError, match="other than tensors and plain types"):
        make_trainer("plain").resume()


def test_resume_with_a_mixture_sampler_is_bit_for_bit():
    """The language-model lab's data source keeps NumPy row counters in its state: they travel through the
    weights-only checkpoint and the resumed run equals the unbroken one."""
    from icmlbook import lm

    streams = {"a": torch.arange(500) % 13, "b": (torch.arange(400) * 7) % 13}

    def build(name):
        torch.manual_seed(2)
        model = nn.Sequential(nn.Embedding(13, 8), nn.Linear(8, 13))
        data = lm.MixtureSampler(streams, lm.constant_weights({"a": 0.3, "b": 0.7}), batch_size=5, seq_len=6, seed=4)
        cfg = TrainerConfig(steps=14, name=name, show_progress=False, device="cpu")
        loss = lambda m, b: nn.functional.cross_entropy(m(b[0]).reshape(-1, 13), b[1].reshape(-1))  # noqa: E731
        return Trainer(model, torch.optim.Adam(model.parameters(), lr=1e-2), loss, data, cfg, [LossLogger(every=1)])

    whole = build("mix-whole").run()
    part = build("mix-part")
    part.run(until=6)
    part.save_checkpoint()
    resumed = build("mix-part")
    assert resumed.resume() and isinstance(resumed.data.rows, np.ndarray)
    resumed.run()
    assert np.array_equal(resumed.data.rows, whole.data.rows) and resumed.data.tokens_seen == whole.data.tokens_seen
    assert np.array_equal(resumed.history("loss")[1], whole.history("loss")[1])
    for p, q in zip(whole.model.parameters(), resumed.model.parameters()):
        assert torch.equal(p, q)


def test_least_squares_reaches_the_closed_form_optimum():
    g = torch.Generator().manual_seed(0)
    A = torch.randn(200, 5, generator=g, dtype=torch.float64)
    b = A @ torch.tensor([1.0, -2.0, 0.5, 3.0, 0.0], dtype=torch.float64) + 0.3 * torch.randn(200, generator=g,
                                                                                                dtype=torch.float64)
    w_star = torch.linalg.lstsq(A, b.unsqueeze(1)).solution.squeeze(1)
    model = nn.Linear(5, 1, bias=False).double()
    hess = 2 * A.T @ A / A.shape[0]
    lr = 1.0 / float(torch.linalg.eigvalsh(hess).max())
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    trainer = Trainer(model, opt, lambda m, batch: (m(batch[0]).squeeze(1) - batch[1]).pow(2).mean(),
                      full_batch(A, b), TrainerConfig(steps=400, device="cpu", show_progress=False),
                      [LossLogger(every=50)])
    trainer.run()
    assert torch.allclose(model.weight.detach().squeeze(0), w_star, atol=1e-10)
    _, loss = trainer.history("loss")
    assert loss[-1] == pytest.approx(float((A @ w_star - b).pow(2).mean()), rel=1e-9)


def test_schedules_match_their_formulas():
    cos = WarmupCosine(warmup=10, total=110, final=0.1)
    assert cos(0) == pytest.approx(0.1) and cos(4) == pytest.approx(0.5) and cos(9) == pytest.approx(1.0)
    assert cos(10) == pytest.approx(1.0) and cos(60) == pytest.approx(0.55) and cos(110) == pytest.approx(0.1)
    assert cos(35) == pytest.approx(0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 0.25)))
    assert cos(500) == pytest.approx(0.1)
    # torch's closed-form cosine annealing (eta_min = final * base) on the post-warm-up part
    plain = WarmupCosine(total=50, final=0.2)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0),
                                                       T_max=50, eta_min=0.2)
    for t in range(51):
        assert plain(t) == pytest.approx(sched._get_closed_form_lr()[0] if t else 1.0, abs=1e-12)
        sched.last_epoch += 1
    wsd = WSD(warmup=0, total=100, decay_fraction=0.2, final=0.0)
    assert wsd.decay_start == 80 and wsd(79) == 1.0 and wsd(80) == pytest.approx(0.95) and wsd(99) == pytest.approx(0.0)
    assert WSD(total=100, decay_fraction=0.2, shape="sqrt")(84) == pytest.approx(0.5)
    assert WSD(total=100, decay_fraction=0.2, shape="cosine")(89) == pytest.approx(0.5)
    assert WSD(warmup=4, total=100)(1) == pytest.approx(0.5)
    assert Constant(warmup=4)(3) == 1.0 and Constant()(1000) == 1.0
    vals = schedule_values(WSD(warmup=3, total=40, decay_fraction=0.25, final=0.05, shape="sqrt"), 40)
    assert vals[-1] == pytest.approx(0.05) and max(vals) == 1.0


def test_the_trainer_applies_the_schedule_to_every_group():
    model = nn.Linear(2, 1)
    opt = torch.optim.SGD([{"params": [model.weight], "lr": 0.2}, {"params": [model.bias], "lr": 0.05}])
    seen = []
    sched = WSD(warmup=2, total=10, decay_fraction=0.5)
    rec = LambdaCallback(on_after_backward=lambda tr: seen.append([g["lr"] for g in tr.optimizer.param_groups]))
    Trainer(model, opt, lambda m, b: m(torch.ones(3, 2)).sum(), None,
            TrainerConfig(steps=10, schedule=sched, device="cpu", show_progress=False), [rec]).run()
    assert seen == [[0.2 * sched(t), 0.05 * sched(t)] for t in range(10)]


def test_ema_matches_a_hand_computation():
    w = nn.Parameter(torch.tensor([1.0], dtype=torch.float64))
    model = nn.Module(); model.w = w
    trajectory = []
    ema = EMA(decay=0.8)
    cb = LambdaCallback(on_step_end=lambda tr: trajectory.append(float(w.detach())))
    Trainer(model, torch.optim.SGD([w], lr=0.1), lambda m, b: (m.w - 3.0).pow(2).sum(), None,
            TrainerConfig(steps=6, device="cpu", show_progress=False), [cb, ema]).run()
    hand = 1.0
    for theta in trajectory:
        hand = 0.8 * hand + 0.2 * theta
    assert float(ema.shadow[0]) == pytest.approx(hand, rel=1e-14)
    assert trajectory[0] == pytest.approx(1.0 - 0.1 * 2 * (1.0 - 3.0))
    with ema.applied(model):
        assert float(model.w.detach()) == pytest.approx(hand, rel=1e-14)
    assert float(model.w.detach()) == trajectory[-1]
    warm = EMA(0.99, warmup=True)
    assert warm.current_decay() == pytest.approx(0.1)


@pytest.mark.parametrize("max_norm", [0.05, 1.0, 100.0])
def test_clipping_matches_torch(max_norm):
    g = torch.Generator().manual_seed(1)
    ps = [nn.Parameter(torch.zeros(s)) for s in [(3, 4), (5,), (2, 2, 2)]]
    qs = [nn.Parameter(torch.zeros(s)) for s in [(3, 4), (5,), (2, 2, 2)]]
    for p, q in zip(ps, qs):
        p.grad = torch.randn(p.shape, generator=g)
        q.grad = p.grad.clone()
    ours = clip_grad_norm(ps, max_norm)
    theirs = torch.nn.utils.clip_grad_norm_(qs, max_norm)
    assert torch.allclose(ours, theirs, rtol=1e-6)
    for p, q in zip(ps, qs):
        assert torch.allclose(p.grad, q.grad, rtol=1e-6, atol=0)
    total = torch.sqrt(sum(q.grad.pow(2).sum() for q in qs))
    assert float(total) == pytest.approx(min(float(theirs), max_norm), rel=1e-5)


def test_accumulation_equals_one_large_batch():
    def run(acc, bs):
        torch.manual_seed(2)
        model = nn.Sequential(nn.Linear(D, 16), nn.GELU(), nn.Linear(16, 2))  # no dropout: the same function
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        data = lambda i, gen: (X[i % (N // bs) * bs:(i % (N // bs) + 1) * bs], Y[i % (N // bs) * bs:(i % (N // bs) + 1) * bs])
        tr = Trainer(model, opt, lambda m, b: nn.functional.cross_entropy(m(b[0]), b[1]), data,
                     TrainerConfig(steps=3, accumulate=acc, device="cpu", show_progress=False))
        tr.run()
        return params_of(tr)
    for p, q in zip(run(1, 48), run(2, 24)):
        assert torch.allclose(p, q, atol=1e-6)


def test_activation_stats_and_evaluation():
    model = make_model(3)
    model.eval()
    seen = {}

    def grab(module, inputs, output):
        seen["out"] = output.detach().clone()
    handle = model[0].register_forward_hook(grab)
    stats = ActivationStats(every=2, modules=["0"])
    evals = Evaluate(lambda m: {"loss": nn.functional.cross_entropy(m(X), Y)}, at=[0, 3], keep_best="loss",
                     mode="min", stop_when=lambda v, tr: tr.step >= 3)
    tr = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1), loss_fn, full_batch(X, Y),
                 TrainerConfig(steps=10, schedule=None, device="cpu", show_progress=False), [stats, evals])
    snapshots = {}
    tr.callbacks.append(LambdaCallback(on_after_backward=lambda t: snapshots.__setitem__(t.step + 1, seen["out"])))
    tr.run()
    handle.remove()
    assert tr.step == 3  # stopped by the evaluation at step 3
    steps, rms = tr.history("act_rms/0")
    assert list(steps) == [2]
    assert rms[0] == pytest.approx(float(snapshots[2].pow(2).mean().sqrt()), rel=1e-6)
    _, absmax = tr.history("act_absmax/0")
    assert absmax[0] == pytest.approx(float(snapshots[2].abs().max()), rel=1e-6)
    assert list(tr.history("loss")[0]) == [0, 3]
    assert evals.best_step in (0, 3) and evals.best_state is not None
    assert not model[0]._forward_hooks  # the hooks are gone after the run
    with pytest.raises(ValueError, match="not in the model"):
        Trainer(make_model(0), torch.optim.SGD(make_model(0).parameters(), lr=0.1), loss_fn, full_batch(X, Y),
                TrainerConfig(steps=1, device="cpu", show_progress=False), [ActivationStats(modules=["nope"])]).run()


def test_shuffled_batches_cover_each_epoch_once():
    src = ShuffledBatches(10, 4, seed=0)
    assert src.steps_per_epoch == 3
    epoch0 = torch.cat([src(i) for i in range(3)])
    assert sorted(epoch0.tolist()) == list(range(10))
    epoch1 = torch.cat([src(i) for i in range(3, 6)])
    assert sorted(epoch1.tolist()) == list(range(10)) and not torch.equal(epoch0, epoch1)
    with pytest.raises(RuntimeError, match="already passed"):
        src(0)


@pytest.mark.parametrize("kwargs, match", [
    ({"steps": -1}, "steps"), ({"steps": 5, "grad_clip": 0.0}, "grad_clip"), ({"steps": 5, "accumulate": 0}, "accumulate"),
    ({"steps": 5, "device": "tpu"}, "device"), ({"steps": 5, "autocast": "int8"}, "autocast"),
    ({"steps": 5, "schedule": 3}, "schedule"), ({"steps": 5, "threads": 0}, "threads"),
])
def test_bad_configs_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        TrainerConfig(**kwargs)


@pytest.mark.parametrize("make, match", [
    (lambda: WarmupCosine(warmup=10, total=10), "total"), (lambda: WarmupCosine(total=10, final=2.0), "final"),
    (lambda: WSD(total=10, shape="exp"), "shape"), (lambda: WSD(warmup=9, total=10, decay_fraction=0.5), "warm-up"),
    (lambda: Constant(warmup=-1), "warmup"),
])
def test_bad_schedules_are_refused(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_callbacks_must_be_callbacks_and_one_schedule_only():
    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(TypeError, match="Callback"):
        Trainer(model, opt, loss_fn, None, TrainerConfig(steps=1, device="cpu"), [object()])
    with pytest.raises(ValueError, match="not both"):
        Trainer(model, opt, loss_fn, None, TrainerConfig(steps=1, device="cpu"),
                scheduler=torch.optim.lr_scheduler.StepLR(opt, 1))
    assert issubclass(LossLogger, Callback)


# -- the chapters' loops moved onto the trainer give the numbers of their former hand-written loops --------
def _grokking_bare_loop(settings, *, p, train_fraction, width, steps, lr, optimizer, n_eval, eval_every,
                        stop_factor, betas=(0.9, 0.98), eps=1e-8, grok_accuracy=0.9):
    """The grokking network's former loop (hand-written batched AdamW/GD, evaluation grid, early stop)."""
    from icmlbook.papers import grokking as gk
    from icmlbook.papers.grokking import nn as gnn

    seed_of = [s for s, _, _ in settings]
    lam = torch.tensor([l for _, l, _ in settings]).view(-1, 1, 1)
    data = {s: gk.modular_addition_data(p, train_fraction, s) for s in set(seed_of)}
    first = data[seed_of[0]]
    idx = torch.stack([torch.nonzero(data[s].train_mask).squeeze(1) for s in seed_of])
    mask = torch.stack([data[s].train_mask for s in seed_of]).float()
    model = gk.BatchedMLP(len(settings), p, width).init_scaled([s * 1000003 + 17 for s in seed_of],
                                                               [a for _, _, a in settings])
    params = [model.w1, model.w2]
    ms, vs = [torch.zeros_like(q) for q in params], [torch.zeros_like(q) for q in params]
    grid = set(gnn.log_step_grid(steps, n_eval, eval_every).tolist())
    test_acc, norms, t_grok, stop_at = [], [], np.full(len(settings), np.inf), steps
    decayed = lam.view(-1).numpy() > 0

    def evaluate(step):
        with torch.no_grad():
            correct = (model(first.a, first.b).argmax(-1) == first.y).float()
            test_acc.append(((correct * (1 - mask)).sum(1) / (1 - mask).sum(1)).numpy())
            norms.append(model.weight_norm().numpy())
            t_grok[(test_acc[-1] >= grok_accuracy) & np.isinf(t_grok)] = step

    evaluate(0)
    for step in range(1, steps + 1):
        if step > stop_at:
            break
        objective = gk.per_model_loss(model(first.a[idx], first.b[idx]), first.y[idx], "cross_entropy").sum()
        grads = torch.autograd.grad(objective, params)
        with torch.no_grad():
            for q, g, m, v in zip(params, grads, ms, vs):
                if optimizer == "gd":
                    q.mul_(1.0 - lr * lam).sub_(lr * g)
                    continue
                m.mul_(betas[0]).add_(g, alpha=1 - betas[0])
                v.mul_(betas[1]).addcmul_(g, g, value=1 - betas[1])
                q.mul_(1.0 - lr * lam).addcdiv_(m, (v / (1 - betas[1] ** step)).sqrt_().add_(eps),
                                                value=-lr / (1 - betas[0] ** step))
        if step in grid or step == stop_at:
            evaluate(step)
            if stop_factor is not None and stop_at == steps and np.all(np.isfinite(t_grok[decayed])):
                stop_at = max(step, min(steps, math.ceil(stop_factor * t_grok[decayed].max())))
    return np.stack(test_acc, 1), np.stack(norms, 1), t_grok


@pytest.mark.parametrize("optimizer, steps, stop_factor", [("adamw", 40, None), ("gd", 25, None),
                                                            ("adamw", 2000, 1.2)])
def test_grokking_network_on_the_trainer_matches_its_bare_loop(optimizer, steps, stop_factor):
    from icmlbook.papers import grokking as gk

    settings = [(0, 1.35, 1.0), (0, 0.0, 1.0)] if stop_factor else [(0, 0.5, 1.0), (1, 1.0, 2.0), (1, 0.0, 1.0)]
    kw = dict(p=23 if stop_factor else 7, train_fraction=0.5, width=128 if stop_factor else 16, steps=steps,
              lr=3e-3 if stop_factor else (0.05 if optimizer == "gd" else 1e-2), optimizer=optimizer,
              n_eval=20, eval_every=20, stop_factor=stop_factor)
    with torch_threads(1):
        run = gk.train_modular_mlps(settings, show_progress=False, **kw)
        acc, norm, t_grok = _grokking_bare_loop(settings, **kw)
    assert np.array_equal(run.test_acc, acc) and np.array_equal(run.weight_norm, norm)
    assert np.array_equal(run.t_grok, t_grok)
    if stop_factor:  # the early stop was exercised: the weight-decayed model grokked and the run ended early
        assert np.isfinite(t_grok[0]) and run.steps[-1] < steps


def _loes_bare_loop(train, y_train, val, y_val, test, y_test, n_classes, *, epochs, batch_size, fused_width, seed,
                    georeg_weight, lr=1e-3, weight_decay=1e-4):
    """The LOES head's former loop (frozen backbone): AdamW, torch's cosine annealing, per-epoch shuffles,
    GeoReg from its own generator, best-validation checkpoint evaluated on test."""
    import copy

    from icmlbook.papers.loes_layer_geometry.geometry import georeg_loss
    from icmlbook.papers.loes_layer_geometry.heads import LayerFusionHead

    gen, geo_gen = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed + 1)
    torch.manual_seed(seed)
    t = lambda a: torch.as_tensor(np.asarray(a), dtype=torch.float32)
    Xtr, Xva, Xte = ([t(x) for x in split] for split in (train, val, test))
    ytr = torch.as_tensor(y_train)
    head = LayerFusionHead([x.shape[1] for x in Xtr], n_classes, fused_width)
    opt = torch.optim.AdamW([{"params": list(head.parameters()), "lr": lr}], weight_decay=weight_decay)
    spe = -(-len(ytr) // batch_size)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * spe, eta_min=1e-6)
    best = (-1.0, -1, None)
    for epoch in range(epochs):
        head.train()
        perm = torch.randperm(len(ytr), generator=gen)
        for s in range(spe):
            idx = perm[s * batch_size:(s + 1) * batch_size]
            f = head.embed([x[idx] for x in Xtr])
            loss = nn.functional.cross_entropy(head.probe(f), ytr[idx])
            if georeg_weight > 0:
                loss = loss + georeg_loss(f, ytr[idx], weight=georeg_weight, generator=geo_gen)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
        head.eval()
        with torch.no_grad():
            acc = float((head(Xva).argmax(1).numpy() == np.asarray(y_val)).mean())
        if acc > best[0]:
            best = (acc, epoch, copy.deepcopy(head.state_dict()))
    head.load_state_dict(best[2])
    with torch.no_grad():
        emb = head.embed(Xte)
    return best[0], best[1], float((head.probe(emb).argmax(1).numpy() == np.asarray(y_test)).mean()), emb.numpy()


@pytest.mark.parametrize("georeg_weight", [0.0, 0.5])
def test_loes_head_on_the_trainer_matches_its_bare_loop(georeg_weight):
    import icmlbook.papers.loes_layer_geometry as lg

    rng = np.random.default_rng(0)
    n, y = 240, rng.integers(0, 3, 240)
    layers = [(rng.normal(size=(n, 10)) + (l == 1) * 0.7 * y[:, None]).astype(np.float32) for l in range(3)]
    tr, va, te = slice(0, 150), slice(150, 200), slice(200, None)
    sp = lambda s: [x[s] for x in layers]
    kw = dict(epochs=5, batch_size=32, fused_width=24, seed=4, georeg_weight=georeg_weight)
    with torch_threads(1):
        res = lg.train_head(sp(tr), y[tr], sp(va), y[va], sp(te), y[te], 3, **kw)
        val, epoch, test, emb = _loes_bare_loop(sp(tr), y[tr], sp(va), y[va], sp(te), y[te], 3, **kw)
    assert (res.val_accuracy, res.best_epoch, res.test_accuracy) == (val, epoch, test)
    assert np.array_equal(res.test_embedding, emb)


def test_threads_option_scopes_the_cpu_thread_count():
    seen = []
    before = torch.get_num_threads()
    model = nn.Linear(2, 1)
    Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1), lambda m, b: m(torch.ones(1, 2)).sum(), None,
            TrainerConfig(steps=2, device="cpu", show_progress=False, threads=1),
            [LambdaCallback(on_step_end=lambda tr: seen.append(torch.get_num_threads()))]).run()
    assert seen == [1, 1] and torch.get_num_threads() == before


@pytest.mark.gpu
def test_resume_on_cuda_equals_unbroken_run():
    """The same contract on a GPU (CUDA RNG state saved too); written without a GPU at hand, runs where one is."""
    def build(name, init_seed, autocast=None):
        model = make_model(init_seed)
        opt = torch.optim.AdamW(model.parameters(), lr=3e-2)
        cfg = TrainerConfig(steps=20, schedule=WarmupCosine(warmup=3, total=20), grad_clip=0.5, device="cuda",
                            name=name, show_progress=False, autocast=autocast)
        return Trainer(model, opt, loss_fn, ShuffledBatches(N, 20, seed=11, tensors=(X, Y)), cfg, [LossLogger()])
    whole = build("cuda-whole", 1).run()
    part = build("cuda-part", 1)
    part.run(until=8)
    part.save_checkpoint()
    resumed = build("cuda-part", 9)
    assert resumed.resume()
    resumed.run()
    assert next(resumed.model.parameters()).device.type == "cuda"
    for p, q in zip(whole.model.parameters(), resumed.model.parameters()):
        assert torch.equal(p, q)
    assert np.array_equal(whole.history("loss")[1], resumed.history("loss")[1])
    bf16 = build("cuda-bf16", 1, autocast="bfloat16")
    bf16.run(until=3)
    assert np.isfinite(bf16.history("loss")[1]).all()


# -- the convergence guard (CLAIMS.md rule 10) ---------------------------------------------------------------------
def test_plateau_test_on_an_exponential_curve_matches_the_closed_form():
    """m(t) = a + b exp(-t/tau): the change from T/(1+e) to T is b (exp(-T/((1+e) tau)) - exp(-T/tau)) exactly."""
    from icmlbook.training import PlateauTest, plateau_from_curve

    a, b, tau, test = 0.1, 2.0, 50.0, PlateauTest(extend=0.5, share=1 / 3)
    steps = np.arange(0, 3001, 1.0)
    for T, margin in ((150.0, 0.05), (3000.0, 0.05)):
        x = steps[steps <= T]
        y = a + b * np.exp(-x / tau)
        exact = b * (np.exp(-T / (1.5 * tau)) - np.exp(-T / tau))
        rep = plateau_from_curve(x, y, margin, test, name="exp")
        assert rep.change == pytest.approx(exact, rel=1e-3)
        assert rep.converged == (exact < margin / 3)
    assert not plateau_from_curve(steps[:151], a + b * np.exp(-steps[:151] / tau), 0.05, test).converged
    assert plateau_from_curve(steps, a + b * np.exp(-steps / tau), 0.05, test).converged


def test_plateau_check_over_replicates_and_the_guard():
    from icmlbook.runtime.claims import INCONCLUSIVE
    from icmlbook.training import PlateauTest, convergence_guard, plateau_check

    ok = plateau_check([0.50, 0.52], [0.505, 0.521], margin=0.05, name="A")
    slow = plateau_check([0.50, 0.52], [0.505, 0.60], margin=0.05, name="B")  # one replicate still moving
    assert ok.converged and not slow.converged and slow.change == pytest.approx(0.08)
    assert not plateau_check([0.5], [float("nan")], margin=0.05).converged
    assert convergence_guard(ok, measured="m") is None
    guard = convergence_guard(ok, slow, measured="gap +0.03")
    assert guard.verdict == INCONCLUSIVE and guard.inconclusive == "not converged" and "B: NOT converged" in guard.reason
    with pytest.raises(ValueError, match="margin"):
        plateau_check(0.5, 0.5, margin=0.0)
    with pytest.raises(ValueError, match="extend"):
        PlateauTest(extend=0)
    with pytest.raises(ValueError, match="share"):
        PlateauTest(share=1.5)
    with pytest.raises(ValueError, match="one value per replicate"):
        plateau_check([0.5, 0.6], [0.5], margin=0.1)
