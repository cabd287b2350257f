"""Entry point of the desktop app (``therapy-app-gui``): Qt application, theme, main window."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from PySide6.QtCore import QLibraryInfo, QLocale, Qt, QTranslator
from PySide6.QtWidgets import QApplication, QMessageBox

from therapy_app.errors import TherapyAppError
from therapy_app.gui.main_window import APP_NAME as APP_NAME
from therapy_app.gui.main_window import MainWindow
from therapy_app.gui.theme import apply_theme
from therapy_app.speech.services import SilentPlayer
from therapy_app.storage import SessionRepository

_LOGGER = logging.getLogger(__name__)


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="therapy-app-gui", description="Speech practice (French)")
    parser.add_argument("--silent", action="store_true", help="do not play sound (no speaker)")
    parser.add_argument("--verbose", "-v", action="store_true", help="debug logging")
    known, _ = parser.parse_known_args(list(argv))  # Qt options (-platform ...) pass through
    return known


def show_startup_error(text: str) -> None:
    """A modal French error box, before any window exists (plain text, not markup)."""
    box = QMessageBox(QMessageBox.Icon.Critical, APP_NAME, text)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.exec()


FRENCH = QLocale(QLocale.Language.French, QLocale.Country.France)
_TRANSLATORS: list[QTranslator] = []  # kept alive as long as the application


class _MissingQtFrench(QTranslator):
    """French for the Qt texts ``qtbase_fr.qm`` lacks.

    The file dialog's labels keep their shortcut marks ("&Look in:", "Files
    of &type:") and the shipped file only has them without: they stayed
    English in every non-native file dialog.
    """

    TEXTS = {
        ("QFileDialog", "&Look in:"): "&Voir dans\u00a0:",
        ("QFileDialog", "Files of &type:"): "&Fichiers de type\u00a0:",
    }

    def translate(
        self, context: str, source_text: str, disambiguation: str | None = None, n: int = -1
    ) -> str | None:
        # None (a null string) lets Qt ask the next translator.
        return self.TEXTS.get((context, source_text))

    def isEmpty(self) -> bool:  # noqa: N802 - Qt API
        return False


def install_french(app: QApplication) -> bool:
    """Qt's own texts in French (file dialogs, context menus, date pickers).

    The app's texts are written in French; Qt's built-in dialogs would
    otherwise speak English. Qt's ``qtbase_fr.qm`` ships with
    PySide6.

    Returns:
        False when the translation file is missing (the texts stay English).
    """
    QLocale.setDefault(FRENCH)
    if _TRANSLATORS:
        return True
    translator = QTranslator(app)
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if not translator.load(FRENCH, "qtbase", "_", folder):
        _LOGGER.warning("Qt's French translations not found in %s", folder)
        return False
    app.installTranslator(translator)
    missing = _MissingQtFrench(app)
    app.installTranslator(missing)  # asked first: only for the texts it has
    _TRANSLATORS.extend((translator, missing))
    return True


def create_application(argv: Sequence[str] | None = None) -> QApplication:
    """The QApplication with the theme applied (reuses a running one, e.g. in tests)."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(list(argv or sys.argv))
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setAttribute(Qt.ApplicationAttribute.AA_DontShowIconsInMenus, False)
    install_french(app)
    apply_theme(app)
    return app


def main(argv: Sequence[str] | None = None) -> int:
    """Start the app; returns the exit status."""
    args = _parse(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    app = create_application(sys.argv if argv is None else [sys.argv[0], *argv])
    try:
        repository = SessionRepository()
    except TherapyAppError as exc:
        # Any expected failure (folder, database, a second copy still starting)
        # gets its French message, not a traceback in a console nobody sees.
        _LOGGER.error("cannot open the database: %r", exc)
        show_startup_error(exc.french())
        return 1
    try:
        window = MainWindow(repository, player=SilentPlayer() if args.silent else None)
    except TherapyAppError as exc:
        _LOGGER.error("cannot open the main window: %r", exc)
        repository.close()
        show_startup_error(exc.french())
        return 1
    window.show()
    try:
        return app.exec()
    finally:
        window.shutdown()
        repository.close()


if __name__ == "__main__":
    sys.exit(main())
