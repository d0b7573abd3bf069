"""What several end-to-end modules share."""

import pytest

from tests.helpers import shared_stacks
from tests.helpers.gateway import PageStack, page_stack, require_tools
from tests.helpers.stack import JudgedStack, judged_stack


@pytest.fixture(scope="module")
def shared_page_stack(tmp_path_factory: pytest.TempPathFactory) -> PageStack:
    """One stack for the page scenarios of folders, history and panels (one xdist group,
    tests/helpers/shared_stacks.py): one start and one ingestion instead of three, ~35 CPU-s each on two EPYC cores."""
    require_tools()
    return shared_stacks.shared("shared_page_stack", lambda: page_stack(tmp_path_factory.mktemp("shared-page-stack")))


@pytest.fixture(scope="module")
def shared_judged_stack(tmp_path_factory: pytest.TempPathFactory) -> JudgedStack:
    """One stack for `precedente eval --judgments` and `precedente panel` (one xdist group): the same five documents
    ingested once instead of twice (151 chunks, ~70 CPU-s on two EPYC cores) and one start instead of two."""
    return shared_stacks.shared("shared_judged_stack", lambda: judged_stack(tmp_path_factory.mktemp("judged-stack")))
