"""The grammaticality classifier tried on the keep rule: word classes, features, training."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

if importlib.util.find_spec("torch") is None:
    pytest.skip("training the classifier needs torch", allow_module_level=True)

from models.corrector import grammaticality as gm

TABLE = {
    "le": "le", "la": "la", "je": "je", "j'": "j'", "ai": "ai", "vais": "vais",
    "chien": "N:ms", "maison": "N:fs", "mange": "V:1s3s", "manger": "V:inf",
    "mangé": "V:pp", "moi": "moi", "aller": "aller", "dimanche": "DAY",
}  # fmt: skip


def test_verb_classes_read_lexique_inflections():
    assert gm._verb_class('"inf;;"') == "V:inf"
    assert gm._verb_class("par:pas;") == "V:pp"
    assert gm._verb_class("ind:pre:1s;ind:pre:3s;imp:pre:2s;") == "V:1s2s3s"


def test_class_sequence_keeps_function_words_and_splits_elisions():
    assert gm.class_sequence("J'ai mangé.", TABLE) == ["j'", "ai", "V:pp"]
    assert gm.class_sequence("moi aller maison zardin", TABLE) == ["moi", "aller", "N:fs", "UNK"]


def test_features_are_stable_hashes_of_every_ngram():
    ids = gm.feature_ids(["je", "V:1s3s"], 1 << 10)
    # <s> je V </s>: 4 unigrams, 3 bigrams, 2 trigrams; crc32, so the same in every process.
    assert len(ids) == 9
    assert ids.tolist() == gm.feature_ids(["je", "V:1s3s"], 1 << 10).tolist()
    assert ids.max() < 1 << 10


def test_a_trained_model_separates_telegraphic_from_grammatical(tmp_path):
    grammatical = ["je mange", "je vais manger", "le chien mange", "j'ai mangé", "la maison"]
    telegraphic = ["moi manger", "chien manger", "moi aller maison", "manger maison", "chien"]
    data = [(gm.class_sequence(t, TABLE), 1) for t in grammatical]
    data += [(gm.class_sequence(t, TABLE), 0) for t in telegraphic]
    weights, bias = gm.train(data * 20, epochs=3, lr=0.1, l2=0.0, seed=1)
    gm.write_table(TABLE, tmp_path / gm.TABLE_FILE)
    np.savez_compressed(tmp_path / gm.WEIGHTS_FILE, weights=weights.astype(np.float16),
                        bias=np.float32(bias), recipe=np.array(json.dumps({})))  # fmt: skip
    model = gm.GrammarModel.load(tmp_path)
    assert model.table == TABLE
    assert model.probability("le chien mange dimanche") > 0.5
    assert model.probability("moi manger dimanche") < 0.5
    assert gm.accuracy(model, data)["accuracy"] == 1.0
