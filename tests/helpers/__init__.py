"""What several test modules need, in one place: test modules import from here (or from the code under
test), never from one another; tests/test_layout.py checks it. Fixtures stay in the conftest.py files."""
