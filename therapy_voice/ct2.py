"""Reads the tensors of a CTranslate2 ``model.bin`` into numpy arrays."""

from __future__ import annotations

import logging
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np

_LOGGER = logging.getLogger(__name__)

# Binary versions whose layout this reader knows (see CTranslate2 src/models/model.cc:
# version >= 4 stores a dtype id and a byte count per variable, >= 3 adds aliases).
SUPPORTED_BINARY_VERSIONS = range(4, 7)

# CTranslate2's DataType enum (include/ctranslate2/types.h), in declaration order.
_DTYPES: dict[int, np.dtype] = {
    0: np.dtype("<f4"),  # FLOAT32
    1: np.dtype("i1"),  # INT8
    2: np.dtype("<i2"),  # INT16
    3: np.dtype("<i4"),  # INT32
    4: np.dtype("<f2"),  # FLOAT16
}


@dataclass
class CT2Model:
    """The content of a CTranslate2 model file.

    Attributes:
        binary_version: format version written in the header.
        spec: model specification name, e.g. ``WhisperSpec``.
        spec_revision: revision of that specification.
        variables: tensors by name, as stored (fp16 stays fp16).
        aliases: alias name -> variable name (e.g. the tied output projection).
    """

    binary_version: int
    spec: str
    spec_revision: int
    variables: dict[str, np.ndarray] = field(repr=False)
    aliases: dict[str, str]

    def get(self, name: str) -> np.ndarray:
        """A variable by name or alias."""
        return self.variables[self.aliases.get(name, name)]

    def scalar(self, name: str) -> int:
        """A scalar attribute (e.g. ``decoder/num_heads``) as a Python int."""
        return int(self.get(name).reshape(()))


class CT2FormatError(ValueError):
    """The file is not a CTranslate2 model this reader understands."""


def _read(handle: BinaryIO, fmt: str) -> tuple[int, ...]:
    size = struct.calcsize(fmt)
    data = handle.read(size)
    if len(data) != size:
        raise CT2FormatError(f"truncated file at byte {handle.tell()}")
    return struct.unpack(fmt, data)


def _read_string(handle: BinaryIO) -> str:
    (length,) = _read(handle, "<H")
    raw = handle.read(length)
    if len(raw) != length:
        raise CT2FormatError("truncated string")
    # Strings are written with their terminating NUL, counted in the length.
    return raw.rstrip(b"\0").decode("utf-8")


def read_ct2_model(path: Path) -> CT2Model:
    """Parse a CTranslate2 ``model.bin``.

    Layout (little endian): uint32 binary version, string spec name, uint32 spec
    revision, uint32 variable count; per variable: string name, uint8 rank,
    rank x uint32 dims, uint8 dtype id, uint32 byte count, raw bytes; then uint32
    alias count and (alias, target) string pairs. Strings are a uint16 length
    followed by NUL-terminated UTF-8.

    Raises:
        CT2FormatError: unknown version or dtype, truncated or trailing data.
    """
    variables: dict[str, np.ndarray] = {}
    aliases: dict[str, str] = {}
    with path.open("rb") as handle:
        (version,) = _read(handle, "<I")
        if version not in SUPPORTED_BINARY_VERSIONS:
            raise CT2FormatError(f"unsupported CTranslate2 binary version {version}")
        spec = _read_string(handle)
        (revision,) = _read(handle, "<I")
        (count,) = _read(handle, "<I")
        for _ in range(count):
            name = _read_string(handle)
            (rank,) = _read(handle, "<B")
            dims = _read(handle, f"<{rank}I") if rank else ()
            dtype_id, num_bytes = _read(handle, "<BI")
            if dtype_id not in _DTYPES:
                raise CT2FormatError(f"{name}: unknown dtype id {dtype_id}")
            dtype = _DTYPES[dtype_id]
            expected = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
            if num_bytes != expected:
                raise CT2FormatError(f"{name}: {num_bytes} bytes for shape {dims} {dtype}")
            raw = handle.read(num_bytes)
            if len(raw) != num_bytes:
                raise CT2FormatError(f"{name}: truncated data")
            variables[name] = np.frombuffer(raw, dtype=dtype).reshape(dims)
        (n_aliases,) = _read(handle, "<I")
        for _ in range(n_aliases):
            alias = _read_string(handle)
            aliases[alias] = _read_string(handle)
        if handle.read(1):
            raise CT2FormatError("trailing bytes after the alias table")
    _LOGGER.info("read %s: %s rev %d, %d tensors", path.name, spec, revision, len(variables))
    return CT2Model(version, spec, revision, variables, aliases)
