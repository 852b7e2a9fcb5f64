"""Benchmarks of the dnaHNet chapter: the two-stage dnaHNet-mini against a nucleotide Transformer of about equal
parameters, one forward pass at L = 2^14 (target >= 2x faster; analytic FLOPs beside the wall time), and the
smoothing scan against the per-position loop at L = 2^14 chunks (target >= 20x); the Mamba baseline's selective scan
against its per-position loop at the training shape (target >= 3x). The two-stage model runs with
fixed-stride routing at its target ratios, so that it is timed at the compression training would reach."""

from __future__ import annotations

import dataclasses

import torch

from icmlbook.papers.dnahnet_chunking import config_for
from icmlbook.papers.dnahnet_chunking.chunking import smooth_loop, smooth_scan
from icmlbook.papers.dnahnet_chunking.experiments import hnet_config
from icmlbook.papers.dnahnet_chunking.flops import hnet_forward_flops, transformer_forward_flops
from icmlbook.papers.dnahnet_chunking.model import DnaHNet, NucleotideTransformer
from icmlbook.runtime import cpu_threads

from .common import BenchResult, best_time

L = 2 ** 14


def _params(m: torch.nn.Module) -> int:
    return sum(p.numel() for p in m.parameters())


def bench_two_stage_vs_transformer_forward() -> BenchResult:
    cfg = config_for("default")
    hc = dataclasses.replace(hnet_config(cfg, "two_stage"), router="stride", stride=int(round(cfg.ratios2[0])))
    hnet = DnaHNet(hc).eval()
    n_h = _params(hnet)
    layers = min(range(1, 13), key=lambda n: abs(_params(NucleotideTransformer(cfg.tf_width, n, cfg.d_head, 64)) - n_h))
    tf = NucleotideTransformer(cfg.tf_width, layers, cfg.d_head, L).eval()
    x = torch.randint(0, 4, (1, L))
    with torch.no_grad(), cpu_threads(1):
        t_h = best_time(lambda: hnet(x), repeat=3)
        t_t = best_time(lambda: tf(x), repeat=2)
    f_h, f_t = hnet_forward_flops(hc, L), transformer_forward_flops(cfg.tf_width, layers, L)
    return BenchResult(f"two-stage dnaHNet-mini ({n_h / 1e3:.0f}k params) forward, L = 2^14, 1 thread", t_h, t_t,
                       baseline=f"nucleotide Transformer ({_params(tf) / 1e3:.0f}k params, {layers} layers)",
                       target=">= 2x faster", met=t_t / t_h >= 2,
                       note=f"analytic forward FLOPs {f_h:.3g} vs {f_t:.3g} ({f_t / f_h:.1f}x)")


def bench_smoothing_scan_vs_loop() -> BenchResult:
    g = torch.Generator().manual_seed(0)
    z = torch.randn(1, L, 96, generator=g)
    P = torch.rand(1, L, generator=g).clamp(1e-4, 1 - 1e-4)
    with torch.no_grad(), cpu_threads(1):
        t_scan = best_time(lambda: smooth_scan(z, P), repeat=3)
        t_loop = best_time(lambda: smooth_loop(z, P), repeat=1)
    return BenchResult("smoothing scan over 2^14 chunks (width 96), 1 thread", t_scan, t_loop,
                       baseline="per-position loop", target=">= 20x faster", met=t_loop / t_scan >= 20)


def bench_mamba_selective_scan_vs_loop() -> BenchResult:
    """The isotropic Mamba's selective scan, forward and backward, at the default training shape (batch 16, context
    256, inner width 192, state 4), against the per-position loop under autograd."""
    from icmlbook.papers.dnahnet_chunking.mamba import selective_scan, selective_scan_loop
    g = torch.Generator().manual_seed(0)
    shape = (16, 256, 192, 4)
    la = (-0.5 * torch.rand(*shape, generator=g)).requires_grad_()
    u = torch.randn(*shape, generator=g).requires_grad_()

    def step(fn):
        la.grad = u.grad = None
        fn(la, u).square().mean().backward()

    with cpu_threads(1):
        t_scan = best_time(lambda: step(selective_scan), repeat=3)
        t_loop = best_time(lambda: step(selective_scan_loop), repeat=1)
    return BenchResult("Mamba selective scan, forward + backward, 16 x 256 x 192 x 4, 1 thread", t_scan, t_loop,
                       baseline="per-position loop under autograd", target=">= 3x faster", met=t_loop / t_scan >= 3)
