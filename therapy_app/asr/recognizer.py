"""French speech recognition: free transcription and scoring of expected texts."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from therapy_app.asr.config import (
    DECODER_ROLE,
    ENCODER_ROLE,
    TOKENIZER_ROLE,
    WhisperConfig,
)
from therapy_app.asr.decoding import SearchSettings, beam_search, score_sequences
from therapy_app.asr.features import log_mel_spectrogram
from therapy_app.asr.onnx_whisper import CrossAttention, WhisperOnnx
from therapy_app.asr.personal import AdapterSlots, PersonalAdapterError, read_adapter
from therapy_app.asr.tokenizer import WhisperTokenizer
from therapy_app.audio.clip import AudioClip
from therapy_app.errors import AudioInputError, ModelInvalidError, TherapyAppError
from therapy_app.model_store import ASR_MODEL, ModelBundle, load_model, read_sidecar
from therapy_app.voice.model import PersonalModel

if TYPE_CHECKING:
    from therapy_app.asr.phone_reader import PhoneReader

_LOGGER = logging.getLogger(__name__)

_PRIOR_CACHE = 64
"""Candidate lists whose scores on silence are kept (a few items' worth of tries)."""

# Telegraphic-style context given to the decoder by default: it keeps Whisper from
# "fluentising" halting speech (adding punctuation, inflecting bare infinitives).
TELEGRAPHIC_PROMPT = "moi aller maison manger pain"
# Share of the halting-speech adapters used for free transcription: fully on. Half on
# or pushed past what they were trained for, they heard halting speech worse
# (docs/decisions/0009-decoder-adapters.md).
ADAPTER_GATE = 1.0


@dataclass(frozen=True)
class DecodeOptions:
    """Per-call recognition settings.

    The defaults are tuned for a patient's short telegraphic utterances: the
    telegraphic prompt keeps Whisper from "fluentising" them (inflecting bare
    infinitives, adding words), punctuation tokens are suppressed because the
    corrector and the verdict read words only, and a length penalty of 1.0
    stops a short hypothesis from winning on length alone. Beam 5 pays once the
    halting-speech adapters are in. How each was chosen, and on which sets:
    docs/decisions/0001-decoding-defaults.md and 0011-beam-5.md. Plain Whisper
    behaviour (punctuated, fluent text) is ``DecodeOptions(beam_size=5,
    length_penalty=None, prompt=None, suppress_punctuation=False, adapter_gate=0.0)``.

    Attributes:
        beam_size: beams searched in parallel; 1 is greedy (faster, less accurate).
        patience: finished hypotheses to collect, as a multiple of ``beam_size``.
        length_penalty: None ranks hypotheses by log-probability per token
            (Whisper's default); a float ``a`` uses ((5 + n) / 6) ** a instead of n.
        max_tokens_per_second: output length cap per second of audio; stops
            hallucinated run-ons on short clips.
        token_margin: tokens allowed on top of that cap.
        prompt: "previous text" fed as ``<|startofprev|>`` context; its style
            (no punctuation, bare infinitives) carries over to the output. None or
            "" gives no context.
        suppress_punctuation: forbid tokens made only of . , ; : ! ? « » etc.
        no_speech_threshold: with ``logprob_threshold``, decides "nobody spoke":
            the transcript is empty when P(no speech) is above this value and the
            average log-probability is below ``logprob_threshold``.
        logprob_threshold: see ``no_speech_threshold``.
        repetition_limit: an n-gram repeated this many times in a row ends the
            hypothesis (the loop is kept once); None disables the guard.
        adapter_gate: how much of the halting-speech decoder adapters to use when
            the model has them (0 plain Whisper base, 1 fully adapted); ignored by
            a plain model. The adapters are the patient's own when the recogniser
            was loaded with a personal model. :meth:`SpeechRecognizer.score` runs
            plain, unless that personal model also scores.
    """

    beam_size: int = 5
    patience: float = 1.0
    length_penalty: float | None = 1.0
    max_tokens_per_second: float = 8.0
    token_margin: int = 8
    prompt: str | None = TELEGRAPHIC_PROMPT
    suppress_punctuation: bool = True
    no_speech_threshold: float = 0.6
    logprob_threshold: float = -1.0
    repetition_limit: int | None = 4
    adapter_gate: float = ADAPTER_GATE


@dataclass(frozen=True)
class Transcript:
    """Result of :meth:`SpeechRecognizer.transcribe`.

    Attributes:
        text: recognised text, stripped; empty when no speech was detected.
        tokens: text token ids of ``text``.
        token_logprobs: log-probability of each token.
        avg_logprob: Whisper's confidence: sum of log-probabilities / (tokens + 1).
        no_speech_prob: probability that the clip holds no speech.
        audio_seconds: clip duration.
        decode_seconds: wall time spent in features, encoder and search.
        provider: "cpu" or "cuda", what actually ran.
    """

    text: str
    tokens: list[int] = field(repr=False)
    token_logprobs: list[float] = field(repr=False)
    avg_logprob: float
    no_speech_prob: float
    audio_seconds: float
    decode_seconds: float
    provider: str


@dataclass(frozen=True)
class ScoredCandidate:
    """One expected text scored against the audio by :meth:`SpeechRecognizer.score`.

    Attributes:
        text: the candidate as given.
        logprob: log P(text, end of text | audio).
        logprob_per_token: ``logprob`` divided by its token count (end of text
            included); the default ranking key.
        rank: 1 for the best candidate.
        prior_per_token: mean log-probability per token of the same text given
            silence, when asked for (:meth:`SpeechRecognizer.score`'s
            ``priors_for``): what the decoder expects with no speech at all.
    """

    text: str
    logprob: float
    logprob_per_token: float
    rank: int
    prior_per_token: float | None = None


@dataclass(frozen=True)
class EncodedAudio:
    """A clip after the encoder: transcribe and score it without encoding again.

    Attributes:
        cross: cross-attention keys and values for the decoder.
        audio_seconds: clip duration.
        encode_seconds: time spent on features and encoder.
    """

    cross: CrossAttention = field(repr=False)
    audio_seconds: float
    encode_seconds: float


def _bundle_from_dir(directory: Path) -> ModelBundle:
    # Size-capped, depth-checked read: a hostile model.json gives a French message.
    meta = read_sidecar(directory, directory.name)
    return ModelBundle(directory.name, directory, meta)


def _check_files(bundle: ModelBundle) -> None:
    # Sizes only: hashing ~100 MB at every start would slow the app; `doctor` verifies.
    for role in (ENCODER_ROLE, DECODER_ROLE, TOKENIZER_ROLE):
        path = bundle.file(role)
        expected = bundle.meta["files"][role].get("bytes")
        if not path.is_file() or (expected is not None and path.stat().st_size != expected):
            raise ModelInvalidError(
                "Le modèle de reconnaissance vocale est incomplet.",
                "Reconstruisez-le avec « therapy-app build-models ».",
                f"{path} missing or of unexpected size",
            )


class SpeechRecognizer:
    """Whisper base through ONNX Runtime, forced to French.

    Clips must be 16 kHz mono and at most 30 s (one encoder window): longer
    recordings are refused rather than cut mid-word; the recorder and the VAD
    keep exercise utterances far shorter.

    Args:
        model: the two ONNX graphs.
        tokenizer: the model's tokenizer.
        config: the parsed sidecar.
        version: the sidecar's model version.
        personal: the patient's adapter loaded in ``model``'s decoder, if any.
        phones: the phone reader of this encoder's frames (verdicts), if any.
    """

    def __init__(
        self,
        model: WhisperOnnx,
        tokenizer: WhisperTokenizer,
        config: WhisperConfig,
        *,
        version: str = "?",
        personal: PersonalModel | None = None,
        phones: PhoneReader | None = None,
    ) -> None:
        self.model = model
        self.phones = phones
        self.tokenizer = tokenizer
        self.config = config
        self.personal = personal
        self._version = version
        # What transcribe() uses when given no options (benchmarks swap it to compare).
        self.default_options = DecodeOptions()
        self._silence: EncodedAudio | None = None
        self._priors: OrderedDict[tuple[tuple[int, ...], ...], list[float]] = OrderedDict()
        self._priors_lock = threading.Lock()
        t = config.tokens
        control = np.arange(t.eot + 1, config.n_vocab)  # every control and timestamp token
        self._suppress = np.union1d(np.asarray(config.suppress_ids, np.int64), control)
        self._suppress_begin = np.asarray(config.suppress_ids_begin, np.int64)
        # Computed here (~0.1 s over the vocabulary) rather than on the first transcription.
        punctuation = np.asarray(tokenizer.punctuation_ids, np.int64)
        self._suppress_punctuation = np.union1d(self._suppress, punctuation)

    @classmethod
    def load(
        cls,
        provider: str | None = None,
        model_dir: Path | None = None,
        threads: int | None = None,
        personal: PersonalModel | None = None,
    ) -> SpeechRecognizer:
        """Load the ``whisper-base`` model folder.

        Args:
            provider: "auto", "cpu" or "cuda"; None reads ``THERAPY_APP_PROVIDER``.
            model_dir: a model folder; None resolves ``whisper-base`` with the model store.
            threads: intra-op threads per session; None uses the default.
            personal: a patient's adapter, run in place of the halting-speech one
                wherever the adapter gate is open (same graphs, no re-export).

        Raises:
            ModelMissingError: the model is not built or installed.
            ModelInvalidError: its files or sidecar do not match.
            PersonalAdapterError: the personal adapter is altered (sha256), unreadable,
                or does not fit this model.
        """
        bundle = load_model(ASR_MODEL) if model_dir is None else _bundle_from_dir(model_dir)
        _check_files(bundle)
        config = WhisperConfig.from_dict(bundle.meta)
        initializers = None
        if personal is not None:
            slots = AdapterSlots.from_sidecar(bundle.meta)
            initializers = read_adapter(personal.adapter, slots, personal.sha256)
        model = WhisperOnnx(
            bundle.file(ENCODER_ROLE),
            bundle.file(DECODER_ROLE),
            config,
            provider=provider,
            threads=threads,
            decoder_initializers=initializers,
        )
        if personal is not None and not model.gated:
            raise PersonalAdapterError(
                "Le modèle de reconnaissance vocale installé ne peut pas utiliser de voix "
                "personnelle.",
                "Mettez le logiciel à jour ou reconstruisez les modèles.",
                f"{bundle.file(DECODER_ROLE)} has no adapter gate",
            )
        tokenizer = WhisperTokenizer(bundle.file(TOKENIZER_ROLE), config.tokens)
        _LOGGER.info(
            "speech recognizer loaded from %s on %s%s",
            bundle.directory,
            model.provider,
            f" with the personal adapter {personal.adapter}" if personal else "",
        )
        version = str(bundle.meta.get("version", "?"))
        from therapy_app.asr.phone_reader import PhoneReader

        phones = PhoneReader.for_encoder(version, threads=threads)
        return cls(model, tokenizer, config, version=version, personal=personal, phones=phones)

    @property
    def model_version(self) -> str:
        """The version stored with each attempt: the sidecar's, plus the personal adapter.

        ``+personal-<first 12 hex digits of its sha256>``, then ``+scoring`` when it
        also scores expected texts, e.g. ``base-1.0.0+onnx6+halting-fr+personal-0123456789ab``.
        """
        if self.personal is None:
            return self._version
        scoring = "+scoring" if self.personal.scoring else ""
        return f"{self._version}+personal-{self.personal.sha256[:12].lower()}{scoring}"

    @property
    def provider(self) -> str:
        """Where the sessions really run: "cpu" or "cuda"."""
        return self.model.provider

    def _check_clip(self, clip: AudioClip) -> None:
        if clip.sample_rate != self.config.mel.sample_rate:
            raise AudioInputError(
                "Le son n'est pas au bon format.",
                "Réessayez l'enregistrement.",
                f"expected {self.config.mel.sample_rate} Hz, got {clip.sample_rate} Hz",
            )
        if len(clip.samples) == 0:
            raise AudioInputError(
                "L'enregistrement est vide.",
                "Parlez après le signal, puis réessayez.",
                "empty clip",
            )
        if not np.all(np.isfinite(clip.samples)):
            raise AudioInputError(
                "L'enregistrement est endommagé.",
                "Réessayez l'enregistrement.",
                "clip contains NaN or infinite samples",
            )
        if clip.duration > self.config.mel.chunk_seconds + 1e-6:
            raise AudioInputError(
                f"L'enregistrement est trop long (plus de {self.config.mel.chunk_seconds} "
                "secondes).",
                "Dites une phrase courte, puis réessayez.",
                f"clip of {clip.duration:.1f} s exceeds one Whisper window",
            )

    def encode(self, clip: AudioClip) -> EncodedAudio:
        """Run the features and the encoder once, for several searches or scorings.

        Raises:
            AudioInputError: empty, corrupt, wrongly sampled or too long clip.
        """
        self._check_clip(clip)
        start = time.perf_counter()
        cross = self.model.encode(log_mel_spectrogram(clip.samples, self.config.mel))
        return EncodedAudio(cross, clip.duration, time.perf_counter() - start)

    def _encoded(self, audio: AudioClip | EncodedAudio) -> EncodedAudio:
        return audio if isinstance(audio, EncodedAudio) else self.encode(audio)

    def _settings(self, options: DecodeOptions, duration: float, prompt_len: int) -> SearchSettings:
        cap = math.ceil(duration * options.max_tokens_per_second) + options.token_margin
        # Whisper generates at most half its context; the prompt takes room too.
        cap = max(1, min(cap, self.config.n_text_ctx // 2, self.config.n_text_ctx - prompt_len))
        suppress = self._suppress_punctuation if options.suppress_punctuation else self._suppress
        return SearchSettings(
            eot=self.config.tokens.eot,
            beam_size=max(1, options.beam_size),
            patience=options.patience,
            length_penalty=options.length_penalty,
            max_new_tokens=cap,
            suppress=suppress,
            suppress_begin=self._suppress_begin,
            repetition_limit=options.repetition_limit,
        )

    def transcribe(
        self, audio: AudioClip | EncodedAudio, options: DecodeOptions | None = None
    ) -> Transcript:
        """Recognise what was said, verbatim as far as the model allows.

        Args:
            audio: 16 kHz mono clip of at most 30 s, or its :meth:`encode` output.
            options: search settings; the defaults when None.

        Returns:
            The transcript; its text is empty when no speech is detected.

        Raises:
            AudioInputError: empty, corrupt, wrongly sampled or too long clip.
        """
        options = options or self.default_options
        start = time.perf_counter()
        encoded = self._encoded(audio)
        duration = encoded.audio_seconds
        tokens = self.config.tokens
        prompt = self.tokenizer.prompt_tokens(options.prompt, self.config.n_text_ctx // 2 - 1)
        settings = self._settings(options, duration, len(prompt))
        model = self.model.with_gate(options.adapter_gate)
        result = beam_search(
            model, encoded.cross, prompt, prompt.index(tokens.sot), tokens.no_speech, settings
        )
        best = result.best
        text = self.tokenizer.decode(best.tokens).strip()
        silent = (
            result.no_speech_prob > options.no_speech_threshold
            and best.avg_logprob < options.logprob_threshold
        )
        if silent or not text:
            text, kept, kept_lps = "", [], []
        else:
            kept, kept_lps = best.tokens, best.token_logprobs
        elapsed = time.perf_counter() - start
        if audio is encoded:
            elapsed += encoded.encode_seconds  # comparable with a call that encodes
        _LOGGER.debug(
            "transcribed %.2f s in %.2f s (%d steps, %s): %r",
            duration,
            elapsed,
            result.steps,
            best.stop,
            text,
        )
        return Transcript(
            text,
            list(kept),
            list(kept_lps),
            best.avg_logprob,
            result.no_speech_prob,
            duration,
            elapsed,
            self.provider,
        )

    def score(
        self,
        audio: AudioClip | EncodedAudio,
        candidates: list[str],
        length_normalized: bool = True,
        priors_for: int = 0,
    ) -> list[ScoredCandidate]:
        """Rank expected texts by how likely the model finds them for this audio.

        The encoder runs once and the candidates are teacher-forced in batches,
        so scoring a handful of targets costs about one transcription. It runs
        the model's gate (plain Whisper base), or the open gate when the patient's
        personal model was adopted for scoring too. With the
        int8 decoder, activation scales are shared by a batch, so a score moves
        slightly (not its rank, in the tests) with the other candidates.

        Args:
            audio: 16 kHz mono clip of at most 30 s, or its :meth:`encode` output.
            candidates: texts to compare, e.g. the target and distractors.
            length_normalized: rank by log-probability per token (default) rather
                than by the total. On halting speech the total favours a truncated
                candidate ("moi" for "moi pas dormir nuit"): one unlikely
                end-of-text costs less than the words still to come. Per token,
                the full phrase won 28 of 30 prefix/substitution trials, the total 25.
            priors_for: how many of the leading candidates are also scored on
                one second of silence (``prior_per_token``; the ranking is unchanged). The decoder
                favours some texts whatever it hears (on short unclear clips,
                "Aujourd'hui." beat most of Armelle's other words); the verdict
                subtracts that prior (:func:`therapy_app.verdict.evidence`).
                Costs a second teacher-forced pass; the silence is encoded once.

        Returns:
            One entry per candidate, best first (rank 1).

        Raises:
            AudioInputError: empty, corrupt, wrongly sampled or too long clip.
            TherapyAppError: a candidate longer than the decoder's context.
        """
        sequences = self._sequences(candidates)
        # Checked before encoding: a candidate longer than the decoder's context
        # (a pasted page of text) must get a French message, not a traceback from
        # the decoder, and the encoder's work would be wasted on it.
        room = self.config.n_text_ctx - len(self.config.tokens.sot_sequence)
        for number, sequence in enumerate(sequences, start=1):
            if len(sequence) > room:
                raise TherapyAppError(
                    f"Le texte attendu n° {number} est trop long pour être comparé à "
                    "l'enregistrement.",
                    "Utilisez une phrase plus courte.",
                    f"candidate {number}: {len(sequence)} tokens, room for {room}",
                )
        encoded = self._encoded(audio)
        if not candidates:
            return []
        model = self._scoring_model()
        per_token = score_sequences(
            model, encoded.cross, self.config.tokens.sot_sequence, sequences
        )
        totals = [float(sum(lps)) for lps in per_token]
        means = [total / len(lps) for total, lps in zip(totals, per_token, strict=True)]
        priors: list[float | None] = [None] * len(candidates)
        if priors_for > 0:
            priors[:priors_for] = self._prior(model, sequences[:priors_for])
        keys = means if length_normalized else totals
        order = sorted(range(len(candidates)), key=lambda i: -keys[i])
        return [
            ScoredCandidate(candidates[i], totals[i], means[i], rank, priors[i])
            for rank, i in enumerate(order, start=1)
        ]

    def prime(self, candidates: list[str]) -> None:
        """Compute now what scoring ``candidates`` needs whatever the audio.

        Their priors (:meth:`score` with ``priors_for=len(candidates)``, the same
        batch) and the silence they are scored on are kept, so that the try
        after this call does not wait for them: an item's first verdict used to
        pay about 0.17 s for its priors, and the session's first also 0.55 s
        for encoding the silence. Practice calls it while the patient speaks.
        """
        if candidates:
            self._prior(self._scoring_model(), self._sequences(candidates))

    def _sequences(self, candidates: list[str]) -> list[list[int]]:
        eot = self.config.tokens.eot
        return [
            [*self.tokenizer.encode(" " + c.strip()), eot] if c.strip() else [eot]
            for c in candidates
        ]

    def _scoring_model(self) -> WhisperOnnx:
        """The plain gate, or the open one when the personal model also scores."""
        if self.personal is not None and self.personal.scoring:
            return self.model.with_gate(ADAPTER_GATE)
        return self.model

    def _prior(self, model: WhisperOnnx, sequences: list[list[int]]) -> list[float]:
        """Mean log-probability per token of each sequence on silence, kept for reuse.

        The same item is scored at every settled pause of a try and at every
        try: the same candidates in the same batches give the same numbers
        (int8 scales are shared by a batch, so the key is the whole list). The
        free transcript, different at each try, is left out by the caller.
        """
        key = tuple(tuple(s) for s in sequences)
        if model is not self.model:
            key = ((-1,), *key)  # the personal scoring gate: another decoder
        with self._priors_lock:
            found = self._priors.get(key)
            if found is not None:
                self._priors.move_to_end(key)
                return found
        silent = score_sequences(
            model, self._silence_encoding().cross, self.config.tokens.sot_sequence, sequences
        )
        found = [float(sum(lps)) / len(lps) for lps in silent]
        with self._priors_lock:
            self._priors[key] = found
            if len(self._priors) > _PRIOR_CACHE:
                self._priors.popitem(last=False)
        return found

    def _silence_encoding(self) -> EncodedAudio:
        # Computed on first use (one encoder run, ~0.3 s) and kept: the same for every try.
        if self._silence is None:
            rate = self.config.mel.sample_rate
            self._silence = self.encode(AudioClip(np.zeros(rate, np.float32), rate))
        return self._silence
