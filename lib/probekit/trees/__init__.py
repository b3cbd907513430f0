"""Tree machinery for syntactic-distance probing (Hall Maudslay et al. 2020; Hewitt & Manning 2019).

Conventions (heads, parents, edges, distance matrices) are fixed in :mod:`.structure`.

- :mod:`.structure`: validation, padding, conversions between heads, parents and edges;
- :mod:`.spanning`: Prim's minimum spanning tree, one matrix or a padded batch;
- :mod:`.distances`: tree distances, Floyd-Warshall, and back from distances to the tree;
- :mod:`.metrics`: UUAS, DSpr and DSpr P+FW;
- :mod:`.baselines`: the linear chain and the majority tree;
- :mod:`.evaluation`: gold trees of a split and per-sentence metrics of predicted distances.

Nothing is re-exported here: import the module you use.
"""
