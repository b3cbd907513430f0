"""What a probe reads, besides the contextual embeddings of :mod:`probekit.io.embeddings`.

- :mod:`.layers`: the one layer resolver (one meaning of negative indices) and per-sentence
  vectors of one layer;
- :mod:`.fasttext`: fastText vectors, trained or pretrained, and their cached table;
- :mod:`.types`: random type vectors, the trainable one-hot table and vocabulary helpers;
- :mod:`.positions`: sinusoidal position vectors.

Nothing is re-exported here: import the module you use.
"""
