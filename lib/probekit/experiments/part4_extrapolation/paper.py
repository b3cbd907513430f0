"""What Kunz & Kuhlmann 2021 report that a Part IV rule reads, and the SESOI derived from it.

One place for them, so that no number of the paper is typed twice.
"""

from __future__ import annotations

# §4.3, the most-frequent-tag split: the gap of each setup to the standard setup in points, as
# the paper gives it, a range over BERT's 13 layers (smallest, largest): "11–35 points for the
# control, and 23–42 points for the extrapolation setup".
MFT_CONTROL_GAP: tuple[float, float] = (11.0, 35.0)
MFT_EXTRAPOLATION_GAP: tuple[float, float] = (23.0, 42.0)


def layer_gap_bounds(
    control: tuple[float, float], extrapolation: tuple[float, float]
) -> dict[str, tuple[float, float]]:
    """Bounds on control − extrapolation at each layer where one of the paper's ranges ends.

    Kunz & Kuhlmann 2021, §4.3 give the gaps of the control and of the extrapolation setup to
    the standard setup as ranges over the layers, ``control`` = (c_min, c_max) and
    ``extrapolation`` = (e_min, e_max), in points. At one layer, control − extrapolation =
    (standard − extrapolation) − (standard − control), both gaps of that layer, so a difference
    of two ends that may lie in different layers (e_min − c_min) describes no layer. Read per
    layer, an end fixes one gap and the other range bounds the other, at the layer where

    - "control largest", the control's gap is c_max: [e_min − c_max, e_max − c_max];
    - "control smallest", it is c_min: [e_min − c_min, e_max − c_min];
    - "extrapolation largest", the extrapolation's is e_max: [e_max − c_max, e_max − c_min];
    - "extrapolation smallest", it is e_min: [e_min − c_max, e_min − c_min].

    Returns these (low, high) bounds, in points, by name.
    """
    c_min, c_max = control
    e_min, e_max = extrapolation
    return {
        "control largest": (e_min - c_max, e_max - c_max),
        "control smallest": (e_min - c_min, e_max - c_min),
        "extrapolation largest": (e_max - c_max, e_max - c_min),
        "extrapolation smallest": (e_min - c_max, e_min - c_min),
    }


def mft_gap_sesoi() -> float:
    """IV.3's SESOI, a fraction: half the paper's control − extrapolation gap at its weakest layer.

    Read per layer (:func:`layer_gap_bounds` of :data:`MFT_CONTROL_GAP` and
    :data:`MFT_EXTRAPOLATION_GAP`), the paper's ranges leave at most 42 − 35 = 7 points at the
    layer where the control is furthest below the standard setup, whatever the other layers
    show; where the extrapolation setup is furthest below it, at least 7 (§4.3 puts its "very
    low accuracy" in the first layers: if the control's largest gap lies there too, the gap
    there is exactly 7 points). The difference of the lower ends, 23 − 11 = 12 points, bounds
    the gap only at the layer of the control's smallest gap. The SESOI is half the paper's gap
    at its weakest layer, at most 7 points: 3.5 points, the convention of the part's other gap
    claims (half the paper's effect).
    """
    weakest = layer_gap_bounds(MFT_CONTROL_GAP, MFT_EXTRAPOLATION_GAP)["control largest"][1]
    return weakest / 2 / 100
