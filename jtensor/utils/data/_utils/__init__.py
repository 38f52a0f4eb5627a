"""Helpers of ``jtensor.utils.data``: ``collate`` (batching) and ``worker`` (the worker
process loop, ``get_worker_info``)."""

from . import collate, worker  # noqa: F401
from .worker import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper  # noqa: F401
