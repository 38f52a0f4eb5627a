"""Run a notebook's code cells top to bottom in one IPython shell, without a kernel (issue 20).

    python3 bench/gpu_notebook.py notebooks/06_devices.ipynb [...]

For the GPU machine, which has no Jupyter kernel machinery: IPython alone runs the cells
(magics included) in one namespace, as Run All would. Prints one line per code cell (ok, or
the error's type and first line) and exits 1 if a cell not tagged ``raises-exception``
failed. Outputs are not compared (nbval does that in CI on the emulated device): this checks
that the notebook runs on the real device.
"""

import json
import sys


def run(path):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    with open(path, encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    failed = 0
    for number, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        result = shell.run_cell(source, silent=False, store_history=True)
        error = result.error_before_exec or result.error_in_exec
        tags = cell.get("metadata", {}).get("tags", [])
        if error is None:
            print(f"{path} cell {number}: ok", flush=True)
        elif "raises-exception" in tags:
            print(f"{path} cell {number}: raised {type(error).__name__} (tagged)", flush=True)
        else:
            failed += 1
            first = str(error).splitlines()[0] if str(error) else ""
            print(f"{path} cell {number}: FAILED {type(error).__name__}: {first}", flush=True)
    InteractiveShell.clear_instance()
    return failed


def main():
    failed = sum(run(path) for path in sys.argv[1:])
    print(f"{failed} failed cell(s)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
