"""Patient screens: profile picker, exercise chooser and the three exercise screens."""
