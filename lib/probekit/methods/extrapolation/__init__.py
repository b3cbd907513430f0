"""Extrapolation splits of Kunz & Kuhlmann 2021, "Test Harder than You Train".

Its modules:

- :mod:`.scores`: the scoring functions of §3.4 (higher means harder);
- :mod:`.splits`: split points, easy and hard sets, and the setups of §3.5-3.6;
- :mod:`.grid`: the probes of §3.6 over layers x seeds x setups, and the §3.4.3 ensemble.
"""
