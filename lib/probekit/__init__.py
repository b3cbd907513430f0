"""probekit: the shared library of the probing-methods companion book.

Each module owns one concern (see DESIGN.md): ``data`` reads treebanks, ``embed`` extracts
representations, ``cache`` stores them, ``trees``/``probes``/``extrapolation``/``pareto``/
``power``/``jabberwocky`` hold the science, ``plots`` the figure style and ``book`` the runner.
"""

__version__ = "0.1.0"
