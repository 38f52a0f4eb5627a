"""The curriculum's exercises (``notebooks/``): one module per notebook, registered by
name on first lookup (``jtensor.exercises.get``/``names``).

Names are ``<notebook number>-<topic>``. Each reference solution is a named function so that
``jtensor.exercises.solution(name)`` can show its source; each hint carries the typical
wrong answer it is written for (``tests/test_exercises.py`` checks that every reference
passes and every such wrong answer gets its hint).
"""

from . import nb01_tensors  # noqa: F401
from . import nb02_storage  # noqa: F401
from . import nb03_views  # noqa: F401
from . import nb04_broadcasting  # noqa: F401
from . import nb05_dtypes  # noqa: F401
from . import nb06_devices  # noqa: F401
from . import nb07_autograd  # noqa: F401
from . import nb08_inplace  # noqa: F401
from . import nb09_grad_modes  # noqa: F401
from . import nb10_losses  # noqa: F401
from . import nb11_matmul  # noqa: F401
from . import nb12_data  # noqa: F401
from . import nb13_sequences  # noqa: F401
from . import nb14_sparse  # noqa: F401
from . import nb15_memory_formats  # noqa: F401
from . import nb16_training  # noqa: F401
from . import nb17_trivia  # noqa: F401
from . import nb18_beyond_backward  # noqa: F401
from . import nb20_error_messages  # noqa: F401
from . import nb19_attention  # noqa: F401
