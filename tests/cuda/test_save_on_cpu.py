"""``torch.autograd.graph.save_on_cpu`` on the (emulated) GPU: saved tensors wait on the CPU,
in pinned memory when asked, and come back to their device for backward."""

import jtensor


def _packed_by(hooks, fn):
    """``fn()`` run under ``hooks``, and what its pack hook returned for each saved tensor."""
    packed = []
    with jtensor.autograd.graph.saved_tensors_hooks(
        lambda t: packed.append(hooks.pack_hook(t)) or packed[-1], hooks.unpack_hook
    ):
        out = fn()
    return out, packed


def test_saved_tensors_wait_on_the_cpu(emulated):
    a = jtensor.randn(5, device="cuda", requires_grad=True)
    b = jtensor.randn(5, device="cuda", requires_grad=True)
    for pin in (False, True):
        hooks = jtensor.autograd.graph.save_on_cpu(pin_memory=pin)
        y, packed = _packed_by(hooks, lambda: (a * b).exp())
        assert [(str(d), p.device.type, p.is_pinned()) for d, p in packed] == [
            ("cuda:0", "cpu", pin)
        ] * 3
        emulated.synchronize()  # (a pinned copy is queued: read it after a sync)
        assert [p.tolist() for _, p in packed[:2]] == [b.tolist(), a.tolist()]
        saved = y.grad_fn._saved_result  # back on its device, with its node
        assert saved.device.type == "cuda" and saved.grad_fn is y.grad_fn
        a.grad = b.grad = None
        y.sum().backward()
        emulated.synchronize()
        expected = (a * b).exp().detach()
        assert a.grad.device.type == "cuda"
        assert jtensor.allclose(a.grad.cpu(), (expected * b.detach()).cpu())
        assert jtensor.allclose(b.grad.cpu(), (expected * a.detach()).cpu())


def test_as_a_context_in_a_model(emulated):
    model = jtensor.nn.Sequential(
        jtensor.nn.Linear(4, 8), jtensor.nn.ReLU(), jtensor.nn.Linear(8, 2)
    ).to("cuda")
    x = jtensor.randn(3, 4, device="cuda")
    expected = None
    for offload in (False, True):
        model.zero_grad()
        if offload:
            with jtensor.autograd.graph.save_on_cpu(pin_memory=True):
                loss = model(x).square().sum()
        else:
            loss = model(x).square().sum()
        loss.backward()
        grads = [p.grad.cpu() for p in model.parameters()]
        if expected is None:
            expected = grads
        else:
            assert all(jtensor.allclose(g, e) for g, e in zip(grads, expected, strict=True))
