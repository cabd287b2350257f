"""Int8 graphs compute the same integers on every x86 CPU (no s8 weights for MatMulInteger)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from models import portable_int8  # noqa: E402
from therapy_app.inference import create_session  # noqa: E402
from therapy_app.model_store import ASR_MODEL, CORRECTOR_MODEL, find_model  # noqa: E402

K, N = 256, 96


def _matmul_integer(
    weight: np.ndarray, zero_point: np.ndarray, extra: list | None = None
) -> object:
    """y = (a - 7) x (weight - zero_point), weight shared with a DequantizeLinear output."""
    a = helper.make_tensor_value_info("a", TensorProto.UINT8, [None, K])
    y = helper.make_tensor_value_info("y", TensorProto.INT32, [None, N])
    d = helper.make_tensor_value_info("d", TensorProto.FLOAT, [K, N])
    inits = [
        numpy_helper.from_array(weight, "w"),
        numpy_helper.from_array(zero_point, "w_zp"),
        numpy_helper.from_array(np.array(7, np.uint8), "a_zp"),
        numpy_helper.from_array(np.array(0.5, np.float32), "w_scale"),
    ]
    nodes = [
        helper.make_node("MatMulInteger", ["a", "w", "a_zp", "w_zp"], ["y"], name="mm"),
        helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zp"], ["d"], name="deq"),
        *(extra or []),
    ]
    graph = helper.make_graph(nodes, "g", [a], [y, d], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=9)


def _run(model: object, a: np.ndarray, folder: Path) -> list[np.ndarray]:
    path = folder / "graph.onnx"
    onnx.save(model, str(path))
    return create_session(path, provider="cpu").run(None, {"a": a})


def test_shifted_weights_give_the_exact_integers_and_the_same_dequantized_table(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(0)
    # Full-range weights and activations: the products that saturate a 16-bit pair sum.
    weight = rng.integers(-127, 128, (K, N)).astype(np.int8)
    zero_point = np.array(0, np.int8)
    a = rng.integers(0, 256, (5, K)).astype(np.uint8)
    exact = (a.astype(np.int64) - 7) @ weight.astype(np.int64)
    model = _matmul_integer(weight, zero_point)

    assert portable_int8.make_portable(model) == 1
    assert portable_int8.s8_weight_count(model) == 0
    stored = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    assert stored["w"].dtype == np.uint8 and stored["w_zp"].dtype == np.uint8
    product, table = _run(model, a, tmp_path)
    np.testing.assert_array_equal(product, exact)
    np.testing.assert_array_equal(table, weight.astype(np.float32) * 0.5)


def test_an_s8_weight_read_by_another_operator_is_refused() -> None:
    weight = np.ones((K, N), np.int8)
    extra = [helper.make_node("Cast", ["w"], ["w_float"], to=TensorProto.FLOAT, name="cast")]
    model = _matmul_integer(weight, np.array(0, np.int8), extra)
    with pytest.raises(portable_int8.PortabilityError, match="Cast"):
        portable_int8.make_portable(model)


@pytest.mark.parametrize(
    ("model_name", "graphs"),
    [
        (CORRECTOR_MODEL, ("encoder.onnx", "decoder_step.onnx")),
        (ASR_MODEL, ("encoder.onnx", "decoder.onnx")),
    ],
)
def test_shipped_int8_graphs_have_no_s8_matmul_weights(model_name: str, graphs: tuple) -> None:
    folder = find_model(model_name)
    if folder is None:
        pytest.skip(f"{model_name} is not built: run `python -m models.build`")
    for name in graphs:
        model = onnx.load(str(Path(folder) / name), load_external_data=False)
        kinds = {node.op_type for node in model.graph.node}
        assert "MatMulInteger" in kinds, name  # the check below would pass vacuously
        assert portable_int8.s8_weight_count(model) == 0, name
