"""The cell: a soma, a high-sodium initial segment and a straight axon, simulated with Jaxley.

Cable equation per compartment i (length l_i, radius a_i, area A_i = 2π a_i l_i), dossier §3.1:

    C_m dV_i/dt = -I_ion,i + Σ_j g_ij (V_j - V_i) / A_i + I_ext,i / A_i,
    g_ij = 1 / R_ij,   R_ij = R_a/2 (l_i/(π a_i²) + l_j/(π a_j²))

with a Hodgkin–Huxley membrane whose rate functions are the mammalian retinal-ganglion-cell ones of the
dossier (Fohlmeister–Miller family at 35 °C, as used by the paper's precursor code; E_Na = 60.6 mV,
E_K = -101.34 mV). The leak reversal of each compartment is set so that every cell, whatever its channel
densities, rests exactly at V_0 = -65 mV (so a simulation starts from rest and the electrical image has no
start-up transient): E_L = V_0 + (I_Na(V_0) + I_K(V_0)) / g_L with the gates at their steady state.

Units (Jaxley's): µm, ms, mV, nA for point currents, S/cm² for conductances, Ω·cm for R_a, µF/cm².

The simulator sits behind one small interface, :class:`CableSimulator` (``voltages(comp, stim)``), so a
batched PyTorch solver could replace Jaxley without touching the recording, feature or inference code.
Arrays cross the interface as JAX arrays inside traced code and as numpy outside it.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Protocol

import numpy as np

from . import _jax  # noqa: F401  (configures JAX: float64, CPU threads)
import jax.numpy as jnp

__all__ = ["RGCChannel", "rgc_rates", "CellLayout", "CableSimulator", "JaxleyCable", "coupling_conductances",
           "V_REST", "E_NA", "E_K", "G_LEAK", "steady_gates", "leak_reversal"]

V_REST = -65.0      # mV, every cell's resting potential (by the choice of E_L)
E_NA = 60.6         # mV
E_K = -101.34       # mV
G_LEAK = 5e-4       # S/cm² (membrane time constant 2 ms at 1 µF/cm²)


def _vtrap(x, y, np_=jnp):
    """x / (exp(x/y) - 1), with its limit y at x = 0."""
    safe = np_.where(np_.abs(x / y) < 1e-6, 1e-6 * y, x)
    return np_.where(np_.abs(x / y) < 1e-6, y * (1.0 - x / y / 2.0), safe / (np_.exp(safe / y) - 1.0))


def rgc_rates(v, np_=jnp):
    """The RGC Hodgkin–Huxley rates (1/ms) at membrane potential ``v`` (mV): (α_m, β_m, α_h, β_h, α_n, β_n).

    α_m = 2.725 (-(V+35)) / (exp(-(V+35)/10) - 1),  β_m = 90.83 exp(-(V+60)/20),
    α_h = 1.817 exp(-(V+52)/20),                      β_h = 27.25 / (1 + exp(-(V+22)/10)),
    α_n = 0.09575 (-(V+37)) / (exp(-(V+37)/10) - 1),  β_n = 1.915 exp(-(V+47)/80)   (dossier §3.1).
    ``np_`` is ``jax.numpy`` (default) or ``numpy`` (the scipy reference uses it)."""
    am = 2.725 * _vtrap(-(v + 35.0), 10.0, np_)
    bm = 90.83 * np_.exp(-(v + 60.0) / 20.0)
    ah = 1.817 * np_.exp(-(v + 52.0) / 20.0)
    bh = 27.25 / (1.0 + np_.exp(-(v + 22.0) / 10.0))
    an = 0.09575 * _vtrap(-(v + 37.0), 10.0, np_)
    bn = 1.915 * np_.exp(-(v + 47.0) / 80.0)
    return am, bm, ah, bh, an, bn


def steady_gates(v, np_=jnp):
    """(m∞, h∞, n∞) at ``v``."""
    am, bm, ah, bh, an, bn = rgc_rates(v, np_)
    return am / (am + bm), ah / (ah + bh), an / (an + bn)


def leak_reversal(gna, gk, gl=G_LEAK, v0=V_REST, np_=jnp):
    """E_L that makes ``v0`` the resting potential for densities (gna, gk, gl) in S/cm²."""
    m, h, n = steady_gates(np_.asarray(v0, dtype=float), np_)
    i_active = gna * m ** 3 * h * (v0 - E_NA) + gk * n ** 4 * (v0 - E_K)
    return v0 + i_active / gl


def _make_channel_class():
    from jaxley.channels import Channel
    from jaxley.solver_gate import solve_gate_exponential

    class RGCChannel(Channel):
        """Jaxley channel: Na (m³h), K (n⁴) and leak with the RGC rates; E_L computed from the densities so
        that the compartment rests at V_REST (parameters ``RGC_gNa``, ``RGC_gK``, ``RGC_gLeak``)."""

        def __init__(self, name: str | None = None):
            self.current_is_in_mA_per_cm2 = True
            super().__init__(name)
            p = self._name
            self.channel_params = {f"{p}_gNa": 0.1, f"{p}_gK": 0.05, f"{p}_gLeak": G_LEAK}
            m, h, n = (float(x) for x in steady_gates(np.float64(V_REST), np))
            self.channel_states = {f"{p}_m": m, f"{p}_h": h, f"{p}_n": n}
            self.current_name = f"i_{p}"

        def update_states(self, states, dt, v, params):
            p = self._name
            am, bm, ah, bh, an, bn = rgc_rates(v)
            return {f"{p}_m": solve_gate_exponential(states[f"{p}_m"], dt, am, bm),
                    f"{p}_h": solve_gate_exponential(states[f"{p}_h"], dt, ah, bh),
                    f"{p}_n": solve_gate_exponential(states[f"{p}_n"], dt, an, bn)}

        def compute_current(self, states, v, params):
            p = self._name
            m, h, n = states[f"{p}_m"], states[f"{p}_h"], states[f"{p}_n"]
            gna, gk, gl = params[f"{p}_gNa"], params[f"{p}_gK"], params[f"{p}_gLeak"]
            el = leak_reversal(gna, gk, gl)
            return gna * m ** 3 * h * (v - E_NA) + gk * n ** 4 * (v - E_K) + gl * (v - el)

        def init_state(self, states, v, params, delta_t):
            m, h, n = steady_gates(v)
            p = self._name
            return {f"{p}_m": m, f"{p}_h": h, f"{p}_n": n}

    return RGCChannel


RGCChannel = _make_channel_class()


@dataclasses.dataclass(frozen=True)
class CellLayout:
    """The discretisation of the straight cell: compartment 0 is the soma, then ``n_ais`` initial-segment
    compartments, then ``n_axon`` axon compartments, all of length ``comp_length`` µm except the soma.
    The AIS and axon share the axon radius; the AIS carries ``ais_mult`` × the axon's sodium density."""

    soma_length: float = 15.0
    soma_radius: float = 6.0
    comp_length: float = 10.0
    n_ais: int = 4
    n_axon: int = 45
    record_frac: float = 0.85      # the distal compartment whose spike counts as the response

    def __post_init__(self):
        if self.n_ais < 1 or self.n_axon < 5:
            raise ValueError(f"n_ais={self.n_ais}, n_axon={self.n_axon} are not allowed; need n_ais >= 1, n_axon >= 5")
        if not 0.3 <= self.record_frac < 1.0:
            raise ValueError(f"record_frac={self.record_frac!r} is not allowed; it must be in [0.3, 1)")

    @property
    def n_comp(self) -> int:
        return 1 + self.n_ais + self.n_axon

    @property
    def lengths(self) -> np.ndarray:
        out = np.full(self.n_comp, self.comp_length)
        out[0] = self.soma_length
        return out

    @property
    def arc(self) -> np.ndarray:
        """Distance (µm) of each compartment's centre from the soma centre along the cell."""
        ln = self.lengths
        ends = np.cumsum(ln) - ln[0] / 2.0
        return ends - ln / 2.0

    @property
    def is_ais(self) -> np.ndarray:
        m = np.zeros(self.n_comp, bool)
        m[1:1 + self.n_ais] = True
        return m

    @property
    def record_index(self) -> int:
        return int(1 + self.n_ais + round(self.record_frac * (self.n_axon - 1)))


def coupling_conductances(lengths, radii, ra):
    """Axial conductances g_{i,i+1} (µS) between neighbouring compartments of an unbranched cable:
    1 / (R_a/2 (l_i/(π a_i²) + l_{i+1}/(π a_{i+1}²))), with R_a in Ω·cm, lengths and radii in µm
    (Ω·cm/µm = 10⁴ Ω, so R in MΩ is 0.01 × R_a · l/(π a²))."""
    load = lengths / (jnp.pi * radii ** 2)          # 1/µm
    r = 0.01 * ra * 0.5 * (load[:-1] + load[1:])     # MΩ
    return 1.0 / r


class CableSimulator(Protocol):
    """What the rest of the chapter needs from a cable simulator."""

    layout: CellLayout
    dt: float
    t_max: float

    def voltages(self, comp: dict, stim):  # (n_comp, n_t) nA -> (n_comp, n_t + 1) mV
        ...


class JaxleyCable:
    """One unbranched Jaxley cable (soma first) with the RGC channel, backward Euler, the tridiagonal
    ``jaxley.dhs`` solver. ``voltages`` is a pure JAX function of per-compartment parameters and of the
    point currents injected into every compartment (nA), so it can be ``vmap``-ed and differentiated.

    ``comp`` holds arrays of shape (n_comp,): ``radius`` (µm), ``gna``, ``gk`` (S/cm²) and a scalar ``ra``
    (Ω·cm). The returned voltages have shape (n_comp, n_steps + 1), the first column being t = 0."""

    def __init__(self, layout: CellLayout, dt: float, t_max: float):
        import jaxley as jx

        if not (0 < dt <= 0.025):
            raise ValueError(f"dt={dt!r} ms is not allowed; it must be in (0, 0.025] ms")
        self.layout, self.dt, self.t_max = layout, float(dt), float(t_max)
        self.n_steps = int(round(t_max / dt))
        if abs(self.n_steps * dt - t_max) > 1e-9:
            raise ValueError(f"t_max={t_max!r} is not a whole number of steps of dt={dt!r}")
        comp = jx.Compartment()
        branch = jx.Branch(comp, ncomp=layout.n_comp)
        cell = jx.Cell(branch, parents=[-1])
        cell.insert(RGCChannel("RGC"))
        cell.set("v", V_REST)
        cell.set("capacitance", 1.0)
        # every compartment but the soma has the same length; radii are set per call (data_set), so only two
        # compartment-level edits (each is a slow pandas operation in Jaxley) are needed here
        cell.set("length", float(layout.comp_length))
        cell.set("radius", 1.0)
        cell.branch(0).comp(0).set("length", float(layout.soma_length))
        cell.branch(0).comp(0).set("radius", float(layout.soma_radius))
        cell.delete_recordings()
        cell.record("v", verbose=False)
        self.cell = cell
        self._jx = jx

    def voltages(self, comp: dict, stim):
        ps = None
        ps = self.cell.data_set("radius", comp["radius"], ps)
        ps = self.cell.data_set("RGC_gNa", comp["gna"], ps)
        ps = self.cell.data_set("RGC_gK", comp["gk"], ps)
        ps = self.cell.data_set("axial_resistivity", jnp.broadcast_to(comp["ra"], (self.layout.n_comp,)), ps)
        ds = self.cell.branch(0).data_stimulate(stim)
        # Jaxley runs int(t_max // dt) + 1 steps: ask for half a step less than n_steps so that rounding
        # cannot add one; the result has n_steps + 1 columns (t = 0 first).
        return self._jx.integrate(self.cell, param_state=ps, data_stimuli=ds, delta_t=self.dt,
                                  t_max=(self.n_steps - 0.5) * self.dt)

    def with_window(self, t_max: float) -> "JaxleyCable":
        """The same cell (built once: building a Jaxley cell compiles many small kernels) with another window."""
        other = object.__new__(JaxleyCable)
        other.__dict__.update({k: v for k, v in self.__dict__.items() if k != "time"})
        other.t_max = float(t_max)
        other.n_steps = int(round(t_max / self.dt))
        if abs(other.n_steps * self.dt - t_max) > 1e-9:
            raise ValueError(f"t_max={t_max!r} is not a whole number of steps of dt={self.dt!r}")
        return other

    @functools.cached_property
    def time(self) -> np.ndarray:
        return np.arange(self.n_steps + 1) * self.dt


def membrane_currents(v, lengths, radii, ra, stim):
    """Transmembrane currents (nA; outward positive) by current balance from compartment voltages:
    I_m,i = Σ_j g_ij (V_j - V_i) + I_inj,i (what enters the compartment axially or by injection must leave
    through its membrane). ``v``: (n_comp, n_t) mV; ``stim``: (n_comp, n_t) nA, aligned with ``v``."""
    g = coupling_conductances(lengths, radii, ra)[:, None]
    dv = v[1:] - v[:-1]
    axial = jnp.zeros_like(v).at[:-1].add(g * dv).at[1:].add(-g * dv)
    return axial + stim


def spike_times(v, t, threshold: float = 0.0):
    """First upward crossings of ``threshold`` (linearly interpolated) per row of ``v`` (numpy); NaN if none."""
    v = np.asarray(v)
    out = np.full(v.shape[0], np.nan)
    above = v >= threshold
    for i in range(v.shape[0]):
        k = np.flatnonzero(~above[i, :-1] & above[i, 1:])
        if len(k):
            j = k[0]
            out[i] = t[j] + (threshold - v[i, j]) / (v[i, j + 1] - v[i, j]) * (t[j + 1] - t[j])
    return out


def cell_geometry_jnp(layout: CellLayout, x, y, height, angle_deg):
    """Compartment centres (n_comp, 3) µm of a straight cell whose soma is at (x, y, height) and whose
    axon runs parallel to the array plane at ``angle_deg`` from the +x axis."""
    a = jnp.deg2rad(angle_deg)
    s = jnp.asarray(layout.arc)
    return jnp.stack([x + s * jnp.cos(a), y + s * jnp.sin(a), jnp.broadcast_to(height, s.shape)], axis=1)


def passive_length_constant(radius_um: float, ra: float, gl: float = G_LEAK) -> float:
    """λ = sqrt(a R_m / (2 R_a)) in µm, with R_m = 1/g_L (Ω·cm²) and a in cm."""
    a_cm = radius_um * 1e-4
    return math.sqrt(a_cm * (1.0 / gl) / (2.0 * ra)) * 1e4
