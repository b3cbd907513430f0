"""Building the book.

- :mod:`.params`: chapter parameters, profiles and their validation;
- :mod:`.runner`: running one chapter (jupytext, papermill), its content hash and manifest;
- :mod:`.imports`: the library modules a chapter imports (its content hash covers only those);
- :mod:`.provenance`: what built a chapter, and the box that shows it;
- :mod:`.glue`: :class:`~.glue.Glue`, numbers and figures into the prose;
- :mod:`.ledger`: the claims ledger, the papers' headline claims judged on saved results;
- :mod:`.build`: running every chapter, the generated pages and rendering the HTML.
"""
