"""Probes: one module per probe family.

- ``structural``: the structural (distance) probe, Hewitt & Manning 2019 / Hall Maudslay et al.
  2020.
- ``perceptron``: the structured-perceptron parser of Hall Maudslay et al. 2020.
- ``mlp``: MLP classifiers and the batched trainer that fits many probes in one pass.
- ``linear``: nuclear-norm and rank-constrained linear probes (Pimentel et al. 2020).
- ``biaffine``: the biaffine dependency-parsing probe (Pimentel et al. 2020, §7.2).
- ``biaffine_stack``: training many parsing probes (configs, controls, seeds) as one stacked
  model, on sentences cached once per split.
- ``training``: the stacked Adam + early-stopping loop shared by ``linear``, ``mlp_stack`` and
  ``biaffine_stack``.
- ``threads``: the torch thread count every probe trains under (Parts I and III).
"""
