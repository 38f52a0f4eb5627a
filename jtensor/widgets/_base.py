"""The base of every widget: a deterministic snapshot first, an interactive layer on top.

A visual holds plain Python state. ``html()`` draws that state (pure: the same state gives
the same bytes), and that is what ``_repr_html_`` shows in nbviewer, HTML exports and GitHub,
and what nbval compares. Inside a running kernel with ipywidgets installed the display
bundle also carries a live widget (``widget``): controls that change the state and an
``ipywidgets.HTML`` showing ``html()`` of the new state. The snapshot stays in the bundle,
so a front end without the widget manager still shows the picture.
"""

import sys


class Visual:
    """Common machinery; subclasses define ``kind``, ``html()``, ``text()`` and
    ``_controls()`` (the ipywidgets controls, wired to change the state)."""

    kind = "visual"

    _widget = None
    _view = None
    _controls_by_name = None

    # ------------------------------------------------------------------ snapshot
    def _repr_html_(self):
        return self.html()

    def __repr__(self):
        return self.text()

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": self.text(), "text/html": self.html()}
        if _in_kernel():
            try:
                widget = self.widget
            except ImportError:  # no ipywidgets: the snapshot alone
                widget = None
            if widget is not None:
                bundle["application/vnd.jupyter.widget-view+json"] = {
                    "version_major": 2, "version_minor": 0, "model_id": widget.model_id}
        return bundle

    # ------------------------------------------------------------------ interactive layer
    @property
    def widget(self):
        """The interactive form (ipywidgets ``VBox``: controls above the live picture).
        Built on first use; needs ipywidgets."""
        if self._widget is None:
            import ipywidgets

            self._view = ipywidgets.HTML(value=self.html())
            self._view.add_class("jtensor-view")
            controls = self._controls(ipywidgets)
            self._controls_by_name = dict(controls)
            for name, control in controls:
                control.add_class(f"jtensor-control-{name}")
            rows = [control for _, control in controls]
            box = ipywidgets.VBox([ipywidgets.HBox(rows, layout=ipywidgets.Layout(
                flex_flow="row wrap")), self._view] if rows else [self._view])
            box.add_class("jtensor-interactive")
            box.add_class(f"jtensor-interactive-{self.kind}")
            self._widget = box
        return self._widget

    @property
    def controls(self):
        """The interactive layer's controls by name (builds the widget)."""
        self.widget  # noqa: B018 - builds the controls
        return self._controls_by_name

    @property
    def view(self):
        """The ``ipywidgets.HTML`` that shows the current picture (builds the widget)."""
        self.widget  # noqa: B018
        return self._view

    def _controls(self, ipywidgets):
        return []

    def _refresh(self):
        """Redraw the live picture after a state change (no-op before the widget exists)."""
        if self._view is not None:
            self._view.value = self.html()


def _in_kernel():
    """True inside a Jupyter kernel (IPython is imported only if the user's process did)."""
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None:
        return False
    shell = ipython_module.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None
