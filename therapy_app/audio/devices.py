"""Lists sound devices through sounddevice/PortAudio, with French errors when none work."""

from __future__ import annotations

import importlib
import logging
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from therapy_app.errors import AudioDeviceError

_LOGGER = logging.getLogger(__name__)

_sounddevice: ModuleType | None = None


def _install_hint() -> str:
    if sys.platform.startswith("linux"):
        return "Installez PortAudio (paquet « libportaudio2 ») puis relancez l'application."
    return "Réinstallez l'application ou vérifiez la carte son de l'ordinateur."


def sounddevice() -> ModuleType:
    """The ``sounddevice`` module, imported on first use.

    Importing it loads PortAudio, which may be missing (Linux without
    libportaudio2) or broken; the rest of the app must work without sound.

    Raises:
        AudioDeviceError: PortAudio or sounddevice cannot be loaded.
    """
    global _sounddevice
    if _sounddevice is None:
        try:
            _sounddevice = importlib.import_module("sounddevice")
        except (OSError, ImportError) as exc:
            # sounddevice raises OSError("PortAudio library not found").
            raise AudioDeviceError(
                "Aucun système audio n'est disponible sur cet ordinateur.",
                _install_hint(),
                f"cannot load sounddevice/PortAudio: {exc}",
            ) from exc
    return _sounddevice


def refresh() -> None:
    """Re-scan devices (PortAudio lists them once, when it is initialised).

    Call after a headset is plugged in or the sound server changed; streams
    must be closed first.

    Raises:
        AudioDeviceError: no sound system.
    """
    sd = sounddevice()
    try:
        # sounddevice has no public re-scan: terminate and re-initialise
        # PortAudio with its (documented, underscore-named) helpers.
        sd._terminate()
        sd._initialize()
    except Exception as exc:  # noqa: BLE001 - PortAudioError
        raise portaudio_error(exc, "re-initialise PortAudio") from exc


def portaudio_error(exc: BaseException, action: str) -> AudioDeviceError:
    """A French error for a PortAudio failure while doing ``action`` (English)."""
    return AudioDeviceError(
        "Le périphérique audio ne répond pas.",
        "Vérifiez que le micro ou le haut-parleur est branché et non utilisé "
        "par une autre application.",
        f"{action}: {exc}",
    )


@dataclass(frozen=True)
class AudioDevice:
    """One PortAudio device.

    Attributes:
        index: PortAudio device index (what sounddevice accepts as ``device``).
        name: human-readable name.
        inputs: maximum input channels (0: not a microphone).
        outputs: maximum output channels (0: not a speaker).
        default_samplerate: the device's preferred rate in Hz.
        host_api: name of the host API (ALSA, WASAPI, Core Audio...).
        is_default_input: the system's default microphone.
        is_default_output: the system's default speaker.
    """

    index: int
    name: str
    inputs: int
    outputs: int
    default_samplerate: float
    host_api: str = ""
    is_default_input: bool = False
    is_default_output: bool = False


def _defaults(sd: Any) -> tuple[int, int]:
    try:
        default_in, default_out = sd.default.device
    except (TypeError, ValueError):
        return -1, -1
    return int(default_in if default_in is not None else -1), int(
        default_out if default_out is not None else -1
    )


def list_devices() -> list[AudioDevice]:
    """Every device PortAudio knows about.

    Raises:
        AudioDeviceError: no sound system (PortAudio missing or failing).
    """
    sd = sounddevice()
    try:
        raw = sd.query_devices()
        apis = sd.query_hostapis()
    except Exception as exc:  # noqa: BLE001 - PortAudioError and friends
        raise portaudio_error(exc, "query_devices") from exc
    default_in, default_out = _defaults(sd)
    devices = []
    for index, info in enumerate(raw):
        api_index = info.get("hostapi", -1)
        api = apis[api_index]["name"] if 0 <= api_index < len(apis) else ""
        devices.append(
            AudioDevice(
                index=index,
                name=str(info["name"]),
                inputs=int(info["max_input_channels"]),
                outputs=int(info["max_output_channels"]),
                default_samplerate=float(info["default_samplerate"]),
                host_api=api,
                is_default_input=index == default_in,
                is_default_output=index == default_out,
            )
        )
    return devices


def _pick(devices: list[AudioDevice], want_input: bool) -> AudioDevice | None:
    usable = [d for d in devices if (d.inputs if want_input else d.outputs) > 0]
    for device in usable:
        if device.is_default_input if want_input else device.is_default_output:
            return device
    return usable[0] if usable else None


_MISSING = {
    True: (
        "Aucun micro n'a été trouvé.",
        "Branchez un micro (ou un casque avec micro) puis réessayez.",
        "no PortAudio device with input channels",
    ),
    False: (
        "Aucun haut-parleur ni casque n'a été trouvé.",
        "Branchez des haut-parleurs ou un casque puis réessayez.",
        "no PortAudio device with output channels",
    ),
}
"""Message, advice and detail when no device can record (True) or play (False)."""


def _default(want_input: bool) -> AudioDevice:
    device = _pick(list_devices(), want_input)
    if device is None:
        raise AudioDeviceError(*_MISSING[want_input])
    return device


def default_input() -> AudioDevice:
    """The microphone used when none is chosen.

    Raises:
        AudioDeviceError: no sound system or no input device.
    """
    return _default(want_input=True)


def default_output() -> AudioDevice:
    """The speaker used when none is chosen.

    Raises:
        AudioDeviceError: no sound system or no output device.
    """
    return _default(want_input=False)


def resolve(device: int | str | None, want_input: bool) -> AudioDevice:
    """A device chosen by index or (part of its) name, or the default one.

    Raises:
        AudioDeviceError: nothing matches, or the match cannot record/play.
    """
    if device is None:
        return default_input() if want_input else default_output()
    devices = list_devices()

    def channels(d: AudioDevice) -> int:
        return d.inputs if want_input else d.outputs

    if isinstance(device, int):
        matches = [d for d in devices if d.index == device]
    else:
        exact = [d for d in devices if d.name == device and channels(d) > 0]
        matches = exact or [d for d in devices if device.lower() in d.name.lower()]
    matches = [d for d in matches if channels(d) > 0]
    if not matches:
        what = "micro" if want_input else "haut-parleur"
        raise AudioDeviceError(
            f"Le {what} choisi est introuvable.",
            "Choisissez un autre périphérique dans les réglages.",
            f"no {'input' if want_input else 'output'} device matches {device!r}",
        )
    return matches[0]
