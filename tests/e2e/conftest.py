"""What several end-to-end modules share."""

from collections.abc import Iterator

import pytest

from tests.helpers.gateway import PageStack, page_stack, require_tools


@pytest.fixture(scope="session")
def shared_page_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PageStack]:
    """One stack for the page scenarios of folders, history and panels (marked SHARED_PAGE_STACK, so one worker
    runs them all): one start and one ingestion instead of three, ~35 CPU-s each on two EPYC cores."""
    require_tools()
    with page_stack(tmp_path_factory.mktemp("shared-page-stack")) as shared:
        yield shared
