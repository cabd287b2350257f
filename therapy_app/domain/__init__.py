"""Domain types shared by practice, storage, exports and the GUI: no SQL, no Qt."""
