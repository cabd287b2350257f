"""Therapist area: password-protected history, attempt review, progress charts and exports."""

from therapy_app.gui.therapist.area import TherapistArea

__all__ = ["TherapistArea"]
