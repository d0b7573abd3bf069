"""The table finder's layout model (ONNX Runtime, inside PyMuPDF) runs on one thread in the extractor."""

import os
import subprocess
import sys

PROCESS_THREADS = """
import precedente.services.extractor.logic  # what the extractor and its reading children import
import psutil
print(psutil.Process().num_threads())
"""


def _threads(ort_threads: str | None) -> int:
    env = {k: v for k, v in os.environ.items() if k != "ORT_INTRA_OP_NUM_THREADS"}
    if ort_threads is not None:
        env["ORT_INTRA_OP_NUM_THREADS"] = ort_threads
    done = subprocess.run([sys.executable, "-c", PROCESS_THREADS], env=env, capture_output=True, text=True, check=True)
    return int(done.stdout.split()[-1])


def test_the_layout_model_s_sessions_start_no_thread_pool_of_their_own() -> None:
    """ONNX Runtime's default pool takes every physical core and spins while it waits; on 2 cores the layout step
    used 30.5 s of CPU for 16.9 s of work, beside indexers that needed the CPU. precedente sets one thread unless
    the deployment says otherwise: its sessions (made at `import pymupdf`) then start no pool threads at all."""
    product = _threads(None)
    two_each = _threads("2")
    assert two_each > product, (product, two_each)  # each of the layout's sessions adds a pool thread at 2
