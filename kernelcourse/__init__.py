"""kernelcourse: the package behind a notebook course on kernel methods.

Each module puts one concept of the lectures into code; the notebooks in
``notebooks/`` call it and explain it, and the exercises check students
against it. See ARCHITECTURE.md for the map.
"""

__version__ = "0.1.0"
