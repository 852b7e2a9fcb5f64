"""Benchmarks of the SSO library, on the hidden matrices of one width-256 GPT (2 layers, head dimension 32, SwiGLU,
QK-norm; real gradients of a batch of Markov-source tokens), one torch thread:

- an SSO step (warm-started power iteration and lambda) against our Muon step (target <= 4x; msign calls per
  step reported);
- our Muon with Keller's quintic in bf16 and torch's scale against torch.optim.Muon on the same matrices
  (target <= 1.1x, i.e. ours no more than 10% slower)."""

from __future__ import annotations

import torch

from icmlbook import lm
from icmlbook.runtime import cpu_threads
from icmlbook.papers.spectral_sphere_optimizer import KELLER_QUINTIC, SSO, Muon, split_parameters

from .common import BenchResult, best_time


def _model_with_grads():
    torch.manual_seed(0)
    model = lm.GPT(lm.GPTConfig(vocab_size=256, n_layer=2, d_model=256, d_head=32, max_len=64, qk_norm=True))
    x = lm.MarkovSource(256, alpha=0.1, seed=0).sample(8 * 65, seed=0).view(8, 65)
    lm.lm_loss(model(x[:, :-1]), x[:, 1:]).backward()
    hidden = [p for _, p in split_parameters(model)[0]]
    return model, hidden


def _timed_steps(opt, params, grads, n_warm=3):
    def step():
        for p, g in zip(params, grads):
            p.grad = g
        opt.step()
    for _ in range(n_warm):
        step()
    return step


def bench_sso_step_vs_muon_step() -> BenchResult:
    with cpu_threads(1):
        model, hidden = _model_with_grads()
        grads = [p.grad.clone() for p in hidden]
        qkv = [p for n, p in split_parameters(model)[0] if n.endswith(("q.weight", "k.weight", "v.weight"))]
        rest = [p for p in hidden if all(p is not q for q in qkv)]
        groups = [{"params": qkv, "block_rows": 32}, {"params": rest}]
        sso = SSO([dict(g) for g in groups], lr=1e-2)
        muon = Muon([dict(g) for g in groups], lr=1e-2)
        sso_step = _timed_steps(sso, hidden, grads)
        sso_time = best_time(sso_step, repeat=5)
        calls = sso.stats["msign_calls"]
        evals = sso.stats["evaluations"] / max(1, sso.stats["blocks"])
        state = {id(p): p.detach().clone() for p in hidden}
        for p in hidden:
            p.data.copy_(state[id(p)])
        muon_time = best_time(_timed_steps(muon, hidden, grads), repeat=5)
    ratio = sso_time / muon_time
    return BenchResult("SSO step vs our Muon step, width 256, 2 layers", sso_time, muon_time, "our Muon step",
                       "<= 4x the Muon step", ratio <= 4.0,
                       note=f"{ratio:.2f}x; {calls} batched msign calls per step, {evals:.1f} msign evaluations "
                            f"per block (a Muon step: 1); fallbacks {sso.stats['fallbacks']}")


def bench_our_muon_vs_torch_muon() -> BenchResult:
    with cpu_threads(1):
        _, hidden = _model_with_grads()
        grads = [p.grad.clone() for p in hidden]
        ours = Muon(hidden, lr=0.02, momentum=0.95, weight_decay=0.1, scale="original", coefficients=KELLER_QUINTIC,
                    ns_steps=5, ns_dtype=torch.bfloat16)
        theirs = torch.optim.Muon(hidden, lr=0.02, momentum=0.95, weight_decay=0.1)
        ours_step, theirs_step = _timed_steps(ours, hidden, grads), _timed_steps(theirs, hidden, grads)
        a, b = float("inf"), float("inf")
        for _ in range(3):  # alternate against drifting load
            a = min(a, best_time(ours_step, repeat=3))
            b = min(b, best_time(theirs_step, repeat=3))
    return BenchResult("our Muon vs torch.optim.Muon (Keller quintic, bf16)", a, b, "torch.optim.Muon",
                       "<= 1.1x torch's time", a <= 1.1 * b, note=f"{a / b:.2f}x")
