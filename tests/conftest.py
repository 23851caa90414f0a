"""Fixtures shared by the test files."""

import pytest
import torch


@pytest.fixture
def torch_globals():
    """train.main sets torch's thread count and deterministic mode; put them back afterwards."""
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    yield
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(deterministic)
