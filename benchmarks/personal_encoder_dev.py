"""Experiment (decision record 0027): decoder adapters alone, or also the encoder's top (BitFit).

Usage: ``python benchmarks/personal_encoder_dev.py PATIENT TOP [MAX_STEPS] [ENCODER_LR]``.
Trains on the first 100 recordings of the patient's enrolment pool
(``benchmarks/personal_voice_data.py``) and measures, before and after, greedy
prompted transcription and token cross-entropy on the pool's later recordings
whose content words were never trained (Armelle: her enrolment words split
by a hash, dev = the single words left out). The benchmark's test lists are
never read. Rows are appended to ``build/personal_encoder_dev.jsonl``.
"""

import functools
import json
import math
import sys
import time
import zlib
from pathlib import Path

import jiwer
import numpy as np
import torch

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
from therapy_voice.teaching import cross_attention, decoder_forward, token_loss

torch.set_num_threads(2)
name, top, steps_cap = (
    sys.argv[1],
    int(sys.argv[2]),
    (int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else None),
)
enc_lr = float(sys.argv[4]) if len(sys.argv) > 4 else A.ENCODER_LR
patient = next(p for p in data.PATIENTS if p.name == name)
enrol, _test = recordings(patient)  # the test set is not touched here


def cw(u):
    return data.content_words(u.text)


if patient.voice is None:
    words = [(u, p) for u, p in enrol if u.kind == "word"]
    dev_words = {w.text for w, _ in words if zlib.crc32(("dev" + w.text).encode()) % 3 == 0}
    dev = [(u, p) for u, p in words if u.text in dev_words]
    train = [(u, p) for u, p in enrol if not (set(u.text.split()) & dev_words)][:100]
else:
    train = enrol[:100]
    seen = set().union(*(cw(u) for u, _ in train))
    dev = [(u, p) for u, p in enrol[100:] if not (cw(u) & seen)]
print(name, "train", len(train), "dev", len(dev), file=sys.stderr)

bundle = model_store.load_model(model_store.ASR_MODEL)
config = WhisperConfig.from_dict(bundle.meta)
tok = WhisperTokenizer(bundle.file("tokenizer"), config.tokens)
vad = VoiceActivityDetector.load()
model_bin = Path("build/cache/whisper-base-ct2/model.bin")
init = Path("models/asr/adapters/halting-fr.npz")
encoder, decoder = load_weights(model_bin)
hear = functools.partial(heard_states, vad, encoder, config.mel, top=top)
work = Path(f"build/personal_encoder_dev/{name}_{top}")
man = Manifest(tuple(ManifestItem(p.resolve(), u.text) for u, p in train), init, 0, f"exp{top}")
prep = prepare_recordings([p for _, p in train], work / "prepared", hear, lambda d: None)
devprep = prepare_recordings([p for _, p in dev], work / "dev", hear, lambda d: None)
prompts = _prompts(config, tok)
precision = "bf16" if A.bf16_runs_natively() else "fp32"
usable = sum(p.states is not None for p in prep)
recipe = A.Recipe.for_items(usable, precision, steps_cap, encoder_blocks=top)
if top:
    import dataclasses

    recipe = dataclasses.replace(recipe, encoder_lr=enc_lr)
for f in ("checkpoint.pt",):
    (work / f).unlink(missing_ok=True)
tr = A.Trainer(work, man, prep, (encoder, decoder), prompts, recipe)


def dev_eval():
    items = [(dp, u) for dp, (u, _) in zip(devprep, dev, strict=False) if dp.states is not None]
    ce_p = ce_w = 0.0
    n = 0
    hyps = []
    refs = []
    tr.decoder.eval()
    with torch.no_grad():
        for dp, u in items:
            st = torch.from_numpy(np.load(dp.states).astype(np.float32))[None]
            cross = tr.top(st) if tr.top is not None else cross_attention(tr.encoder, st)
            tokens, labels = prompts.rows([u.text])
            logits = decoder_forward(tr.decoder, cross, tokens)
            ce_p += float(token_loss(logits[0:1], labels[0:1]))
            ce_w += float(token_loss(logits[1:2], labels[1:2]))
            n += 1
            seq = list(prompts.prompt)
            for _ in range(24):
                lg = decoder_forward(tr.decoder, cross, torch.tensor([seq]))[0, -1]
                nxt = int(lg.argmax())
                if nxt == prompts.eot or nxt >= config.tokens.eot:
                    break
                seq.append(nxt)
            hyp = verbatim_text(tok.decode(seq[len(prompts.prompt) :]))
            hyps.append(hyp or "-")
            refs.append(verbatim_text(u.text))
    tr.decoder.train()
    wer = jiwer.wer(refs, hyps)
    exact = sum(h == r for h, r in zip(hyps, refs, strict=False)) / len(refs)
    return {
        "ce_prompted": round(ce_p / n, 3),
        "ce_written": round(ce_w / n, 3),
        "wer": round(wer, 3),
        "exact": round(exact, 3),
        "n": n,
    }


before = dev_eval()
t = time.monotonic()
out = tr.train(math.inf, CancelWatch(work), ProgressReporter(None))
mins = (time.monotonic() - t) / 60
after = dev_eval()
res = {
    "patient": name,
    "top": top,
    "enc_lr": enc_lr,
    "steps": out.steps,
    "train_min": round(mins, 2),
    "before": before,
    "after": after,
    "train_loss": [out.loss_before, out.loss_after],
}
print(json.dumps(res))
with open("build/personal_encoder_dev.jsonl", "a") as f:
    f.write(json.dumps(res) + "\n")
