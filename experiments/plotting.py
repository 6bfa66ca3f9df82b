"""The experiments' shared figure style and helpers (the one place that picks matplotlib's backend).

Importing this module selects the non-interactive ``Agg`` backend (figures are files, never
windows) and applies :data:`STYLE`. Helpers: :func:`subplots`, :func:`legend_below` (a legend
under the axes, never over the data), :func:`log_ticks` (readable tick labels on a log axis:
the data's own values, no overlapping minor labels), :func:`cost_axis` (a linear axis for signed
costs, instead of a symlog axis whose ticks read "−10^0"), and :func:`save` (atomic PNG).
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator  # noqa: E402

from ocef.files import atomic_write  # noqa: E402

STYLE = {
    "font.size": 9,
    "axes.titlesize": 9.5,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "legend.framealpha": 0.9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.titlesize": 10,
    "errorbar.capsize": 2,
    "lines.markersize": 4,
}
plt.rcParams.update(STYLE)


def subplots(nrows: int = 1, ncols: int = 1, **kw):
    """:func:`matplotlib.pyplot.subplots` with the shared style (constrained layout by default)."""
    kw.setdefault("layout", "constrained")
    return plt.subplots(nrows, ncols, **kw)


def legend_below(ax, ncol: int | None = None, **kw):
    """A legend under ``ax`` (outside the data area), ``ncol`` columns (default: up to 2)."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    ncol = ncol or min(2, len(handles))
    return ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=ncol,
                     frameon=False, **kw)


def fig_legend_below(fig, ax, ncol: int | None = None, **kw):
    """One legend for the whole figure, under all axes (handles taken from ``ax``)."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    return fig.legend(handles, labels, loc="outside lower center", ncol=ncol or min(4, len(handles)),
                      frameon=False, **kw)


def _plain(v: float) -> str:
    """A tick label without exponent notation: 0.001, 0.05, 1, 2,000, 1e+06 only when huge."""
    if v == 0:
        return "0"
    if abs(v) >= 1e5 or abs(v) < 1e-4:
        return f"{v:.0e}".replace("e+0", "e").replace("e-0", "e-")
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:g}"


def _short(v: float) -> float:
    """Integers as they are (128, 1,600), other values to 2 significant digits (0.0889 -> 0.089)."""
    return float(v) if float(v).is_integer() else float(f"{v:.2g}")


def log_ticks(ax, values, axis: str = "x", max_ticks: int = 8) -> None:
    """Put the major ticks of a log ``axis`` at ``values`` (thinned to ``max_ticks``), labelled in
    plain numbers, and remove the minor labels (which overlap: "3×10⁻¹4×10⁻¹")."""
    vals = np.unique(np.asarray([v for v in values if np.isfinite(v) and v > 0], dtype=float))
    if len(vals) > max_ticks:
        vals = vals[np.unique(np.round(np.linspace(0, len(vals) - 1, max_ticks)).astype(int))]
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(FixedLocator(vals))
    target.set_major_formatter(FuncFormatter(lambda v, _: _plain(_short(v))))
    target.set_minor_formatter(NullFormatter())
    target.set_minor_locator(NullLocator())


def plain_log_labels(ax, axis: str = "y") -> None:
    """Keep matplotlib's log ticks on ``axis`` but label them in plain numbers (10, 100, 1,000)."""
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_formatter(FuncFormatter(lambda v, _: _plain(v)))
    target.set_minor_formatter(NullFormatter())


def cost_axis(ax, label: str) -> None:
    """A linear, signed axis for costs of exploration, with the zero line drawn."""
    ax.axhline(0, color="gray", lw=0.8)
    ax.set_ylabel(label)
    ax.ticklabel_format(axis="y", style="plain", useOffset=False)


def save(fig, path: Path | str, dpi: int = 130) -> Path:
    """Save ``fig`` as a PNG atomically and close it."""
    out = atomic_write(Path(path), lambda p: fig.savefig(p, dpi=dpi, bbox_inches="tight", format="png"))
    plt.close(fig)
    return out


def bounded_yerr(mean, half_width, low: float = 0.0, high: float = 1.0):
    """Asymmetric error bars of ``mean ± half_width`` intersected with ``[low, high]``: for a
    quantity known to lie there (a proportion), the intersection of a confidence interval with the
    parameter space covers at least as often, and no bar is drawn below 0 or above 1.

    Examples
    --------
    >>> [[round(float(x), 3) for x in v] for v in bounded_yerr([0.02, 0.5], [0.05, 0.1])]
    [[0.02, 0.1], [0.05, 0.1]]
    """
    import numpy as np

    mean = np.asarray(mean, dtype=float)
    half = np.asarray(half_width, dtype=float)
    lower = np.clip(mean - half, low, high)
    upper = np.clip(mean + half, low, high)
    return np.vstack([mean - lower, upper - mean])
