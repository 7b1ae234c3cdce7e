"""Control values for the widget-state test: for every control of a widget, its two ends
(sliders), each of its options (dropdowns, toggles, selection sliders) or both states (check
boxes), which :func:`extremes` lists, and a value inside its range (:func:`final_value`).
"""
from __future__ import annotations


def _options(control) -> list:
    """The values a selection control can take (``options`` may be labels or pairs)."""
    values = []
    for option in control.options:
        values.append(option[1] if isinstance(option, tuple) else option)
    return values


def _on_grid(control, value):
    step = getattr(control, "step", None) or 1
    value = control.min + round((value - control.min) / step) * step
    value = min(max(value, control.min), control.max)
    return int(value) if isinstance(control.value, int) and not isinstance(control.value, bool) \
        else float(value)


def ends(control) -> list:
    """The extreme values of a control: a slider's min and max, a selection's first and last
    option, a check box's two states."""
    if hasattr(control, "min") and hasattr(control, "max"):
        if hasattr(control, "base"):            # a log slider: value = base ** exponent
            return [control.base ** control.min, control.base ** control.max]
        return [_on_grid(control, control.min), _on_grid(control, control.max)]
    if hasattr(control, "options"):
        values = _options(control)
        return [values[0], values[-1]]
    if isinstance(control.value, bool):
        return [not control.value, control.value]
    raise TypeError(f"no ends for {type(control).__name__}")


def extremes(control) -> list:
    """The values the legibility test shows a control at, one at a time: a slider's two
    ends, every option of a selection (dropdowns, toggles, selection sliders), a check
    box's two states."""
    if hasattr(control, "options"):
        return _options(control)
    return ends(control)


def final_value(control):
    """A value other than the start, inside the range: where both widgets of the
    state-not-history test end (after the moved one's path through the extremes)."""
    if hasattr(control, "min") and hasattr(control, "max"):
        for frac in (0.37, 0.63, 0.2):
            v = _on_grid(control, control.min + frac * (control.max - control.min))
            if hasattr(control, "base"):        # a log slider: min and max are exponents
                v = control.base ** v
            if v != control.value:
                return v
        return control.value
    if hasattr(control, "options"):
        values = _options(control)
        others = [v for v in values if v != control.value]
        return others[len(others) // 2] if others else control.value
    if isinstance(control.value, bool):
        return not control.value
    return control.value
