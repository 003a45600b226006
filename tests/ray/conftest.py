"""One local Ray with two CPUs for the whole session (as CI runs it), shared by the Ray tests."""

import pytest


@pytest.fixture(scope="session")
def local_ray():
    """A Ray started once: the backend and the trainer use a Ray already running in the process, as it is."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=256 * 2**20, log_to_driver=False)
    yield ray
    ray.shutdown()
