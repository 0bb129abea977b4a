"""Settings applied over a whole DataPipe graph (shuffling on/off and its seed)."""

from __future__ import annotations

from .graph import list_dps, traverse_dps


def _shufflers(datapipe) -> list:
    return [dp for dp in list_dps(traverse_dps(datapipe)) if hasattr(dp, "set_shuffle") and hasattr(dp, "set_seed")]


def apply_shuffle_settings(datapipe, shuffle=None):
    """Turn every shuffling DataPipe upstream of ``datapipe`` on or off (None: leave them)."""
    if shuffle is not None:
        for dp in _shufflers(datapipe):
            dp.set_shuffle(shuffle)
    return datapipe


def apply_random_seed(datapipe, rng):
    """Seed every shuffling DataPipe upstream of ``datapipe`` from ``rng`` (a numtorch Generator)."""
    from ... import randint

    for dp in _shufflers(datapipe):
        dp.set_seed(int(randint(0, 2**62, (), generator=rng)))
    return datapipe
