"""The forward model: parameters θ → cell → electrical image, and θ × stimulation pattern → spike threshold.

θ (dossier §3.4, a box prior): soma position x, y and height above the array (µm), axon angle (degrees from
the +x axis; axons in one patch of retina run roughly parallel towards the optic disc, hence a bounded
range), sodium density of soma and axon g_Na, axon radius, the initial segment's sodium multiplier, the
potassium density g_K, and the axial resistivity R_a. A profile frees a subset; the others sit at the middle
of their range.

Stimulation (dossier §3.5): a charge-balanced triphasic pulse 2 : -3 : 1 (50 µs per phase; the amplitude A is
the magnitude of the middle, cathodic phase) on a pattern of electrodes with weights c_e (sign = polarity).
The potential it makes at compartment i is V_i(t) = ρ/(4π) Σ_e c_e A w(t) / |r_i - r_e|, and it acts on the
cable as the injected currents of the activating function, I_i = Σ_j g_ij (V_j - V_i) (at the soma and the
sealed far end only one neighbour enters: the cable-end terms). The response is a spike (0 mV crossing) at a
distal axon compartment; its probability at amplitude A is Φ(ln(A/T)/σ) with T the deterministic
threshold (a log-normal threshold noise standing for membrane noise).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
from scipy import stats

from . import _jax  # noqa: F401
import jax
import jax.numpy as jnp

from ...runtime.progress import progress
from .biophys import CellLayout, JaxleyCable, cell_geometry_jnp, coupling_conductances, membrane_currents
from .features import check_ei, feature_vector
from .recording import RHO_E, hex_array, line_source_matrix, point_source_matrix

__all__ = ["PARAMETERS", "BoxPrior", "ForwardModel", "triphasic_waveform", "response_probability"]

#: name -> (low, high, unit, label)
PARAMETERS: dict[str, tuple[float, float, str, str]] = {
    "x": (-40.0, 40.0, "µm", "soma x"),
    "y": (-40.0, 40.0, "µm", "soma y"),
    "height": (12.0, 30.0, "µm", "height above array"),
    "angle": (-60.0, 60.0, "deg", "axon angle"),
    "gna": (0.06, 0.15, "S/cm²", "g_Na"),
    "radius": (0.5, 1.0, "µm", "axon radius"),
    "ais_mult": (2.0, 6.0, "×", "AIS g_Na multiplier"),
    "gk": (0.03, 0.08, "S/cm²", "g_K"),
    "ra": (70.0, 200.0, "Ω·cm", "axial resistivity"),
}
MIN_HEIGHT = 10.0   # µm: below this the point-source potential of the soma is not meaningful


@dataclasses.dataclass(frozen=True)
class BoxPrior:
    """A uniform box prior over the free parameters ``names`` (in the order of ``PARAMETERS``)."""

    names: tuple[str, ...]

    def __post_init__(self):
        unknown = [n for n in self.names if n not in PARAMETERS]
        if unknown or not self.names:
            raise ValueError(f"free parameters {unknown or self.names!r} are not allowed; choose from {list(PARAMETERS)}")

    @property
    def low(self) -> np.ndarray:
        return np.array([PARAMETERS[n][0] for n in self.names])

    @property
    def high(self) -> np.ndarray:
        return np.array([PARAMETERS[n][1] for n in self.names])

    @property
    def dim(self) -> int:
        return len(self.names)

    @property
    def mean(self) -> np.ndarray:
        return (self.low + self.high) / 2

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.low + (self.high - self.low) * rng.random((n, self.dim))

    def check(self, theta) -> np.ndarray:
        """θ as a (n, dim) array, or a ValueError naming the first parameter outside the prior's box."""
        t = np.atleast_2d(np.asarray(theta, float))
        if t.shape[-1] != self.dim:
            raise ValueError(f"θ has {t.shape[-1]} entries per cell; the free parameters are {self.names}")
        for k, n in enumerate(self.names):
            bad = (t[:, k] < self.low[k] - 1e-9) | (t[:, k] > self.high[k] + 1e-9) | ~np.isfinite(t[:, k])
            if bad.any():
                v = float(t[bad, k][0])
                if n == "height" and v < MIN_HEIGHT:
                    raise ValueError(f"height={v:g} µm is not allowed: the cell is closer to the array than the minimum "
                                     f"height {MIN_HEIGHT:g} µm (the prior allows [{self.low[k]:g}, {self.high[k]:g}])")
                raise ValueError(f"{n}={v!r} is outside the prior; allowed range [{self.low[k]:g}, {self.high[k]:g}] "
                                 f"{PARAMETERS[n][2]}")
        return t

    def to_unbounded(self, theta):
        """logit((θ - low)/(high - low)), the coordinates gradient refinement works in."""
        u = (jnp.asarray(theta) - self.low) / (self.high - self.low)
        u = jnp.clip(u, 1e-6, 1 - 1e-6)
        return jnp.log(u) - jnp.log1p(-u)

    def from_unbounded(self, z):
        return self.low + (self.high - self.low) * jax.nn.sigmoid(z)


def triphasic_waveform(dt: float, t_on: float, n_steps: int, phase_ms: float = 0.05,
                       ratios: tuple[float, ...] = (2 / 3, -1.0, 1 / 3)) -> np.ndarray:
    """w(t) per step (n_steps,): the pulse of ``ratios`` (relative to the middle phase's magnitude), each phase
    ``phase_ms`` long, starting at ``t_on``. Refuses an unbalanced pulse (non-zero net charge) and a step
    above 5 µs or one that does not divide the phase."""
    if abs(sum(ratios)) > 1e-9:
        raise ValueError(f"ratios={ratios!r} is not allowed: the pulse is not charge balanced (net {sum(ratios):+.3g})")
    if dt > 0.005 + 1e-12:
        raise ValueError(f"dt={dt!r} ms is not allowed during a stimulation pulse; it must be <= 0.005 ms (5 µs)")
    k = phase_ms / dt
    if abs(k - round(k)) > 1e-6:
        raise ValueError(f"dt={dt!r} ms does not divide the phase length {phase_ms} ms")
    k = int(round(k))
    start = int(round(t_on / dt))
    if start + k * len(ratios) > n_steps:
        raise ValueError("the pulse does not fit in the simulated window")
    w = np.zeros(n_steps)
    for j, r in enumerate(ratios):
        w[start + j * k:start + (j + 1) * k] = r
    return w


def response_probability(amplitude, threshold, sigma: float):
    """P(spike) = Φ(ln(A/T)/σ); 0 where T is infinite (no spike within the searched range)."""
    a = np.asarray(amplitude, float)
    t = np.asarray(threshold, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.log(a / t) / sigma
    return np.where(np.isfinite(t), stats.norm.cdf(z), 0.0)


class ForwardModel:
    """θ → EI and θ × pattern → threshold, batched with ``jax.vmap`` and jitted once per shape.

    ``free``: the free parameters; ``n_electrodes``: the hexagonal array; ``dt``: the step (ms) of both
    simulations; ``rec_t_max`` / ``stim_t_max``: windows (ms); ``source``: "point" or "line"."""

    def __init__(self, free: tuple[str, ...], n_electrodes: int, layout: CellLayout, dt: float = 0.005,
                 rec_t_max: float = 1.6, stim_t_max: float = 1.5, pulse_ms: float = 0.1, pulse_na: float = 2.0,
                 pulse_site: int | None = None,
                 sample_ms: float = 0.05, source: str = "point", rho: float = RHO_E, chunk: int = 500):
        if source not in ("point", "line"):
            raise ValueError(f"source={source!r} is not allowed; allowed values: point, line")
        self.prior = BoxPrior(tuple(free))
        self.layout = layout
        self.electrodes = hex_array(n_electrodes)
        self.n_electrodes = n_electrodes
        self.dt, self.sample_ms, self.source, self.rho, self.chunk = dt, sample_ms, source, rho, chunk
        self.rec = JaxleyCable(layout, dt, rec_t_max)
        self.stim = self.rec.with_window(stim_t_max)
        self.pulse_steps = int(round(pulse_ms / dt))
        self.pulse_na = pulse_na
        self.pulse_site = 0 if pulse_site is None else int(pulse_site)
        self.bin = int(round(sample_ms / dt))
        if abs(self.bin * dt - sample_ms) > 1e-9:
            raise ValueError(f"dt={dt!r} does not divide the 50 µs sampling interval")
        n_win = self.rec.n_steps - self.pulse_steps
        self.n_samples = n_win // self.bin
        self.wave = jnp.asarray(triphasic_waveform(dt, 0.05, self.stim.n_steps))
        self._fixed = {n: (lo + hi) / 2 for n, (lo, hi, _, _) in PARAMETERS.items()}

    # -- θ -> cell -----------------------------------------------------------------------------------
    def full(self, theta) -> dict:
        """All nine parameters (free ones from θ, the others at their prior middle)."""
        d = dict(self._fixed)
        for k, n in enumerate(self.prior.names):
            d[n] = theta[k]
        return d

    def comp_params(self, p: dict) -> dict:
        lay = self.layout
        radius = jnp.where(jnp.arange(lay.n_comp) == 0, lay.soma_radius, p["radius"])
        gna = p["gna"] * jnp.where(jnp.asarray(lay.is_ais), p["ais_mult"], 1.0)
        gk = jnp.broadcast_to(p["gk"], (lay.n_comp,))
        return {"radius": radius, "gna": gna, "gk": gk, "ra": p["ra"]}

    def centres(self, p: dict):
        return cell_geometry_jnp(self.layout, p["x"], p["y"], p["height"], p["angle"])

    def transfer(self, p: dict):
        c = self.centres(p)
        if self.source == "point":
            return point_source_matrix(self.electrodes, c, self.rho)
        a = jnp.deg2rad(p["angle"])
        u = jnp.array([jnp.cos(a), jnp.sin(a), 0.0])
        half = jnp.asarray(self.layout.lengths)[:, None] / 2 * u[None]
        return line_source_matrix(self.electrodes, c - half, c + half, self.rho)

    # -- recording -----------------------------------------------------------------------------------
    def rec_stimulus(self):
        s = jnp.zeros((self.layout.n_comp, self.rec.n_steps))
        return s.at[self.pulse_site, :self.pulse_steps].set(self.pulse_na)

    def currents(self, theta):
        """Membrane currents (n_comp, n_t + 1) nA and voltages of one spike evoked by a brief somatic pulse."""
        p = self.full(theta)
        cp = self.comp_params(p)
        stim = self.rec_stimulus()
        v = self.rec.voltages(cp, stim)
        stim_v = jnp.concatenate([stim, jnp.zeros((stim.shape[0], 1))], axis=1)  # stim[:, n] drives v[:, n+1]
        stim_v = jnp.roll(stim_v, 1, axis=1)
        im = membrane_currents(v, jnp.asarray(self.layout.lengths), cp["radius"], cp["ra"], stim_v)
        return im, v

    @functools.cached_property
    def currents_jit(self):
        """:meth:`currents` of one θ compiled as one program (the cable figure's; run op by op it took about four times
        the CPU, measured in session 11: 6.5 s against 1.7 s at smoke)."""
        return jax.jit(self.currents)

    def ei(self, theta):
        """The noiseless EI (n_elec, n_samples) µV: φ after the pulse, averaged in 50 µs bins. The window opens
        when the evoking pulse ends (its injected current would otherwise appear as a monopole), so the
        capacitive phase of a spontaneous spike, when the initial segment charges the soma, is mostly inside the
        pulse and only partly in the image."""
        im, _ = self.currents(theta)
        win = im[:, 1 + self.pulse_steps:1 + self.pulse_steps + self.n_samples * self.bin]
        binned = win.reshape(win.shape[0], self.n_samples, self.bin).mean(-1)
        return self.transfer(self.full(theta)) @ binned

    def features(self, theta):
        """The designed feature vector (n_elec * 6 + 4,) of θ's noiseless EI."""
        return feature_vector(self.ei(theta), self.electrodes, self.sample_ms)

    @functools.cached_property
    def _ei_batch(self):
        return jax.jit(jax.vmap(self.ei))

    def simulate_eis(self, thetas, desc: str = "simulating electrical images") -> np.ndarray:
        """(n, n_elec, n_samples) noiseless EIs for θ (n, dim) inside the prior."""
        t = self.prior.check(thetas)
        out = []
        for i in progress(range(0, len(t), self.chunk), desc=desc):
            part = t[i:i + self.chunk]
            pad = self.chunk - len(part)
            full = np.concatenate([part, np.repeat(part[-1:], pad, 0)]) if pad else part
            out.append(np.asarray(self._ei_batch(jnp.asarray(full)))[:len(part)])
        return np.concatenate(out)

    @functools.cached_property
    def _feat_batch(self):
        return jax.jit(jax.vmap(lambda e: feature_vector(e, self.electrodes, self.sample_ms)))

    def features_of(self, eis) -> np.ndarray:
        """(n, n_elec * 6 + 4) feature vectors of EIs (n, n_elec, n_samples); each EI is checked."""
        eis = np.asarray(eis, float)
        if eis.ndim == 2:
            eis = eis[None]
        for e in eis[:1]:
            check_ei(e, self.n_electrodes)
        if not np.all(np.isfinite(eis)):
            raise ValueError("an electrical image contains NaN or infinite values")
        # in chunks of ``chunk`` rows, the last one padded (as :meth:`simulate_eis`): one compiled shape for every batch
        # (the study's 1500, 40 and 5 EIs at smoke compiled three programs, about 1 s of CPU each; session 11)
        out = []
        for i in range(0, len(eis), self.chunk):
            part = eis[i:i + self.chunk]
            pad = self.chunk - len(part)
            full = np.concatenate([part, np.repeat(part[-1:], pad, 0)]) if pad else part
            out.append(np.asarray(self._feat_batch(jnp.asarray(full)))[:len(part)])
        return np.concatenate(out)

    # -- stimulation ---------------------------------------------------------------------------------
    def check_pattern(self, weights) -> np.ndarray:
        w = np.atleast_2d(np.asarray(weights, float))
        if w.shape[-1] != self.n_electrodes:
            raise ValueError(f"a pattern has {w.shape[-1]} electrode weights; this array has {self.n_electrodes} electrodes")
        return w

    def pattern_from(self, electrodes, signs) -> np.ndarray:
        """A weight vector from electrode indices and polarities (±1 or fractions)."""
        w = np.zeros(self.n_electrodes)
        for e, s in zip(electrodes, signs):
            if isinstance(e, bool) or not isinstance(e, (int, np.integer)) or not 0 <= e < self.n_electrodes:
                raise ValueError(f"electrode {e!r} does not exist; electrodes are 0..{self.n_electrodes - 1}")
            w[e] = s
        return w

    def activating_currents(self, theta, weights):
        """Injected currents per compartment (n_comp,) in nA per µA of amplitude of the middle phase."""
        p = self.full(theta)
        c = self.centres(p)
        e3 = jnp.concatenate([jnp.asarray(self.electrodes), jnp.zeros((self.n_electrodes, 1))], axis=1)
        d = jnp.linalg.norm(c[:, None, :] - e3[None], axis=-1)
        vext = 10.0 * self.rho / (4 * jnp.pi * d) @ weights          # mV per µA
        cp = self.comp_params(p)
        g = coupling_conductances(jnp.asarray(self.layout.lengths), cp["radius"], cp["ra"])
        dv = vext[1:] - vext[:-1]
        return jnp.zeros_like(vext).at[:-1].add(g * dv).at[1:].add(-g * dv)

    def stim_voltage(self, theta, weights, amplitude):
        """Voltage at the distal recording compartment (n_t + 1,) for a pattern at ``amplitude`` µA."""
        p = self.full(theta)
        inj = self.activating_currents(theta, weights)
        stim = amplitude * inj[:, None] * self.wave[None, :]
        v = self.stim.voltages(self.comp_params(p), stim)
        return v[self.layout.record_index]

    @functools.cached_property
    def _spikes_batch(self):
        return jax.jit(jax.vmap(lambda th, w, a: jnp.max(self.stim_voltage(th, w, a)) > 0.0))

    def spikes(self, thetas, weights, amplitudes) -> np.ndarray:
        """Whether each (θ, pattern, amplitude) triple spikes, batched in chunks."""
        t = np.asarray(thetas, float)
        w = self.check_pattern(weights)
        a = np.asarray(amplitudes, float)
        n = len(t)
        out = np.zeros(n, bool)
        for i in range(0, n, self.chunk):
            sl = slice(i, i + self.chunk)
            tt, ww, aa = t[sl], w[sl], a[sl]
            pad = self.chunk - len(tt)
            if pad:
                tt, ww, aa = (np.concatenate([x, np.repeat(x[-1:], pad, 0)]) for x in (tt, ww, aa))
            out[sl] = np.asarray(self._spikes_batch(jnp.asarray(tt), jnp.asarray(ww), jnp.asarray(aa)))[:n - i]
        return out

    def thresholds(self, thetas, weights, a_min: float = 0.05, a_max: float = 8.0, iters: int = 10,
                   desc: str = "threshold search") -> np.ndarray:
        """Threshold amplitude (µA) of each (θ, pattern) pair by bisection in log-amplitude (relative precision
        (a_max/a_min)^(2^-iters)); +inf where ``a_max`` evokes no spike. Only the pairs that spike at ``a_max`` are
        bisected (since session 14; each pair's search is its own, so the numbers are those of bisecting every pair)."""
        t = self.prior.check(thetas)
        w = self.check_pattern(weights)
        if len(w) != len(t):
            raise ValueError(f"{len(t)} parameter sets but {len(w)} patterns")
        top = self.spikes(t, w, np.full(len(t), np.exp(np.log(a_max))))     # exp(log(.)): the amplitude as before
        on = np.flatnonzero(top)
        t, w = t[on], w[on]
        lo = np.full(len(on), np.log(a_min))
        hi = np.full(len(on), np.log(a_max))
        for _ in progress(range(iters), desc=desc):
            mid = (lo + hi) / 2
            s = self.spikes(t, w, np.exp(mid))
            hi = np.where(s, mid, hi)
            lo = np.where(s, lo, mid)
        out = np.full(len(top), np.inf)
        out[on] = np.exp((lo + hi) / 2)
        return out
