"""Workaround for PySide6 6.12 ``SignalInstance.emit()`` dropping a reference to True/False.

Measured here (PySide6 6.12.0, CPython 3.11): every Python-side ``emit()``
returns ``True`` without owning a reference, so the refcount of ``True``
falls by one per emit. On Python < 3.12 (bools are not immortal) a few
hundred emits later the interpreter aborts with "Fatal Python error:
bool_dealloc: deallocating True or False" (at exit, or mid-session in a long
practice). The fix probes the leak once and, only if it is there, wraps
``emit`` to give the reference back. Signals emitted from C++ (button
clicks, timers) are not affected.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from typing import Any

from PySide6.QtCore import QObject, Signal, SignalInstance

_LOGGER = logging.getLogger(__name__)
_PROBES = 16
_installed = False


class _Probe(QObject):
    ping = Signal()


def emit_leaks_bool_reference() -> bool:
    """True when ``emit()`` lowers the refcount of the bool it returns."""
    probe = _Probe()
    # PySide6's stub says emit() returns None; at run time it returns a bool
    # (the very object whose reference count this probe measures).
    result = probe.ping.emit()  # type: ignore[func-returns-value]
    if not isinstance(result, bool):
        return False
    before = sys.getrefcount(result)
    for _ in range(_PROBES):
        probe.ping.emit()
    return sys.getrefcount(result) - before <= -_PROBES


def install() -> bool:
    """Patch ``SignalInstance.emit`` if this PySide6 needs it (idempotent).

    Returns:
        True when the patch is in place.
    """
    global _installed
    if _installed:
        return True
    if not emit_leaks_bool_reference():
        return False
    original = SignalInstance.emit
    incref = ctypes.pythonapi.Py_IncRef
    incref.argtypes = [ctypes.py_object]

    def emit(self: SignalInstance, *args: Any) -> Any:
        result = original(self, *args)
        if result is True or result is False:
            incref(result)  # the reference emit() should have returned
        return result

    SignalInstance.emit = emit  # type: ignore[method-assign]
    _installed = True
    _LOGGER.info("patched SignalInstance.emit (PySide6 bool reference leak)")
    return True
