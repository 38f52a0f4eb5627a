"""``import jtensor`` stays light: no notebook, plotting, GPU or PyTorch modules come with it."""

import subprocess
import sys

HEAVY = ["IPython", "ipywidgets", "matplotlib", "cupy", "torch"]


def test_import_jtensor_imports_no_heavy_module():
    code = (
        "import jtensor, sys\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules "
        "or any(k.startswith(m + '.') for k in sys.modules)]\n"
        "print(','.join(heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"import jtensor imported: {result.stdout.strip()}"


def test_using_jtensor_imports_no_heavy_module():
    code = (
        "import jtensor as torch, sys\n"
        "x = torch.arange(6.).view(2, 3).t().contiguous().to(torch.float64)\n"
        "repr(x); x.clone(); x.fill_(1); x[0] = 2\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"using jtensor imported: {result.stdout.strip()}"
