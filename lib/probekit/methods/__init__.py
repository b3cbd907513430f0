"""One package or module per paper's method, built on the core.

The core is :mod:`probekit.io`, :mod:`probekit.trees`, :mod:`probekit.stats`,
:mod:`probekit.representations` and :mod:`probekit.probes`. The packages:

- :mod:`.jabberwocky`: Jabberwocky corpora (Hall Maudslay & Cotterell 2021, §3);
- :mod:`.pareto`: Pareto frontiers, controls and lookups (Pimentel et al. 2020);
- :mod:`.extrapolation`: scoring functions and extrapolation splits (Kunz & Kuhlmann 2021);
- :mod:`.datasize`: task pools, stratified subsets, the recommendation procedure and collapse
  checks (Zhu et al. 2022);
- :mod:`.selectivity`: control tasks and selectivity (Hewitt & Liang 2019);
- :mod:`.mdl`: description length with the online code (Voita & Titov 2020).
"""
