"""SQLite session store: patients, sessions, attempts, metrics."""
