"""Chapter 01, data and representations: the treebank, the encoder's layers, and a first
layer-wise picture of what they hold (:mod:`.layerwise`).
"""
