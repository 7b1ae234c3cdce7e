"""Widget builders for the lecture notebooks, one module per lecture.

Each builder wires ipywidgets controls to plain package functions that are
unit-tested without a browser; the notebooks only call the builders.

A widget draws on one :class:`FigureView`: a figure made once when the widget
is built (with :func:`new_figure`, so pyplot never tracks it), whose artists
each move updates in place (``set_data``, ``set_ydata``, ``set_text``, ...),
rendered once per move to a PNG that replaces the bytes of an
``ipywidgets.Image`` standing in the widget. Nothing is cleared and re-shown
(so no plot vanishes while a new one renders), no pyplot state is involved
(which made inline plots blank or vanish in JupyterLab), and the figure is
drawn once per move, not twice as ``bbox_inches="tight"`` does. The figure and
its axes are built once, which was most of the time per move of the old way
(a new figure per move, see :func:`show_figure`).

:func:`new_figure`, :func:`figure_png` and :func:`show_figure` remain for
static plots and for figures shown once.
"""
from __future__ import annotations

import contextlib
import io

import numpy as np

__all__ = ["new_figure", "show_figure", "figure_png", "FigureView", "interactive_figure",
           "FigureInteractive", "widget_builders", "static_png", "describe_figure", "figure_alt"]


def new_figure(nrows: int = 1, ncols: int = 1, figsize=(6.0, 4.0), **subplot_kw):
    """Return ``(fig, axes)`` like ``plt.subplots``, on a figure pyplot does not track.

    ``axes`` is one Axes for a 1x1 grid, else an array of Axes, as in
    ``plt.subplots``; ``subplot_kw`` goes to ``Figure.subplots``.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, **subplot_kw)
    return fig, axes


#: the width in pixels at which JupyterLab's notebook column (and the site's) shows a picture at
#: its own size; a wider one is scaled down to it
DISPLAY_WIDTH = 848


def figure_png(fig, dpi: int = 100, tight: bool = True) -> bytes:
    """Render ``fig`` to PNG bytes on a white background.

    ``tight=True`` crops to the drawn content (``bbox_inches="tight"``, which draws
    the figure twice: once to measure it, once to save it); ``tight=False`` draws it
    once at its own size, as :class:`FigureView` does on every move.
    """
    buffer = io.BytesIO()
    if tight:
        fig.savefig(buffer, format="png", dpi=dpi, facecolor="white", bbox_inches="tight")
        return buffer.getvalue()
    # One draw on the figure's own canvas, then the pixels straight to PNG; ``savefig``
    # would draw twice when the figure has a layout engine, as ``tight_layout`` leaves.
    from PIL import Image

    fig.set_dpi(dpi)
    fig.patch.set_facecolor("white")
    fig.canvas.draw()
    Image.fromarray(np.asarray(fig.canvas.buffer_rgba())).save(buffer, format="png",
                                                               compress_level=1)
    return buffer.getvalue()


def show_figure(fig, dpi: int = 100) -> None:
    """Display ``fig`` as a PNG image in the current output (e.g. a widget's Output)."""
    from IPython.display import Image, display

    display(Image(data=figure_png(fig, dpi=dpi), format="png"))


class FigureView:
    """One figure for the life of a widget, shown through an ``ipywidgets.Image``.

    Build the artists once on ``view.fig`` / ``view.axes`` (the arguments are those of
    :func:`new_figure`), update them in place on each move, then call :meth:`render`.
    ``layout`` is ``"tight"`` (``fig.tight_layout()`` once, at the first render) or None.

    Artists passed to :meth:`animate` are the ones that move: the rest of the figure
    (axes, ticks, labels, legends, fixed curves) is then drawn once and kept as a
    background, and a render only pastes it and draws the moving artists on top (the
    blitting of matplotlib's animations). ``render(full=True)`` draws everything anew,
    for a move that changes what the background shows (axis limits, a colour bar).

    Artists passed to ``animate(..., layer=True)`` move seldom (an axis whose limits follow
    a parameter, and the lines placed on it): they are drawn over the background into a
    second kept picture, which ``render(layer=True)`` draws anew (a move that changes
    them) and any other render only pastes; the moving artists go on top of it.

    Attributes
    ----------
    fig, axes : the figure and its axes (one Axes or an array, as :func:`new_figure`)
    image : ipywidgets.Image holding the last rendered PNG
    renders : int, how many times the figure was rendered
    """

    def __init__(self, nrows: int = 1, ncols: int = 1, figsize=(6.0, 4.0), dpi: int = 100,
                 layout: str | None = "tight", **subplot_kw):
        import ipywidgets as W

        self.dpi = dpi
        # a picture wider than the notebook's column is shown scaled down, and its 9-pt texts
        # with it: a wide figure is made at the column's width, every text at its full size
        width, height = figsize
        if width * dpi > DISPLAY_WIDTH:
            figsize = (DISPLAY_WIDTH / dpi, height * DISPLAY_WIDTH / (width * dpi))
        self._shape = (nrows, ncols, figsize, layout, subplot_kw)
        self._scenes: dict = {}
        self._scene = None                     # no scene named yet (see use)
        self._new_scene()
        self.renders = 0
        # shown at the figure's own size (the widget would otherwise stretch it to the page)
        width = int(round(self.fig.get_figwidth() * dpi))
        # no side margins: the widgets' 2 px each side beside a 100 % width overflowed the output
        # area by 4 px (a horizontal scrollbar under every widget)
        self.image = W.Image(format="png", width=width,
                             layout=W.Layout(max_width="100%", margin="2px 0px"))

    _SCENE_STATE = ("fig", "axes", "_layout", "_moving", "_layer", "_background",
                    "_layer_background", "_positions")

    def _new_scene(self) -> None:
        nrows, ncols, figsize, layout, subplot_kw = self._shape
        self.fig, self.axes = new_figure(nrows, ncols, figsize=figsize, **subplot_kw)
        self.fig.set_dpi(self.dpi)
        self.fig.patch.set_facecolor("white")
        self._layout = layout
        self._moving: list = []
        self._layer: list = []
        self._background = None
        self._layer_background = None
        self._positions: dict = {}

    def use(self, key) -> bool:
        """Draw from now on on the figure of scene ``key``; True when it is new (empty: build
        its artists), False when it was made before (its artists and backgrounds are kept).

        For a control that changes the whole drawing (another model, other panels): each of
        its values gets a figure of its own, drawn whole once; coming back to a value is then
        a render like any other, never a new full draw. ``image`` and ``renders`` are shared.
        The first call adopts the figure made with the view.
        """
        if key == self._scene:
            return False
        if self._scene is None:                # the first call: the figure made with the view
            self._scene = key
            return True
        self._scenes[self._scene] = {name: getattr(self, name) for name in self._SCENE_STATE}
        self._scene = key
        if key in self._scenes:
            for name, value in self._scenes.pop(key).items():
                setattr(self, name, value)
            return False
        self._new_scene()
        return True

    def draw_scenes(self, keys, current, draw) -> None:
        """Draw now the figure of every scene in ``keys`` but ``current`` (``draw(key)``, which
        calls :meth:`use` and renders without showing), so that no move to another value of
        the control draws a whole figure; then go back to ``current``."""
        for key in keys:
            if key != current:
                draw(key)
        self.use(current)

    def animate(self, *artists, layer: bool = False) -> None:
        """Mark ``artists`` as the moving ones (drawn on every render, over the background),
        or with ``layer=True`` as the seldom moving ones (see the class).

        Call it before the first render, after :meth:`restart`, or with artists made
        since the last render (a new contour set): the background is kept, and an
        artist already drawn into it would stay there as a ghost.
        """
        for artist in artists:
            if artist is not None and artist not in self._moving and artist not in self._layer:
                artist.set_animated(True)
                (self._layer if layer else self._moving).append(artist)

    def forget(self, artist) -> None:
        """Remove a moving artist from the figure (e.g. a contour replaced by a new one)."""
        if artist is not None:
            for kept in (self._moving, self._layer):
                if artist in kept:
                    kept.remove(artist)
            artist.remove()

    def restart(self) -> None:
        """Clear every axes and forget the moving artists, to draw the figure anew.

        Each axes gets back its automatic aspect and the place the first render's layout
        gave it (an equal aspect ratio shrinks an axes' box, and clearing does not undo it).
        """
        for ax in self.fig.axes:
            ax.clear()
            ax.set_aspect("auto")              # clear() keeps an equal aspect ratio set before
            if ax in self._positions:
                ax.set_position(self._positions[ax])
        self._moving.clear()
        self._layer.clear()
        self._background = None
        self._layer_background = None

    def show(self, png: bytes) -> bytes:
        """Show a picture :meth:`render` made earlier (kept by a widget whose moves come back
        to the same state), without drawing; it counts as a render."""
        self.image.value = png
        self.renders += 1
        return png

    def render(self, full: bool = False, layer: bool = False, show: bool = True) -> bytes:
        """Draw the figure and show it: the Image's bytes are replaced, never removed.

        ``full``: draw everything anew (background, layer, moving artists); ``layer``:
        draw the seldom moving artists anew over the kept background; ``show=False``: draw
        (and keep the backgrounds) without showing it or counting a render, e.g. a scene
        of :meth:`use` drawn ahead of the move that will show it.
        """
        from PIL import Image

        canvas = self.fig.canvas
        animated = self._moving + self._layer
        anew = full or self._background is None or not animated
        if anew:
            legible_fonts(self.fig)            # texts made since (a new legend) too
        if self._layout == "tight":
            self.fig.tight_layout()
            self.fig.set_layout_engine(None)   # else every later draw would run it again
            self._layout = None
        if not self._positions:
            self._positions = {ax: ax.get_position(original=True) for ax in self.fig.axes}
        if anew:
            # The background must hold none of the moving artists. Matplotlib leaves
            # animated artists out of a draw only where its containers filter them (an
            # axes' children, the figure's texts), not an axis label or a title drawn by
            # its axis or axes, whose old pixels would then stay under every new one:
            # make them all transparent while the background is drawn (not invisible: an
            # invisible title has no extent, and its axes would move it off the figure).
            hidden = [(a, a.get_alpha()) for a in animated]
            for artist, _ in hidden:
                artist.set_alpha(0.0)
            try:
                canvas.draw()
            finally:
                for artist, alpha in hidden:
                    artist.set_alpha(alpha)
            self._background = canvas.copy_from_bbox(self.fig.bbox)
            self._layer_background = None
        if self._layer and (layer or self._layer_background is None):
            canvas.restore_region(self._background)
            for artist in _drawn(self._layer):
                self.fig.draw_artist(artist)
            self._layer_background = canvas.copy_from_bbox(self.fig.bbox)
        elif not anew:
            canvas.restore_region(self._layer_background if self._layer else self._background)
        for artist in _drawn(self._moving):
            self.fig.draw_artist(artist)
        buffer = io.BytesIO()
        Image.fromarray(np.asarray(canvas.buffer_rgba())).save(buffer, format="png",
                                                               compress_level=1)
        png = buffer.getvalue()
        if show:
            self.image.value = png
            self.renders += 1
        return png


def _drawn(artists) -> list:
    """``artists`` in z-order, as a full draw would stack them (a stable sort keeps equal ones
    in order), without those of a hidden axes (a full draw leaves a hidden axes' artists out)."""
    shown = [a for a in artists if getattr(a, "axes", None) is None or a.axes.get_visible()]
    return sorted(shown, key=lambda a: a.get_zorder())


def interactive_figure(update, view: FigureView, controls: dict, **attributes):
    """``ipywidgets.interactive(update, **controls)`` with ``view``'s image above its output.

    The returned widget's children are the controls, ``view.image`` (the plot, which stays
    in place while the controls move) and the output (what ``update`` prints). It also
    gets the attributes ``controls``, ``view`` and any given in ``attributes``.
    """
    import functools

    import ipywidgets as W

    @functools.wraps(update)
    def one_thread(*args, **kwargs):
        # a widget's matrices are small: BLAS threads only fight over the cores (a 300 x 300
        # eigendecomposition took 3 ms on one thread and up to 500 ms on two, under load)
        printed = io.StringIO()
        try:
            with _one_blas_thread(), contextlib.redirect_stdout(printed):
                return update(*args, **kwargs)
        finally:
            # the readout, in lines short enough that the page never breaks inside a number
            text = wrap_readout(printed.getvalue())
            if text:
                print(text, end="")

    for control in controls.values():          # a description shown whole, never "log10 ga..."
        if getattr(control, "description", "") and hasattr(control, "style") \
                and hasattr(control.style, "description_width"):
            control.style.description_width = "initial"
    widget = __getattr__("FigureInteractive")(one_thread, **controls)
    widget.children = (*widget.kwargs_widgets, view.image, widget.out)
    widget.controls = controls
    widget.view = view
    widget.summary = _builder_summary(update)
    for name, value in attributes.items():
        setattr(widget, name, value)
    return widget


def _builder_summary(update) -> str:
    """What a widget shows, in words: the first sentence of the docstring of the builder whose
    ``update`` this is (``margin_widget.<locals>.update`` -> ``margin_widget``), without its
    ``Widget:`` label and markup; empty when there is none."""
    import re
    import sys

    module = sys.modules.get(getattr(update, "__module__", ""), None)
    builder = getattr(module, getattr(update, "__qualname__", "").split(".")[0], None)
    doc = (getattr(builder, "__doc__", None) or "").strip().split("\n\n")[0]
    doc = re.sub(r"\s+", " ", doc.replace("``", ""))
    doc = re.sub(r"^(The [\w -]+ widget|Widget)( \([^)]*\))?: ", "", doc)
    first = re.split(r"(?<=[a-z)])\. ", doc)[0].rstrip(".")
    return first[:1].upper() + first[1:] if re.match(r"[a-z]+\b(?![\d(])", first) else first


def describe_figure(fig) -> str:
    """The panels of ``fig`` in words: each visible axes' title and what it plots against what
    (its axis labels), for the alt text of a picture."""
    import re

    parts = []
    for ax in fig.axes:
        if not ax.get_visible() or not (ax.get_xlabel() or ax.get_ylabel() or ax.get_title()):
            continue
        title = " ".join(t for t in (ax.get_title("left"), ax.get_title(), ax.get_title("right")) if t)
        x, y = ax.get_xlabel(), ax.get_ylabel()
        axes = f"{y} against {x}" if x and y else (x or y)
        parts.append(f"{axes} ({title})" if title and axes else (title or axes))
    return tex_to_plain("; ".join(p for p in parts if p))


#: TeX commands of the figures' labels, in plain text for an alt text (Greek letters are
#: spelled out by :func:`tex_to_plain`)
_TEX_WORDS = {"leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "langle": "⟨", "rangle": "⟩",
              "top": "ᵀ", ",": " ", ";": " ", "!": "", "|": "||", "lVert": "||", "rVert": "||",
              "Vert": "||", "cdot": "·", "times": "×", "pm": "±", "infty": "infinity", "to": "→",
              "log": "log", "exp": "exp", "sqrt": "sqrt", "ell": "l", "sum": "sum", "mid": "|"}
_GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta kappa lambda mu nu xi pi rho "
          "sigma tau phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega").split()
#: accents, spoken after their argument: \hat\mu -> "mu-hat"
_ACCENTS = {"hat": "-hat", "bar": "-bar", "tilde": "-tilde", "widehat": "-hat", "overline": "-bar"}


def tex_to_plain(text: str) -> str:
    """A label's TeX in plain words, for an alt text: ``$\\hat\\mu_X(t)$`` -> ``mu-hat_X(t)``,
    ``$\\log_{10}\\gamma$`` -> ``log10 gamma``, ``\\mathrm{MMD}^2`` -> ``MMD^2``. Commands it does
    not know keep their name (``\\foo`` -> ``foo``); none is dropped with its meaning."""
    import re

    text = text.replace("$", "")
    text = re.sub(r"\\(?:mathrm|text|mathbf|mathit|operatorname|boldsymbol|mathcal)\s*\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"\\log_\{?10\}?", "log10 ", text)
    text = re.sub(r"\\(lVert|langle)\s*", lambda m: "||" if m.group(1) == "lVert" else "⟨", text)
    for accent, suffix in _ACCENTS.items():
        text = re.sub(r"\\" + accent + r"\s*(\\[a-zA-Z]+|\{[^{}]*\}|[A-Za-z0-9])",
                      lambda m: m.group(1).strip("{}") + suffix, text)
    for tex, plain in _TEX_WORDS.items():
        text = re.sub(re.escape("\\" + tex) + r"(?![a-zA-Z])", plain, text)
    for letter in _GREEK:
        name = letter.replace("var", "")
        text = re.sub(r"\\" + letter + r"(?=[0-9])", name + " ", text)       # \gamma2 -> "gamma 2"
        text = re.sub(r"\\" + letter + r"(?![a-zA-Z])", name, text)
    text = re.sub(r"\\([a-zA-Z]+)", r"\1", text)                   # unknown commands: their name
    text = re.sub(r"_\{([^{}]*)\}", r"_\1", text)
    text = re.sub(r"\^\{([^{}]*)\}", r"^\1", text)
    text = text.replace("\\", "").replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", text).strip()


def figure_alt(widget) -> str:
    """The alt text of a widget's stored picture: what the widget shows (its builder's
    summary), the controls' values the picture was drawn at, and its panels."""
    values = []
    for name, control in (getattr(widget, "controls", {}) or {}).items():
        label = getattr(control, "description", "") or name
        value = getattr(control, "value", "")
        values.append(f"{label} = {value:g}" if isinstance(value, float) else f"{label} = {value}")
    view = getattr(widget, "view", None)
    panels = describe_figure(view.fig) if view is not None else ""
    text = getattr(widget, "summary", "") or "An interactive figure"
    if values:
        text += f", drawn at {', '.join(values)}"
    if panels:
        text += f". Panels: {panels}"
    return text + "."


#: the smallest font, in points, of a widget's figure (legends and ticks included)
MIN_FONT_POINTS = 9.0


def legible_fonts(fig, points: float = MIN_FONT_POINTS) -> None:
    """Raise every text of ``fig`` (titles, labels, ticks, legends) to at least ``points``.

    The texts are reached through their owners, not by ``fig.findobj``: walking an axis'
    children makes its ticks (a log axis has dozens of minor ones), which cost a move more
    than its draw. Ticks already made are looked at where they are kept."""
    for text in _texts(fig):
        if text is not None and text.get_fontsize() < points:
            text.set_fontsize(points)
    for ax in fig.axes:                       # ticks made later take the axis' tick size
        for axis in (ax.xaxis, ax.yaxis):
            for which in ("major", "minor"):
                made = axis.__dict__.get(f"{which}Ticks", ())   # never made here: made lazily
                size = axis._major_tick_kw.get("labelsize") if which == "major" else \
                    axis._minor_tick_kw.get("labelsize")
                if size is None or (isinstance(size, (int, float)) and size < points):
                    axis.set_tick_params(which=which, labelsize=max(points, _tick_size(axis)))
                for tick in made:
                    for label in (tick.label1, tick.label2):
                        if label.get_fontsize() < points:
                            label.set_fontsize(points)


def _texts(fig):
    """Every text of ``fig`` but its tick labels: the figure's, and each axes' titles, axis
    labels, offset texts, annotations and legend texts."""
    import matplotlib.text as mtext

    yield from (t for t in fig.texts)
    for legend in fig.legends:
        yield from legend.get_texts()
        yield legend.get_title()
    for ax in fig.axes:
        yield from (ax.title, ax._left_title, ax._right_title)
        for axis in (ax.xaxis, ax.yaxis):
            yield axis.label
            yield axis.offsetText
        yield from (c for c in ax.get_children() if isinstance(c, mtext.Text)
                    and c not in (ax.title, ax._left_title, ax._right_title))
        legend = ax.get_legend()
        if legend is not None:
            yield from legend.get_texts()
            yield legend.get_title()


def _tick_size(axis) -> float:
    """The size of ``axis``' tick labels: a tick's already made, else the rc parameters'."""
    from matplotlib import rcParams
    from matplotlib.font_manager import FontProperties

    ticks = axis.__dict__.get("majorTicks")
    if ticks:
        return float(ticks[0].label1.get_fontsize())
    size = rcParams[f"{axis.axis_name}tick.labelsize"]
    return float(FontProperties(size=size).get_size_in_points())


def static_png(png: bytes) -> bytes:
    """``png`` re-encoded small (full zlib compression), for the picture stored in a notebook."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.open(io.BytesIO(png)).save(buffer, format="png", optimize=True)
    return buffer.getvalue()


def _figure_interactive_class():
    import ipywidgets as W

    class FigureInteractive(W.interactive):
        """``ipywidgets.interactive`` whose display also carries a PNG of its figure.

        The output bundle of a widget cell holds, beside the live widget's view, the
        picture the widget showed when it was displayed (``image/png``) and a one-line
        text: a page that cannot run widgets (GitHub, nbviewer, an HTML export, an
        untrusted notebook in JupyterLab) shows the figure instead of the widget's repr,
        and a live JupyterLab shows the widget. The picture's metadata carries its alt
        text (:func:`figure_alt`: what the widget shows, at which values), which the
        course's website gives the image.
        """

        def _repr_mimebundle_(self, **kwargs):
            import base64

            bundle = super()._repr_mimebundle_(**kwargs)
            if bundle is None:
                return None
            view = getattr(self, "view", None)
            png = getattr(getattr(view, "image", None), "value", b"")
            names = ", ".join(getattr(self, "controls", {}) or ())
            bundle["text/plain"] = (f"[an interactive figure: run the notebook to move its "
                                    f"controls ({names})]")
            if png:
                bundle["image/png"] = base64.b64encode(static_png(png)).decode("ascii")
                return bundle, {"image/png": {"alt": figure_alt(self)}}
            return bundle

    return FigureInteractive


def __getattr__(name):
    # made on first use, so importing this package does not import ipywidgets
    if name == "FigureInteractive":
        if "FigureInteractive" not in globals():
            globals()["FigureInteractive"] = _figure_interactive_class()
        return globals()["FigureInteractive"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: the lecture modules whose widgets :func:`widget_builders` finds
_LECTURE_MODULE = "kernelcourse.widgets.lecture"


def widget_builders() -> dict[str, object]:
    """Every widget builder of every lecture module, found by name, in lecture order:
    ``{"lecture4.kernel_builder": function, ...}``.

    A builder is a public function (listed in its module's ``__all__``) of a module
    ``kernelcourse.widgets.lectureN`` whose name ends with ``_widget`` or ``_builder``
    and that returns an interactive widget with ``controls`` and ``view``. A new
    lecture's module joins the tests and the benchmark by following this naming.
    """
    import importlib
    import pkgutil
    import re

    import kernelcourse.widgets as package

    found = {}
    modules = [m.name for m in pkgutil.iter_modules(package.__path__)
               if re.fullmatch(r"lecture\d+", m.name)]
    for name in sorted(modules, key=lambda m: int(m[len("lecture"):])):
        module = importlib.import_module(f"{_LECTURE_MODULE}{name[len('lecture'):]}")
        for attr in getattr(module, "__all__", ()):
            if attr.endswith(("_widget", "_builder")) and callable(getattr(module, attr)):
                found[f"{name}.{attr}"] = getattr(module, attr)
    return found


#: the longest line of a widget's printed readout (the notebook's default width holds ~95)
READOUT_WIDTH = 88


def wrap_readout(text: str, width: int = READOUT_WIDTH) -> str:
    """``text`` with each line longer than ``width`` broken between words (never inside a
    number or a word), the continuation indented by two spaces."""
    import textwrap

    lines = []
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
        else:
            lines.extend(textwrap.wrap(line, width=width, subsequent_indent="  ",
                                       break_long_words=False, break_on_hyphens=False))
    return "\n".join(lines)


def _one_blas_thread():
    """A context in which numpy's BLAS and LAPACK use one thread (threadpoolctl, which
    scikit-learn installs; a no-op context without it)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        import contextlib
        return contextlib.nullcontext()
    return threadpool_limits(limits=1)
