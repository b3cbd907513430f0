"""Chapter 01, data and representations.

- :mod:`.config`: the chapter's parameters, typed;
- :mod:`.corpus`: sentence and arc lengths and label distributions of the treebank, with figures;
- :mod:`.layerwise`: a first layer-wise picture, linear POS probes on every layer and seed.
"""
