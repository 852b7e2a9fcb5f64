"""Benchmarks of the constrained-diffusion chapter: a landing step against a Newton projection step on SO(6)
for 4,096 points (target >= 2x; Newton's iterations reported), and batched Jacobians against a per-point loop
(target >= 20x)."""

from __future__ import annotations

import torch

from icmlbook.papers.constrained_diffusion_landing.constraints import ConstraintSet, SpecialOrthogonal, Torus
from icmlbook.papers.constrained_diffusion_landing.data import rotation_mixture
from icmlbook.papers.constrained_diffusion_landing.experiments import interleaved_best_times

from .common import BenchResult, best_time


def bench_landing_vs_newton_so6() -> BenchResult:
    so = SpecialOrthogonal(6)
    g = torch.Generator().manual_seed(0)
    X = rotation_mixture(4096, 0, so)
    Y = X + so.project_tangent_exact(X, 0.1 * torch.randn(X.shape, generator=g, dtype=torch.float64))
    best = interleaved_best_times({"landing": lambda: Y - ConstraintSet.landing_direction(so, Y),
                                   "newton": lambda: ConstraintSet.newton_project(so, Y)}, repeat=3)
    land, newton = best["landing"], best["newton"]
    _, _, it = ConstraintSet.newton_project(so, Y)
    return BenchResult("landing step vs Newton projection, SO(6), 4,096 points", land, newton, "Newton projection",
                       ">= 2x faster", newton / land >= 2, note=f"Newton iterations {float(it.float().mean()):.2f} (fastest of 3 interleaved repeats)")


def bench_batched_jacobians() -> BenchResult:
    t = Torus(halfspace=0.5)
    X = t.uniform(2000, torch.Generator().manual_seed(1))
    batched = best_time(lambda: t.values_and_jacobian(X), repeat=3)
    loop = best_time(lambda: [torch.autograd.functional.jacobian(t.constraint_values, x) for x in X[:200]], repeat=1) * 10
    return BenchResult("constraint Jacobians, torus, 2,000 points (vmap)", batched, loop, "per-point autograd loop",
                       ">= 20x faster", loop / batched >= 20)
