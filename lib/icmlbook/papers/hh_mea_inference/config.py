"""Sizes and decision thresholds of the chapter, per profile (thresholds fixed here before any run).

The paper's setting (512 electrodes, recorded macaque RGCs, hours of stimulation data) is not available; every
profile uses synthetic cells drawn from the prior. ``smoke`` frees five parameters on 19 electrodes, ``default``
all nine on 61, ``full`` (a GPU) 512 electrodes, 1 µs steps and 100k simulations.
"""

from __future__ import annotations

from typing import Any

from ...runtime.profiles import (Float, Grid, Int, IntGrid, OneOf, PositiveFloat, PositiveInt, Probability,
                                ProfileConfig, TupleOf, profile_config)
from .model import PARAMETERS

__all__ = ["HHMEAConfig", "PRESETS", "config_for"]

ALL = tuple(PARAMETERS)


@profile_config
class HHMEAConfig(ProfileConfig):
    """Every knob of the chapter.

    Forward model
        free : the free parameters of θ (the rest sit at the middle of their prior range).
        n_electrodes : electrodes of the hexagonal 30 µm array.
        n_ais, n_axon, comp_length : compartments of the initial segment and axon (µm each).
        dt : step (ms) of every simulation (<= 5 µs during pulses); stim_t_max : stimulation window (ms);
        record_frac : where along the axon a spike counts as the response.
        source : point or line sources for the electrical image.
        sigma_single : noise (µV per sample) of one spike's recording; the EI of N spikes has σ/√N.
        n_spikes_range : N of the training simulations, log-uniform in this range (NPE sees log N); (30, 30000)
            since session 9 (was (30, 3000)) so that one network also reads C6's 40-minute recording.
        n_spikes : N of the observed test cells; n_spikes_sweep : the data-efficiency sweep (a level equal to n_spikes
            reuses the test cells' NPE samples and their thresholds). (300, 1200, 24000) at smoke and default since
            session 14 (was (30, 1200, 24000): the 30-spike level, reported and not decided, cost a fifth of the
            threshold searches, and the default ran over its 10-minute budget); full keeps 30 as a fourth level.
    Inference
        n_sims : prior simulations for NPE; flow : sbi density estimator; max_epochs, batch_size : training.
        n_post : posterior samples per cell for predictions; n_sbc, sbc_samples : SBC test cells, samples each.
        refine_steps, refine_lr, refine_samples : gradient refinement of posterior samples (Adam on logit θ); the
            gradient-only baseline uses as many random prior starts and the same steps, keeping its best fit.
    Stimulation
        n_test : test cells; n_stim_electrodes : electrodes nearest the EI's centre used for patterns;
        n_patterns : held-out multi-electrode patterns per cell (half with mixed polarities);
        amplitudes : the amplitude series (µA, log-spaced between these ends, n_amplitudes of them);
        n_trials : trials per condition; threshold_sigma : log-normal threshold noise σ;
        bisect_iters : bisection steps of the threshold search.
    Thresholds of the claims
        geom_nrmse : C1, posterior-mean error of x, y, angle, height / prior range must be below this;
        sbc_alpha : C1, level of the rank-uniformity test; coverage_tol : C1, |coverage - nominal| of 90 % intervals;
        sbc_wide, sbc_power : C1c (session 5), the rank-spread test must reject a posterior sbc_wide times too wide
            with probability >= sbc_power at this profile's number of SBC cells, else the row is undecided; since
            session 11 the test whose power counts is the tolerance-aware one (sbc_width_tol);
        sbc_width_tol : C1c (session 11), a rank test rejecting exact calibration is evidence against only when it
            also rejects a Gaussian posterior sbc_width_tol times too wide and 1 / sbc_width_tol times too narrow;
        min_contraction, min_param_contraction : C1d (in C1c until session 13), 1 - posterior variance / box prior
            variance, averaged over the parameters and (session 12) for each parameter on its t-interval over the SBC
            cells, at least these;
        acc_target : C4, accuracy at least this; oracle_gap : C4, at most this below the oracle;
        mild_drop : C6, accuracy from a few minutes of recording at most this below a long recording's;
        firing_rate_hz, few_minutes, long_minutes : C6 (session 9, issue 35), the recording lengths the row compares,
            as spike counts: N = minutes x 60 x firing_rate_hz (10 Hz, ours: a round rate within what macaque RGCs
            fire under spontaneous and visual activity, not the paper's; the paper's recordings were not reached).
            "A few minutes" is read at its low end (2 min: 1200 spikes), the long recording is 40 min (24,000 spikes);
            both must be in n_spikes_sweep for the row to be decided. Before, the row compared the sweep's fewest (30
            spikes, 3 s) with its most (3000, 5 min, itself "a few minutes").
        speed_s : C7, seconds per cell for amortised inference; npe_timing_repeats : C7, timed calls of the
            NPE sampler (same seed, same samples), the fastest decides;
        max_dropped_frac : C2, C3, C3b, C4, C5, the largest fraction of test cells whose paired difference may be
            non-finite (left out of the interval, counted in the measured text); with more the rule fails.
        min_acc_gain : C4, C5, C6, the smallest accuracy gain a paired 95 % lower bound must exceed (1 % of the
            conditions: about 1 of smoke's 96 per cell, 3.8 of default's 384); min_theta_gain : C3, the smallest
            reduction of the parameter error (a fraction of the prior range) its upper bound must show. Both added in
            session 5, after the session-4 runs, by the second review (0 before: any positive bound passed).
    """

    free: TupleOf(OneOf(*ALL)) = ALL
    n_electrodes: Int(ge=7) = 61
    n_ais: PositiveInt = 4
    n_axon: Int(ge=5) = 45
    comp_length: PositiveFloat = 10.0
    dt: Float(gt=0, le=0.005) = 0.005
    source: OneOf("point", "line") = "point"
    stim_t_max: PositiveFloat = 1.5
    record_frac: Float(ge=0.3, lt=1) = 0.85
    sigma_single: PositiveFloat = 10.0
    n_spikes_range: IntGrid(ge=1, min_len=2) = (30, 30000)
    n_spikes: PositiveInt = 300
    n_spikes_sweep: IntGrid(ge=1, min_len=2) = (300, 1200, 24000)
    n_sims: Int(ge=100) = 8000
    flow: OneOf("maf", "nsf", "zuko_maf", "zuko_nsf") = "zuko_maf"
    max_epochs: PositiveInt = 150
    batch_size: PositiveInt = 200
    #: the NPE's convergence guard (issue 35, session 12; CLAIMS.md rule 10): every row reading an NPE's posterior first
    #: reads that NPE's held-out loss (sbi's mean −log q(θ | x) on its validation simulations, nats), taken as the best
    #: so far (sbi keeps the best network), at the last epoch against 2/3 of the epochs (PlateauTest: 50 % longer, a
    #: third of this margin). The held-out −log q is the expected KL divergence from the true posterior plus a constant,
    #: so the tolerance, 0.05 nats, lies below the KL (0.058 nats) of a Gaussian posterior sbc_width_tol (1.25) times too
    #: wide on one parameter, C1c's own width tolerance: an NPE still gaining that much is not converged
    npe_loss_margin: PositiveFloat = 0.15
    n_post: Int(ge=2) = 8
    n_sbc: Int(ge=10) = 100
    sbc_samples: Int(ge=10) = 200
    refine_steps: PositiveInt = 40
    refine_lr: PositiveFloat = 0.05
    refine_samples: PositiveInt = 4
    n_test: Int(ge=3) = 20
    n_stim_electrodes: Int(ge=3) = 7
    n_patterns: Int(ge=2) = 24
    amplitudes: Grid(gt=0, min_len=2) = (0.5, 12.0)
    n_amplitudes: Int(ge=2) = 16
    n_trials: PositiveInt = 25
    threshold_sigma: PositiveFloat = 0.05
    bisect_iters: PositiveInt = 9
    chunk: PositiveInt = 500
    geom_nrmse: PositiveFloat = 0.1
    sbc_alpha: Probability = 0.01
    coverage_tol: Probability = 0.1
    sbc_wide: Float(gt=1) = 1.5
    sbc_power: Probability = 0.8
    #: C1c's width tolerance (session 11, an outside review; CLAIMS.md rule 9): a rank test's rejection is evidence
    #: against calibration only when the ranks are also improbable for a Gaussian posterior this many times too wide or
    #: its inverse too narrow; a rejection of exact calibration within it is inconclusive. 1.25: a posterior 1.25x too
    #: wide has 90 % coverage 0.96 (inside coverage_tol), and the declared alternative (sbc_wide 1.5) lies beyond it
    sbc_width_tol: Float(gt=1) = 1.25
    #: C1d (C1c's until session 13; contract's second edition, rule 11): the prior itself is calibrated, so the
    #: posterior must also be informative: its variance, averaged over the SBC cells, below the box prior's by at least
    #: this share on average
    min_contraction: Probability = 0.2
    #: C1d (C1c's until session 13), per parameter (session 12, an outside review: with the mean alone, a posterior
    #: that learned x, y and angle and returned the prior on the other six parameters read 'reproduced' at 500 cells,
    #: mean contraction 0.34): every
    #: parameter the claim covers (all free parameters) must be narrower than its box prior by at least this share,
    #: decided on the t-interval over the SBC cells; below it a parameter is prior-like (posterior sd above 0.89 of
    #: the prior's at 0.2), and its calibration is the prior's, which says nothing about the network
    min_param_contraction: Probability = 0.2
    acc_target: Probability = 0.85
    oracle_gap: Probability = 0.05
    mild_drop: Probability = 0.05
    firing_rate_hz: PositiveFloat = 10.0
    few_minutes: PositiveFloat = 2.0
    long_minutes: PositiveFloat = 40.0
    speed_s: PositiveFloat = 1.0
    npe_timing_repeats: PositiveInt = 5
    max_dropped_frac: Probability = 0.2
    min_acc_gain: Probability = 0.01
    min_theta_gain: Probability = 0.01
    #: C3b's minimum effect (contract's second edition, issue 35): the NPE-started fits' best loss at least this much
    #: lower in log (0.1: about 10 %); also the margin of the fits' plateau test (C3b, C7): the mean log best loss may
    #: move by less than a third of it over the last third of the steps (PlateauTest: 50 % longer, a third of the margin)
    min_log_loss_gain: PositiveFloat = 0.1
    #: C5's minimum effect on the error-count scale (contract's second edition): the log error ratio's interaction must
    #: lie below -min_log_error_ratio (reproduced) or its interval above it (not reproduced); between: inconclusive
    min_log_error_ratio: PositiveFloat = 0.1

    def validate(self) -> None:
        if len(set(self.free)) != len(self.free) or not {"x", "y"} <= set(self.free):
            raise ValueError(f"free={self.free!r} is not allowed; it must list distinct parameters including x and y")
        if self.n_stim_electrodes > self.n_electrodes:
            raise ValueError(f"n_stim_electrodes={self.n_stim_electrodes} is not allowed; it must be <= n_electrodes")
        lo, hi = self.n_spikes_range
        if not lo < hi:
            raise ValueError(f"n_spikes_range={self.n_spikes_range!r} is not allowed; it must be increasing")
        bad = [n for n in (self.n_spikes, *self.n_spikes_sweep) if not lo <= n <= hi]
        if bad:
            raise ValueError(f"n_spikes {bad} are not allowed; they must lie in n_spikes_range={self.n_spikes_range}")
        if not self.few_minutes < self.long_minutes:
            raise ValueError(f"few_minutes={self.few_minutes!r} is not allowed; it must be below long_minutes="
                             f"{self.long_minutes!r}")
        if self.refine_samples > self.n_post:
            raise ValueError(f"refine_samples={self.refine_samples} is not allowed; it must be <= n_post={self.n_post}")

    def spikes_in(self, minutes: float) -> int:
        """The spikes a recording of ``minutes`` holds at ``firing_rate_hz`` (C6's reading of recording length)."""
        return int(round(minutes * 60 * self.firing_rate_hz))


PRESETS: dict[str, HHMEAConfig] = {
    "smoke": HHMEAConfig(free=("x", "y", "height", "angle", "gna"), n_electrodes=19, n_axon=35, n_sims=1500,
                         stim_t_max=1.0, record_frac=0.6, max_epochs=50, bisect_iters=8, n_sbc=40, sbc_samples=100, n_test=5, n_patterns=8, n_amplitudes=12,
                         refine_steps=20, refine_samples=2, n_post=4),
    "default": HHMEAConfig(n_sims=5000, max_epochs=60, batch_size=250),
    "full": HHMEAConfig(n_electrodes=512, n_axon=120, dt=0.001, n_sims=100_000, max_epochs=300, batch_size=500,
                        n_test=200, n_sbc=500, n_patterns=40, n_post=16, refine_samples=8, refine_steps=100, chunk=2000,
                        n_spikes_sweep=(30, 300, 1200, 24000)),
}


def config_for(profile: str, **overrides: Any) -> HHMEAConfig:
    return HHMEAConfig.for_profile(profile, PRESETS, **overrides)
