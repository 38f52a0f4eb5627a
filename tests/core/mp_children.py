"""Child-process functions for tests/core/test_multiprocessing.py: a process started with
'spawn' imports its target by module name, so they live in this importable module."""


def fill_from_queue(inbox, outbox):
    """Take a tensor from ``inbox``, report what arrived, write into it in place and say
    done."""
    import jtensor as torch

    t = inbox.get()
    outbox.put(
        (
            type(t).__name__,
            t.is_shared(),
            t.requires_grad,
            tuple(t.shape),
            t.stride(),
            t.storage_offset(),
            str(t.dtype),
            t.tolist(),
        )
    )
    with torch.no_grad():
        t.mul_(10)
    outbox.put("done")


def pair_from_queue(inbox, outbox):
    """Take two tensors sent in one message: do they share a storage here as well?"""
    a, b = inbox.get()
    outbox.put(a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr())
    b.fill_(-1)
    outbox.put("done")


def write_rank(i, out, fail_at):
    """``mp.spawn``'s target: ``out[i] = i + 1`` (``out`` arrived in shared memory); the
    process ``fail_at`` raises."""
    if i == fail_at:
        raise ValueError(f"child {i} failed on purpose")
    out[i] = i + 1


def exit_with(i, code):
    """Exit with status ``code`` (no exception)."""
    import sys

    sys.exit(code)


def noop(i):
    pass
