"""Experiment: personal-voice training recipes compared on enrolment words never trained.

Usage: ``python benchmarks/personal_recipe_dev.py PATIENT NAME [key=value ...]`` with keys
``kl``, ``lr``, ``rank``, ``passes`` (recording passes; the app's 600), ``noise`` (std of
Gaussian noise added to the encoder states, relative to their std), ``tmask`` (time spans
of the states replaced by their mean, per recording), ``xkv`` (rank of adapters on the
cross-attention key/value projections; 0: none, as the app).

Trains on the first 100 recordings of the patient's enrolment pool
(``benchmarks/personal_voice_data.py``) and measures, before and after, greedy prompted
transcription on the pool's later recordings whose content words were never trained.
The benchmark's test lists are never read. Rows go to ``build/personal_recipe_dev.jsonl``.
"""

import dataclasses
import functools
import json
import math
import sys
import time
from pathlib import Path

import jiwer
import numpy as np
import torch
from torch import nn

from benchmarks import personal_voice_data as data
from benchmarks.personal_voice import recordings
from therapy_app import model_store
from therapy_app.asr.config import WhisperConfig
from therapy_app.asr.tokenizer import WhisperTokenizer
from therapy_app.asr.verbatim import verbatim_text
from therapy_app.vad import VoiceActivityDetector
from therapy_voice import adapt as A
from therapy_voice.__main__ import _prompts
from therapy_voice.manifest import Manifest, ManifestItem
from therapy_voice.prepare import heard_states, load_weights, prepare_recordings
from therapy_voice.progress import CancelWatch, ProgressReporter
from therapy_voice.teaching import (
    _split_heads,
    cross_attention,
    decoder_forward,
    kl_to_reference,
    token_loss,
)

torch.set_num_threads(2)
name, label = sys.argv[1], sys.argv[2]
opts = {"kl": A.KL_WEIGHT, "lr": A.LEARNING_RATE, "rank": 16, "passes": A.ITEM_PASSES}
opts |= {"noise": 0.0, "tmask": 0, "xkv": 0}
for arg in sys.argv[3:]:
    key, value = arg.split("=")
    opts[key] = type(opts[key])(float(value)) if key in opts else float(value)
patient = next(p for p in data.PATIENTS if p.name == name)
enrol, _test = recordings(patient)  # the test set is not touched here
train = enrol[:100]
seen = set().union(*(data.content_words(u.text) for u, _ in train))
dev = [(u, p) for u, p in enrol[100:] if not (data.content_words(u.text) & seen)]
print(name, label, opts, "train", len(train), "dev", len(dev), file=sys.stderr)

bundle = model_store.load_model(model_store.ASR_MODEL)
config = WhisperConfig.from_dict(bundle.meta)
tok = WhisperTokenizer(bundle.file("tokenizer"), config.tokens)
vad = VoiceActivityDetector.load()
encoder, decoder = load_weights(Path("build/cache/whisper-base-ct2/model.bin"))
init = Path("models/asr/adapters/halting-fr.npz")
hear = functools.partial(heard_states, vad, encoder, config.mel)
work = Path(f"build/personal_recipe_dev/{name}")
man = Manifest(tuple(ManifestItem(p.resolve(), u.text) for u, p in train), init, 0, "recipe")
prep = prepare_recordings([p for _, p in train], work / "prepared", hear, lambda d: None)
devprep = prepare_recordings([p for _, p in dev], work / "dev", hear, lambda d: None)
prompts = _prompts(config, tok)
precision = "bf16" if A.bf16_runs_natively() else "fp32"
usable = sum(p.states is not None for p in prep)
A.ITEM_PASSES = int(opts["passes"])
recipe = A.Recipe.for_items(usable, precision)
recipe = dataclasses.replace(recipe, kl=opts["kl"], lr=opts["lr"], rank=int(opts["rank"]))
recipe = dataclasses.replace(recipe, alpha=2.0 * recipe.rank)


class XkvTrainer(A.Trainer):
    """The app's trainer, with augmented states and optional cross K/V adapters."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.xkv = []
        rank = int(opts["xkv"])
        if rank:
            for proj in self.encoder.cross_kv:
                a = nn.Parameter(torch.empty(rank, proj.in_features))
                nn.init.kaiming_uniform_(a, a=5**0.5)
                b = nn.Parameter(torch.zeros(proj.out_features, rank))
                self.xkv.append((a, b))
            extra = [t for pair in self.xkv for t in pair]
            self.params = [*self.params, *extra]
            self.optimizer.add_param_group({"params": extra, "lr": self.recipe.lr})

    def cross(self, states):
        if not self.xkv:
            return cross_attention(self.encoder, states)
        heads = self.encoder.dims.n_heads
        out = []
        for proj, (a, b) in zip(self.encoder.cross_kv, self.xkv, strict=True):
            kv = proj(states) + 2.0 * nn.functional.linear(nn.functional.linear(states, a), b)
            k, v = kv.chunk(2, dim=-1)
            out.append((_split_heads(k, heads), _split_heads(v, heads)))
        return out

    def _losses(self, items, with_kl=True):
        tokens, labels, states = self._tensors(items)
        if self.decoder.training:
            states = augment(states)
        keep = labels != A.IGNORE
        labels = labels[keep]
        cross = self.cross(states)
        logits = decoder_forward(self.decoder, cross, tokens, keep=keep)
        if not with_kl:
            return token_loss(logits, labels), torch.zeros(())
        with torch.no_grad():
            plain = cross_attention(self.encoder, states)
            gates = torch.tensor([1.0, 0.0] * len(items)).reshape(-1, 1, 1)
            ref = decoder_forward(self.reference, plain, tokens, gate=gates, keep=keep)
        return token_loss(logits, labels), kl_to_reference(logits, ref, labels)


def augment(states: torch.Tensor) -> torch.Tensor:
    """Noise and time masks on the encoder states (seeded by the trainer's per-step seed)."""
    out = states.clone()
    if opts["noise"]:
        out = out + opts["noise"] * states.std() * torch.randn_like(states)
    for row in range(out.shape[0]):
        # Speech sits at the start of the window: mask within the first 3 s.
        for _ in range(int(opts["tmask"])):
            width = int(torch.randint(5, 20, ()))
            start = int(torch.randint(0, 150 - width, ()))
            out[row, start : start + width] = states[row].mean(0)
    return out


(work / "checkpoint.pt").unlink(missing_ok=True)
tr = XkvTrainer(work, man, prep, (encoder, decoder), prompts, recipe)


def dev_eval() -> dict:
    items = [(dp, u) for dp, (u, _) in zip(devprep, dev, strict=True) if dp.states is not None]
    hyps, refs = [], []
    tr.decoder.eval()
    with torch.no_grad():
        for dp, u in items:
            st = torch.from_numpy(np.load(dp.states).astype(np.float32))[None]
            cross = tr.cross(st)
            seq = list(prompts.prompt)
            for _ in range(24):
                lg = decoder_forward(tr.decoder, cross, torch.tensor([seq]))[0, -1]
                nxt = int(lg.argmax())
                if nxt >= config.tokens.eot:
                    break
                seq.append(nxt)
            hyps.append(verbatim_text(tok.decode(seq[len(prompts.prompt) :])) or "-")
            refs.append(verbatim_text(u.text))
    tr.decoder.train()
    exact = sum(h == r for h, r in zip(hyps, refs, strict=True)) / len(refs)
    return {"wer": round(jiwer.wer(refs, hyps), 4), "exact": round(exact, 3), "n": len(refs)}


cache = work / "before.json"
if cache.is_file():
    before = json.loads(cache.read_text())
else:
    before = dev_eval()
    cache.write_text(json.dumps(before))
t = time.monotonic()
out = tr.train(math.inf, CancelWatch(work), ProgressReporter(None))
mins = (time.monotonic() - t) / 60
after = dev_eval()
res = {"patient": name, "label": label, "opts": opts, "steps": out.steps}
res |= {"train_min": round(mins, 2), "before": before, "after": after}
res |= {"train_loss": [round(out.loss_before, 3), round(out.loss_after, 3)]}
print(json.dumps(res))
with open("build/personal_recipe_dev.jsonl", "a") as f:
    f.write(json.dumps(res) + "\n")
