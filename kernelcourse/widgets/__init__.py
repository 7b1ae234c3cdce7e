"""Widget builders for the lecture notebooks, one module per lecture.

Each builder wires ipywidgets controls to plain package functions that are
unit-tested without a browser; the notebooks only call the builders.
"""
