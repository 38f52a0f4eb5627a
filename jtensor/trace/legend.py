"""The legend of a trace report: what the labels of ``%%tensortrace`` and
``Trace.to_text()`` mean.

Plain text and plain Python, so that ``jtensor.trace.legend()`` works without IPython;
``%tensortrace --help`` (in ``jtensor.magics``) prints the same text.
"""

__all__ = ["LEGEND", "legend"]

# One place for the wording: the magic's --help and jtensor.trace.legend() must not drift
# apart, and tests/trace checks that every label the report prints is explained here.
LEGEND = """\
How to read a tensortrace report

One row per op:   N  name  kind  inputs -> output [shape] dtype stride (...) offset K  S2 ...
  N               the op's number in the order it ran, grouped under the source line
                  ("line 4") of the traced cell that called it.
  x, y, w         the cell's own variable names for the tensors.
  t1, t2, ...     tensors bound to no variable (temporaries such as the x.t() inside
                  x.t().reshape(6)), numbered in the order they first appear.
  S1, S2, ...     storages (the memory blocks holding the elements), numbered in the order
                  the trace first meets them. Two tensors with the same S number share
                  memory: writing into one changes the other. "storage sharing" lists the
                  named variables per storage.
  G1, G2, ...     autograd graph nodes (grad_fn objects such as MulBackward0), numbered in
                  the order they were created; the "autograd graph" section shows which
                  tensors each node's backward reads.
  v0->v1          the tensor's version counter before and after an in-place op. Autograd
                  compares it with the version it saved: "is at version 1; expected
                  version 0" in a backward error means this write.
  (+48 B)         bytes of new memory the op allocated (48 B = 12 float32 elements of 4
                  bytes); views and in-place ops allocate nothing.
  cuda:0          the tensor's device, shown when it is not the CPU.
  grad_fn=...     the graph node that made the output; requires_grad marks a leaf that
                  records gradients.

Kinds of op:
  allocation      a new tensor from nothing: zeros, ones, arange, randn, tensor(...).
  view            a new tensor header on the SAME storage (same S number): view, t,
                  transpose, slicing, expand, a reshape that could avoid copying.
  copy            a new tensor with its OWN new storage, computed from its inputs. Every
                  out-of-place op is a copy in this sense: mul, add, sum, contiguous,
                  clone. "copy" says where the result lives (fresh memory), not that the
                  values are unchanged: y = x * 2 gets storage of its own, so writing into
                  y never changes x.
  in-place        an op that writes into its input's storage (add_, mul_, x[0] = 1, out=);
                  it allocates nothing and bumps the version counter (v0->v1).
  transfer        a copy between devices (cpu <-> cuda), with its size.
  sync            the host waited for a device (item(), print, .cpu(), synchronize()).
  launch          a kernel queued on an asynchronous device.
  backward-call   a call of backward()/autograd.grad(); backward rows are the graph nodes
                  it ran, with the gradients they produced.
  failed, refused a view that could not be made, an in-place write that autograd refused
                  (the op raised; the report still shows what led to it).
  notice          a call worth knowing about, such as torch.tensor(t) copying a tensor.

Tags after a row:
  [copied]                  a reshape that could not be a view and silently copied.
  [vmap level 1: batch size 4, for mul]
                            the op ran inside torch.func.vmap (level 1 is the outermost
                            vmap, 2 one nested inside it) on a batch of 4, as part of the
                            user's op 'mul': one op for the whole batch, not 4.
                            Nested transforms are listed innermost first, joined by ">".
  [forward AD level 0, for sin]
                            the op ran for forward-mode AD (a dual_level, jvp or jacfwd)
                            to compute the tangent of the user's op 'sin'.

The summary line counts ops by kind, the bytes allocated, the sync points, the transfers
and the pitfalls; the pitfalls section explains each finding (a reshape that copied, a
write into a view, a sync inside a loop, ...).
"""


def legend():
    """The legend of ``%%tensortrace`` / ``Trace.to_text()`` reports, as plain text.

    It explains the labels a report prints (``S1`` storages, ``t3`` temporaries, ``G2``
    graph nodes, ``v0->v1`` versions, ``(+48 B)`` allocations), the kinds of op (``copy``,
    ``view``, ``allocation``, ``in-place``, ...) and the ``[vmap level ...]`` /
    ``[forward AD ...]`` tags. ``print(jtensor.trace.legend())`` shows it;
    ``%tensortrace --help`` prints the same text in IPython.
    """
    return LEGEND
