"""A patient's personal voice in French lines: progress, decision, status (CLI and GUI)."""

from __future__ import annotations

from datetime import datetime

from therapy_app.voice.model import AdaptProgress, VoiceDecision, VoiceFigures, VoiceStatus
from therapy_app.voice.validation import percent

SOURCE_LABELS = {
    "confirmed": "confirmés par le thérapeute",
    "edited": "transcriptions corrigées",
    "enrolment": "séance « Enregistrer la voix »",
    "imported": "importés",
    "clear_margin": "réussis nettement",
}


def progress_line(progress: AdaptProgress) -> str:
    """One progress report as the therapist reads it."""
    if progress.stage == "prepare":
        text = "Préparation des enregistrements"
    elif progress.stage == "train":
        text = "Apprentissage"
    elif progress.stage == "validate":
        text = "Vérification sur les enregistrements de contrôle"
    elif progress.stage == "done":
        return "Terminé."
    elif progress.stage == "cancelled":
        return "Arrêté."
    else:
        return f"Échec : {progress.message}" if progress.message else "Échec."
    if progress.total > 0:
        text += f" : {progress.done}/{progress.total}"
    if progress.eta_s is not None and progress.stage != "validate":
        text += f" (encore environ {max(1, round(progress.eta_s / 60))} min)"
    return text + "…"


def _pair(label: str, generic: float | None, personal: float | None) -> str:
    shown = ["-" if v is None else percent(v) for v in (generic, personal)]
    return f"{label} : modèle général {shown[0]}, modèle personnel {shown[1]}"


def figures_lines(generic: VoiceFigures, personal: VoiceFigures | None) -> list[str]:
    """Before/after on the held-out recordings, one measure a line."""
    p = personal
    return [
        _pair("mots mal reconnus", generic.wer, p.wer if p else None),
        _pair("mots isolés reconnus", generic.words_right, p.words_right if p else None),
        _pair(
            "réponses justes acceptées",
            generic.verdict_true_accept,
            p.verdict_true_accept if p else None,
        ),
    ]


def _when(created_at: str) -> str:
    try:
        return f"{datetime.fromisoformat(created_at).astimezone():%d/%m/%Y %H:%M}"
    except ValueError:
        return created_at


def decision_lines(decision: VoiceDecision) -> list[str]:
    """What an adaptation concluded, its reason and its figures."""
    verdict = "modèle personnel adopté" if decision.adopted else "modèle général gardé"
    return [
        f"décision : {verdict}",
        f"raison : {decision.reason}",
        f"enregistrements : {decision.train_items} appris, {decision.held_out_items} de contrôle",
        *figures_lines(decision.generic, decision.personal),
        "jugement des réponses : "
        + ("modèle personnel" if decision.adopted and decision.scoring else "modèle général"),
        f"durée de l'apprentissage : {decision.minutes:.1f} min",
        f"date : {_when(decision.created_at)}",
    ]


def status_lines(status: VoiceStatus, name: str) -> list[str]:
    """Everything ``voice status`` shows for one patient."""
    counts = ", ".join(
        f"{SOURCE_LABELS.get(source, source)} {count}"
        for source, count in status.usable.items()
        if count
    )
    lines = [
        f"patient : {name}",
        f"enregistrements utilisables : {status.usable_total}" + (f" ({counts})" if counts else ""),
        f"adaptation en cours : {'oui' if status.running else 'non'}",
        "modèle utilisé : " + ("personnel" if status.active else "général"),
    ]
    if status.decision is None:
        return [*lines, "dernière adaptation : aucune"]
    return [
        *lines,
        "dernière adaptation :",
        *(f"  {line}" for line in decision_lines(status.decision)),
    ]
