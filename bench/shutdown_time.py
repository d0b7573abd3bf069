"""Seconds `precedente up` takes to stop (SIGTERM) while the indexer is in the middle of a long document, and
whether any service had to be killed (issue 35, point 8: 43 s, ending with a kill).

    nice -n 10 .venv/bin/python bench/shutdown_time.py [--paragraphs 600] [--rounds 1]

A text document of `--paragraphs` generated paragraphs (hundreds of chunks: minutes of embedding on a few cores) is
uploaded; once the ledger says it is annotated (the indexer holds it) and a few batches are persisted, `up` gets
SIGTERM. Printed first: the usable cores and the CPU flags the embedder's pace depends on; per round: the load
average, seconds until `up` exited, each pipeline service's seconds until its process was gone, the "did not stop in
time; killing it" lines, `up`'s own account of its stop (services, broker, database), and what the indexers said
after the signal (a stop ends the embedder call after its pass in hand and hands the document back: the next
indexer reuses the persisted vectors, migration 0015).

Measured (issue 35, point 8), 2 usable cores, avx512_bf16 and AMX, load 5-8: 41.6 s with the indexer killed at 40 s
before 080a699; 3.8-18.8 s, no kill, while the whole 16-chunk call had to end first; 1.1-3.6 s (8 rounds) once the
call ends after its pass of 2 chunks (STOP_SLICE).
"""

import argparse
import random
import signal
import tempfile
import time
from datetime import datetime
from pathlib import Path

import psutil

from precedente.harness import RunningStack
from precedente.shared.embeddings.openvino_e5 import cpu_flags
from precedente.stack import usable_cores

FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8")
"""The CPU features the embedder's pace depends on (OpenVINO picks bf16 and AMX where they are)."""

VOCABULARY = (
    "contrato cláusula rescisão indenização dano moral consumidor fornecedor prestação serviço recurso especial"
    " tribunal acórdão relator sentença apelação prova perícia honorários prescrição decadência juros correção"
    " monetária responsabilidade objetiva solidária empresa sócio desconsideração personalidade jurídica execução"
    " penhora bem imóvel locação despejo aluguel fiador garantia obrigação pagamento mora inadimplemento boa-fé"
)


def document(paragraphs: int, seed: int) -> bytes:
    """Varied paragraphs of legal vocabulary: every chunk its own text, so nothing is deduplicated."""
    rng, words_of = random.Random(seed), VOCABULARY.split()
    lines = [f"Documento de teste de parada {seed}.", ""]
    for i in range(paragraphs):
        words = " ".join(rng.choice(words_of) for _ in range(rng.randint(40, 80)))
        lines += [f"{i + 1}. {words.capitalize()}.", ""]
    return "\n".join(lines).encode()


def pipeline_processes(stack: RunningStack) -> dict[int, str]:
    assert stack.process is not None
    found = {}
    for child in psutil.Process(stack.process.pid).children(recursive=True):
        try:
            cmdline = child.cmdline()
        except psutil.NoSuchProcess:
            continue
        if "serve" in cmdline:
            found[child.pid] = cmdline[-1]
    return found


def alive(process: psutil.Process) -> bool:
    """Running, and not a zombie waiting for `up` to reap it (it reaps its children one after another)."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def one_round(paragraphs: int, seed: int) -> None:
    with tempfile.TemporaryDirectory(prefix="shutdown-") as tmp, RunningStack(Path(tmp)) as stack:
        document_id = stack.upload(content=document(paragraphs, seed), filename=f"parada-{seed}.txt")["document_id"]
        deadline = time.monotonic() + 900
        persisted = "0"
        while time.monotonic() < deadline:
            stage = stack.status(document_id)["stage"]
            persisted = stack.sql(f"SELECT count(*) FROM computed_vectors WHERE document_id = '{document_id}'")
            if stage == "annotated" and int(persisted) >= 32:
                break
            if stage in ("indexed", "failed", "review"):
                raise RuntimeError(f"the document ended {stage} before the stop: use more --paragraphs")
            time.sleep(0.5)
        services = pipeline_processes(stack)
        processes = {pid: psutil.Process(pid) for pid in services}
        assert stack.process is not None
        log_before = len(stack.log_since_start())
        sent, sent_wall = time.monotonic(), time.time()
        stack.process.send_signal(signal.SIGTERM)
        gone_at: dict[str, float] = {}
        while stack.process.poll() is None and time.monotonic() - sent < 120:
            for pid, process in processes.items():
                name = f"{services[pid]}[{pid}]"
                if name not in gone_at and not alive(process):
                    gone_at[name] = time.monotonic() - sent
            time.sleep(0.05)
        total = time.monotonic() - sent
        killed = [line for line in stack.log_since_start()[log_before:].splitlines() if "killing it" in line]
        print(f"round {seed}: {persisted} vectors persisted at SIGTERM; up exited in {total:.1f} s")
        for name, seconds in sorted(gone_at.items(), key=lambda item: item[1]):
            print(f"  {name}: {seconds:.1f} s")
        print(f"  killed: {killed or 'none'}")
        stopped = [line for line in stack.log_since_start()[log_before:].splitlines() if "stopped in" in line]
        print("\n".join(f"  up| {line[:170]}" for line in stopped))  # where up's own stop spent its time
        signalled = datetime.fromtimestamp(sent_wall).strftime("%Y-%m-%d %H:%M:%S,%f")[:23]
        for replica in (0, 1):  # what the indexers said after the signal: handed back, stopped, cancelled
            lines = stack.service_log("indexer", replica).splitlines()
            said = [line for line in lines if line[:23] >= signalled and "callback for Task" not in line]
            print("\n".join(f"  indexer {replica}| {line[:170]}" for line in said))
        stack.process = None  # already stopped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paragraphs", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    flags = " ".join(f for f in FLAGS if f in cpu_flags()) or f"none of {' '.join(FLAGS)}"
    print(f"{usable_cores()} usable cores; CPU flags: {flags}")
    for seed in range(args.rounds):
        print(f"load average {tuple(round(x, 2) for x in psutil.getloadavg())}")
        one_round(args.paragraphs, seed)


if __name__ == "__main__":
    main()
