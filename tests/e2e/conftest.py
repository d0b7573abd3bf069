"""What several end-to-end modules share."""

import pytest

from tests.helpers import shared_stacks
from tests.helpers.gateway import PageStack, page_stack, require_tools


@pytest.fixture(scope="module")
def shared_page_stack(tmp_path_factory: pytest.TempPathFactory) -> PageStack:
    """One stack for the page scenarios of folders, history and panels (one xdist group,
    tests/helpers/shared_stacks.py): one start and one ingestion instead of three, ~35 CPU-s each on two EPYC cores."""
    require_tools()
    return shared_stacks.shared("shared_page_stack", lambda: page_stack(tmp_path_factory.mktemp("shared-page-stack")))
