"""Developer tooling, never shipped (not in the wheel): demo data and screenshots."""
