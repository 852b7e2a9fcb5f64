"""A seeded generator of short value-laden texts with a **known latent intensity** (the offline stand-in for the
paper's VIDB sources, whose texts are not shipped: some licences are non-commercial).

A text is ``"<subject> <modifier> <verb> <topic>."``: the topic names a situation of one leaf value (two per
leaf, written by us), the verb says whether the subject supports or opposes it, and the modifier sets the
strength. The latent intensity is ``I* = direction x MAGNITUDE[modifier]`` in [-10, 10]; neutral texts
("mentions ... in passing") have direction 0 and I* = 0. Every text carries an ``individual_id`` (its
(leaf, topic, direction): one concrete value instance) and, for the topics of the cross-theory concepts of
:data:`ANCHOR_CONCEPTS` (each worded differently in each theory), an ``anchor_id`` (concept and direction). Benign content only.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .taxonomy import PAD, Leaf, leaves_of, path_ids

__all__ = ["TOPICS", "ANCHOR_CONCEPTS", "MODIFIERS", "SUBJECTS", "Corpus", "generate_corpus", "level_of",
           "LEVEL_BINS"]

#: leaf name -> two situations of that value (our own wording)
TOPICS: dict[str, tuple[str, ...]] = {
    "self-transcendence/benevolence/dependability": ("being someone the family can rely on", "showing up when a teammate needs backup"),
    "self-transcendence/benevolence/caring": ("looking after a sick friend", "cooking for a tired parent"),
    "self-transcendence/universalism/tolerance": ("listening to people with different views", "welcoming newcomers from abroad"),
    "self-transcendence/universalism/concern": ("equal chances for every child", "support for people far away in need"),
    "self-transcendence/universalism/nature": ("planting trees in the park", "protecting wild birds"),
    "self-transcendence/humility": ("staying modest about success", "accepting a small role in a big project"),
    "openness to change/self-direction/thought": ("forming opinions independently", "questioning received ideas"),
    "openness to change/self-direction/action": ("choosing a career path alone", "planning the day freely"),
    "openness to change/stimulation": ("trying unfamiliar sports", "travelling to unknown places"),
    "openness to change/hedonism": ("long relaxed dinners", "enjoying music festivals"),
    "self-enhancement/achievement": ("finishing the marathon in record time", "earning top marks at school"),
    "self-enhancement/power/resources": ("owning many properties", "building personal wealth"),
    "self-enhancement/power/dominance": ("giving orders to the whole team", "having the final say in meetings"),
    "self-enhancement/face": ("keeping a spotless reputation", "avoiding public embarrassment"),
    "conservation/security/personal": ("locking every door at night", "keeping a safe savings cushion"),
    "conservation/security/societal": ("strong public order", "a stable national government"),
    "conservation/conformity/interpersonal": ("never upsetting the neighbours", "keeping quiet to avoid friction"),
    "conservation/conformity/rules": ("obeying every traffic rule", "following the office regulations"),
    "conservation/tradition": ("celebrating the old village festival", "keeping grandmother's customs"),
    "care/kindness": ("comforting a crying child", "gentle words for a nervous colleague"),
    "care/compassion": ("sheltering stray animals", "visiting lonely elderly people"),
    "fairness/equality": ("sharing the reward equally", "giving every player the same turn"),
    "fairness/honesty": ("returning extra change to the cashier", "admitting the true score"),
    "loyalty/solidarity": ("sticking with the team after a loss", "backing a friend in hard times"),
    "loyalty/allegiance": ("staying with the home club for life", "defending the family name"),
    "authority/respect": ("standing up when the judge enters", "addressing elders politely"),
    "authority/duty to roles": ("doing the job the captain assigns", "following the coach's plan"),
    "sanctity/purity": ("keeping the temple grounds clean", "treating the body as sacred"),
    "sanctity/temperance": ("avoiding overindulgence at feasts", "a simple disciplined diet"),
    "liberty/autonomy": ("living without a boss watching", "deciding one's own schedule"),
    "liberty/resistance to control": ("opposing a bossy landlord", "refusing unfair surveillance"),
    "fidelity": ("keeping a promise made years ago", "telling the truth about a broken vase"),
    "reparation": ("paying for the window one broke", "fixing a friend's bike after damaging it"),
    "gratitude": ("thanking the teacher who helped", "repaying a neighbour's favour"),
    "justice": ("rewarding the hardest worker fairly", "a fair split of the chores"),
    "beneficence": ("volunteering at the food bank", "tutoring children for free"),
    "self-improvement": ("practising the piano every evening", "reading to learn new skills"),
    "non-maleficence": ("driving carefully near schools", "avoiding words that wound"),
    "first generation/civil rights/privacy": ("private letters staying private", "a diary nobody may read"),
    "first generation/civil rights/fair trial": ("a fair hearing for the accused", "an impartial court"),
    "first generation/political rights/vote": ("everyone voting in the election", "open access to the ballot"),
    "first generation/political rights/assembly": ("peaceful gatherings in the square", "forming a citizens' club"),
    "second generation/economic rights/fair wage": ("fair pay for farm workers", "a decent minimum wage"),
    "second generation/social rights/housing": ("affordable homes for families", "shelter for the homeless"),
    "second generation/social rights/health care": ("free clinics in villages", "medicine for everyone"),
    "second generation/cultural rights/heritage": ("teaching the local dialect", "preserving folk songs"),
    "third generation/national solidarity/clean environment": ("clean air in the cities", "a river free of waste"),
    "third generation/group solidarity/minority voice": ("a voice for small communities", "protecting minority languages"),
}

#: cross-theory concepts: concept id -> {leaf name: the concept worded for that theory}
ANCHOR_CONCEPTS: dict[int, dict[str, str]] = {
    0: {"self-transcendence/benevolence/caring": "helping the neighbour carry groceries",
        "care/kindness": "lending a hand to the people next door", "beneficence": "doing a good turn for a neighbour"},
    1: {"self-transcendence/benevolence/dependability": "keeping a promise to a friend",
        "loyalty/solidarity": "standing by a pledge made to a friend", "fidelity": "honouring one's word to a friend"},
    2: {"self-transcendence/universalism/concern": "treating every applicant the same",
        "fairness/equality": "judging all candidates by one standard", "justice": "impartial hiring of applicants"},
    3: {"self-transcendence/universalism/nature": "cleaning the polluted lake",
        "third generation/national solidarity/clean environment": "a lake clean enough to swim in",
        "sanctity/purity": "keeping the lake water pure"},
    4: {"conservation/conformity/rules": "following the club's rules",
        "authority/respect": "respecting the club's chairperson", "first generation/civil rights/fair trial": "rules applied evenly to club members"},
    5: {"openness to change/self-direction/thought": "speaking freely at the town meeting",
        "liberty/autonomy": "saying one's mind without permission",
        "first generation/political rights/assembly": "free speech at public meetings"},
    6: {"reparation": "apologising and fixing the damage",
        "care/compassion": "soothing someone one has hurt", "self-transcendence/benevolence/caring": "making amends to a hurt sister"},
    7: {"self-improvement": "learning a new language", "openness to change/stimulation": "taking up a challenging new hobby",
        "self-enhancement/achievement": "mastering a difficult craft"},
}

#: strength words and the intensity magnitude each stands for
MODIFIERS: dict[str, float] = {"slightly": 2.0, "somewhat": 4.0, "clearly": 6.0, "strongly": 8.0,
                               "wholeheartedly": 10.0}
SUPPORT_VERBS = ("values", "stands up for", "makes time for", "speaks in favour of")
OPPOSE_VERBS = ("dismisses", "works against", "refuses to bother with", "speaks against")
NEUTRAL_FRAME = ("mentions", "once heard about", "read a note on")
SUBJECTS = ("My neighbour", "The new manager", "A young student", "Our mayor", "Her cousin", "The old fisherman",
            "A nurse", "The shop owner", "His grandmother", "A taxi driver", "The librarian", "One engineer")
#: the paper's steering levels and the intensity bins of its few-shot file (section 3.3 of the dossier)
LEVEL_BINS: dict[int, tuple[float, float]] = {-2: (-10.0, -6.0), -1: (-5.5, -1.0), 0: (-0.5, 0.5), 1: (1.0, 5.5),
                                              2: (6.0, 10.0)}


def level_of(intensity) -> np.ndarray:
    """The steering level {-2, -1, 0, 1, 2} of intensities (|I| <= 0.5: 0; <= 5.5: ±1; else ±2)."""
    x = np.asarray(intensity, dtype=float)
    if np.any(np.abs(x) > 10):
        raise ValueError("intensities must lie in [-10, 10]")
    return (np.sign(x) * np.where(np.abs(x) <= 0.5, 0, np.where(np.abs(x) <= 5.5, 1, 2))).astype(int)


@dataclasses.dataclass
class Corpus:
    """Texts with their labels (all arrays of length n).

    ``theory``/``value``/``leaf`` (str), ``paths`` (n, 3) integer label codes with -1 for padding
    (:func:`.taxonomy.path_ids`), ``direction`` in {-1, 0, 1}, ``intensity`` the latent I*, ``individual_id``,
    ``anchor_id`` (-1 when the topic is no cross-theory concept), ``subject`` (index into :data:`SUBJECTS`)."""

    texts: list
    theory: np.ndarray
    value: np.ndarray
    leaf: np.ndarray
    paths: np.ndarray
    direction: np.ndarray
    intensity: np.ndarray
    individual_id: np.ndarray
    anchor_id: np.ndarray
    subject: np.ndarray

    def __len__(self) -> int:
        return len(self.texts)

    def subset(self, idx) -> "Corpus":
        idx = np.asarray(idx)
        return Corpus([self.texts[i] for i in idx], *(getattr(self, f.name)[idx] for f in dataclasses.fields(self)[1:]))


def _topics(leaf: Leaf) -> list[tuple[str, int]]:
    own = [(t, -1) for t in TOPICS[leaf.name]]
    return own + [(words[leaf.name], cid) for cid, words in ANCHOR_CONCEPTS.items() if leaf.name in words]


def generate_corpus(n_per_leaf: int, seed: int, theories=None, values=None, neutral_share: float = 0.1,
                    subjects=None) -> Corpus:
    """``n_per_leaf`` texts for every leaf of ``theories``/``values``: direction ±1 with equal odds (neutral
    with probability ``neutral_share``), a modifier drawn uniformly, a topic and a subject (from the indices
    ``subjects``, all by default) drawn uniformly. Deterministic in ``seed``."""
    if n_per_leaf < 1:
        raise ValueError(f"n_per_leaf={n_per_leaf!r} is not allowed; it must be >= 1")
    if not 0 <= neutral_share < 1:
        raise ValueError(f"neutral_share={neutral_share!r} is not allowed; it must lie in [0, 1)")
    rng = np.random.default_rng(seed)
    subjects = np.arange(len(SUBJECTS)) if subjects is None else np.asarray(subjects)
    mods = list(MODIFIERS)
    rows = []
    indiv: dict[tuple, int] = {}
    for leaf in leaves_of(theories, values):
        topics = _topics(leaf)
        for _ in range(n_per_leaf):
            ti = int(rng.integers(len(topics)))
            topic, cid = topics[ti]
            s = int(rng.choice(subjects))
            if rng.random() < neutral_share:
                d, text, inten = 0, f"{SUBJECTS[s]} {NEUTRAL_FRAME[rng.integers(3)]} {topic} in passing.", 0.0
            else:
                d = 1 if rng.random() < 0.5 else -1
                mod = mods[rng.integers(len(mods))]
                verb = (SUPPORT_VERBS if d > 0 else OPPOSE_VERBS)[rng.integers(4)]
                text, inten = f"{SUBJECTS[s]} {mod} {verb} {topic}.", d * MODIFIERS[mod]
            rows.append((text, leaf, d, inten, indiv.setdefault((leaf.name, ti, d), len(indiv)),
                         cid * 3 + d + 1 if cid >= 0 else -1, s))
    paths = path_ids([(r[1].theory,) + r[1].path for r in rows])
    return Corpus([r[0] for r in rows], np.array([r[1].theory for r in rows]), np.array([r[1].value for r in rows]),
                  np.array([r[1].name for r in rows]), paths, np.array([r[2] for r in rows], dtype=np.int64),
                  np.array([r[3] for r in rows], dtype=float), np.array([r[4] for r in rows], dtype=np.int64),
                  np.array([r[5] for r in rows], dtype=np.int64), np.array([r[6] for r in rows], dtype=np.int64))


assert all(lf.name in TOPICS for lf in leaves_of()), "every leaf needs its topics"
assert PAD == ""
