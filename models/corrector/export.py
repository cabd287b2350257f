"""Exports a trained corrector checkpoint to the shipped ONNX model folder.

Usage::

    python -m models.corrector.export --checkpoint build/corrector/run1/best.pt \
        --out resources/models/corrector-fr [--quantize auto|int8|none] [--compare-prefix]

Writes ``encoder.onnx``, ``decoder_step.onnx``, ``spm.model``, ``model.json``
and ``MODEL_CARD.md``. The export is checked against PyTorch (log-prob
tolerance, identical greedy output) before anything is written to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from models import portable_int8
from models.corrector import card
from models.corrector.calibrate import calibrate_keep_margin
from models.corrector.data import Example, load_split
from models.corrector.graphs import OPSET, export_graphs
from models.corrector.model import ModelConfig, Seq2SeqTransformer, count_parameters
from models.corrector.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID, load_tokenizer
from therapy_app import inference
from therapy_app.correction.corrector import (
    FORMAT_VERSION,
    UNSAID_PENALTY,
    Corrector,
    CorrectorConfig,
    _OnnxGraphs,
)
from therapy_app.correction.search import greedy
from therapy_app.model_store import SIDECAR, file_entry, sha256_file, write_sidecar

_LOGGER = logging.getLogger("models.corrector.export")

MODEL_NAME = "corrector-fr"
MODEL_LICENCE = "MIT"
# An int8 model is shipped only if its exact match on validation pairs stays
# within this many points of the fp32 export.
INT8_MAX_DROP = 0.01
LOGPROB_TOLERANCE = 1e-3


@dataclass(frozen=True)
class Checkpoint:
    """A loaded training checkpoint.

    Attributes:
        model: fp32 model in eval mode.
        meta: the JSON saved next to it (config, command, state, corpus hash).
        tokenizer: path of the run's ``spm.model``.
    """

    model: Seq2SeqTransformer
    meta: dict[str, Any]
    tokenizer: Path


def load_checkpoint(path: Path) -> Checkpoint:
    """Read a ``.pt`` written by ``models.corrector.train``."""
    payload = torch.load(path, map_location="cpu", weights_only=False)
    meta = payload["meta"]
    model = Seq2SeqTransformer(ModelConfig.from_dict(meta["config"]["model"]))
    model.load_state_dict(payload["model"])
    return Checkpoint(model.float().eval(), meta, path.parent / "spm.model")


def _runtime_config(model: Seq2SeqTransformer, meta: dict[str, Any]) -> CorrectorConfig:
    c = model.config
    train = meta["config"]
    return CorrectorConfig(
        format_version=FORMAT_VERSION,
        vocab_size=c.vocab_size,
        pad_id=PAD_ID,
        unk_id=UNK_ID,
        bos_id=BOS_ID,
        eos_id=EOS_ID,
        dec_layers=c.dec_layers,
        n_heads=c.n_heads,
        head_dim=c.head_dim,
        max_src_tokens=min(c.max_len, 2 * train["max_src_tokens"]) - 1,
        max_tgt_tokens=min(c.max_len - 1, 2 * train["max_tgt_tokens"]),
        unsaid_penalty=UNSAID_PENALTY,
    )


def _graphs(directory: Path, config: CorrectorConfig) -> _OnnxGraphs:
    encoder = inference.create_session(directory / "encoder.onnx", provider="cpu", threads=2)
    decoder = inference.create_session(directory / "decoder_step.onnx", provider="cpu", threads=2)
    return _OnnxGraphs(encoder, decoder, config)


def check_parity(
    model: Seq2SeqTransformer, directory: Path, config: CorrectorConfig, examples: list[Example]
) -> dict[str, Any]:
    """Compare ONNX Runtime with PyTorch: first-steps log-probs and greedy outputs.

    Returns:
        ``max_abs_logprob_diff`` and ``greedy_equal`` / ``greedy_total``.
    """
    graphs = _graphs(directory, config)
    worst = 0.0
    equal = 0
    for ex in examples:
        src = np.array([ex.src], dtype=np.int64)
        with torch.no_grad():
            memory = model.encode(torch.from_numpy(src))
            tk, tv = model.cross_keys_values(memory)
            ok, ov = graphs.encode(src)
            worst = max(worst, float(np.abs(ok - tk.numpy()).max()))
            # Teacher-force the reference target through both step functions.
            t_self_k = t_self_v = model.empty_cache(1)
            o_self_k = o_self_v = graphs.empty_cache(1)
            mask = np.ones(src.shape, dtype=bool)
            for tok in [BOS_ID] + ex.tgt[:12]:
                token = np.array([[tok]], dtype=np.int64)
                t_lp, t_self_k, t_self_v = model.decode_step(
                    torch.from_numpy(token), t_self_k, t_self_v, tk, tv, torch.from_numpy(mask)
                )
                o_lp, o_self_k, o_self_v = graphs.step(token, o_self_k, o_self_v, ok, ov, mask)
                worst = max(worst, float(np.abs(o_lp - t_lp.numpy()).max()))
            torch_out = model.greedy(
                torch.from_numpy(src), config.search_options(len(ex.src)).max_len
            )
        onnx_out = greedy(graphs, src, config.search_options(len(ex.src)))
        equal += int(torch_out[0] == onnx_out.tokens)
    return {"max_abs_logprob_diff": worst, "greedy_equal": equal, "greedy_total": len(examples)}


def exact_match(directory: Path, config: CorrectorConfig, examples: list[Example]) -> float:
    """Greedy exact match (token level) of the ONNX graphs in ``directory``."""
    graphs = _graphs(directory, config)
    hits = 0
    for ex in examples:
        out = greedy(graphs, np.array([ex.src], dtype=np.int64), config.search_options(len(ex.src)))
        hits += int(out.tokens == ex.tgt)
    return hits / max(len(examples), 1)


def _gemm_to_matmul(graph: Any) -> None:
    """Rewrite ``Gemm(x, W, transB=1)`` on an initializer as ``MatMul(x, W.T)``.

    The tied output projection exports as such a Gemm; onnxruntime's dynamic
    quantizer turns it into a graph that fails to load ("Incompatible
    dimensions" on the bias Add), while a MatMul quantizes cleanly.
    """
    from onnx import helper, numpy_helper

    inits = {init.name: init for init in graph.initializer}
    for node in list(graph.node):
        if node.op_type != "Gemm" or len(node.input) != 2 or node.input[1] not in inits:
            continue
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if attrs.get("transA", 0) or attrs.get("alpha", 1.0) != 1.0:
            continue
        weight = numpy_helper.to_array(inits[node.input[1]])
        if attrs.get("transB", 0):
            weight = weight.T
        name = node.input[1] + "_matmul"
        graph.initializer.append(numpy_helper.from_array(np.ascontiguousarray(weight), name))
        matmul = helper.make_node("MatMul", [node.input[0], name], list(node.output), node.name)
        index = list(graph.node).index(node)
        graph.node.remove(node)
        graph.node.insert(index, matmul)


def quantize_int8(src_dir: Path, dst_dir: Path) -> None:
    """Dynamic int8 quantization of both graphs' weight matrices."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    dst_dir.mkdir(parents=True, exist_ok=True)
    for name in ("encoder.onnx", "decoder_step.onnx"):
        # The dynamo exporter's value_info holds shapes that onnx's shape
        # inference (run by the quantizer) rejects as conflicting; drop them.
        graph = onnx.load(src_dir / name)
        graph.graph.ClearField("value_info")
        _gemm_to_matmul(graph.graph)
        stripped = dst_dir / f"stripped-{name}"
        onnx.save(graph, stripped)
        quantize_dynamic(
            stripped,
            dst_dir / name,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Gather"],
            per_channel=True,
        )
        stripped.unlink()
        # Same integers on every x86 CPU, with or without VNNI (models/portable_int8.py).
        portable_int8.rewrite_file(dst_dir / name)


def store_fp16(src_dir: Path, dst_dir: Path, min_elements: int = 1024) -> None:
    """Store large weights as float16, cast back to float32 inside the graph.

    Halves the files without int8's rounding of activations: ONNX Runtime folds
    the casts when the session is created, so inference still runs in fp32.
    """
    import onnx
    from onnx import helper, numpy_helper

    dst_dir.mkdir(parents=True, exist_ok=True)
    for name in ("encoder.onnx", "decoder_step.onnx"):
        model = onnx.load(src_dir / name)
        graph = model.graph
        kept, casts = [], []
        for init in graph.initializer:
            array = numpy_helper.to_array(init)
            if array.dtype != np.float32 or array.size < min_elements:
                kept.append(init)
                continue
            half = init.name + "_fp16"
            kept.append(numpy_helper.from_array(array.astype(np.float16), half))
            casts.append(helper.make_node("Cast", [half], [init.name], to=onnx.TensorProto.FLOAT))
        graph.ClearField("initializer")
        graph.initializer.extend(kept)
        nodes = casts + list(graph.node)
        graph.ClearField("node")
        graph.node.extend(nodes)
        onnx.save(model, dst_dir / name)


def greedy_latency(directory: Path, config: CorrectorConfig, examples: list[Example]) -> float:
    """Mean seconds per sentence of greedy decoding with the cached step graph."""
    graphs = _graphs(directory, config)
    greedy(graphs, np.array([examples[0].src], dtype=np.int64), config.search_options(4))
    start = time.perf_counter()
    for ex in examples:
        greedy(graphs, np.array([ex.src], dtype=np.int64), config.search_options(len(ex.src)))
    return (time.perf_counter() - start) / len(examples)


def prefix_latency(
    model: Seq2SeqTransformer, config: CorrectorConfig, examples: list[Example], work: Path
) -> dict[str, float]:
    """Greedy ms/sentence with the KV-cached step graph and with a cache-less one (fp32).

    The two are timed alternately, three rounds each, and the best round kept:
    on a shared machine a single pass of each mostly measures the neighbours.
    """
    paths = export_graphs(model, work, with_prefix=True)
    graphs = _graphs(work, config)
    decoder = inference.create_session(paths["decoder_prefix"], provider="cpu", threads=2)

    def no_cache() -> float:
        start = time.perf_counter()
        for ex in examples:
            src = np.array([ex.src], dtype=np.int64)
            cross_k, cross_v = graphs.encode(src)
            mask = np.ones(src.shape, dtype=bool)
            prefix = [BOS_ID]
            for _ in range(config.search_options(len(ex.src)).max_len):
                feed = {"prefix": np.array([prefix], dtype=np.int64), "cross_k": cross_k,
                        "cross_v": cross_v, "src_mask": mask}  # fmt: skip
                nxt = int(decoder.run(None, feed)[0][0].argmax())
                if nxt == EOS_ID:
                    break
                prefix.append(nxt)
        return (time.perf_counter() - start) / len(examples)

    rounds = [(greedy_latency(work, config, examples), no_cache()) for _ in range(3)]
    return {
        "greedy_fp32_cache_ms": 1000 * min(r[0] for r in rounds),
        "greedy_fp32_no_cache_ms": 1000 * min(r[1] for r in rounds),
    }


def corpus_info(corpus: Path) -> dict[str, Any]:
    """Hash, generator packages and source licences of the corpus, from its MANIFEST.json."""
    manifest = corpus / "MANIFEST.json"
    if not manifest.is_file():
        return {"path": str(corpus), "manifest_sha256": None, "licences": {}}
    data = json.loads(manifest.read_text(encoding="utf-8"))
    ready = corpus / "READY"
    return {
        "path": str(corpus),
        "manifest_sha256": sha256_file(manifest),
        "name": data.get("name"),
        "command": data.get("command"),
        "packages": data.get("packages", {}),
        "licences": data.get("licences", {}),
        "licence_note": data.get("corpus_licence_note"),
        "ready": ready.read_text(encoding="utf-8").strip() if ready.is_file() else None,
    }


def write_model_folder(
    work: Path, out: Path, ckpt: Checkpoint, config: CorrectorConfig, extra: dict[str, Any]
) -> Path:
    """Copy the graphs and tokenizer into ``out`` and write the sidecar and card."""
    out.mkdir(parents=True, exist_ok=True)
    for name in ("encoder.onnx", "decoder_step.onnx"):
        shutil.copyfile(work / name, out / name)
    shutil.copyfile(ckpt.tokenizer, out / "spm.model")
    state = ckpt.meta["state"]
    meta: dict[str, Any] = {
        "name": MODEL_NAME,
        "version": time.strftime("%Y.%m.%d") + f"-step{state['step']}",
        "kind": "corrector",
        "licence": MODEL_LICENCE,
        "source": {
            "packages": [],
            "corpus": corpus_info(Path(ckpt.meta["corpus"])),
            "checkpoint_step": state["step"],
        },
        "files": {
            role: file_entry(out, out / name)
            for role, name in (
                ("encoder", "encoder.onnx"),
                ("decoder_step", "decoder_step.onnx"),
                ("tokenizer", "spm.model"),
            )
        },
        "corrector": config.to_dict(),
        "onnx": {
            "opset": OPSET,
            "encoder": {"inputs": ["src_ids"], "outputs": ["cross_k", "cross_v"]},
            "decoder_step": {
                "inputs": ["tokens", "self_k", "self_v", "cross_k", "cross_v", "src_mask"],
                "outputs": ["log_probs", "new_self_k", "new_self_v"],
            },
        },
        "training": {
            "config": ckpt.meta["config"],
            "command": ckpt.meta["command"],
            "steps": state["step"],
            "train_minutes": round(state["train_seconds"] / 60, 1),
            "target_tokens_seen": state["tokens_seen"],
            "validation": state["history"][-1] if state["history"] else None,
            "parameters": count_parameters(ckpt.model),
        },
        **extra,
    }
    write_sidecar(out, meta)
    card.write_card(out)
    return out


def main(argv: list[str] | None = None) -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("resources/models") / MODEL_NAME)
    parser.add_argument("--corpus", type=Path, help="defaults to the checkpoint's corpus")
    parser.add_argument(
        "--quantize",
        choices=["auto", "int8", "fp16", "none"],
        default="auto",
        help="auto: int8 if validation exact match holds, else fp16 storage",
    )
    parser.add_argument("--eval-pairs", type=int, default=300, help="validation pairs for checks")
    parser.add_argument("--notes", default="", help="free text for model.json and the card")
    parser.add_argument(
        "--calibration-pairs",
        type=int,
        default=1000,
        help="validation pairs for keep_margin (0: leave the check off)",
    )
    parser.add_argument(
        "--compare-prefix", action="store_true", help="also time a cache-less decoder graph"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    logging.getLogger("torch").setLevel(logging.ERROR)
    torch.set_num_threads(2)

    ckpt = load_checkpoint(args.checkpoint)
    config = _runtime_config(ckpt.model, ckpt.meta)
    sp = load_tokenizer(ckpt.tokenizer)
    corpus = args.corpus or Path(ckpt.meta["corpus"])
    valid = load_split(corpus / "valid.jsonl", sp, 10_000, 10_000)
    rng = np.random.default_rng(7)
    sample = [valid[i] for i in rng.permutation(len(valid))[: args.eval_pairs]]

    with tempfile.TemporaryDirectory(prefix="corrector-export-") as tmp:
        work = Path(tmp)
        export_graphs(ckpt.model, work / "fp32")
        parity = check_parity(ckpt.model, work / "fp32", config, sample[:20])
        _LOGGER.info("parity: %s", parity)
        if parity["max_abs_logprob_diff"] > LOGPROB_TOLERANCE:
            raise SystemExit(f"ONNX and PyTorch disagree: {parity}")
        em_fp32 = exact_match(work / "fp32", config, sample)
        chosen, em_int8, em_fp16 = work / "fp32", None, None
        if args.quantize in ("auto", "int8"):
            quantize_int8(work / "fp32", work / "int8")
            em_int8 = exact_match(work / "int8", config, sample)
            _LOGGER.info("exact match fp32 %.3f, int8 %.3f", em_fp32, em_int8)
            if args.quantize == "int8" or em_int8 >= em_fp32 - INT8_MAX_DROP:
                chosen = work / "int8"
        if args.quantize == "fp16" or (args.quantize == "auto" and chosen.name == "fp32"):
            store_fp16(work / "fp32", work / "fp16")
            em_fp16 = exact_match(work / "fp16", config, sample)
            _LOGGER.info("exact match fp32 %.3f, fp16 storage %.3f", em_fp32, em_fp16)
            chosen = work / "fp16"
        latency = {"greedy_step_cache_ms": 1000 * greedy_latency(chosen, config, sample[:50])}
        if args.compare_prefix:
            latency.update(prefix_latency(ckpt.model, config, sample[:50], work / "prefix"))
        _LOGGER.info("latency: %s", latency)
        extra = {
            "notes": args.notes,
            "weights": {"int8": "int8", "fp16": "fp16 storage, fp32 compute"}.get(
                chosen.name, "fp32"
            ),
            "export_checks": {
                "parity": parity,
                "valid_exact_match_fp32": em_fp32,
                "valid_exact_match_int8": em_int8,
                "valid_exact_match_fp16": em_fp16,
                "valid_pairs": len(sample),
                "latency_2_threads": latency,
            },
        }
        out = write_model_folder(chosen, args.out, ckpt, config, extra)
    if args.calibration_pairs:
        calibrate(out, corpus / "valid.jsonl", args.calibration_pairs)
    _LOGGER.info("model folder written to %s", out)


def calibrate(model_dir: Path, valid_jsonl: Path, n_pairs: int) -> None:
    """Set ``corrector.keep_margin`` in the sidecar from validation pairs."""
    rows = [json.loads(line) for line in valid_jsonl.read_text(encoding="utf-8").splitlines()]
    order = np.random.default_rng(11).permutation(len(rows))[:n_pairs]
    corrector = Corrector.load(provider="cpu", model_dir=model_dir)
    result = calibrate_keep_margin(corrector, [rows[i] for i in order])
    meta = json.loads((model_dir / SIDECAR).read_text(encoding="utf-8"))
    meta["corrector"]["keep_margin"] = result["keep_margin"]
    meta["corrector"]["drop_penalty"] = result["drop_penalty"]
    meta["export_checks"]["keep_margin_calibration"] = result
    write_sidecar(model_dir, meta)
    card.write_card(model_dir)


if __name__ == "__main__":
    main()
