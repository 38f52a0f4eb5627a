"""Op specs, one module per op family (``spec_<family>.py``, each defining ``SPECS``).

Every op in ``jtensor._registry.OPS`` must have an ``OpSpec`` here; ``test_registry`` fails
for any op without one.
"""

import importlib
import pkgutil


def all_specs():
    specs = {}
    for module_info in pkgutil.iter_modules(__path__):
        if not module_info.name.startswith("spec_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for spec in module.SPECS:
            if spec.name in specs:
                raise AssertionError(f"two specs for op {spec.name!r} ({module_info.name})")
            specs[spec.name] = spec
    return specs
