"""Exports for therapists and researchers: CSV of attempts, CHAT transcripts, report data."""

from therapy_app.exports.chat_export import export_patient_chat, main_line, session_transcript
from therapy_app.exports.csv_export import (
    CSV_DELIMITER,
    CSV_ENCODING,
    CSV_HEADERS,
    export_attempts_csv,
    write_attempts_csv,
)
from therapy_app.exports.labels import CHART_METRICS, EXERCISE_LABELS, ChartMetric, exercise_label
from therapy_app.exports.report_data import ReportData, build_report_data

__all__ = [
    "CHART_METRICS",
    "CSV_DELIMITER",
    "CSV_ENCODING",
    "CSV_HEADERS",
    "EXERCISE_LABELS",
    "ChartMetric",
    "ReportData",
    "build_report_data",
    "exercise_label",
    "export_attempts_csv",
    "export_patient_chat",
    "main_line",
    "session_transcript",
    "write_attempts_csv",
]
