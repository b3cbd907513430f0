"""Part IV, "Test Harder than You Train" (Kunz & Kuhlmann 2021): the experiments of chapters
41 to 44, wired from the scoring functions and splits of :mod:`probekit.methods.extrapolation`
and the batched MLP trainer of :mod:`probekit.probes.mlp`.
"""
