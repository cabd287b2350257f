"""Rebuilds a training run folder from the shipped (int8) ONNX corrector.

Usage::

    python -m models.corrector.from_onnx --model-dir resources/models/corrector-fr \
        --out build/corrector/shipped [--verify-items 50] [--no-verify]

The training checkpoints of the shipped model are not kept; its ONNX graphs are.
This reads every weight back from ``encoder.onnx`` and ``decoder_step.onnx``
(dequantizing the int8 ones), loads them into :class:`Seq2SeqTransformer` built
from ``model.json``'s training config, checks greedy decoding against the ONNX
runtime, and writes ``last.pt``/``best.pt`` (+ ``.json``), ``spm.model`` and
``recovered.json`` in the format of ``models.corrector.train``, so that both

    python -m models.corrector.train --corpus C --out NEW \
        --init-from build/corrector/shipped/last.pt --tokenizer build/corrector/shipped/spm.model
    python -m models.corrector.train --corpus C --out build/corrector/shipped --resume

work. How weights are found (dynamo export renames the transposed matrices
``val_N``, the quantizer adds ``_quantized``/``_scale``/``_zero_point``):

* float initializers named ``model.<param>`` are copied as they are;
* a ``MatMulInteger`` (or float ``MatMul``) whose B input is a constant is a
  ``Linear``: its weight is B transposed, dequantized with the per-column scale
  found by tracing ``Cast -> Mul(scale_a * scale_b)``, and its name is that of
  the bias ``model.<layer>.bias`` added to the product;
* the one bias-free product of shape (d_model, vocab) is the tied output
  projection, i.e. ``embed.weight`` transposed; the ``Gather`` of the quantized
  table followed by ``DequantizeLinear`` is the same embedding. The tied weight
  is estimated from all its copies as the middle of the intersection of their
  quantization intervals (value +- scale/2), which is closer to the original
  fp32 weight than any single copy.

Every parameter of the torch model must be found, with the expected shape, or
the command fails.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import random
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from models.corrector.model import ModelConfig, Seq2SeqTransformer, _sinusoids
from models.corrector.train import BEST, LAST, TOKENIZER_FILE, RunState, TrainConfig, lr_factor
from therapy_app.model_store import sha256_file

_LOGGER = logging.getLogger("models.corrector.from_onnx")

GRAPHS = ("encoder.onnx", "decoder_step.onnx")
RECOVERED_FILE = "recovered.json"
PREFIX = "model."


class RecoveryError(RuntimeError):
    """A graph does not map onto the torch model's parameters."""


@dataclass
class _Candidate:
    """One copy of a parameter found in a graph.

    Attributes:
        value: the (dequantized) weight in torch layout.
        half_step: half the quantization step, broadcastable to ``value`` (0 for floats).
        source: where it came from, for messages.
    """

    value: np.ndarray
    half_step: np.ndarray | float
    source: str


@dataclass
class Recovered:
    """The rebuilt model and how it was found.

    Attributes:
        model: fp32 model in eval mode holding the recovered weights.
        sidecar: the shipped ``model.json``.
        sources: parameter name -> graph locations it was read from.
        tied_stats: agreement between the copies of the tied embedding.
    """

    model: Seq2SeqTransformer
    sidecar: dict[str, Any]
    sources: dict[str, list[str]] = field(default_factory=dict)
    tied_stats: dict[str, Any] = field(default_factory=dict)


class _Graph:
    """Initializers and producer/consumer maps of one ONNX graph."""

    def __init__(self, path: Path) -> None:
        import onnx
        from onnx import numpy_helper

        self.name = path.name
        model = onnx.load(str(path))
        self.producer = f"{model.producer_name} {model.producer_version}".strip()
        graph = model.graph
        self.inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        self.nodes = list(graph.node)
        self.producers = {out: node for node in self.nodes for out in node.output}
        self.consumers: dict[str, list[Any]] = {}
        for node in self.nodes:
            for name in node.input:
                self.consumers.setdefault(name, []).append(node)

    def attr(self, node: Any, name: str, default: Any) -> Any:
        from onnx import helper

        for a in node.attribute:
            if a.name == name:
                return helper.get_attribute_value(a)
        return default

    def only_consumer(self, name: str, op_type: str) -> Any:
        users = self.consumers.get(name, [])
        if len(users) != 1 or users[0].op_type != op_type:
            found = [n.op_type for n in users]
            raise RecoveryError(f"{self.name}: {name} feeds {found}, expected one {op_type}")
        return users[0]

    def constant(self, name: str) -> tuple[np.ndarray, np.ndarray | float] | None:
        """Float value of a weight given as an initializer, possibly cast or dequantized."""
        if name in self.inits:
            value = self.inits[name]
            return (value.astype(np.float32), 0.0) if value.dtype.kind == "f" else None
        node = self.producers.get(name)
        if node is None:
            return None
        if node.op_type == "Cast" and node.input[0] in self.inits:  # fp16 storage
            return self.inits[node.input[0]].astype(np.float32), 0.0
        if node.op_type == "DequantizeLinear" and node.input[0] in self.inits:
            return _dequantize(self, node, self.inits[node.input[0]])
        return None


def _dequantize(graph: _Graph, node: Any, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(q - zero_point) * scale of a DequantizeLinear node applied to ``q``."""
    scale = graph.inits[node.input[1]].astype(np.float32)
    zero = graph.inits[node.input[2]] if len(node.input) > 2 and node.input[2] else 0
    zero = np.asarray(zero, dtype=np.float32)
    if scale.ndim == 1:  # per-axis
        axis = graph.attr(node, "axis", 1) % q.ndim
        shape = [1] * q.ndim
        shape[axis] = -1
        scale, zero = scale.reshape(shape), zero.reshape(shape)
    return (q.astype(np.float32) - zero) * scale, np.broadcast_to(scale / 2, q.shape)


def _matmul_weight(graph: _Graph, node: Any) -> tuple[np.ndarray, np.ndarray | float, str] | None:
    """(in, out) weight of a product by a constant, and the tensor that carries the result."""
    if node.op_type == "MatMul":
        found = graph.constant(node.input[1])
        if found is None or found[0].ndim != 2:
            return None
        return found[0], found[1], node.output[0]
    # MatMulInteger(a_q, b_q, a_zp, b_zp) -> Cast -> Mul(., scale_a * scale_b)
    if node.input[1] not in graph.inits:
        return None
    q = graph.inits[node.input[1]]
    zero = np.zeros(q.shape[1], np.float32)
    if len(node.input) > 3 and node.input[3]:
        zero = np.broadcast_to(graph.inits[node.input[3]].astype(np.float32), (q.shape[1],))
    cast = graph.only_consumer(node.output[0], "Cast")
    mul = graph.only_consumer(cast.output[0], "Mul")
    scales = mul.input[1] if mul.input[0] == cast.output[0] else mul.input[0]
    scales_node = graph.producers.get(scales)
    if scales_node is None or scales_node.op_type != "Mul":
        raise RecoveryError(f"{graph.name}: no scale product after {node.name}")
    weight_scale = [n for n in scales_node.input if n in graph.inits]
    if len(weight_scale) != 1:
        raise RecoveryError(f"{graph.name}: cannot tell the weight scale of {node.name}")
    scale = np.broadcast_to(graph.inits[weight_scale[0]].astype(np.float32), (q.shape[1],))
    value = (q.astype(np.float32) - zero[None, :]) * scale[None, :]
    return value, np.broadcast_to(scale[None, :] / 2, q.shape), mul.output[0]


def _bias_of(graph: _Graph, tensor: str) -> str | None:
    """Name of the ``model.*.bias`` initializer added to ``tensor``, if any."""
    for node in graph.consumers.get(tensor, []):
        if node.op_type == "Add":
            other = [n for n in node.input if n != tensor]
            if other and other[0].startswith(PREFIX) and other[0].endswith(".bias"):
                return other[0]
    return None


def _candidates(
    graph: _Graph, params: dict[str, torch.Tensor], config: ModelConfig
) -> dict[str, list[_Candidate]]:
    found: dict[str, list[_Candidate]] = {}

    def add(name: str, value: np.ndarray, half: np.ndarray | float, where: str) -> None:
        if name not in params:
            raise RecoveryError(f"{graph.name}: {where} maps to unknown parameter {name}")
        if tuple(value.shape) != tuple(params[name].shape):
            raise RecoveryError(
                f"{graph.name}: {where} has shape {value.shape}, {name} is "
                f"{tuple(params[name].shape)}"
            )
        found.setdefault(name, []).append(_Candidate(value, half, f"{graph.name}:{where}"))

    for name, value in graph.inits.items():
        if not name.startswith(PREFIX) or value.dtype.kind != "f" or value.ndim == 0:
            continue
        if name.endswith(("_scale", "_zero_point", "_quantized")):
            continue
        key = name[len(PREFIX) :]
        if key == "positions":  # a fixed buffer, not a parameter: check it is the same table
            # float32 sin/cos differ by up to ~1.5e-5 between CPUs' vector kernels.
            expected = _sinusoids(config.max_len, config.d_model).numpy()
            if value.shape != expected.shape or not np.allclose(value, expected, atol=1e-4):
                raise RecoveryError(f"{graph.name}: positional table differs from the model's")
            continue
        add(key, value.astype(np.float32), 0.0, name)

    for node in graph.nodes:
        if node.op_type in ("MatMul", "MatMulInteger"):
            got = _matmul_weight(graph, node)
            if got is None:
                continue  # activation x activation (attention)
            weight, half, out = got
            bias = _bias_of(graph, out)
            if bias is not None:
                key = bias[len(PREFIX) : -len(".bias")] + ".weight"
            elif weight.shape == (config.d_model, config.vocab_size):
                key = "embed.weight"  # tied output projection
            else:
                raise RecoveryError(f"{graph.name}: cannot name the weight of {node.name}")
            add(key, weight.T, np.asarray(half).T if np.ndim(half) else half, node.name)
        elif node.op_type == "Gather":
            table = node.input[0]
            if graph.attr(node, "axis", 0) != 0:
                continue
            if table in graph.inits and graph.inits[table].dtype.kind in "iu":
                deq = graph.only_consumer(node.output[0], "DequantizeLinear")
                value, half = _dequantize_table(graph, deq, graph.inits[table])
            else:
                got = graph.constant(table)
                if got is None:
                    continue  # shape arithmetic
                value, half = got
            if value.shape == (config.vocab_size, config.d_model):
                add("embed.weight", value, half, node.name)
            elif value.ndim == 2:
                raise RecoveryError(f"{graph.name}: unexpected lookup table {table} {value.shape}")
    return found


def _dequantize_table(graph: _Graph, deq: Any, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dequantize a gathered table with the DequantizeLinear applied after the Gather."""
    scale = graph.inits[deq.input[1]]
    if scale.ndim == 1:
        # The axis refers to the gathered output; only the last (feature) axis keeps its meaning.
        if scale.shape[0] != q.shape[-1]:
            raise RecoveryError(f"{graph.name}: per-row scale on a gathered table")
    return _dequantize(graph, deq, q)


def _combine(name: str, cands: list[_Candidate]) -> tuple[np.ndarray, dict[str, Any]]:
    """One estimate from every copy: the middle of their quantization intervals' intersection."""
    if len(cands) == 1:
        return cands[0].value, {}
    exact = [c for c in cands if not np.any(np.asarray(c.half_step))]
    if exact:
        for c in [c for c in cands if c is not exact[0]]:
            tol = np.asarray(c.half_step) * 1.001 + 1e-6
            if np.any(np.abs(c.value - exact[0].value) > tol):
                raise RecoveryError(f"{name}: {c.source} disagrees with {exact[0].source}")
        return exact[0].value, {}
    lo = np.max([c.value - c.half_step for c in cands], axis=0)
    hi = np.min([c.value + c.half_step for c in cands], axis=0)
    finest = min(cands, key=lambda c: float(np.mean(c.half_step)))
    empty = lo > hi + 1e-7
    estimate = np.where(empty, finest.value, (lo + hi) / 2).astype(np.float32)
    stats = {
        "copies": [c.source for c in cands],
        "max_abs_diff_between_copies": float(
            max(np.abs(c.value - cands[0].value).max() for c in cands)
        ),
        "empty_intersections": int(empty.sum()),
        "max_abs_change_vs_finest_copy": float(np.abs(estimate - finest.value).max()),
    }
    return estimate, stats


def training_config(sidecar: dict[str, Any]) -> TrainConfig:
    """The shipped run's config, made resumable.

    The shipped weights come from a cooldown run (rate decayed to zero at its
    ``max_steps``): keeping those settings would make ``--resume`` stop at once
    with a zero rate, so the cooldown and step limit are cleared.
    """
    config = TrainConfig.from_dict(sidecar["training"]["config"])
    config.cooldown_start = 0
    config.cooldown_steps = 0
    config.max_steps = 0
    config.max_minutes = 0.0
    return config


def recover(model_dir: Path) -> Recovered:
    """Rebuild the torch model from the ONNX graphs in ``model_dir``.

    Raises:
        RecoveryError: a parameter is missing, ambiguous or of the wrong shape.
    """
    sidecar = json.loads((model_dir / "model.json").read_text(encoding="utf-8"))
    config = ModelConfig.from_dict(sidecar["training"]["config"]["model"])
    model = Seq2SeqTransformer(config)
    params = dict(model.state_dict())
    found: dict[str, list[_Candidate]] = {}
    for name in GRAPHS:
        for key, cands in _candidates(_Graph(model_dir / name), params, config).items():
            found.setdefault(key, []).extend(cands)
    missing = sorted(set(params) - set(found))
    if missing:
        raise RecoveryError(f"parameters not found in the graphs: {missing}")
    state, stats = {}, {}
    for key, cands in found.items():
        state[key], info = _combine(key, cands)
        if info:
            stats[key] = info
    model.load_state_dict({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in state.items()})
    expected = sidecar["training"].get("parameters")
    total = sum(p.numel() for p in model.parameters())
    if expected is not None and total != expected:
        raise RecoveryError(f"{total} parameters, model.json says {expected}")
    sources = {k: [c.source for c in v] for k, v in sorted(found.items())}
    return Recovered(model.float().eval(), sidecar, sources, stats)


# -- verification -----------------------------------------------------------------------------


class TorchSteps:
    """The torch model behind the runtime's ``StepModel`` protocol (numpy in/out)."""

    def __init__(self, model: Seq2SeqTransformer) -> None:
        self.model = model

    @torch.no_grad()
    def encode(self, src_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k, v = self.model.cross_keys_values(self.model.encode(torch.from_numpy(src_ids)))
        return k.numpy(), v.numpy()

    @torch.no_grad()
    def step(self, tokens, self_k, self_v, cross_k, cross_v, src_mask):  # noqa: ANN001, ANN201
        t = torch.from_numpy
        lp, k, v = self.model.decode_step(
            t(tokens), t(self_k), t(self_v), t(cross_k), t(cross_v), t(src_mask)
        )
        return lp.numpy(), k.numpy(), v.numpy()

    def empty_cache(self, batch: int) -> np.ndarray:
        return self.model.empty_cache(batch).numpy()


def load_items(path: Path, n: int) -> list[dict[str, Any]]:
    """The first ``n`` rows of a JSONL file."""
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                rows.append(json.loads(line))
            if len(rows) >= n:
                break
    return rows


def compare(
    model: Seq2SeqTransformer, model_dir: Path, items: list[dict[str, Any]], n_forced: int = 5
) -> dict[str, Any]:
    """Greedy outputs of ``model`` vs the shipped ONNX corrector, and teacher-forced log-probs.

    Both sides run the runtime's own greedy search (``therapy_app.correction.search``,
    same length cap and n-gram ban) on the runtime's tokenization; ``model.greedy``
    (no n-gram ban) is compared too.
    """
    from therapy_app.correction.corrector import Corrector
    from therapy_app.correction.normalize import normalize_text
    from therapy_app.correction.search import greedy

    corrector = Corrector.load(provider="cpu", model_dir=model_dir)
    graphs, sp, c = corrector._graphs, corrector._tokenizer, corrector.config  # noqa: SLF001
    steps = TorchSteps(model)
    same = same_helper = 0
    differing: list[dict[str, str]] = []
    worst_row = worst_target = 0.0
    for index, item in enumerate(items):
        ids = sp.encode(normalize_text(item["src"])) + [c.eos_id]
        src = np.array([ids], dtype=np.int64)
        options = c.search_options(len(ids))
        onnx_out = greedy(graphs, src, options).tokens
        torch_out = greedy(steps, src, options).tokens
        same += int(onnx_out == torch_out)
        with torch.no_grad():
            same_helper += int(model.greedy(torch.from_numpy(src), options.max_len)[0] == onnx_out)
        if onnx_out != torch_out:
            differing.append(
                {"src": item["src"], "onnx": sp.decode(onnx_out), "torch": sp.decode(torch_out)}
            )
        if index < n_forced and item.get("refs"):
            target = sp.encode(item["refs"][0]) + [c.eos_id]
            ok, ov = graphs.encode(src)
            tk, tv = steps.encode(src)
            o_k = o_v = graphs.empty_cache(1)
            t_k = t_v = steps.empty_cache(1)
            mask = np.ones(src.shape, dtype=bool)
            previous = c.bos_id
            for tok in target:
                token = np.array([[previous]], dtype=np.int64)
                o_lp, o_k, o_v = graphs.step(token, o_k, o_v, ok, ov, mask)
                t_lp, t_k, t_v = steps.step(token, t_k, t_v, tk, tv, mask)
                worst_row = max(worst_row, float(np.abs(o_lp - t_lp).max()))
                worst_target = max(worst_target, float(abs(o_lp[0, tok] - t_lp[0, tok])))
                previous = tok
    return {
        "items": len(items),
        "greedy_identical": same,
        "model_greedy_identical": same_helper,
        "teacher_forced_sentences": min(n_forced, len(items)),
        "max_abs_logprob_diff_target_tokens": worst_target,
        "max_abs_logprob_diff_full_vocab": worst_row,
        "differing": differing,
    }


# -- run folder -------------------------------------------------------------------------------


def _optimizer_and_scheduler(
    model: Seq2SeqTransformer, config: TrainConfig, step: int
) -> tuple[torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler]:
    """Fresh AdamW (the moments are lost) set up as ``Trainer`` does, scheduled at ``step``."""
    decay = [p for _, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for _, p in model.named_parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": config.weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=config.lr,
        betas=(0.9, 0.98),
        eps=1e-8,
    )
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: lr_factor(s, config))
    # Same state as after ``step`` scheduler steps (last_epoch and the groups' rates).
    scheduler.last_epoch = step
    rates = [base * lr_factor(step, config) for base in scheduler.base_lrs]
    for group, rate in zip(optimizer.param_groups, rates, strict=True):
        group["lr"] = rate
    scheduler._last_lr = rates  # noqa: SLF001
    scheduler._step_count = step + 1  # noqa: SLF001
    return optimizer, scheduler


def write_run(
    recovered: Recovered, model_dir: Path, out: Path, command: list[str], parity: dict[str, Any]
) -> Path:
    """Write ``last``/``best`` checkpoints, ``spm.model`` and ``recovered.json`` into ``out``."""
    sidecar = recovered.sidecar
    training = sidecar["training"]
    config = training_config(sidecar)
    model = recovered.model
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(model_dir / "spm.model", out / TOKENIZER_FILE)
    validation = training.get("validation")
    state = RunState(
        step=int(training["steps"]),
        train_seconds=float(training.get("train_minutes", 0.0)) * 60,
        tokens_seen=int(training.get("target_tokens_seen", 0)),
        best_metric=(
            [validation["val_exact"], -validation["val_loss"]] if validation else [-1.0, -1e9]
        ),
        history=[validation] if validation else [],
    )
    torch.manual_seed(config.seed)
    random.seed(config.seed)
    np.random.seed(config.seed)
    optimizer, scheduler = _optimizer_and_scheduler(model, config, state.step)
    corpus = sidecar.get("source", {}).get("corpus", {})
    files = {
        name: {
            "sha256": sha256_file(model_dir / name),
            "sha256_in_model_json": sidecar.get("files", {}).get(role, {}).get("sha256"),
        }
        for role, name in (
            ("encoder", "encoder.onnx"),
            ("decoder_step", "decoder_step.onnx"),
            ("tokenizer", "spm.model"),
        )
    }
    note = {
        "note": (
            "Weights recovered from the shipped ONNX export "
            f"({sidecar.get('weights', 'unknown')} weights) by models.corrector.from_onnx, "
            "not from a training checkpoint: int8 matrices were dequantized, so they are "
            "within half a quantization step of the trained fp32 weights. Optimizer moments "
            "are lost (fresh AdamW state); the cooldown/max_steps of the shipped run were "
            "cleared so that --resume can continue."
        ),
        "model_dir": str(model_dir),
        "model_name": sidecar.get("name"),
        "model_version": sidecar.get("version"),
        "files": files,
        "original_training": {
            "command": training.get("command"),
            "config": training.get("config"),
            "steps": training.get("steps"),
            "validation": validation,
        },
        "tied_embedding": recovered.tied_stats,
        "parity_with_onnx": parity,
        "recovered_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    meta = {
        "config": config.to_dict(),
        "command": command,
        "corpus": corpus.get("path"),
        "corpus_manifest_sha256": corpus.get("manifest_sha256"),
        "tokenizer_sha256": sha256_file(out / TOKENIZER_FILE),
        "state": dataclasses.asdict(state),
        "torch": torch.__version__,
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "recovered_from_onnx": note,
    }
    payload = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "rng": {
            "torch": torch.get_rng_state(),
            "numpy": np.random.get_state(),
            "python": random.getstate(),
        },
        "meta": meta,
    }
    for name in (LAST, BEST):
        tmp = out / f"{name}.pt.tmp"
        torch.save(payload, tmp)
        os.replace(tmp, out / f"{name}.pt")
        (out / f"{name}.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    (out / RECOVERED_FILE).write_text(json.dumps(note, indent=2, ensure_ascii=False) + "\n")
    return out / f"{LAST}.pt"


def _check_out(out: Path) -> None:
    """Refuse to overwrite a real training run (a folder we wrote ourselves is fine)."""
    last = out / f"{LAST}.json"
    if (out / f"{LAST}.pt").is_file():
        meta = json.loads(last.read_text()) if last.is_file() else {}
        if "recovered_from_onnx" not in meta:
            raise SystemExit(f"{out} holds a training run; choose another --out")


def main(argv: list[str] | None = None) -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=Path("resources/models/corrector-fr"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--eval", type=Path, default=Path("tests/data/aphasia_eval.jsonl"))
    parser.add_argument("--verify-items", type=int, default=50)
    parser.add_argument(
        "--min-identical",
        type=float,
        default=0.9,
        help="fail if fewer than this fraction of greedy outputs match the ONNX model",
    )
    parser.add_argument("--no-verify", action="store_true", help="skip the ONNX comparison")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    command = [
        "python",
        "-m",
        "models.corrector.from_onnx",
        *(sys.argv[1:] if argv is None else argv),
    ]
    _check_out(args.out)
    recovered = recover(args.model_dir)
    _LOGGER.info(
        "recovered %d tensors from %s (version %s)",
        len(recovered.sources),
        args.model_dir,
        recovered.sidecar.get("version"),
    )
    for key, info in recovered.tied_stats.items():
        _LOGGER.info("%s: %s", key, info)
    parity: dict[str, Any] = {}
    if not args.no_verify:
        parity = compare(recovered.model, args.model_dir, load_items(args.eval, args.verify_items))
        parity["eval_file"] = str(args.eval)
        print(
            f"greedy outputs identical (runtime search, n-gram ban): "
            f"{parity['greedy_identical']}/{parity['items']}"
        )
        print(
            f"greedy outputs identical (Seq2SeqTransformer.greedy vs ONNX): "
            f"{parity['model_greedy_identical']}/{parity['items']}"
        )
        print(
            f"teacher-forced, {parity['teacher_forced_sentences']} sentences: max |d log-prob| "
            f"{parity['max_abs_logprob_diff_target_tokens']:.4f} on target tokens, "
            f"{parity['max_abs_logprob_diff_full_vocab']:.4f} over the whole vocabulary"
        )
        for diff in parity["differing"]:
            print(f"  differs: {diff['src']!r}: onnx {diff['onnx']!r} / torch {diff['torch']!r}")
        if parity["greedy_identical"] < args.min_identical * parity["items"]:
            raise SystemExit("the recovered model disagrees with the ONNX model too often")
    path = write_run(recovered, args.model_dir, args.out, command, parity)
    print(f"checkpoint written to {path}")


if __name__ == "__main__":
    main()
