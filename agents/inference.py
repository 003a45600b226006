"""A network's inference for a player or a search: on one torch thread, the process's own count restored after.

Batch-one and small-batch inference gains nothing from more threads, and on a busy machine they contend badly
(a decision on two threads, with both cores loaded, takes many times as long as on one). Restoring the count keeps a
player from slowing the training of the process that seats it; a switch costs under a microsecond.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def one_thread() -> Iterator[None]:
    """Torch on one thread inside the block, the caller's count after it."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@contextmanager
def inference() -> Iterator[None]:
    """Torch's inference mode (no autograd) on :func:`one_thread`."""
    import torch

    with one_thread(), torch.inference_mode():
        yield
