"""Anomaly detection: nodes remember the forward call that created them, and a backward
that produces NaN names that node and shows where it came from."""

import warnings

from .graph import anomaly


def is_anomaly_enabled():
    """Whether anomaly detection is on (``torch.is_anomaly_enabled``)."""
    return anomaly.enabled


def is_anomaly_check_nan_enabled():
    """The NaN-check flag of anomaly mode, as set (True by default, whether or not anomaly
    detection is on: PyTorch's ``torch.is_anomaly_check_nan_enabled``)."""
    return anomaly.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """``torch.set_anomaly_enabled``: switch anomaly detection (and its NaN check) for good."""
    anomaly.enabled = bool(enabled)
    anomaly.check_nan = bool(check_nan)


class set_detect_anomaly:
    """``set_detect_anomaly(True)``: switches at once; as a context manager, restores."""

    def __init__(self, mode, check_nan=True):
        self.prev = (anomaly.enabled, anomaly.check_nan)
        anomaly.enabled = bool(mode)
        anomaly.check_nan = bool(check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self.prev
        return False


class detect_anomaly:
    """Context manager (and decorator) turning anomaly detection on inside it."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = (anomaly.enabled, anomaly.check_nan)
        anomaly.enabled = True
        anomaly.check_nan = self.check_nan

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self.prev
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)

        return wrapper
