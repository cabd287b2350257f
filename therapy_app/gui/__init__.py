"""PySide6 desktop interface (the only package that imports Qt)."""

from therapy_app.gui import pyside_fixes

# Before any widget or signal is used, the therapist area included.
pyside_fixes.install()
