"""The one speech path (record → hear → correct → speak) shared by the command line and the GUI."""
