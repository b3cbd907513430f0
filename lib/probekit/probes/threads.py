"""How many CPU threads the probes train with.

The structural probe and the parser of Part I (Hall Maudslay et al. 2020, §3-4; Hall Maudslay &
Cotterell 2021, §5.1) and the probes of Part III (Pimentel et al. 2020, §6 and §7.2) all train
under :func:`torch_threads`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

from probekit.errors import ParameterError


@contextlib.contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run a block with ``n`` torch intra-op threads, then restore the previous number.

    None leaves the setting alone.

    The probes' matrix products are small (a batch of sentences of at most 50 words, or a
    minibatch of word vectors), so a second thread mostly waits on synchronisation: on the
    shared 2-core machine one thread trained ~5-20x faster in our measurements as soon as
    another process competes for a core. Embedding (large products) keeps the default.
    """
    if n is None:
        yield
        return
    if n < 1:
        raise ParameterError("threads", f"must be >= 1, got {n}")
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)
