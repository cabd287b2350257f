"""Runs TherapyApp with the packages bundled for the running python3 (the .deb's launchers).

Installed as /opt/therapy-app/launch.py; /usr/bin/therapy-app and therapy-app-gui run
``/usr/bin/python3 -I launch.py MODULE NAME cli|gui [ARGS...]``. The package holds
one site-packages folder per python version (lib/py3.11, lib/py3.12, ...): this
puts the one matching the running python3 first on sys.path, or says which
versions the package supports when there is none (in French, in a dialog too
when a window was asked for).
"""

# Plain code for any python3 >= 3.6: the point is to explain a version mismatch.
import os
import runpy
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, "lib")


def supported_versions():
    """The python versions the package bundles its libraries for, oldest first."""
    found = []
    for name in os.listdir(LIB) if os.path.isdir(LIB) else []:
        try:
            found.append(tuple(int(part) for part in name[2:].split(".")))
        except ValueError:
            continue
    return [".".join(str(part) for part in version) for version in sorted(found)]


def refuse(name, gui, running):
    """Explain that this python3 is not supported; returns the exit status."""
    versions = ", ".join(supported_versions()) or "?"
    if gui:
        message = (
            "Orthophonie – exercices de parole ne peut pas démarrer : le python3 de ce "
            f"système est la version {running}, et ce paquet ne contient ses bibliothèques "
            f"que pour Python {versions}. Installez le paquet therapy-app prévu pour ce système."
        )
    else:
        message = (
            f"{name}: this system's python3 is {running}, but this package bundles its "
            f"libraries for python {versions} only. Install a therapy-app package made for "
            "this system."
        )
    sys.stderr.write(message + "\n")
    if gui and (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        dialogs = (
            ["zenity", "--error", "--title=Orthophonie", "--text=" + message],
            ["kdialog", "--title", "Orthophonie", "--error", message],
            ["xmessage", "-center", message],
        )
        for command in dialogs:
            if shutil.which(command[0]):
                try:
                    subprocess.call(command)
                except OSError:
                    continue
                break
    return 1


def main():
    if len(sys.argv) < 4:
        sys.stderr.write("usage: launch.py MODULE NAME cli|gui [ARGS...]\n")
        return 2
    module, name, mode = sys.argv[1:4]
    running = f"{sys.version_info[0]}.{sys.version_info[1]}"
    site = os.path.join(LIB, "py" + running)
    if not os.path.isdir(site):
        return refuse(name, mode == "gui", running)
    sys.path[:] = [site] + [path for path in sys.path if path != HERE]
    sys.argv = [name] + sys.argv[4:]
    runpy.run_module(module, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
