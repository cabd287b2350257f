"""A patient's personal decoder adapter, checked and put in the gated decoder's named slots."""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from therapy_app.errors import ModelInvalidError, TherapyAppError

# Graph names of the adapter initializers in a gated decoder (models/asr/build.py):
# ``lora_a_t`` is A transposed [in, rank], ``lora_b_t`` is B transposed [rank, out],
# both float32, so ``x @ lora_a_t @ lora_b_t`` is the adapter's low-rank update.
SLOT_PATTERN = "adapter.blocks.{block}.{layer}.{matrix}_t"
MATRICES = ("lora_a", "lora_b")

# A rank-16 adapter of Whisper base is 2 MB in fp16; anything far larger is not one.
MAX_ADAPTER_BYTES = 64 * 1024 * 1024

_HINT = "Relancez l'apprentissage de la voix du patient, ou désactivez sa voix personnelle."


class PersonalAdapterError(TherapyAppError):
    """A personal adapter file is unreadable, altered, or made for another decoder."""


def _refuse(what: str, detail: str) -> PersonalAdapterError:
    return PersonalAdapterError(f"La voix personnelle du patient {what}.", _HINT, detail)


@dataclass(frozen=True)
class AdapterSlots:
    """The adapter inputs a gated decoder graph offers, as recorded in its sidecar.

    Attributes:
        rank: inner size of every low-rank update.
        scale: factor built into the graph (alpha / rank); a file must carry the same.
        blocks: decoder blocks, each with every layer of ``layers``.
        layers: adapted linear layers of a block, by their name in the adapter file.
        dims: per layer, its (input, output) sizes.
        pattern: graph initializer name, formatted with block, layer and matrix.
    """

    rank: int
    scale: float
    blocks: int
    layers: tuple[str, ...]
    dims: dict[str, tuple[int, int]]
    pattern: str = SLOT_PATTERN

    def name(self, block: int, layer: str, matrix: str) -> str:
        """Graph name of one matrix, e.g. ``adapter.blocks.0.qkv.lora_a_t``."""
        return self.pattern.format(block=block, layer=layer, matrix=matrix)

    def shapes(self) -> dict[str, tuple[int, int]]:
        """Graph name -> shape of every slot (A transposed, B transposed)."""
        found = {}
        for block in range(self.blocks):
            for layer in self.layers:
                n_in, n_out = self.dims[layer]
                found[self.name(block, layer, "lora_a")] = (n_in, self.rank)
                found[self.name(block, layer, "lora_b")] = (self.rank, n_out)
        return found

    def to_dict(self) -> dict[str, Any]:
        """The sidecar's ``adapter.slots`` section."""
        return {
            "rank": self.rank,
            "scale": self.scale,
            "blocks": self.blocks,
            "layers": list(self.layers),
            "dims": {layer: list(self.dims[layer]) for layer in self.layers},
            "pattern": self.pattern,
            "layout": "lora_a_t = A.T [in, rank], lora_b_t = B.T [rank, out], float32",
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AdapterSlots:
        """Parse ``adapter.slots``.

        Raises:
            ModelInvalidError: missing or malformed fields.
        """
        try:
            layers = tuple(str(layer) for layer in data["layers"])
            dims = {
                layer: (int(data["dims"][layer][0]), int(data["dims"][layer][1]))
                for layer in layers
            }
            return cls(
                rank=int(data["rank"]),
                scale=float(data["scale"]),
                blocks=int(data["blocks"]),
                layers=layers,
                dims=dims,
                pattern=str(data.get("pattern", SLOT_PATTERN)),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ModelInvalidError(
                "Le modèle de reconnaissance vocale est mal décrit.",
                "Reconstruisez-le avec « therapy-app build-models ».",
                f"bad adapter slots in the sidecar: {exc!r}",
            ) from exc

    @classmethod
    def from_sidecar(cls, meta: dict[str, Any]) -> AdapterSlots:
        """The slots of a whisper-base sidecar.

        Raises:
            PersonalAdapterError: the model has no replaceable adapters (a plain
                build, or one made before personal voices).
            ModelInvalidError: the slots are malformed.
        """
        adapter = meta.get("adapter")
        slots = adapter.get("slots") if isinstance(adapter, dict) else None
        if not isinstance(slots, dict):
            raise PersonalAdapterError(
                "Le modèle de reconnaissance vocale installé ne peut pas utiliser de voix "
                "personnelle.",
                "Mettez le logiciel à jour ou reconstruisez les modèles.",
                "the whisper-base sidecar records no adapter slots",
            )
        return cls.from_dict(slots)


def _read_limited(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_ADAPTER_BYTES + 1)
    except OSError as exc:
        raise _refuse("est introuvable ou illisible", f"cannot read {path}: {exc}") from exc
    if len(data) > MAX_ADAPTER_BYTES:
        raise _refuse("n'est pas un fichier valide", f"{path} exceeds {MAX_ADAPTER_BYTES} bytes")
    return data


def _arrays(data: bytes, path: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as saved:
            return {key: saved[key] for key in saved.files}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
        raise _refuse("n'est pas un fichier valide", f"{path}: not an npz: {exc}") from exc


def read_adapter(
    path: Path, slots: AdapterSlots, sha256: str | None = None
) -> dict[str, np.ndarray]:
    """Read an adapter file (``therapy_voice.lora.adapter_arrays`` layout) for the slots.

    The file holds ``blocks.{i}.{layer}.lora_a`` [rank, in], ``.lora_b`` [out, rank]
    and ``scale``; it must have every slot, nothing else, the slots' rank and
    scale, and finite values.

    Args:
        path: the ``.npz`` file.
        slots: what the decoder graph takes.
        sha256: the hash the file must have (the one recorded when it was adopted).

    Returns:
        Graph initializer name -> contiguous float32 array in the graph's layout.

    Raises:
        PersonalAdapterError: the file is unreadable, altered or does not fit.
    """
    data = _read_limited(path)
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256.lower():
        raise _refuse("a été modifiée depuis son adoption", f"{path}: sha256 differs from {sha256}")
    arrays = _arrays(data, path)
    scale = arrays.pop("scale", None)
    if scale is None or scale.shape not in ((), (1,)) or scale.dtype.kind != "f":
        raise _refuse("n'est pas un fichier valide", f"{path}: no scalar 'scale'")
    if abs(float(scale.reshape(())) - slots.scale) > 1e-6:
        raise _refuse(
            "ne correspond pas au modèle installé",
            f"{path}: scale {float(scale.reshape(()))} where the graph has {slots.scale}",
        )
    graph: dict[str, np.ndarray] = {}
    for block in range(slots.blocks):
        for layer in slots.layers:
            n_in, n_out = slots.dims[layer]
            expected = {"lora_a": (slots.rank, n_in), "lora_b": (n_out, slots.rank)}
            for matrix in MATRICES:
                key = f"blocks.{block}.{layer}.{matrix}"
                array = arrays.pop(key, None)
                if array is None:
                    raise _refuse("est incomplète", f"{path}: no {key}")
                if array.shape != expected[matrix] or array.dtype.kind != "f":
                    raise _refuse(
                        "ne correspond pas au modèle installé",
                        f"{path}: {key} is {array.dtype} {array.shape}, "
                        f"expected {expected[matrix]} (rank {slots.rank})",
                    )
                if not np.all(np.isfinite(array)):
                    raise _refuse("est endommagée", f"{path}: {key} has NaN or infinite values")
                # The graph multiplies activations by the transposed matrices.
                graph[slots.name(block, layer, matrix)] = np.ascontiguousarray(
                    array.T, dtype=np.float32
                )
    if arrays:
        raise _refuse(
            "ne correspond pas au modèle installé",
            f"{path}: unexpected arrays {sorted(arrays)[:3]}",
        )
    return graph
