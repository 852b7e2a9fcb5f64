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
import functools
import hashlib
import io
import math
import random
from pathlib import Path

import numpy as np

__all__ = ["place", "heavy_atom_positions", "alanine_peptide_heavy_atoms", "AlaninePeptide", "AlanineDipeptide",
           "build_alanine_dipeptide", "build_alanine_peptide", "PEPTIDES", "Energy",
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


def alanine_peptide_heavy_atoms(n_residues: int = 1, caps: bool = True, phi: float = -80.0, psi: float = 150.0,
                                omega: float = 180.0) -> list[tuple[str, str, str, np.ndarray]]:
    """(residue, atom name, element, position in Å) of the heavy atoms of an alanine peptide: ``n_residues`` ALA,
    capped (ACE-ALA_n-NME) or not (a free N-terminus and a C-terminal carboxylate, OXT placed here).

    Standard geometry (Engh & Huber-like values): C-N 1.335 Å, N-CA 1.458 Å, CA-C 1.525 Å, C=O 1.229 Å, angles
    CA-C-N 116.2°, C-N-CA 121.7°, N-CA-C 111.0°; every residue at the same (φ, ψ), the peptide bonds trans (ω);
    each O cis to the next residue's alpha carbon; CB placed with the torsion N-C-CA-CB = +122.7° of an L-amino
    acid (the value PeptideBuilder uses). NeRF placement (:func:`place`): each backbone atom from the three before
    it."""
    if isinstance(n_residues, bool) or not isinstance(n_residues, int) or n_residues < 1:
        raise ValueError(f"n_residues={n_residues!r} is not allowed; it must be an integer >= 1")
    dummy = np.array([0.0, 1.0, 0.0])
    atoms: list[list] = []                    # [residue id, residue name, atom name, element, position]
    bb: list[np.ndarray] = []                 # the backbone so far (ACE CH3, C, then N, CA, C per residue, ...)
    if caps:
        ch3, c0 = np.array([0.0, 0.0, 0.0]), np.array([1.52, 0.0, 0.0])
        atoms += [[0, "ACE", "CH3", "C", ch3], [0, "ACE", "C", "C", c0]]
        bb += [ch3, c0]
    first = 1 if caps else 0
    for r in range(first, first + n_residues):
        if not bb:                            # a free N-terminus starts the chain
            n = np.array([0.0, 0.0, 0.0])
            ca = np.array([1.458, 0.0, 0.0])
            c = place(dummy, n, ca, 1.525, 111.0, 0.0)
        else:
            if len(bb) == 2:                  # the N after the ACE cap
                n = place(dummy, bb[-2], bb[-1], 1.335, 116.6, 0.0)
            else:
                n = place(bb[-3], bb[-2], bb[-1], 1.335, 116.2, psi)
            ca = place(bb[-2], bb[-1], n, 1.458, 121.7, omega)
            c = place(bb[-1], n, ca, 1.525, 111.0, phi)
        cb = place(n, c, ca, 1.526, 110.1, 122.7)
        atoms += [[r, "ALA", "N", "N", n], [r, "ALA", "CA", "C", ca], [r, "ALA", "CB", "C", cb], [r, "ALA", "C", "C", c]]
        bb += [n, ca, c]
    last = first + n_residues
    if caps:
        n2 = place(bb[-3], bb[-2], bb[-1], 1.335, 116.2, psi)
        c2 = place(bb[-2], bb[-1], n2, 1.449, 121.7, omega)
        atoms += [[last, "NME", "N", "N", n2], [last, "NME", "C", "C", c2]]
        bb += [n2, c2]
    # carbonyl oxygens: cis to the next residue's first heavy atom after N (CA, or the NME carbon)
    out = []
    for a in atoms:
        out.append(a)
        if a[2] == "C" and a[1] in ("ACE", "ALA"):
            j = next((k for k, x in enumerate(bb) if x is a[4]), None)
            if j is not None and j + 2 < len(bb):
                out.append([a[0], a[1], "O", "O", place(bb[j + 2], bb[j + 1], bb[j], 1.229, 123.0, 0.0)])
            else:                             # the C-terminal carboxylate: O and OXT, 1.25 Å, CA-C-O 117°
                out.append([a[0], a[1], "O", "O", place(bb[j - 2], bb[j - 1], bb[j], 1.25, 117.0, psi + 180.0)])
                out.append([a[0], a[1], "OXT", "O", place(bb[j - 2], bb[j - 1], bb[j], 1.25, 117.0, psi)])
    return [(f"{name}{rid}", atom, el, xyz) for rid, name, atom, el, xyz in out]


def heavy_atom_positions(phi: float = -80.0, psi: float = 150.0, omega: float = 180.0) -> list[tuple[str, str, str, np.ndarray]]:
    """(residue, atom name, element, position in Å) of the ten heavy atoms of ACE-ALA-NME: ACE CH3 C O, ALA N CA CB
    C O, NME N C (:func:`alanine_peptide_heavy_atoms` with one residue and caps; residue names without ids)."""
    return [(res.rstrip("0123456789"), name, el, xyz)
            for res, name, el, xyz in alanine_peptide_heavy_atoms(1, True, phi, psi, omega)]


@functools.lru_cache(maxsize=None)
def _forcefield(name: str):
    """The parsed force field (parsed once per process: each parse reads the XML files, ~0.25 s; a ForceField is
    not changed by ``createSystem`` or ``Modeller.addHydrogens``, so one object serves every system built here)."""
    from openmm import app
    if name not in FORCE_FIELDS:
        raise ValueError(f"force_field={name!r} is not allowed; allowed values: {', '.join(FORCE_FIELDS)}")
    return app.ForceField(*FORCE_FIELDS[name])


@dataclasses.dataclass
class AlaninePeptide:
    """A built alanine peptide: OpenMM topology, minimised positions (nm, (N, 3)), force-field name, temperature (K)."""

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
        """The first atom called ``name`` in a residue called ``residue``."""
        for a in self.topology.atoms():
            if a.residue.name == residue and a.name == name:
                return a.index
        raise KeyError(f"no atom {residue}-{name}")

    def residues(self) -> list[tuple[str, dict[str, int]]]:
        """(residue name, {atom name: index}) in chain order."""
        return [(r.name, {a.name: a.index for a in r.atoms()}) for r in self.topology.residues()]

    def bonds(self) -> np.ndarray:
        """(n_bonds, 2) atom indices."""
        return np.array([[b[0].index, b[1].index] for b in self.topology.bonds()], dtype=int)

    def elements(self) -> list[str]:
        return [a.element.symbol for a in self.topology.atoms()]

    def backbone_dihedral_atoms(self) -> dict[str, tuple[int, int, int, int]]:
        """φ = C(previous)-N-CA-C and ψ = N-CA-C-N(next) of every alanine that has both neighbours' atoms; named
        ``phi``/``psi`` when there is one of each (the dipeptide), else ``phi1``, ``psi1``, ... by alanine."""
        res = self.residues()
        phi, psi = {}, {}
        k = 0
        for j, (name, at) in enumerate(res):
            if name != "ALA":
                continue
            k += 1
            if j > 0 and "C" in res[j - 1][1]:
                phi[k] = (res[j - 1][1]["C"], at["N"], at["CA"], at["C"])
            if j + 1 < len(res) and "N" in res[j + 1][1]:
                psi[k] = (at["N"], at["CA"], at["C"], res[j + 1][1]["N"])
        if len(phi) == 1 and len(psi) == 1:
            return {"phi": next(iter(phi.values())), "psi": next(iter(psi.values()))}
        out = {}
        for k in sorted(set(phi) | set(psi)):
            if k in phi:
                out[f"phi{k}"] = phi[k]
            if k in psi:
                out[f"psi{k}"] = psi[k]
        return out

    def peptide_bond_torsions(self) -> list[tuple[int, int, int, int]]:
        """ω = CA(or ACE CH3)-C-N-CA(or NME C) of every peptide bond."""
        res = self.residues()
        out = []
        for (_, a), (_, b) in zip(res[:-1], res[1:]):
            if "C" in a and "N" in b:
                out.append((a.get("CA", a.get("CH3")), a["C"], b["N"], b.get("CA", b.get("C"))))
        return out

    def chiral_centres(self) -> list[tuple[int, int, int, int]]:
        """(CA, N, C, CB) of every alanine."""
        return [(at["CA"], at["N"], at["C"], at["CB"]) for name, at in self.residues() if name == "ALA"]

    def chiral_centre(self) -> tuple[int, int, int, int]:
        """(CA, N, C, CB): the first alanine's stereocentre and three of its neighbours."""
        return self.chiral_centres()[0]

    def system(self, force_field: str | None = None):
        return make_system(self.topology, force_field or self.force_field)

    def energy(self, platform: str = "Reference") -> "Energy":
        return Energy(self, platform=platform)


class AlanineDipeptide(AlaninePeptide):
    """ACE-ALA-NME (22 atoms), the paper's smallest system."""


def make_system(topology, force_field: str):
    from openmm import app
    return _forcefield(force_field).createSystem(topology, nonbondedMethod=app.NoCutoff, constraints=None,
                                                 rigidWater=False)


def build_alanine_dipeptide(force_field: str = "amber99sbildn-obc", temperature: float = 300.0,
                            minimise: bool = True) -> AlanineDipeptide:
    """ACE-ALA-NME: heavy atoms from internal coordinates, hydrogens by ``Modeller.addHydrogens``, then an energy
    minimisation (Reference platform, tolerance 1 kJ/mol/nm) with the chosen force field."""
    return _build(heavy_atom_positions(), force_field, temperature, minimise, AlanineDipeptide)


#: the paper's larger single systems we can build (dossier §4): uncapped, zwitterionic alanine peptides
PEPTIDES = {"AAA": (3, False), "AAAAAA": (6, False), "ACE-AAA-NME": (3, True)}


def build_alanine_peptide(name: str, force_field: str = "amber14-obc1", temperature: float = 310.0,
                          minimise: bool = True) -> AlaninePeptide:
    """Tri-alanine ``"AAA"``, hexa-alanine ``"AAAAAA"`` (free termini: NH3+ and COO-) or ``"ACE-AAA-NME"``, built like
    the dipeptide (our internal coordinates, Modeller's hydrogens, minimisation); the paper's setting for these
    systems is amber14 + OBC1 at 310 K."""
    if name not in PEPTIDES:
        raise ValueError(f"peptide={name!r} is not allowed; allowed values: {', '.join(PEPTIDES)}")
    n, caps = PEPTIDES[name]
    return _build(alanine_peptide_heavy_atoms(n, caps), force_field, temperature, minimise, AlaninePeptide)


def _build(heavy, force_field: str, temperature: float, minimise: bool, cls):
    """The shared builder; the hydrogens are placed from a fixed seed, so the same call gives the same structure."""
    import openmm
    from openmm import app, unit
    if not temperature > 0:
        raise ValueError(f"temperature={temperature!r} is not allowed; it must be > 0 (kelvin)")
    ff = _forcefield(force_field)
    top = app.Topology()
    chain = top.addChain()
    residues: dict[str, object] = {}
    pos = []
    for res, name, el, xyz in heavy:
        if res not in residues:
            residues[res] = top.addResidue(res.rstrip("0123456789"), chain)
        top.addAtom(name, app.Element.getBySymbol(el), residues[res])
        pos.append(xyz / 10.0)
    top.createStandardBonds()
    modeller = app.Modeller(top, np.array(pos) * unit.nanometer)
    state = random.getstate()                 # Modeller starts new hydrogens at positions from Python's `random`
    try:
        random.seed(0)
        modeller.addHydrogens(ff, platform=openmm.Platform.getPlatformByName("Reference"))
    finally:
        random.setstate(state)
    system = ff.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff, constraints=None)
    positions = np.array(modeller.positions.value_in_unit(unit.nanometer))
    if minimise:
        ctx = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
        ctx.setPositions(positions * unit.nanometer)
        openmm.LocalEnergyMinimizer.minimize(ctx, 1.0, 0)
        positions = ctx.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer)
    return cls(modeller.topology, np.asarray(positions, dtype=np.float64), force_field, float(temperature))


def kT(temperature: float) -> float:
    """:math:`RT` in kJ/mol."""
    from openmm import unit
    return float((unit.MOLAR_GAS_CONSTANT_R * temperature * unit.kelvin).value_in_unit(unit.kilojoule_per_mole))


class Energy:
    """Reduced energies :math:`u(x) = U(x)/RT` (kT) of many frames through one OpenMM ``Context``.

    ``reduced(frames)``: frames (M, N, 3) nm -> (M,) float64; a frame whose energy is not finite (a clash
    OpenMM cannot evaluate) gives NaN, never an exception (:func:`~icmlbook.papers.arbg_boltzmann.snis.log_weights`
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

    from ...runtime.progress import progress
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
