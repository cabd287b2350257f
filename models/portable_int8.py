"""Stores the s8 weights of ``MatMulInteger`` nodes as u8 so every x86 CPU computes them exactly.

ONNX Runtime multiplies u8 activations by s8 weights with ``VPMADDUBSW`` on
x86 CPUs without VNNI (Haswell to Skylake, AMD Zen 2/3): that instruction
adds pairs of products into a saturating 16-bit integer, so large products
are clipped and the same graph gives other numbers there than on a CPU with
VNNI (the shipped corrector's log-probabilities moved by up to 0.23 under an
emulated Haswell). The u8 x u8 kernels widen to 16 bits before multiplying
and never saturate. Shifting a weight by 128 and its zero point by 128 keeps
``w - zero_point`` unchanged, so the rewritten graph computes the same
integers, exactly, on every CPU (and what VNNI CPUs computed before).

Usage: ``python -m models.portable_int8 GRAPH.onnx [...]`` rewrites in place.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import numpy as np

SHIFT = 128
_INPUTS_BY_OP = {
    # op -> (weight input index, weight zero-point input index)
    "MatMulInteger": (1, 3),
    "DequantizeLinear": (0, 2),
}


class PortabilityError(RuntimeError):
    """An s8 weight is used in a way this rewrite does not understand."""


def _consumers(graph: Any) -> dict[str, list[tuple[Any, int]]]:
    found: dict[str, list[tuple[Any, int]]] = {}
    for node in graph.node:
        for index, name in enumerate(node.input):
            found.setdefault(name, []).append((node, index))
    return found


def make_portable(model: Any) -> int:
    """Rewrite ``model`` (an ``onnx.ModelProto``) in place; returns the weights shifted.

    Raises:
        PortabilityError: an s8 weight or zero point feeds something other than
            a ``MatMulInteger`` (as B) or ``DequantizeLinear``, or a weight has
            no explicit zero point that could be shifted.
    """
    from onnx import TensorProto, numpy_helper

    graph = model.graph
    inits = {init.name: init for init in graph.initializer}
    consumers = _consumers(graph)
    weights: set[str] = set()
    zero_points: set[str] = set()
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        weight = node.input[1]
        if weight not in inits or inits[weight].data_type != TensorProto.INT8:
            continue
        weights.add(weight)
        if len(node.input) <= 3 or node.input[3] not in inits:
            raise PortabilityError(f"{node.name}: s8 weight without a constant zero point")
        zero_points.add(node.input[3])
    # Every user of a shifted tensor must read it as (value - zero point).
    for name in weights | zero_points:
        for node, index in consumers.get(name, []):
            slots = _INPUTS_BY_OP.get(node.op_type)
            if slots is None or index not in slots:
                raise PortabilityError(f"{name} feeds {node.op_type} input {index}")
            weight_slot, zero_slot = slots
            if name in weights and (
                len(node.input) <= zero_slot or node.input[zero_slot] not in zero_points
            ):
                raise PortabilityError(f"{node.name}: {name} is read without a shifted zero point")
    for name in weights | zero_points:
        value = numpy_helper.to_array(inits[name]).astype(np.int16) + SHIFT
        shifted = numpy_helper.from_array(value.astype(np.uint8), name)
        inits[name].CopyFrom(shifted)
    shifted_names = weights | zero_points
    # Declared types of the shifted tensors (old IR versions list initializers as inputs).
    for listing in (graph.input, graph.value_info):
        kept = [info for info in listing if info.name not in shifted_names]
        del listing[:]
        listing.extend(kept)
    return len(weights)


def rewrite_file(path: Path, target: Path | None = None) -> int:
    """Make the graph at ``path`` portable, written atomically to ``target`` (default in place)."""
    import onnx

    model = onnx.load(str(path))
    count = make_portable(model)
    out = Path(target or path)
    tmp = out.with_name(out.name + ".portable.tmp")
    onnx.save(model, str(tmp))
    os.replace(tmp, out)
    return count


def s8_weight_count(model: Any) -> int:
    """How many ``MatMulInteger`` weights of ``model`` are still s8 (0 when portable)."""
    from onnx import TensorProto

    inits = {init.name: init for init in model.graph.initializer}
    return sum(
        1
        for node in model.graph.node
        if node.op_type == "MatMulInteger"
        and node.input[1] in inits
        and inits[node.input[1]].data_type == TensorProto.INT8
    )


def main(argv: list[str] | None = None) -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.graphs:
        print(f"{path}: {rewrite_file(path)} weight(s) shifted to u8")


if __name__ == "__main__":
    main()
