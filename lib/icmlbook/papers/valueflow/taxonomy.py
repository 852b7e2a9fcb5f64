"""The four value theories of VALUEFLOW (Kim et al., ICML 2026, arXiv 2602.03160) as data.

Each theory is a tree of at most three levels below its root; a text's label is its root-to-leaf path
``(h1, h2, h3)``, padded with :data:`PAD` where the branch is shallower, plus a direction in {-1, 0, +1}
(opposes / neutral / supports). The definitions are ours (short paraphrases of the textbook notions), not the
paper's prompts. The paper steers 32 mid-level values (:data:`STEERED`): 12 Schwartz basic values, 6 moral
foundations, 7 Ross duties and 7 Vasak rights categories. Simplifications (said on the page): Schwartz's
growth / self-protection root is not a level here, and values with two parents (hedonism, humility, face)
keep one; each moral foundation keeps two virtues; each rights category one or two specific rights.
"""

from __future__ import annotations

import dataclasses

__all__ = ["THEORIES", "PAD", "Leaf", "LEAVES", "STEERED", "DEFINITIONS", "leaves_of", "steered_of", "check_theory",
           "check_value", "path_ids"]

#: the padding label of a level a branch does not have (never matches another text: see :mod:`.losses`)
PAD = ""

#: theory -> {h1: {h2: [h3, ...]}} ; an empty dict / list means the branch stops there
THEORIES: dict[str, dict[str, dict[str, list[str]]]] = {
    "schwartz": {
        "self-transcendence": {"benevolence": ["dependability", "caring"],
                               "universalism": ["tolerance", "concern", "nature"], "humility": []},
        "openness to change": {"self-direction": ["thought", "action"], "stimulation": [], "hedonism": []},
        "self-enhancement": {"achievement": [], "power": ["resources", "dominance"], "face": []},
        "conservation": {"security": ["personal", "societal"], "conformity": ["interpersonal", "rules"],
                         "tradition": []},
    },
    "mft": {
        "care": {"kindness": [], "compassion": []}, "fairness": {"equality": [], "honesty": []},
        "loyalty": {"solidarity": [], "allegiance": []}, "authority": {"respect": [], "duty to roles": []},
        "sanctity": {"purity": [], "temperance": []}, "liberty": {"autonomy": [], "resistance to control": []},
    },
    "ross": {d: {} for d in ("fidelity", "reparation", "gratitude", "justice", "beneficence", "self-improvement",
                             "non-maleficence")},
    "vasak": {
        "first generation": {"civil rights": ["privacy", "fair trial"], "political rights": ["vote", "assembly"]},
        "second generation": {"economic rights": ["fair wage"], "social rights": ["housing", "health care"],
                              "cultural rights": ["heritage"]},
        "third generation": {"national solidarity": ["clean environment"], "group solidarity": ["minority voice"]},
    },
}

#: our one-line definitions of the 32 steered values (and of theory roots), used by prompts and judges
DEFINITIONS: dict[str, str] = {
    "benevolence": "caring for the welfare of the people one is close to",
    "universalism": "understanding, tolerance and protection for all people and for nature",
    "humility": "recognising one's modest place in the wider world",
    "self-direction": "independent thought and choice of one's own actions",
    "stimulation": "excitement, novelty and challenge in life",
    "hedonism": "pleasure and enjoying life",
    "achievement": "personal success shown through competence",
    "power": "control over people and resources, social standing",
    "face": "protecting one's public image and avoiding humiliation",
    "security": "safety and stability of oneself, one's relations and society",
    "conformity": "restraint of actions that would upset others or break rules",
    "tradition": "respect for the customs and ideas of one's culture",
    "care": "protecting others from harm and caring for the vulnerable",
    "fairness": "justice, equal treatment and honesty",
    "loyalty": "standing with one's group, family or team",
    "authority": "respect for legitimate leadership and social roles",
    "sanctity": "living in a clean, temperate and elevated way",
    "liberty": "freedom from domination and coercion",
    "fidelity": "keeping promises and telling the truth",
    "reparation": "making up for wrongs one has done",
    "gratitude": "returning the good others have done for us",
    "justice": "distributing benefits and burdens according to merit",
    "beneficence": "doing good to others",
    "self-improvement": "developing one's own skills and character",
    "non-maleficence": "not harming others",
    "civil rights": "personal freedoms such as privacy and a fair trial",
    "political rights": "taking part in government: voting, assembling, speaking",
    "economic rights": "work under fair conditions and a fair wage",
    "social rights": "housing, health care and social protection",
    "cultural rights": "taking part in cultural life and keeping one's heritage",
    "national solidarity": "shared goods of a people: development, peace, a clean environment",
    "group solidarity": "the voice and protection of minority and vulnerable groups",
}


@dataclasses.dataclass(frozen=True)
class Leaf:
    """One labelled path: theory, (h1, h2, h3) with :data:`PAD` for missing levels, and the steered value it
    belongs to (the h2 node for Schwartz, MFT and Vasak, the h1 node for Ross)."""

    theory: str
    path: tuple[str, str, str]
    value: str

    @property
    def name(self) -> str:
        return "/".join(p for p in self.path if p)


def _leaves() -> list[Leaf]:
    out = []
    for theory, tree in THEORIES.items():
        for h1, sub in tree.items():
            if not sub:
                out.append(Leaf(theory, (h1, PAD, PAD), h1))
                continue
            for h2, h3s in sub.items():
                value = h2
                if not h3s:
                    out.append(Leaf(theory, (h1, h2, PAD), value))
                for h3 in h3s:
                    out.append(Leaf(theory, (h1, h2, h3), value))
    return out


LEAVES: list[Leaf] = _leaves()
#: theory -> the steered values, in order (12 + 6 + 7 + 7 = 32)
STEERED: dict[str, list[str]] = {}
for _leaf in LEAVES:
    if _leaf.theory == "mft":
        continue
    STEERED.setdefault(_leaf.theory, [])
    if _leaf.value not in STEERED[_leaf.theory]:
        STEERED[_leaf.theory].append(_leaf.value)
STEERED = {t: (list(THEORIES["mft"]) if t == "mft" else STEERED.get(t, [])) for t in THEORIES}
# the moral foundations are the steered MFT values (level h1); their leaves are the virtues
LEAVES = [dataclasses.replace(lf, value=lf.path[0]) if lf.theory == "mft" else lf for lf in LEAVES]


def check_theory(theory: str) -> str:
    if theory not in THEORIES:
        raise ValueError(f"theory={theory!r} is not allowed; allowed values: {', '.join(THEORIES)}")
    return theory


def check_value(value: str) -> str:
    known = [v for vs in STEERED.values() for v in vs]
    if value not in known:
        raise ValueError(f"value={value!r} is not one of the 32 steered values; allowed values: {', '.join(known)}")
    return value


def leaves_of(theories=None, values=None) -> list[Leaf]:
    """The leaves of the given theories (all by default), restricted to the given steered values."""
    theories = list(THEORIES) if theories is None else [check_theory(t) for t in theories]
    values = None if values is None else {check_value(v) for v in values}
    return [lf for lf in LEAVES if lf.theory in theories and (values is None or lf.value in values)]


def steered_of(theories=None) -> list[tuple[str, str]]:
    """(theory, value) pairs of the steered values of ``theories`` (all four by default)."""
    theories = list(THEORIES) if theories is None else [check_theory(t) for t in theories]
    return [(t, v) for t in theories for v in STEERED[t]]


def path_ids(paths):
    """(n, 3) integer codes of label paths: the same prefix gets the same code at every level; :data:`PAD`
    gets -1 (the sentinel that never matches, :mod:`.losses`). Theory is folded into level 1."""
    import numpy as np

    out = np.full((len(paths), 3), -1, dtype=np.int64)
    codes: dict[tuple, int] = {}
    for i, p in enumerate(paths):
        for lvl in range(3):
            if p[lvl + 1] == PAD:
                break
            out[i, lvl] = codes.setdefault(tuple(p[: lvl + 2]), len(codes))
    return out
