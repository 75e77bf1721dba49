"""The engine: game time, two-phase steps, participants, transcripts (pure: no I/O)."""
