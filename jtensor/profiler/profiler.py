"""``torch.profiler.profile``: the autograd profiler behind PyTorch's newer API, with a
``schedule`` that decides, step by step (``prof.step()``), when to record.

A schedule maps a step number to a ``ProfilerAction``: ``NONE`` (not profiling), ``WARMUP``
(a profile is prepared, nothing recorded), ``RECORD`` and ``RECORD_AND_SAVE`` (recording;
after the latter the cycle's results go to ``on_trace_ready``). Each recorded cycle is one
``torch.autograd.profiler.profile``; with a schedule, each step is a ``ProfilerStep#N``
range.
"""

import enum
import functools
import os
import shutil
import socket
import time
import warnings

from .. import cuda as _cuda
from ..autograd import profiler as _autograd_profiler
from ..autograd.profiler import record_function
from ..autograd.profiler_util import DeviceType, ProfilerActivity

__all__ = [
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
    "ProfilerAction",
    "ProfilerActivity",
    "kineto_available",
    "DeviceType",
    "record_function",
    "_KinetoProfile",
]


def supported_activities():
    """The activities this build can record: CPU, and CUDA when a CUDA device is there."""
    found = {ProfilerActivity.CPU}
    if _cuda.is_available():
        found.add(ProfilerActivity.CUDA)
    return found


def kineto_available():
    """Whether PyTorch's Kineto library is there (never: jtensor times ops itself)."""
    return False


class ProfilerAction(enum.Enum):
    """What the profiler does at a step (a schedule's answer)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A schedule for ``profile(schedule=...)``: skip the first ``skip_first`` steps, then
    cycles of ``wait`` idle steps, ``warmup`` steps and ``active`` recorded steps (the last
    one ``RECORD_AND_SAVE``), ``repeat`` times (0: until the end). ``skip_first_wait``
    skips the first cycle's ``wait``.

    >>> import jtensor as torch
    >>> s = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    >>> [s(i).name for i in range(5)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )
    return schedule_fn


def _default_schedule_fn(_):
    """Without a schedule: record every step."""
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An ``on_trace_ready`` that writes each cycle's Chrome trace into ``dir_name`` as
    ``<worker>.<time ns>.pt.trace.json`` (``.gz`` with ``use_gzip``), the files
    TensorBoard's profiler plugin reads (TensorBoard itself is not needed to write them)."""

    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(
            os.path.join(dir_name, file_name), use_python_export=use_python_export
        )

    return handler_fn


@functools.cache
def _warn_once(message):
    warnings.warn(message, UserWarning, stacklevel=3)


class _KinetoProfile:
    """The recording half of ``profile``: ``start()``/``stop()`` around one autograd
    profile and the results' accessors."""

    def __init__(
        self,
        *,
        activities=None,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        with_modules=False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events=False,
        custom_trace_id_callback=None,
        post_processing_timeout_s=None,
    ):
        self.activities = set(activities) if activities is not None else supported_activities()
        for activity in self.activities:
            if not isinstance(activity, ProfilerActivity):
                raise TypeError(f"Expected ProfilerActivity or dict, got {type(activity)}")
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.execution_trace_observer = execution_trace_observer
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s
        self.profiler = None
        self.use_device = "cuda" if ProfilerActivity.CUDA in self.activities else None
        self.preset_metadata = {}
        self._trace_metadata = {}

    def start(self):
        """Prepare and start recording."""
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        """Stop recording."""
        self.stop_trace()

    def prepare_trace(self):
        """Make the autograd profile the next recording goes into (the previous one's
        events are dropped unless ``acc_events``)."""
        if self.profiler is not None and not self.acc_events:
            _warn_once(
                "Warning: Profiler clears events at the end of each cycle. Only events "
                "from the current cycle will be reported. To keep events across "
                "cycles, set acc_events=True."
            )
        if self.profiler is None or not self.acc_events:
            self.profiler = _autograd_profiler.profile(
                use_cpu=ProfilerActivity.CPU in self.activities,
                use_device=self.use_device,
                record_shapes=self.record_shapes,
                with_flops=self.with_flops,
                profile_memory=self.profile_memory,
                with_stack=self.with_stack,
                with_modules=self.with_modules,
                use_kineto=True,
                experimental_config=self.experimental_config,
                acc_events=self.acc_events,
                custom_trace_id_callback=self.custom_trace_id_callback,
                post_processing_timeout_s=self.post_processing_timeout_s,
            )
        self.profiler._prepare_trace()

    def start_trace(self):
        """Start recording into the prepared profile."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        self.profiler._start_trace()
        for flag in ("profile_memory", "with_stack", "record_shapes", "with_modules", "with_flops"):
            if getattr(self, flag):
                self.add_metadata_json(flag, "1")
        for key, value in self.preset_metadata.items():
            self.add_metadata_json(key, value)

    def stop_trace(self):
        """Stop recording (the results are read from ``self.profiler``)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self.profiler.__exit__(None, None, None)

    def export_chrome_trace(self, path, use_python_export=False):
        """Write the last cycle's events to ``path`` as a Chrome trace (gzipped when the
        name ends with ``.gz``)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        if not path.endswith(".gz"):
            return self.profiler.export_chrome_trace(path, self._trace_metadata)
        import gzip  # (imported when a gzipped trace is written)

        plain = path[:-3]
        self.profiler.export_chrome_trace(plain, self._trace_metadata)
        with open(plain, "rb") as fin, gzip.open(path, "wb") as fout:
            shutil.copyfileobj(fin, fout)
        os.remove(plain)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write the events' stacks (needs ``with_stack=True``)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting stacks")
        return self.profiler.export_stacks(path, metric)

    def toggle_collection_dynamic(self, enable, activities):
        """Stop or resume recording the given activities inside the cycle."""
        if self.profiler is None:
            return
        self.profiler.toggle_collection_dynamic(enable, activities)

    def key_averages(
        self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False
    ):
        """The last cycle's events averaged per name (an ``EventList``)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self.profiler.key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name
        )

    def events(self):
        """The last cycle's events, one by one (an ``EventList``)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self.profiler.function_events

    def add_metadata(self, key, value):
        """Add a string field to the exported trace."""
        self._trace_metadata[key] = value

    def add_metadata_json(self, key, value):
        """Add a field (given as JSON text) to the exported trace."""
        import json

        try:
            self._trace_metadata[key] = json.loads(value)
        except ValueError:
            self._trace_metadata[key] = value

    def preset_metadata_json(self, key, value):
        """Add a field to every trace this profiler exports from now on."""
        self.preset_metadata[key] = value


class profile(_KinetoProfile):
    """Context manager timing the jtensor ops run inside it (``torch.profiler.profile``).

    Without ``schedule`` it records from start to stop; with one, call ``prof.step()`` at
    each training step: the schedule says which steps are recorded, and ``on_trace_ready``
    (e.g. ``tensorboard_trace_handler``) gets the profiler after each cycle.
    ``prof.key_averages().table(sort_by="self_cpu_time_total")`` prints PyTorch's table.
    """

    def __init__(
        self, *, activities=None, schedule=None, on_trace_ready=None, use_cuda=None, **options
    ):
        # ``options``: ``_KinetoProfile``'s (record_shapes, profile_memory, with_stack,
        # with_flops, with_modules, acc_events, ...).
        chosen = set(activities) if activities is not None else supported_activities()
        if use_cuda is not None:
            warnings.warn(
                "`use_cuda` is deprecated, use `activities` argument instead",
                FutureWarning,
                stacklevel=2,
            )
            if use_cuda:
                chosen.add(ProfilerActivity.CUDA)
            else:
                chosen.discard(ProfilerActivity.CUDA)
        if not chosen:
            raise AssertionError("No valid profiler activities found")
        super().__init__(activities=chosen, **options)
        if schedule:
            self.schedule = schedule
            self.record_steps = True  # each step becomes a ``ProfilerStep#N`` range
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self.schedule(self.step_num)
        A = ProfilerAction
        # (previous action, next action; None: the profile ends) -> what to do.
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [
                functools.partial(warnings.warn, "Incorrect schedule: WARMUP followed by NONE"),
                self.start_trace,
                self.stop_trace,
            ],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [
                functools.partial(warnings.warn, "Incorrect schedule: RECORD followed by NONE"),
                self.stop_trace,
            ],
            (A.RECORD, A.WARMUP): [
                functools.partial(warnings.warn, "Incorrect schedule: RECORD followed by WARMUP"),
                self.stop_trace,
            ],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready, self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [
                self.stop_trace,
                self._trace_ready,
                self.prepare_trace,
                self.start_trace,
            ],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [
                self.stop_trace,
                self._trace_ready,
                self.prepare_trace,
                self.start_trace,
            ],
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        """Begin: act on the schedule's answer for step 0."""
        self._transit_action(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self):
        """End: close the open step and the recording (``on_trace_ready`` if recording)."""
        self._close_step()
        self._transit_action(self.current_action, None)

    def step(self):
        """Tell the profiler that the next step begins."""
        self._close_step()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(previous, self.current_action)
        self._open_step()

    def _open_step(self):
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _close_step(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    def set_custom_trace_id_callback(self, callback):
        """The trace-id generator of the next cycles."""
        self.custom_trace_id_callback = callback

    def get_trace_id(self):
        """The current cycle's trace id (None before the first)."""
        if self.profiler is None:
            return None
        return self.profiler.trace_id

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, previous, current):
        for action in self.action_map.get((previous, current)) or ():
            action()
