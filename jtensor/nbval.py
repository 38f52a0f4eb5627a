"""Validate jtensor notebooks with nbval, the way the curriculum is validated.

``python -m jtensor.nbval --sanitize-path`` prints the path of the sanitize file shipped
with jtensor (``nbval_sanitize.cfg``: memory addresses, kernel cell paths, IPython cell
numbers, source paths, elapsed milliseconds). ``python -m jtensor.nbval NOTEBOOK...
[pytest options]`` runs strict ``pytest --nbval`` (not ``--nbval-lax``) on the notebooks with
that file. Store notebooks with their outputs (run them top to bottom first), then:

    python -m jtensor.nbval my_course/

This module imports neither nbval nor pytest until it runs them.
"""

import os
import subprocess
import sys

__all__ = ["sanitize_path", "nbval_args", "main"]


def sanitize_path():
    """Absolute path of the nbval sanitize file shipped with jtensor."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "nbval_sanitize.cfg")


def nbval_args(*paths):
    """The pytest arguments for a strict nbval run of ``paths`` with jtensor's sanitize file.

    >>> nbval_args("nb.ipynb")[:2]
    ['--nbval', '--nbval-sanitize-with']
    """
    return ["--nbval", "--nbval-sanitize-with", sanitize_path(), *paths]


def main(argv=None):
    """Command line: ``--sanitize-path``, or notebooks/folders (and pytest options) to check."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv in (["--sanitize-path"], ["--sanitise-path"]):
        print(sanitize_path())
        return 0
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    # -p no:cacheprovider: checking a notebook folder must not write .pytest_cache into it.
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *nbval_args(), *argv]
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
