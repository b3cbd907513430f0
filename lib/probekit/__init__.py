"""probekit: the shared library of the probing-methods companion book.

Four layers; a module imports only from its own layer or the layers below it, and a test
(``tests/test_layout.py``) enforces the direction:

- **book** (:mod:`probekit.book`, :mod:`probekit.cli`, :mod:`probekit.teaching`): running
  notebooks, parameters and profiles, content hashes, glue, provenance, the claims ledger,
  building the book, and the course assignments;
- **experiments** (:mod:`probekit.experiments`): one package per part of the book, wiring a
  paper's experiments for its chapters: runs, tables, figures; what two parts share lives
  beside them (no part imports another);
- **methods** (:mod:`probekit.methods`): one package per paper's method (Jabberwocky corpora,
  Pareto probing, extrapolation splits, data-size pools and subsets);
- **core**: paper-agnostic machinery. :mod:`probekit.probes`, :mod:`probekit.stats`,
  :mod:`probekit.trees` and :mod:`probekit.representations` sit on :mod:`probekit.io`
  (treebanks, embeddings, the cache, tasks, saved results), which sits on
  :mod:`probekit.errors` and :mod:`probekit.seeds`.

"Where does this go?" has one answer: paper-agnostic code goes to the core, one paper's method
to ``methods``, wiring a chapter to ``experiments``, building the book to ``book``.
"""

__version__ = "0.1.0"
