r"""The capped alanine dipeptide (ACE-ALA-NME, 22 atoms), its OpenMM energy, and our own MD.

Structure: the ten heavy atoms are placed from internal coordinates (bond lengths, angles and torsions of a
standard trans peptide; NeRF placement, :func:`place`), the hydrogens are added by OpenMM's ``Modeller`` with
the force field's templates (ACE and NME are known to both ``hydrogens.xml`` and amber99sbildn), then the
structure is minimised. Energy (the paper's setting, dossier §3.5): amber99sbildn + amber99_obc implicit
solvent, no cutoff, no constraints, 300 K; reduced energies :math:`u(x)=U(x)/(k_B T)` in units of kT,
with :math:`k_B T = R T` (molar gas constant, kJ/mol). Many frames go through one ``Context``
(:class:`Energy`). MD: Langevin (``LangevinMiddleIntegrator``) at 1 fs, friction 1/ps, frames every 1 ps.

Coordinates are nm, shape (frames, atoms, 3), in the topology's atom order.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import math
from pathlib import Path

import numpy as np

__all__ = ["place", "heavy_atom_positions", "AlanineDipeptide", "build_alanine_dipeptide", "Energy",
           "simulate", "MDConfig", "FORCE_FIELDS", "save_trajectory", "load_trajectory", "chiral_volume"]

#: the force-field sets a system may use (the paper's ADP set and the amber14 set of its larger peptides)
FORCE_FIELDS = {"amber99sbildn-obc": ("amber99sbildn.xml", "amber99_obc.xml"),
                "amber14-obc1": ("amber14-all.xml", "implicit/obc1.xml")}


def place(a: np.ndarray, b: np.ndarray, c: np.ndarray, bond: float, angle: float, torsion: float) -> np.ndarray:
    r"""The point d with :math:`|cd|` = ``bond``, angle b-c-d = ``angle`` and torsion a-b-c-d = ``torsion``
    (degrees; IUPAC sign) (natural extension reference frame, Parsons et al. 2005)."""
    ang, tor = math.radians(angle), math.radians(torsion)
    bc = c - b
    bc /= np.linalg.norm(bc)
    n = np.cross(b - a, bc)
    n /= np.linalg.norm(n)
    m = np.cross(n, bc)
    d2 = np.array([-bond * math.cos(ang), bond * math.sin(ang) * math.cos(tor), bond * math.sin(ang) * math.sin(tor)])
    return c + d2[0] * bc + d2[1] * m + d2[2] * n


def heavy_atom_positions(phi: float = -80.0, psi: float = 150.0, omega: float = 180.0) -> list[tuple[str, str, str, np.ndarray]]:
    """(residue, atom name, element, position in Å) of the ten heavy atoms: ACE CH3 C O, ALA N CA CB C O, NME N C.

    Standard geometry (Engh & Huber-like values); CB placed with the torsion N-C-CA-CB = +122.7° of an
    L-amino acid (the value PeptideBuilder uses); the peptide bonds trans (ω = 180°), each O cis to the next
    residue's alpha carbon."""
    ch3 = np.array([0.0, 0.0, 0.0])
    c0 = np.array([1.52, 0.0, 0.0])
    n1 = place(np.array([0.0, 1.0, 0.0]), ch3, c0, 1.335, 116.6, 0.0)
    ca = place(ch3, c0, n1, 1.458, 121.7, omega)
    c1 = place(c0, n1, ca, 1.525, 111.0, phi)
    n2 = place(n1, ca, c1, 1.335, 116.2, psi)
    c2 = place(ca, c1, n2, 1.449, 121.7, omega)
    o0 = place(ca, n1, c0, 1.229, 123.0, 0.0)
    o1 = place(c2, n2, c1, 1.229, 123.0, 0.0)
    cb = place(n1, c1, ca, 1.526, 110.1, 122.7)
    return [("ACE", "CH3", "C", ch3), ("ACE", "C", "C", c0), ("ACE", "O", "O", o0),
            ("ALA", "N", "N", n1), ("ALA", "CA", "C", ca), ("ALA", "CB", "C", cb), ("ALA", "C", "C", c1),
            ("ALA", "O", "O", o1), ("NME", "N", "N", n2), ("NME", "C", "C", c2)]


def _forcefield(name: str):
    from openmm import app
    if name not in FORCE_FIELDS:
        raise ValueError(f"force_field={name!r} is not allowed; allowed values: {', '.join(FORCE_FIELDS)}")
    return app.ForceField(*FORCE_FIELDS[name])


@dataclasses.dataclass
class AlanineDipeptide:
    """The built molecule: OpenMM topology, minimised positions (nm, (22, 3)), force-field name, temperature."""

    topology: object
    positions: np.ndarray
    force_field: str
    temperature: float

    @property
    def n_atoms(self) -> int:
        return self.positions.shape[0]

    def atom_names(self) -> list[str]:
        return [f"{a.residue.name}-{a.name}" for a in self.topology.atoms()]

    def index(self, residue: str, name: str) -> int:
        for a in self.topology.atoms():
            if a.residue.name == residue and a.name == name:
                return a.index
        raise KeyError(f"no atom {residue}-{name}")

    def bonds(self) -> np.ndarray:
        """(n_bonds, 2) atom indices."""
        return np.array([[b[0].index, b[1].index] for b in self.topology.bonds()], dtype=int)

    def elements(self) -> list[str]:
        return [a.element.symbol for a in self.topology.atoms()]

    def backbone_dihedral_atoms(self) -> dict[str, tuple[int, int, int, int]]:
        """φ = C(ACE)-N-CA-C and ψ = N-CA-C-N(NME), atom indices."""
        i = self.index
        return {"phi": (i("ACE", "C"), i("ALA", "N"), i("ALA", "CA"), i("ALA", "C")),
                "psi": (i("ALA", "N"), i("ALA", "CA"), i("ALA", "C"), i("NME", "N"))}

    def chiral_centre(self) -> tuple[int, int, int, int]:
        """(CA, N, C, CB): the alanine stereocentre and three of its neighbours."""
        i = self.index
        return i("ALA", "CA"), i("ALA", "N"), i("ALA", "C"), i("ALA", "CB")

    def system(self, force_field: str | None = None):
        return make_system(self.topology, force_field or self.force_field)

    def energy(self, platform: str = "Reference") -> "Energy":
        return Energy(self, platform=platform)


def make_system(topology, force_field: str):
    from openmm import app
    return _forcefield(force_field).createSystem(topology, nonbondedMethod=app.NoCutoff, constraints=None,
                                                 rigidWater=False)


def build_alanine_dipeptide(force_field: str = "amber99sbildn-obc", temperature: float = 300.0,
                            minimise: bool = True) -> AlanineDipeptide:
    """Heavy atoms from internal coordinates, hydrogens by ``Modeller.addHydrogens``, then an energy
    minimisation (Reference platform, tolerance 1 kJ/mol/nm) with the chosen force field."""
    import openmm
    from openmm import app, unit
    if not temperature > 0:
        raise ValueError(f"temperature={temperature!r} is not allowed; it must be > 0 (kelvin)")
    ff = _forcefield(force_field)
    top = app.Topology()
    chain = top.addChain()
    residues: dict[str, object] = {}
    pos = []
    for res, name, el, xyz in heavy_atom_positions():
        if res not in residues:
            residues[res] = top.addResidue(res, chain)
        top.addAtom(name, app.Element.getBySymbol(el), residues[res])
        pos.append(xyz / 10.0)
    top.createStandardBonds()
    modeller = app.Modeller(top, np.array(pos) * unit.nanometer)
    modeller.addHydrogens(ff)
    system = ff.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff, constraints=None)
    positions = np.array(modeller.positions.value_in_unit(unit.nanometer))
    if minimise:
        ctx = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
        ctx.setPositions(positions * unit.nanometer)
        openmm.LocalEnergyMinimizer.minimize(ctx, 1.0, 0)
        positions = ctx.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer)
    return AlanineDipeptide(modeller.topology, np.asarray(positions, dtype=np.float64), force_field, float(temperature))


def kT(temperature: float) -> float:
    """:math:`RT` in kJ/mol."""
    from openmm import unit
    return float((unit.MOLAR_GAS_CONSTANT_R * temperature * unit.kelvin).value_in_unit(unit.kilojoule_per_mole))


class Energy:
    """Reduced energies :math:`u(x) = U(x)/RT` (kT) of many frames through one OpenMM ``Context``.

    ``reduced(frames)``: frames (M, N, 3) nm -> (M,) float64; a frame whose energy is not finite (a clash
    OpenMM cannot evaluate) gives NaN, never an exception (:func:`~icmlbook.arbg_boltzmann.snis.log_weights`
    gives it zero weight and counts it). ``forces(frame)`` -> (N, 3) kJ/mol/nm.
    """

    def __init__(self, molecule: AlanineDipeptide, platform: str = "Reference", threads: int = 1):
        import openmm
        allowed = [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]
        if platform not in allowed:
            raise ValueError(f"platform={platform!r} is not allowed; allowed values here: {', '.join(allowed)}")
        self.n_atoms = molecule.n_atoms
        self.kT = kT(molecule.temperature)
        system = molecule.system()
        props = {"Threads": str(threads)} if platform == "CPU" else {}
        self.context = openmm.Context(system, openmm.VerletIntegrator(0.001),
                                      openmm.Platform.getPlatformByName(platform), props)
        self.evaluations = 0

    def _check(self, frames: np.ndarray) -> np.ndarray:
        frames = np.asarray(frames, dtype=np.float64)
        if frames.ndim == 2:
            frames = frames[None]
        if frames.ndim != 3 or frames.shape[1:] != (self.n_atoms, 3):
            raise ValueError(f"frames must have shape (M, {self.n_atoms}, 3) (nm); got {frames.shape}")
        return frames

    def potential(self, frames: np.ndarray) -> np.ndarray:
        """Potential energies, kJ/mol, (M,)."""
        frames = self._check(frames)
        out = np.empty(len(frames))
        for i, f in enumerate(frames):
            if not np.all(np.isfinite(f)):
                out[i] = np.nan
                continue
            try:
                self.context.setPositions(f)
                e = self.context.getState(getEnergy=True).getPotentialEnergy()._value
            except Exception:       # OpenMM raises on particle coordinates it cannot evaluate
                e = np.nan
            out[i] = e if np.isfinite(e) else np.nan
        self.evaluations += len(frames)
        return out

    def reduced(self, frames: np.ndarray) -> np.ndarray:
        return self.potential(frames) / self.kT

    def forces(self, frame: np.ndarray) -> np.ndarray:
        f = self._check(frame)[0]
        self.context.setPositions(f)
        return np.asarray(self.context.getState(getForces=True).getForces(asNumpy=True)._value, dtype=np.float64)


@dataclasses.dataclass(frozen=True)
class MDConfig:
    """Langevin MD: ``n_frames`` frames every ``steps_per_frame`` steps of ``dt_fs``, after ``equilibrate``
    steps; ``constraints``: None (the energy's own setting) or "HBonds" (only for a long reference run at 2 fs)."""

    n_frames: int = 1000
    steps_per_frame: int = 1000
    dt_fs: float = 1.0
    friction_per_ps: float = 1.0
    equilibrate: int = 10000
    seed: int = 0
    platform: str = "Reference"
    constraints: str | None = None

    def __post_init__(self):
        for name in ("n_frames", "steps_per_frame"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}={v!r} is not allowed; it must be an integer >= 1")
        if not self.dt_fs > 0:
            raise ValueError(f"dt_fs={self.dt_fs!r} is not allowed; it must be > 0")
        if self.constraints not in (None, "HBonds"):
            raise ValueError(f"constraints={self.constraints!r} is not allowed; allowed values: None, HBonds")


def simulate(molecule: AlanineDipeptide, cfg: MDConfig, progress_desc: str | None = None) -> np.ndarray:
    """Run Langevin MD from the minimised structure; returns (n_frames, N, 3) float32 nm (centred frames are
    not required: the energy is translation invariant)."""
    import openmm
    from openmm import app, unit

    from ..runtime.progress import progress
    ff = _forcefield(molecule.force_field)
    system = ff.createSystem(molecule.topology, nonbondedMethod=app.NoCutoff,
                             constraints=None if cfg.constraints is None else app.HBonds)
    integ = openmm.LangevinMiddleIntegrator(molecule.temperature * unit.kelvin, cfg.friction_per_ps / unit.picosecond,
                                            cfg.dt_fs * unit.femtosecond)
    integ.setRandomNumberSeed(cfg.seed + 1)          # OpenMM's seed 0 means "pick one at random"
    ctx = openmm.Context(system, integ, openmm.Platform.getPlatformByName(cfg.platform))
    ctx.setPositions(molecule.positions)
    ctx.setVelocitiesToTemperature(molecule.temperature * unit.kelvin, cfg.seed + 1)
    if cfg.equilibrate:
        integ.step(cfg.equilibrate)
    out = np.empty((cfg.n_frames, molecule.n_atoms, 3), dtype=np.float32)
    for i in progress(range(cfg.n_frames), desc=progress_desc or "MD", total=cfg.n_frames):
        integ.step(cfg.steps_per_frame)
        out[i] = ctx.getState(getPositions=True).getPositions(asNumpy=True)._value
    return out


def chiral_volume(frames: np.ndarray, centre: tuple[int, int, int, int]) -> np.ndarray:
    r"""Signed volume :math:`(N-C_\alpha)\cdot[(C-C_\alpha)\times(C_\beta-C_\alpha)]` per frame (M,); its sign is
    the handedness of the stereocentre (a mirror image flips it)."""
    f = np.asarray(frames, dtype=np.float64)
    ca, n, c, cb = (f[:, j] for j in centre)
    return np.einsum("ij,ij->i", n - ca, np.cross(c - ca, cb - ca))


def save_trajectory(path: Path, frames: np.ndarray, meta: dict) -> str:
    """Write frames (float32 nm) and metadata to a compressed ``.npz``; returns its SHA-256."""
    buf = io.BytesIO()
    np.savez_compressed(buf, frames=np.asarray(frames, dtype=np.float32),
                        **{k: np.asarray(v) for k, v in meta.items()})
    data = buf.getvalue()
    Path(path).write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def load_trajectory(path: Path, sha256: str | None = None) -> tuple[np.ndarray, dict]:
    data = Path(path).read_bytes()
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError(f"{path} does not match its recorded SHA-256 {sha256}: the file was changed or truncated")
    z = np.load(io.BytesIO(data))
    return z["frames"], {k: z[k] for k in z.files if k != "frames"}
